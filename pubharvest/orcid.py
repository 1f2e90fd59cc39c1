"""ORCID v3.0 work objects (the JSON body of ``POST /v3.0/{orcid}/work``) for publications and merged
papers: title, journal title, type, publication date, external ids, url, contributors and the BibTeX
citation, in the order of ORCID's work schema (``work-3.0.xsd``).

A work must carry at least one external id with relationship ``self`` (ORCID refuses it otherwise):
the DOI, arXiv id, patent number (``pat``), report number (``other-id``), a book's ISBN, the sites' own
ids (``source-work-id``, as ``site:id``), else the paper's URL (``uri``). A paper with none of these
gives no work (``orcid_work`` returns None, and the writer says so on stderr).

>>> from pubharvest.parsers.records import Publication, PublicationIds
>>> work = orcid_work(Publication(title="ZeRO", authors=["S Rajbhandari", "J Rasley"], year=2020,
...     date="2020-11", venue="SC20: International Conference for High Performance Computing",
...     type="paper-conference", ids=PublicationIds(doi="10.1109/SC41405.2020.00024")), "rajbhandari2020zero")
>>> work["type"], work["publication-date"]
('conference-paper', {'year': {'value': '2020'}, 'month': {'value': '11'}})
>>> [(i["external-id-type"], i["external-id-relationship"]) for i in work["external-ids"]["external-id"]]
[('doi', 'self')]
>>> [c["contributor-attributes"]["contributor-sequence"] for c in work["contributors"]["contributor"]]
['first', 'additional']
"""

from __future__ import annotations

import re
from typing import Any

from .bibtex import bibtex_entry
from .citable import PREPRINT, Citable, csl_type, issued_parts, shown_container, shown_title

# CSL type -> ORCID work-type (ORCID's WorkType list); a type we do not know is ``other``
WORK_TYPES: dict[str | None, str] = {
    "article-journal": "journal-article",
    "paper-conference": "conference-paper",
    "book": "book",
    "chapter": "book-chapter",
    "thesis": "dissertation-thesis",
    "report": "report",
    "patent": "patent",
    PREPRINT: "preprint",
}
UNKNOWN_WORK_TYPE = "other"
# The longest text ORCID's schema takes in a title and journal title (string-1000) and a credit name
# (string-150); a longer one is cut, ending in "…" (the BibTeX citation keeps it whole).
MAX_TITLE, MAX_NAME = 1000, 150
# ORCID's schema: years 1900 to 2100 (an earlier paper is dated in its citation only)
YEARS = range(1900, 2101)
# What XML 1.0 cannot hold (controls but tab and line breaks, U+FFFE, U+FFFF; a lone surrogate becomes
# U+FFFD), and line breaks, which a title or name does not hold: each a space
_NOT_TEXT = re.compile("[\x00-\x1f\x7f\ufffe\uffff]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def orcid_text(text: str, limit: int | None = None) -> str:
    r"""``text`` as a work's value holds it: what XML 1.0 cannot hold and line breaks as a space, a lone
    surrogate as U+FFFD, without spaces around it, cut to ``limit`` characters (ending in "…").

    >>> orcid_text(" a\nb\x00c "), orcid_text("Sp\ud800ices") == "Sp\ufffdices", orcid_text("abcdef", 4)
    ('a b c', True, 'abc…')
    """
    if not text.isascii():
        text = _SURROGATE.sub("\ufffd", text)
    text = _NOT_TEXT.sub(" ", text).strip()
    return text[: limit - 1].rstrip() + "…" if limit is not None and len(text) > limit else text


def _value(text: str | None, limit: int | None = None) -> dict[str, str] | None:
    """``{"value": text}`` for a text that holds something once cleaned, else None."""
    cleaned = orcid_text(text, limit) if text else ""
    return {"value": cleaned} if cleaned else None


def publication_date(pub: Citable) -> dict[str, dict[str, str]] | None:
    """``{year, month, day}`` as precise as the record, zero-padded strings; none before 1900.

    >>> from pubharvest.parsers.records import Publication
    >>> publication_date(Publication(year=2024, date="2024-05-03"))
    {'year': {'value': '2024'}, 'month': {'value': '05'}, 'day': {'value': '03'}}
    """
    parts = issued_parts(pub)
    if not parts or parts[0] not in YEARS:
        return None
    padded = [f"{parts[0]:04d}", *(f"{part:02d}" for part in parts[1:3])]
    return {name: {"value": value} for name, value in zip(("year", "month", "day"), padded, strict=False)}


def _external_id(kind: str, value: str, relationship: str = "self", url: str | None = None) -> dict[str, Any]:
    external: dict[str, Any] = {"external-id-type": kind, "external-id-value": orcid_text(value)}
    if url:
        external["external-id-url"] = {"value": orcid_text(url)}
    external["external-id-relationship"] = relationship
    return external


def external_ids(pub: Citable) -> list[dict[str, Any]]:
    """The work's external ids, those that name it (``self``) first; an ISBN of anything but a book is
    its volume's (``part-of``). The paper's URL is a ``uri`` only when nothing else names it."""
    ids = pub.ids
    kind = csl_type(pub)
    found: list[dict[str, Any]] = []
    if ids.doi:
        found.append(_external_id("doi", ids.doi, url=f"https://doi.org/{ids.doi}"))
    if ids.arxiv:
        found.append(_external_id("arxiv", ids.arxiv, url=f"https://arxiv.org/abs/{ids.arxiv}"))
    if ids.patent_number:
        found.append(_external_id("pat", ids.patent_number))
    if ids.report_number:
        found.append(_external_id("other-id", ids.report_number))
    found += [_external_id("source-work-id", f"{site}:{value}") for site, value in site_ids(pub)]
    if ids.isbn:
        found.append(_external_id("isbn", ids.isbn, "self" if kind == "book" else "part-of"))
    found = [external for external in found if external["external-id-value"]]
    if pub.url and not any(external["external-id-relationship"] == "self" for external in found):
        found.append(_external_id("uri", pub.url, url=pub.url))
    return [external for external in found if external["external-id-value"]]


def site_ids(pub: Citable) -> list[tuple[str, str]]:
    """``(site, id)`` of each site's own id of the paper (Scholar's ``UID:PUBID``, MSR's, Elamur's, ...)."""
    ids = pub.ids
    own = [("scholar", ids.scholar), ("msr", ids.msr), ("elamur", ids.elamur), *ids.other.items()]
    return [(site, value) for site, value in own if value]


def contributors(pub: Citable) -> list[dict[str, Any]]:
    """Each author in order, as credited (the name as written), ``first`` then ``additional``."""
    names = [name for name in (_value(author, MAX_NAME) for author in pub.authors) if name]
    return [{"credit-name": name,
             "contributor-attributes": {"contributor-sequence": "additional" if at else "first",
                                        "contributor-role": "author"}}
            for at, name in enumerate(names)]


def orcid_work(pub: Citable, key: str) -> dict[str, Any] | None:
    """One work object, or None when nothing names the paper (no ``self`` external id) or it has no title;
    ``key`` is its BibTeX citation's key."""
    title = _value(shown_title(pub), MAX_TITLE)
    ids = external_ids(pub)
    if title is None or not any(external["external-id-relationship"] == "self" for external in ids):
        return None
    work: dict[str, Any] = {
        "title": {"title": title},
        "journal-title": _value(shown_container(pub), MAX_TITLE),
        "citation": {"citation-type": "bibtex", "citation-value": bibtex_entry(pub, key)},
        "type": WORK_TYPES.get(csl_type(pub), UNKNOWN_WORK_TYPE),
        "publication-date": publication_date(pub),
        "external-ids": {"external-id": ids},
        "url": _value(pub.url or (f"https://arxiv.org/abs/{pub.ids.arxiv}" if pub.ids.arxiv else None)),
        "contributors": {"contributor": people} if (people := contributors(pub)) else None,
    }
    return {name: value for name, value in work.items() if value is not None}


def missing_id_line(pub: Citable, key: str) -> str:
    """The stderr line for a paper left out of the ORCID works."""
    why = "no title" if not orcid_text(pub.title or "") else (
        "nothing names it for ORCID (no DOI, arXiv id, patent or report number, ISBN, site id or URL)")
    return f"pubharvest: warning: orcid: {key}: left out: {why}"
