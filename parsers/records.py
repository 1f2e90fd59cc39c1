"""The record model: what every site parser returns, and its JSON Schema.

Field names are a contract other tools rely on (see DESIGN.md): fields may be added, never
renamed. Absent values are ``None`` or ``[]``, never an invented default.

>>> r = PageResult(site="scholar", page="profile")
>>> to_builtins(r)["publications"]
[]
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

Site = Literal["scholar", "msr", "elamur"]
PageKind = Literal["profile", "publication_list", "publication", "rows"]


class _Record(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Base for all records: keyword-only, strict when decoding."""


class Ids(_Record):
    """Identifiers of a person on the sites and registries that name them."""

    scholar: str | None = None
    scholar_org: str | None = None
    orcid: str | None = None
    openalex: str | None = None
    wikidata: str | None = None
    msr: str | None = None
    elamur: str | None = None


class Affiliation(_Record):
    name: str
    kind: str | None = None
    city: str | None = None
    country: str | None = None
    start_year: int | None = None
    end_year: int | None = None
    papers: int | None = None
    current: bool | None = None
    url: str | None = None


class Topic(_Record):
    name: str
    kind: str | None = None
    count: int | None = None
    url: str | None = None


class Metrics(_Record):
    citations: int | None = None
    citations_since: int | None = None
    since_year: int | None = None
    h_index: int | None = None
    h_index_since: int | None = None
    i10_index: int | None = None
    i10_index_since: int | None = None
    works: int | None = None
    library_works: int | None = None
    library_citations: int | None = None
    rank: int | None = None
    # Elamur: all of the author's works in its library (``library_works`` counts those with a page)
    library_works_all: int | None = None
    # Elamur "Cited by": papers of the library that cite the author, and how many bibliographies the
    # library read in all (library-wide: the denominator the page gives, not the author's figure)
    library_citing_papers: int | None = None
    library_papers_read: int | None = None


class YearCitations(_Record):
    year: int
    citations: int


class YearWorks(_Record):
    year: int
    works: int


class PublicAccess(_Record):
    available: int | None = None
    not_available: int | None = None


class Coauthor(_Record):
    name: str
    affiliation: str | None = None
    email_domain: str | None = None
    ids: Ids = msgspec.field(default_factory=Ids)
    papers: int | None = None
    url: str | None = None


class Link(_Record):
    """A link a page gives for a record: ``kind`` is e.g. ``pdf``, ``external``, ``html``."""

    kind: str
    url: str
    label: str | None = None


class Profile(_Record):
    name: str | None = None
    url: str | None = None
    markdown_url: str | None = None  # the same page served as Markdown (Elamur)
    ids: Ids = msgspec.field(default_factory=Ids)
    position: str | None = None
    affiliation: str | None = None
    affiliations: list[Affiliation] = []
    email_domain: str | None = None
    homepage: str | None = None
    photo_url: str | None = None
    interests: list[str] = []
    topics: list[Topic] = []
    metrics: Metrics = msgspec.field(default_factory=Metrics)
    citations_by_year: list[YearCitations] = []
    works_by_year: list[YearWorks] = []
    public_access: PublicAccess | None = None
    coauthors: list[Coauthor] = []
    venues: list[str] = []
    links: list[Link] = []
    updated: str | None = None
    snapshot_date: str | None = None  # date of the OpenAlex data behind ids, metrics and affiliations


class PublicationIds(_Record):
    scholar: str | None = None
    scholar_clusters: list[str] = []
    arxiv: str | None = None
    doi: str | None = None
    isbn: str | None = None
    report_number: str | None = None
    patent_number: str | None = None
    msr: str | None = None
    elamur: str | None = None


class Facets(_Record):
    """The MSR groupings a paper was listed under."""

    years: list[int] = []
    research_areas: list[str] = []
    types: list[str] = []


class Author(_Record):
    """An author with identifiers, where the page links one (MSR publication pages)."""

    name: str
    ids: Ids = msgspec.field(default_factory=Ids)
    url: str | None = None


class Publication(_Record):
    title: str | None = None
    authors: list[str] = []
    authors_truncated: bool = False
    author_links: list[Author] = []
    venue: str | None = None
    venue_truncated: bool = False
    year: int | None = None
    date: str | None = None
    type: str | None = None
    citations: int | None = None
    ids: PublicationIds = msgspec.field(default_factory=PublicationIds)
    url: str | None = None
    links: list[Link] = []
    publisher: str | None = None
    summary: str | None = None
    facets: Facets = msgspec.field(default_factory=Facets)
    flags: list[str] = []


class PageWarning(_Record):
    """Something odd that was still parsed: ``code`` names it, ``message`` says where and why."""

    code: str
    message: str


class Source(_Record):
    sha256: str
    parser: str


class PageResult(_Record):
    site: Site
    page: PageKind
    url: str | None = None
    profile: Profile | None = None
    publications: list[Publication] = []
    warnings: list[PageWarning] = []
    source: Source | None = None

    def warn(self, code: str, message: str) -> None:
        """Record something odd that was still parsed."""
        self.warnings.append(PageWarning(code=code, message=message))


def to_builtins(record: msgspec.Struct) -> Any:
    """The record as plain dicts and lists, ready for ``json.dumps`` or pandas."""
    return msgspec.to_builtins(record)


def to_json(record: msgspec.Struct) -> bytes:
    """The record as compact JSON bytes."""
    return msgspec.json.encode(record)


def from_json(data: bytes | str) -> PageResult:
    """A ``PageResult`` back from its JSON (strict: unknown fields are an error)."""
    return msgspec.json.decode(data, type=PageResult)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of ``PageResult`` and every record inside it."""
    return msgspec.json.schema(PageResult)
