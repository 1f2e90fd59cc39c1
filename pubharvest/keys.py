"""Citation keys shared by the BibTeX and CSL-JSON exports: first author's family name, year and
first significant title word (not a stop word, not a bare number: "1-bit adam" gives ``bit``),
lower-case ASCII (Google Scholar's convention, which the seeds' keys follow), with ``a``, ``b``,
... added to the second, third, ... paper that would get the same key. Letters outside ASCII are
transliterated by anyascii (``Sørensen`` -> ``sorensen``, ``Đorđević`` -> ``dordevic``, ``Straße`` ->
``strasse``, ``山田`` -> ``shantian``), never dropped.

>>> from pubharvest.parsers.records import Publication
>>> keys = Keys()
>>> keys.key(Publication(title="ZeRO: Memory optimizations", authors=["S Rajbhandari"], year=2020))
'rajbhandari2020zero'
>>> keys.key(Publication(title="{Zero}-infinity", authors=["Samyam Rajbhandari"], year=2020))
'rajbhandari2020zeroa'
>>> base_key(Publication(title="The BigScience corpus", authors=["BigScience Workshop"]))
'bigscienceworkshopbigscience'
>>> base_key(Publication(title="Über Straßen", authors=["K Sørensen"], year=1920))
'sorensen1920uber'
"""

from __future__ import annotations

import functools
import re
from string import ascii_lowercase

from anyascii import anyascii

from .citable import Citable
from .names import split_name

STOP_WORDS = frozenset({
    "a", "an", "the", "on", "of", "in", "for", "and", "to", "with", "at", "by", "from", "into", "via",
    "towards", "toward", "is", "are", "how", "what", "why", "when", "do", "does", "we", "our",
})


def base_key(pub: Citable) -> str:
    """The key before any collision suffix: ``ren2021zero``."""
    authors, title = pub.authors, pub.title
    word = _FIRST_WORD.search(ascii_letters(title)) if title else None
    return f"{_name_part(authors[0]) if authors else 'anon'}{pub.year or ''}{word[0] if word else ''}"


@functools.lru_cache(maxsize=1 << 16)
def _name_part(name: str) -> str:
    """The key's word for a first author: split and transliterated once per distinct name, not per paper."""
    parts = split_name(name)
    return _ascii_word(parts.literal or parts.family or "") or "anon"


# The title's first word (a whole run of letters and digits) that is neither a stop word nor a bare
# number: one search in C, where a loop over the words cost a Python step per word
_FIRST_WORD = re.compile(
    r"(?<![a-z0-9])(?!(?:" + "|".join(sorted(STOP_WORDS)) + r"|[0-9]+)(?![a-z0-9]))[a-z0-9]+")


def _ascii_word(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", ascii_letters(text))


def ascii_letters(text: str) -> str:
    """``text`` transliterated to lower-case ASCII: ``Đorđević`` -> ``dordevic``."""
    return (text if text.isascii() else anyascii(text)).casefold()


class Keys:
    """Hands out unique keys in the order papers are written: the first keeps the bare key."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        # per base key, the suffix number to try first: every smaller one is taken (keys are never
        # given back), so that n papers sharing a base key cost n steps, not n squared
        self.next_suffix: dict[str, int] = {}

    def key(self, pub: Citable) -> str:
        """A key not handed out before; a merged ``Paper`` keeps the key it carries."""
        if _carries_key(pub.__class__) and isinstance(given := getattr(pub, "key", None), str) and given:
            self.used.add(given)
            return given
        base = base_key(pub)
        n = self.next_suffix.get(base, 0)
        if n or base in self.used:
            while (key := base + _suffix(n)) in self.used:
                n += 1
            self.next_suffix[base] = n + 1
        else:  # the bare key (most papers): its next suffix is the first, as for a base not seen
            key = base
        self.used.add(key)
        return key


@functools.cache
def _carries_key(kind: type) -> bool:
    """Whether records of this type have a ``key`` (a merged ``Paper``): asked once per type, since
    asking a record without one raises and catches an AttributeError."""
    return hasattr(kind, "key")


def _suffix(n: int) -> str:
    """``a`` ... ``z``, then ``aa``, ``ab``, ...: the n-th collision suffix (0-based)."""
    return _suffix(n // 26 - 1) + ascii_lowercase[n % 26] if n >= 26 else ascii_lowercase[n]
