r"""BibTeX entries for publications and merged papers.

Entry types follow the CSL type: ``@inproceedings`` (``booktitle``), ``@article`` (``journal``),
``@techreport`` (``institution``, ``number``), ``@misc`` with ``eprint`` and
``archivePrefix = {arXiv}`` for preprints, ``@patent`` (biblatex, ``number``), ``@phdthesis``
(``school``), else ``@misc``. Values are UTF-8, with TeX's special characters escaped and words
with inner capitals braced so that styles keep their case.

>>> from pubharvest.parsers.records import Publication, PublicationIds
>>> pub = Publication(title="ZeRO & friends: 100% GPU_s", authors=["J Ren", "T van de Ven"],
...                   authors_truncated=True, venue="Proc. of SC, 1-9", year=2021)
>>> print(bibtex_entry(pub, "ren2021zero"))
@inproceedings{ren2021zero,
  author = {Ren, J. and van de Ven, T. and others},
  title = {{ZeRO} \& friends: 100\% {GPU\_s}},
  booktitle = {Proc. of SC},
  pages = {1--9},
  year = {2021},
}
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from .citable import PREPRINT, Citable, citable_parts, container_title, csl_type, document_number, issued_parts
from .keys import Keys
from .names import split_name

# CSL type -> (BibTeX entry type, the field that holds the venue); any other type is UNKNOWN.
ENTRY_TYPES: dict[str | None, tuple[str, str | None]] = {
    "paper-conference": ("inproceedings", "booktitle"),
    "article-journal": ("article", "journal"),
    "report": ("techreport", None),
    PREPRINT: ("misc", None),
    "patent": ("patent", None),
    "thesis": ("phdthesis", None),
    "book": ("book", None),
    "chapter": ("incollection", "booktitle"),
}
UNKNOWN = ("misc", "howpublished")
# Braces become commands rather than \{ \}: BibTeX counts escaped braces too, so one alone would
# leave the value unbalanced.
_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
    "$": r"\$", "&": r"\&", "%": r"\%", "#": r"\#",
    "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))
# TeX ligatures a title can hold by accident: `` '' -- --- << >> !` ?` (quotes, dashes, guillemets)
# Any character ``escape`` changes or breaks a ligature at: text without one is written as it is.
_NEEDS_ESCAPE = re.compile("[" + re.escape("".join(_SPECIAL) + "`'<>-") + "]")
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=`)(?=`)|(?<=')(?=')|(?<=<)(?=<)|(?<=>)(?=>)|(?<=[!?])(?=`)")
# A word with a capital after its first character ("ZeRO", "GPU", "176B-Parameter"), without the
# punctuation that ends it: styles must keep its case.
_CASED_WORD = re.compile(r"(?<!\S)\S+?[A-Z]\S*?(?=[:;,.!?]*(?:\s|$))")


def escape(text: str) -> str:
    r"""``text`` with TeX's special characters escaped and its ligatures broken, so that it prints
    as written.

    >>> escape("50% of R&D_1 {x} ~ $5")
    '50\\% of R\\&D\\_1 \\textbraceleft{}x\\textbraceright{} \\textasciitilde{} \\$5'
    >>> escape("``Zur'' 1--2")
    "`{}`Zur'{}' 1-{}-2"
    """
    if not _NEEDS_ESCAPE.search(text):
        return text
    return _LIGATURE.sub("{}", _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], text))


def protect_case(text: str) -> str:
    """Escaped text with every word that has a capital after its first letter in braces.

    >>> protect_case("ZeRO-Offload: Democratizing Billion-Scale Model Training")
    '{ZeRO-Offload}: Democratizing {Billion-Scale} Model Training'
    """
    return _CASED_WORD.sub(lambda m: "{" + m.group() + "}", escape(text))


@functools.lru_cache(maxsize=1 << 16)  # names repeat on every paper of a profile
def bibtex_name(name: str) -> str:
    """One author in BibTeX's ``von Last, Jr, First`` form; a group in braces, as one name.

    >>> bibtex_name("RY Aminabadi"), bibtex_name("BigScience Workshop"), bibtex_name("T Le Scao")
    ('Aminabadi, R. Y.', '{BigScience Workshop}', '{Le Scao}, T.')
    """
    parts = split_name(name)
    if parts.literal is not None:
        return "{" + escape(parts.literal) + "}"
    family = escape(parts.family or "")
    if " " in family:  # a multi-word family name is one name, not "First Last"
        family = "{" + family + "}"
    last = " ".join(filter(None, (parts.particle, family)))
    return ", ".join(filter(None, (last, escape(parts.suffix or ""), escape(parts.given or ""))))


def bibtex_authors(pub: Citable) -> str | None:
    """The ``author`` field: names joined by ``and``, ending in ``and others`` when the page cut the list."""
    names = [bibtex_name(name) for name in pub.authors]
    if pub.authors_truncated and names:
        names.append("others")
    return " and ".join(names) or None


def entry_type(pub: Citable) -> str:
    """The BibTeX entry type: ``inproceedings``, ``article``, ``techreport``, ``misc``, ..."""
    return ENTRY_TYPES.get(csl_type(pub), UNKNOWN)[0]


def bibtex_fields(pub: Citable) -> list[tuple[str, str]]:
    """``(field, value)`` pairs in writing order, values as TeX (escaped, case protected)."""
    kind = csl_type(pub)
    _, venue_field = ENTRY_TYPES.get(kind, UNKNOWN)
    parts = citable_parts(pub)
    container = container_title(pub)
    date = issued_parts(pub) or []
    fields = [
        ("author", bibtex_authors(pub)),
        ("title", protect_case(pub.title) if pub.title else None),
        (venue_field, escape(container) if container else None),
        ("institution" if kind == "report" else "school" if kind == "thesis" else "publisher",
         escape(pub.publisher) if pub.publisher else None),
        ("volume", parts.volume),
        ("number", escape(document_number(pub) or parts.issue or "") or None),
        ("pages", parts.pages.replace("-", "--") if parts.pages else None),
        ("year", str(pub.year) if pub.year else None),
        ("month", str(date[1]) if len(date) > 1 else None),
        ("doi", verbatim(pub.ids.doi)),
        ("isbn", pub.ids.isbn),
        ("eprint", pub.ids.arxiv),
        ("archivePrefix", "arXiv" if pub.ids.arxiv else None),
        ("url", verbatim(pub.url)),
    ]
    return [(name, value) for name, value in fields if name and value]


def verbatim(value: str | None) -> str | None:
    """A ``url`` or ``doi`` value: read verbatim by (bib)latex, so not escaped; braces and spaces are
    percent-encoded, as they could unbalance the entry.

    >>> verbatim("https://x.org/a_b?c=1&d={2}")
    'https://x.org/a_b?c=1&d=%7B2%7D'
    """
    if not value:
        return None
    return value.replace("{", "%7B").replace("}", "%7D").replace(" ", "%20")


def bibtex_entry(pub: Citable, key: str) -> str:
    """One ``@type{key, ...}`` entry, a field a line."""
    lines = [f"@{entry_type(pub)}{{{key},"]
    lines += [f"  {name} = {{{value}}}," for name, value in bibtex_fields(pub)]
    return "\n".join(lines) + "\n}"


def bibtex(pubs: Iterable[Citable]) -> str:
    """Entries for ``pubs`` with unique keys (see ``pubharvest.keys``), separated by blank lines."""
    keys = Keys()
    return "".join(bibtex_entry(pub, keys.key(pub)) + "\n\n" for pub in pubs)
