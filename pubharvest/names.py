"""Personal names as the sites write them, split into the parts citation formats want.

Scholar writes initials run together before the family name ("RY Aminabadi"), MSR and Elamur
write full names ("Reza Yazdani Aminabadi"), and some authors are groups ("BigScience Workshop").

>>> split_name("RY Aminabadi")
NameParts(family='Aminabadi', given='R. Y.', particle=None, suffix=None, literal=None)
>>> split_name("T van de Ven").particle, split_name("T Le Scao").family
('van de', 'Le Scao')
>>> split_name("BigScience Workshop").literal
'BigScience Workshop'
>>> name_key("O Ruwase") == name_key("Olatunji Ruwase")
True
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import NamedTuple

from pubharvest.parsers.text import is_initials  # Scholar's initials ("RY"): the parsers' rule

# Lower-case words that start a family name ("van de Ven"): CSL's non-dropping particle.
PARTICLES = frozenset({
    "van", "von", "de", "der", "den", "del", "della", "di", "da", "do", "dos", "das", "du", "la", "le",
    "ter", "ten", "zu", "zum", "zur", "af", "av", "bin", "ibn", "al", "el", "st.", "vander", "y",
})
# Capitalised particles glue to the family name instead ("Le Scao", "Del Giorno", "Van Buren").
_CAPITALISED_PARTICLES = frozenset(p.capitalize() for p in PARTICLES if p not in {"y", "al", "el"})
SUFFIXES = frozenset({"Jr", "Jr.", "Sr", "Sr.", "II", "III", "IV"})
# A name containing one of these words is a group, not a person ("BigScience Workshop").
GROUP_WORDS = frozenset({
    "workshop", "consortium", "collaboration", "team", "group", "project", "initiative", "committee",
    "laboratory", "lab", "labs", "institute", "university", "association", "society", "foundation",
    "inc", "inc.", "ltd", "ltd.", "corporation", "council", "network", "alliance", "organization",
    "organisation", "contributors", "authors",
})
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


class NameParts(NamedTuple):
    """A name in parts; a group has only ``literal``. ``particle`` is CSL's non-dropping particle."""

    family: str | None = None
    given: str | None = None
    particle: str | None = None
    suffix: str | None = None
    literal: str | None = None


# Names repeat across papers (every paper of a profile names its person): splitting each once is
# what keeps exports and merges linear in papers rather than in author mentions.
_NAME_CACHE = 1 << 16


@functools.lru_cache(maxsize=_NAME_CACHE)
def split_name(name: str) -> NameParts:
    """The parts of one author name, as written by any of the sites.

    >>> split_name("Reza Yazdani Aminabadi")
    NameParts(family='Aminabadi', given='Reza Yazdani', particle=None, suffix=None, literal=None)
    >>> split_name("Marah I Abdin").given, split_name("Phillip B. Gibbons").given
    ('Marah I.', 'Phillip B.')
    >>> split_name("山田 花子")[:2], split_name("Martin Luther King Jr.").suffix
    (('山田', '花子'), 'Jr.')
    """
    words = name.split()
    if not words:
        return NameParts(literal=name)
    if is_group(words) or len(words) == 1:
        return NameParts(literal=" ".join(words))
    if _CJK.search(name):  # written family name first, as in "山田 花子"
        return NameParts(family=words[0], given=" ".join(words[1:]))
    suffix = words.pop() if words[-1] in SUFFIXES and len(words) > 2 else None
    given_words, family_words = _split_given_family(words)
    particle_words = []
    while len(family_words) > 1 and family_words[0] in PARTICLES:
        particle_words.append(family_words.pop(0))
    # "RY Aminabadi" starts with a run of initials; "LI WEI", all in capitals, does not
    shouting = all(word.isupper() for word in family_words)
    return NameParts(
        family=" ".join(family_words),
        given=" ".join(_given_word(w, initials_run=i == 0 and not shouting and is_initials(w))
                       for i, w in enumerate(given_words)) or None,
        particle=" ".join(particle_words) or None,
        suffix=suffix,
    )


def _split_given_family(words: list[str]) -> tuple[list[str], list[str]]:
    """Given names, then the family name with its particles: the family starts at the first
    particle, else it is the last word ("T Le Scao": given ["T"], family ["Le", "Scao"])."""
    start = len(words) - 1
    for index in range(1, len(words) - 1):
        if words[index] in PARTICLES or words[index] in _CAPITALISED_PARTICLES:
            start = index
            break
    return words[:start], words[start:]


def _given_word(word: str, initials_run: bool) -> str:
    """A given name with initials spelt out: ``RY`` -> ``R. Y.``, ``I`` -> ``I.``, ``J-Y`` -> ``J.-Y.``."""
    if initials_run and len(word) > 1 and word.isalpha():
        return " ".join(f"{letter}." for letter in word)
    if len(word) == 1 and word.isalpha():
        return word + "."
    if re.fullmatch(r"[^\W\d_]-[^\W\d_]", word):
        return f"{word[0]}.-{word[2]}."
    return word


def is_group(words: list[str]) -> bool:
    """Whether a name is a group's ("BigScience Workshop") rather than a person's."""
    return any(word.casefold().strip(",") in GROUP_WORDS for word in words)


def ascii_fold(text: str) -> str:
    """``text`` without accents and without what has no ASCII form: ``Ilić`` -> ``Ilic``."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


@functools.lru_cache(maxsize=_NAME_CACHE)
def name_key(name: str) -> tuple[str, str]:
    """A key that equates the ways sites write one person: family name and first initial.

    >>> name_key("RY Aminabadi"), name_key("Reza Yazdani Aminabadi"), name_key("BigScience Workshop")
    (('aminabadi', 'r'), ('aminabadi', 'r'), ('bigscienceworkshop', ''))
    """
    parts = split_name(name)
    if parts.literal is not None:
        return re.sub(r"\W+", "", parts.literal.casefold()), ""
    family = " ".join(filter(None, (parts.particle, parts.family)))
    family_key = re.sub(r"[\W_]+", "", ascii_fold(family).casefold() or family.casefold())
    given = ascii_fold(parts.given or "").casefold() or (parts.given or "").casefold()
    return family_key, given[:1]
