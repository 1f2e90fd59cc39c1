r"""RIS records (the tagged format of reference managers: Zotero, EndNote, Mendeley, Publish or Perish)
for publications and merged papers.

A record is lines ``TG  - value``, ``TY`` first and ``ER  - `` last, records apart by a blank line.
Every piece of a record's text enters a line through one function, ``ris_text``: no line break inside a
value (a value holding one would end its line, and a next line starting ``ER  -`` would end the
record), so one paper is always one record. ``TY`` follows the CSL type, in Zotero's map (its
``RIS.js``), with ``EJOUR`` for preprints: pandoc reads ``EJOUR`` as CSL's ``article`` (a preprint,
our type) and Zotero as a journal article, which is what Zotero makes of its own preprints' RIS.

>>> from pubharvest.parsers.records import Publication, PublicationIds
>>> pub = Publication(title="ZeRO-Offload", authors=["J Ren", "T van de Ven"], authors_truncated=True,
...                   venue="USENIX ATC 21, 551-564", year=2021, date="2021-07", type="paper-conference",
...                   ids=PublicationIds(doi="10.5555/3489146.3489179"))
>>> print(ris_record(pub, "ren2021zero"), end="")
TY  - CONF
ID  - ren2021zero
AU  - Ren, J.
AU  - van de Ven, T.
TI  - ZeRO-Offload
T2  - USENIX ATC 21
PY  - 2021
DA  - 2021/07//
SP  - 551
EP  - 564
DO  - 10.5555/3489146.3489179
N1  - Author list cut short: the source showed the first 2 authors only (et al.)
ER  - 
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pubharvest.parsers.records import PageResult

from .citable import PREPRINT, Citable, citable_parts, csl_type, issued_parts, shown_container, shown_title
from .counts import count_text, paper_counts
from .keys import Keys
from .names import split_name

# CSL type -> RIS TY, in Zotero's map (RIS.js exportTypeMap/importTypeMap); a type we do not know is GEN
TYPES: dict[str | None, str] = {
    "article-journal": "JOUR",
    "paper-conference": "CONF",
    "book": "BOOK",
    "chapter": "CHAP",
    "thesis": "THES",
    "report": "RPRT",
    "patent": "PAT",
    PREPRINT: "EJOUR",
}
UNKNOWN_TYPE = "GEN"
# The types whose ``SN`` Zotero reads as an ISSN (an ISBN is not written there)
_SERIAL_TYPES = frozenset({"JOUR", "EJOUR", "GEN"})
# What ends a line for some reader (Python's universal newlines read \r as one) or is a control
# character: a space in a value. U+2028 and U+2029 stay: RIS readers split lines at \n and \r only.
_BREAKS = re.compile(r"[\x00-\x1f\x7f]+")
_SURROGATE = re.compile("[\ud800-\udfff]")
# rispy splits ``UR`` at ";" (several URLs on one line); and a URL holds no space
_URL_SPLITS = re.compile(r"[;\s]")
_PAGE_RANGE = re.compile(r"\s*[-–]+\s*")
END = "ER  - "


def ris_text(text: str) -> str:
    r"""``text`` as it may stand in a RIS value: line breaks and control characters as a space, a lone
    surrogate (which has no UTF-8 form) as U+FFFD, without the spaces around it (readers strip them).

    >>> ris_text(" A\nER  - x\r\n"), ris_text("a\u2028b") == "a\u2028b", ris_text("Sp\ud800ices")
    ('A ER  - x', True, 'Sp\ufffdices')
    """
    if not text.isascii():
        text = _SURROGATE.sub("\ufffd", text)
    return _BREAKS.sub(" ", text).strip()


def ris_url(url: str) -> str:
    """A URL as ``UR`` holds it: ``;`` and spaces percent-encoded (rispy reads ``;`` as a separator).

    >>> ris_url("https://x.org/a;b c")
    'https://x.org/a%3Bb%20c'
    """
    return _URL_SPLITS.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), ris_text(url))


def ris_name(name: str) -> str:
    """One author as RIS writes it, ``Last, First, Suffix`` (particles with the last name); a group or a
    one-word name whole, without a comma, which Zotero reads as one name (a corporate author).

    >>> ris_name("RY Aminabadi"), ris_name("T van de Ven"), ris_name("BigScience Workshop")
    ('Aminabadi, R. Y.', 'van de Ven, T.', 'BigScience Workshop')
    >>> ris_name("Martin Luther King Jr.")
    'King, Martin Luther, Jr.'
    """
    parts = split_name(name)
    if parts.literal is not None:
        return ris_text(parts.literal)
    last = " ".join(filter(None, (parts.particle, parts.family)))
    return ", ".join(ris_text(part) for part in (last, parts.given, parts.suffix) if part)


def ris_date(parts: list[int]) -> str:
    """``DA``: ``YYYY/MM/DD/``, as precise as the record, every slash kept (the spec's form).

    >>> ris_date([2024]), ris_date([2024, 5]), ris_date([2024, 5, 3])
    ('2024///', '2024/05//', '2024/05/03/')
    """
    padded = [f"{part:02d}" for part in parts[1:3]] + ["", ""]
    return f"{parts[0]}/{padded[0]}/{padded[1]}/"


def ris_fields(pub: Citable, key: str, page: PageResult | None = None) -> list[tuple[str, str]]:
    """``(tag, value)`` pairs in writing order, ``TY`` first, values through ``ris_text``; ``page`` is the
    page result a publication came on (for its count's site and date)."""
    kind = csl_type(pub)
    ty = TYPES.get(kind, UNKNOWN_TYPE)
    parts = citable_parts(pub)
    issued = issued_parts(pub)
    first, *last = _PAGE_RANGE.split(parts.pages or "", maxsplit=1)
    preprint_url = f"https://arxiv.org/abs/{pub.ids.arxiv}" if pub.ids.arxiv and kind == PREPRINT else None
    notes = [
        f"Cited by: {counts}" if (counts := count_text(paper_counts(pub, page))) else None,
        f"arXiv: {pub.ids.arxiv}" if pub.ids.arxiv else None,
        _cut_list_note(pub),
    ]
    fields: list[tuple[str, str | None]] = [
        ("TY", ty),
        ("ID", key),
        *(("AU", ris_name(name)) for name in pub.authors),
        ("TI", shown_title(pub)),
        ("T2", shown_container(pub)),
        ("PY", str(issued[0]) if issued else None),
        ("DA", ris_date(issued) if issued else None),
        ("VL", parts.volume),
        ("IS", parts.issue),
        ("SP", first),
        ("EP", last[0] if last else None),
        ("SN", _serial_number(pub, kind, ty)),
        ("PB", pub.publisher),
        ("DO", pub.ids.doi),
        ("UR", ris_url(url) if (url := pub.url or preprint_url) else None),
        *(("N1", note) for note in notes),
    ]
    return [(tag, text) for tag, value in fields if value and (text := ris_text(value))]


def _serial_number(pub: Citable, kind: str | None, ty: str) -> str | None:
    """``SN``: a report's or a patent's number (Zotero's report and patent number), else an ISBN
    where Zotero does not read ``SN`` as an ISSN."""
    if kind == "report":
        return pub.ids.report_number
    if kind == "patent":
        return pub.ids.patent_number
    return None if ty in _SERIAL_TYPES else pub.ids.isbn


def _cut_list_note(pub: Citable) -> str | None:
    """The note that says the page cut the author list: RIS has no "et al." (an ``AU  - others`` would
    be an author named "others" in Zotero, rispy and EndNote)."""
    if not pub.authors_truncated:
        return None
    shown = len(pub.authors)
    return f"Author list cut short: the source showed the first {shown} author{'s' * (shown != 1)} only (et al.)"


def ris_record(pub: Citable, key: str, page: PageResult | None = None) -> str:
    """One record, ``TY`` to ``ER  - ``, each line ending in ``\\n``."""
    return "".join(f"{tag}  - {value}\n" for tag, value in ris_fields(pub, key, page)) + END + "\n"


def ris(pubs: Iterable[Citable]) -> str:
    """Records for ``pubs`` with unique ids (the BibTeX keys), a blank line after each."""
    keys = Keys()
    return "".join(ris_record(pub, keys.key(pub)) + "\n" for pub in pubs)
