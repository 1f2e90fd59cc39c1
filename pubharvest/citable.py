"""What the exporters need from a paper, whether a page's ``Publication`` or a merged ``Paper``:
its bibliographic fields (``Bibliographic``), its CSL type (stated by the page or certain from the
venue) and its venue in parts.

>>> venue_parts("ACM SIGARCH Computer Architecture News 45 (1), 267-280")
VenueParts(container='ACM SIGARCH Computer Architecture News', volume='45', issue='1', pages='267-280')
>>> venue_parts("2021 USENIX Annual Technical Conference (USENIX ATC 21), 551-564").pages
'551-564'
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple, TypeAlias

import msgspec

from pubharvest.parsers.records import IsoDate, Provenance, Publication, PublicationIds, Year

PREPRINT = "article"  # CSL's type for preprints
_PAGES = re.compile(r",\s*(\d+)\s*[-–]\s*(\d+)$")
_VOLUME_ISSUE = re.compile(r"\s(\d+)\s*\((\d+(?:[-–]\d+)?)\)$")
_PREPRINT_VENUE = re.compile(r"\b(arxiv|biorxiv|medrxiv|ssrn|preprint)\b", re.I)
_CONFERENCE = re.compile(
    r"\b(proceedings|proc\.|conference|symposium|workshop|congress|meeting|summit"
    r"|usenix|neurips|nips|icml|iclr|sigkdd|kdd|asplos|pldi|isca|ndss|mobicom|hotchips"
    r"|sc\d\d|sc'\d\d|sc \d{4})(?!\w)", re.I)
_JOURNAL = re.compile(r"\b(journal|transactions|letters|review|magazine|news|annals|bulletin)\b", re.I)
_REPORT = re.compile(r"\b(technical report|tech\. rep|MSR-TR-)", re.I)
_ISO_DATE = re.compile(r"\d{4}(-\d\d){0,2}")


class Bibliographic(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The bibliographic fields: what the exporters read and merge carries of every source, declared
    once here with the names, types and defaults of ``parsers.records.Publication`` (a test holds
    them to it). ``pubharvest.merge``'s ``SourceRecord`` and ``Paper`` are made of them."""

    title: str | None = None
    title_truncated: bool = False
    authors: list[str] = []
    authors_truncated: bool = False
    venue: str | None = None
    venue_truncated: bool = False
    year: Year | None = None
    date: IsoDate | None = None
    type: str | None = None
    ids: PublicationIds = msgspec.field(default_factory=PublicationIds)
    url: str | None = None
    publisher: str | None = None
    # the venue's parts when a page states them apart (a paper's own page); else they are read from ``venue``
    container: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    provenance: list[Provenance] = []


# What the exporters take: a page's ``Publication`` or a merged paper (``pubharvest.merge.Paper``).
Citable: TypeAlias = Publication | Bibliographic


def shown_title(pub: Citable) -> str | None:
    """The title as a reader should see it: with "…" where the page cut it short (``title_truncated``).

    >>> shown_title(Publication(title="Triangular norms on", title_truncated=True))
    'Triangular norms on…'
    """
    return f"{pub.title}…" if pub.title and pub.title_truncated else pub.title


class VenueParts(NamedTuple):
    container: str | None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None


# Venues repeat across papers: what a venue says is worked out once per venue (a cache of pure
# functions of the venue string), which keeps large exports and merges cheap.
_VENUE_CACHE = 1 << 16


@functools.lru_cache(maxsize=_VENUE_CACHE)
def venue_parts(venue: str | None) -> VenueParts:
    """The container title, volume, issue and pages in a venue as Scholar writes it."""
    if not venue:
        return VenueParts(None)
    pages = volume = issue = None
    match = _PAGES.search(venue)
    if match:
        pages, venue = f"{match[1]}-{match[2]}", venue[: match.start()]
    match = _VOLUME_ISSUE.search(venue)
    if match:
        volume, issue, venue = match[1], match[2], venue[: match.start()]
    return VenueParts(venue.strip(" ,") or None, volume, issue, pages)


def citable_parts(pub: Citable) -> VenueParts:
    """The venue's parts as the page states them, else as read from the venue.

    >>> citable_parts(Publication(venue="IEEE access 6, 53019-53033", container="IEEE access", volume="6",
    ...                           pages="53019-53033"))
    VenueParts(container='IEEE access', volume='6', issue=None, pages='53019-53033')
    """
    if pub.container:
        return VenueParts(pub.container, pub.volume, pub.issue, pub.pages)
    return venue_parts(pub.venue)


def csl_type(pub: Citable) -> str | None:
    """The page's type, else the one its venue or identifiers make certain, else None.

    >>> from pubharvest.parsers.records import Publication
    >>> csl_type(Publication(venue="Proceedings of the 26th ACM SIGKDD International Conference on Knowledge"))
    'paper-conference'
    >>> csl_type(Publication(venue="Nature 3 (1), 2-9")), csl_type(Publication(venue="Nature"))
    ('article-journal', None)
    """
    if pub.type:
        return pub.type
    if pub.ids.patent_number:
        return "patent"
    if pub.ids.report_number:
        return "report"
    if not pub.venue:
        return PREPRINT if pub.ids.arxiv else None
    return venue_type(pub.venue)


@functools.lru_cache(maxsize=_VENUE_CACHE)
def venue_type(venue: str) -> str | None:
    """The CSL type a venue makes certain (a report number, a preprint server, a conference, a
    journal or a volume), else None."""
    if _REPORT.search(venue):
        return "report"
    if _PREPRINT_VENUE.search(venue):
        return PREPRINT
    if _CONFERENCE.search(venue):
        return "paper-conference"
    if _JOURNAL.search(venue) or venue_parts(venue).volume:
        return "article-journal"
    return None


def is_preprint_venue(venue: str | None) -> bool:
    """Whether a venue names a preprint server rather than where a paper was published."""
    return bool(venue and _PREPRINT_VENUE.search(venue))


def container_title(pub: Citable) -> str | None:
    """The venue as a container title: none for reports and preprints, whose venue is a number."""
    return container_of(csl_type(pub), pub.venue, citable_parts(pub))


def container_of(kind: str | None, venue: str | None, parts: VenueParts) -> str | None:
    """``container_title`` of a paper of CSL type ``kind`` whose venue is ``venue`` in ``parts``."""
    if kind in ("report", "patent") or (kind == PREPRINT and is_preprint_venue(venue)):
        return None
    return parts.container


def shown_container(pub: Citable) -> str | None:
    """Where a paper appeared, as a format's one container field shows it: the container title, else
    the venue as written for a preprint ("arXiv preprint arXiv:2101.06840") or a paper of unknown type.

    >>> shown_container(Publication(type="article", venue="bioRxiv"))
    'bioRxiv'
    >>> shown_container(Publication(venue="Nature 3 (1), 2-9"))
    'Nature'
    """
    kind = csl_type(pub)
    return container_title(pub) or (pub.venue if kind in (PREPRINT, None) else None)


def number_of(pub: Citable, kind: str | None) -> str | None:
    """A report's or a patent's number, for the types that have one (``kind``: the paper's CSL type)."""
    if kind == "report":
        return pub.ids.report_number
    if kind == "patent":
        return pub.ids.patent_number
    return None


def issued_parts(pub: Citable) -> list[int] | None:
    """``[year, month, day]`` as precise as the record: the ISO ``date``, else the ``year``.

    >>> from pubharvest.parsers.records import Publication
    >>> issued_parts(Publication(year=2024, date="2024-05")), issued_parts(Publication(year=2020))
    ([2024, 5], [2020])
    """
    return date_parts(pub.year, pub.date)


def date_parts(year: int | None, date: str | None) -> list[int] | None:
    """``issued_parts`` of a record's ``year`` and ``date``.

    >>> date_parts(2024, "2024-05-07"), date_parts(2024, "May 2024"), date_parts(None, None)
    ([2024, 5, 7], [2024], None)
    """
    if date and _ISO_DATE.fullmatch(date):
        return [int(part) for part in date.split("-")]
    return [year] if year else None
