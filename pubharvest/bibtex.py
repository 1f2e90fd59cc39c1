r"""BibTeX entries for publications and merged papers.

Written for classic ``bibtex`` with ``plain.bst`` (no warning) as much as for biber. Entry types
follow the CSL type: ``@inproceedings`` (``booktitle``), ``@article`` (``journal``), ``@techreport``
(``institution``, ``number``), ``@misc`` for preprints (``eprint``, ``archivePrefix = {arXiv}`` and,
for plain, ``howpublished = {arXiv preprint arXiv:...}``) and patents (``howpublished``, ``number``),
``@phdthesis`` (``school``), else ``@misc``; a type whose required fields the record cannot fill
is a ``@misc``. Months are BibTeX's macros (``month = may``). Every piece of a record's text
enters a value through one function, ``field_text``: LaTeX that pdflatex reads with utf8 inputenc
(``pubharvest.latex``), or percent-encoded in the verbatim fields, so that no text can end a value
or an entry; words with inner capitals braced so that styles keep their case.

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
from typing import NamedTuple

from .citable import (
    PREPRINT,
    Citable,
    VenueParts,
    citable_parts,
    container_of,
    csl_type,
    date_parts,
    number_of,
    shown_title,
)
from .keys import Keys
from .latex import escape
from .names import split_name

# CSL type -> (BibTeX entry type, the field that holds the venue); any other type is UNKNOWN. Only
# types plain.bst knows: a patent is a @misc (plain has no @patent), its venue or number shown.
ENTRY_TYPES: dict[str | None, tuple[str, str | None]] = {
    "paper-conference": ("inproceedings", "booktitle"),
    "article-journal": ("article", "journal"),
    "report": ("techreport", None),
    PREPRINT: ("misc", "howpublished"),
    "patent": ("misc", "howpublished"),
    "thesis": ("phdthesis", None),
    "book": ("book", None),
    "chapter": ("incollection", "booktitle"),
}
UNKNOWN = ("misc", "howpublished")
# The fields plain.bst warns about when they are empty, by entry type: an entry whose record cannot
# fill one of them is written as a @misc, its venue as ``howpublished``.
REQUIRED: dict[str, frozenset[str]] = {
    "article": frozenset({"author", "title", "journal", "year"}),
    "book": frozenset({"author", "title", "publisher", "year"}),
    "inproceedings": frozenset({"author", "title", "booktitle", "year"}),
    "incollection": frozenset({"author", "title", "booktitle", "publisher", "year"}),
    "phdthesis": frozenset({"author", "title", "school", "year"}),
    "techreport": frozenset({"author", "title", "institution", "year"}),
}
# BibTeX's month macros (every style defines them; biber reads them too), written unbraced
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MACRO_FIELDS = frozenset({"month"})
# Fields (bib)latex reads verbatim: written percent-encoded rather than as LaTeX
VERBATIM_FIELDS = frozenset({"doi", "eprint", "url"})
# What a verbatim value may not hold as it is: braces and a backslash (which escapes the closing
# brace for bibtexparser), and what is not printable (a space or newline, a lone surrogate): the
# characters ``_percent_encoded`` looks at
_NOT_VERBATIM = re.compile(r"[{}\\]|[^\x21-\x7e]")
# BibTeX splits a name list at a whole word "and", and a name into its parts at commas
_NAME_SEPARATOR = re.compile(r"(?i)(?<!\S)and(?!\S)|,")
# A page range's hyphens: written as TeX's en dash
_RANGE_DASH = re.compile(r"-+")
# A word with a capital after its first character ("ZeRO", "GPU", "176B-Parameter"), without the
# punctuation that ends it: styles must keep its case. Written without lazy repeats (the first
# capital, then up to the word's last character that is not closing punctuation), and captured, so
# that ``split`` hands the words out: a template ``sub`` expands each match in Python.
_CASED_WORD = re.compile(r"((?<!\S)\S[^\sA-Z]*[A-Z](?:[:;,.!?]*[^\s:;,.!?])*)")
_INNER_CAPITAL = re.compile(r"\S[A-Z]")  # what a cased word holds: text without it has none


def field_text(field: str, text: str) -> str:
    r"""``text`` as it may stand in the value of ``field``: the one way a record's text enters the
    BibTeX, so that no text ends a value or an entry, or splits an author list.

    Verbatim fields (``url``, ``doi``, ``eprint``) percent-encode braces, backslashes and what is
    not printable; the others are LaTeX (``pubharvest.latex.escape``: braces, backslashes and TeX's
    specials as commands, newlines as spaces), and in ``author`` a part holding a comma or a word "and"
    is braced whole.

    >>> field_text("volume", "112}} @misc{x,"), field_text("url", "https://x.org/a b\\")
    ('112\\textbraceright{}\\textbraceright{} @misc\\textbraceleft{}x,', 'https://x.org/a%20b%5C')
    >>> field_text("author", "Tom and Jerry, Inc.")
    '{Tom and Jerry, Inc.}'
    """
    if field in VERBATIM_FIELDS:
        return _NOT_VERBATIM.sub(_percent_encoded, text)
    escaped = escape(text)
    if field == "author" and _NAME_SEPARATOR.search(escaped):
        return "{" + escaped + "}"  # the part whole: biber miscounts a name's commas when two are braced alone
    return escaped


def _percent_encoded(match: re.Match[str]) -> str:
    char = match.group()
    if char.isprintable() and not char.isspace() and char not in "{}\\":
        return char
    # a lone surrogate has no UTF-8 form: it is written as U+FFFD, the replacement character
    return "".join(f"%{byte:02X}" for byte in ("\ufffd" if _is_surrogate(char) else char).encode())


def _is_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udfff"


def protect_case(text: str) -> str:
    """Escaped text with every word that has a capital after its first letter in braces.

    >>> protect_case("ZeRO-Offload: Democratizing Billion-Scale Model Training")
    '{ZeRO-Offload}: Democratizing {Billion-Scale} Model Training'
    """
    escaped = escape(text)  # field_text of a title
    # no capital after the first character (str.islower, in C), else none after a character (a
    # scan): what every cased word has, and most titles lack
    if escaped[1:].islower() or not _INNER_CAPITAL.search(escaped):
        return escaped
    parts = _CASED_WORD.split(escaped)  # text, cased word, text, ...
    parts[1::2] = ["{" + word + "}" for word in parts[1::2]]
    return "".join(parts)


def page_range(pages: str) -> str:
    r"""The ``pages`` value: each run of hyphens TeX's en dash ``--``.

    >>> page_range("267-280"), page_range("1--2}")
    ('267--280', '1--2\\textbraceright{}')
    """
    return "--".join(field_text("pages", part) for part in _RANGE_DASH.split(pages))


@functools.lru_cache(maxsize=1 << 16)  # names repeat on every paper of a profile
def bibtex_name(name: str) -> str:
    """One author in BibTeX's ``von Last, Jr, First`` form; a group in braces, as one name.

    >>> bibtex_name("RY Aminabadi"), bibtex_name("BigScience Workshop"), bibtex_name("T Le Scao")
    ('Aminabadi, R. Y.', '{BigScience Workshop}', '{Le Scao}, T.')

    Braces are no part of a name and are left out: biber decodes ``\\textbraceleft{}`` back to a brace
    before it splits names, so an escaped one would unbalance the name and lose its entry.

    >>> bibtex_name("Ada {Lovelace}")
    'Lovelace, Ada'
    """
    parts = split_name(name.replace("{", "").replace("}", ""))
    if parts.literal is not None:
        literal = field_text("author", parts.literal)
        return "{" + literal + "}" if literal.strip() else ""
    family = field_text("author", parts.family or "")
    if " " in family:  # a multi-word family name is one name, not "First Last"
        family = "{" + family + "}"
    last = " ".join(filter(None, (field_text("author", parts.particle or ""), family)))
    if not last.strip():  # nothing printable (a name of invisible characters)
        return ""
    given = (field_text("author", part or "") for part in (parts.suffix, parts.given))
    return ", ".join(filter(None, (last, *given)))


def bibtex_authors(pub: Citable) -> str | None:
    """The ``author`` field: names joined by ``and``, ending in ``and others`` when the page cut the
    list; a name with nothing printable is left out."""
    names = [written for name in pub.authors if (written := bibtex_name(name))]
    if pub.authors_truncated and names:
        names.append("others")
    return " and ".join(names) or None


def entry_type(pub: Citable) -> str:
    """The BibTeX entry type: ``inproceedings``, ``article``, ``techreport``, ``misc``, ..."""
    return bibtex_record(pub)[0]


def bibtex_fields(pub: Citable) -> list[tuple[str, str]]:
    """``(field, value)`` pairs in writing order, values as TeX (escaped, case protected)."""
    return bibtex_record(pub)[1]


def bibtex_record(pub: Citable) -> tuple[str, list[tuple[str, str]]]:
    """The entry type and its fields: the CSL type's, or a @misc when a field plain requires is empty."""
    kind = csl_type(pub)
    entry, venue_field = ENTRY_TYPES.get(kind, UNKNOWN)
    venue = _venue_texts(pub, kind)
    fields = _fields(pub, kind, venue, entry, venue_field)
    required = REQUIRED.get(entry)
    if not required or dict(fields).keys() >= required:
        return entry, fields
    fields = _fields(pub, kind, venue, "misc", "howpublished")
    # a report's venue is its number, a thesis' its school
    if all(name != "howpublished" for name, _ in fields) and pub.venue:
        fields.insert(2, ("howpublished", field_text("howpublished", pub.venue)))
    return "misc", fields


class _VenueTexts(NamedTuple):
    """A venue's parts as field values (escaped, pages with en dashes), and the venue as shown."""

    shown: str | None
    volume: str | None
    issue: str | None
    pages: str | None


def _venue_texts(pub: Citable, kind: str | None) -> _VenueTexts:
    return _texts_of_venue(kind, pub.venue, citable_parts(pub))


# Venues repeat across papers: their fields are worked out once per distinct CSL type, venue and parts
@functools.lru_cache(maxsize=1 << 16)
def _texts_of_venue(kind: str | None, venue: str | None, parts: VenueParts) -> _VenueTexts:
    shown = container_of(kind, venue, parts) or (venue if kind == PREPRINT else None)
    return _VenueTexts(_text("howpublished", shown), _text("volume", parts.volume), _text("issue", parts.issue),
                       page_range(parts.pages) if parts.pages else None)


def _fields(pub: Citable, kind: str | None, venue: _VenueTexts, entry: str,
            venue_field: str | None) -> list[tuple[str, str]]:
    ids = pub.ids
    number = number_of(pub, kind)
    fields: list[tuple[str, str]] = []
    add = fields.append
    if authors := bibtex_authors(pub):
        add(("author", authors))
    if (title := shown_title(pub)) and (protected := protect_case(title)):
        add(("title", protected))
    if venue_field and (shown := _shown_venue(pub, kind, venue)):
        add((venue_field, shown))
    if pub.publisher and (publisher := field_text("publisher", pub.publisher)):
        add(("institution" if kind == "report" else "school" if kind == "thesis" else "publisher", publisher))
    if venue.volume:
        add(("volume", venue.volume))
    # an issue is plain's ``number`` only in an article: elsewhere ``number`` is a series
    # number, and plain warns at a volume with one
    if number:
        if number_text := field_text("number", number):
            add(("number", number_text))
    elif venue.issue:
        add(("number" if entry == "article" else "issue", venue.issue))
    if venue.pages:
        add(("pages", venue.pages))
    if pub.year or pub.date:
        year, month = _year_month(pub.year, pub.date)
        if year:
            add(("year", year))
        if month:
            add(("month", month))
    if ids.doi and (doi := field_text("doi", ids.doi)):
        add(("doi", doi))
    if ids.isbn and (isbn := field_text("isbn", ids.isbn)):
        add(("isbn", isbn))
    if ids.arxiv:
        if eprint := field_text("eprint", ids.arxiv):
            add(("eprint", eprint))
        add(("archivePrefix", "arXiv"))
    if pub.url and (url := field_text("url", pub.url)):
        add(("url", url))
    # what plain sorts an entry without authors by (else it warns "to sort, need author or key")
    if not pub.authors and (sort_key := _text("key", pub.title or pub.venue)):
        add(("key", sort_key))
    return fields


@functools.lru_cache(maxsize=1 << 12)  # a few hundred distinct years and dates
def _year_month(year: int | None, date: str | None) -> tuple[str | None, str | None]:
    """The ``year`` and ``month`` values of a record's year and ISO date."""
    parts = date_parts(year, date) or []
    return (str(parts[0]) if parts else None,
            MONTHS[parts[1] - 1] if len(parts) > 1 and 1 <= parts[1] <= 12 else None)


def _text(field: str, value: str | None) -> str | None:
    """``field_text`` of a value that may be absent."""
    return field_text(field, value) if value else None


def _shown_venue(pub: Citable, kind: str | None, venue: _VenueTexts) -> str | None:
    """The venue as a style prints it: the container; for a preprint its arXiv id in Google Scholar's
    words (plain prints no ``eprint``), else the venue as written; for a patent the venue, else its number.

    >>> from pubharvest.parsers.records import Publication, PublicationIds
    >>> bibtex_fields(Publication(type="article", venue="arXiv", ids=PublicationIds(arxiv="2101.06840")))[0]
    ('howpublished', 'arXiv preprint arXiv:2101.06840')
    >>> bibtex_fields(Publication(type="patent", ids=PublicationIds(patent_number="US 10438946")))[0]
    ('howpublished', 'Patent US 10438946')
    """
    if kind == PREPRINT and pub.ids.arxiv:
        return field_text("howpublished", f"arXiv preprint arXiv:{pub.ids.arxiv}")
    if kind == "patent":
        text = pub.venue or (f"Patent {pub.ids.patent_number}" if pub.ids.patent_number else None)
        return _text("howpublished", text)
    return venue.shown


# Each field's line, around its value: braced, or as it is for a macro (``month = may``)
_OPENING = {name: f"  {name} = " if name in MACRO_FIELDS else f"  {name} = {{" for name in (
    "author", "title", "journal", "booktitle", "howpublished", "institution", "school", "publisher", "volume",
    "number", "issue", "pages", "year", "month", "doi", "isbn", "eprint", "archivePrefix", "url", "key")}
_CLOSING = {name: ",\n" if name in MACRO_FIELDS else "},\n" for name in _OPENING}


def bibtex_entry(pub: Citable, key: str) -> str:
    """One ``@type{key, ...}`` entry, a field a line."""
    entry, fields = bibtex_record(pub)
    opening, closing = _OPENING, _CLOSING
    return f"@{entry}{{{key},\n" + "".join([opening[name] + value + closing[name] for name, value in fields]) + "}"


def bibtex(pubs: Iterable[Citable]) -> str:
    """Entries for ``pubs`` with unique keys (see ``pubharvest.keys``), separated by blank lines."""
    keys = Keys()
    return "".join(bibtex_entry(pub, keys.key(pub)) + "\n\n" for pub in pubs)
