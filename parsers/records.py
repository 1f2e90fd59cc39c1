"""The record model: what every site parser returns, and its JSON Schema.

Field names are a contract other tools rely on: fields may be added, never
renamed. Absent values are ``None`` or ``[]``, never an invented default.

>>> r = PageResult(site="scholar", page="profile")
>>> to_builtins(r)["publications"]
[]

``site`` is any site of the registry (``pubharvest.parsers.SITES``), checked when a record is made
or decoded; ``json_schema()`` names them as an ``enum``:

>>> PageResult(site="nowhere", page="profile")
Traceback (most recent call last):
...
ValueError: 'nowhere' is not a site pubharvest knows (scholar, msr, elamur)
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from typing import Annotated, Any, Literal

import msgspec

from pubharvest import siteregistry as registry

from .warning_codes import Warn, codes

__all__ = [
    "Ids", "Affiliation", "Topic", "Metrics", "YearCitations", "YearWorks", "PublicAccess", "Coauthor", "Link",
    "Profile", "PublicationIds", "OpenAccess", "CitedBy", "Provenance", "SearchInfo", "Facets", "Author",
    "Publication", "PageWarning", "Source",
    "PageResult", "PageKind", "Count", "Year", "IsoDate", "Orcid", "Doi", "MAX_COUNT", "YEARS", "DATE_PATTERN",
    "registered_sites", "own_id", "set_own_id", "id_value", "id_values", "string_kinds",
    "to_builtins", "to_json", "from_json", "json_schema",
]

# What the schema states of values beyond their types (``minimum``, ``maximum``, ``pattern``): record files
# that ``merge`` and ``report`` read are checked against these (``pubharvest.recordfiles``); decoding does not
# enforce them, so that a store keeps reading what an older version wrote.
MAX_COUNT = 2**63 - 1  # what the store's integer columns hold
YEARS = range(1500, 2100)
Count = Annotated[int, msgspec.Meta(extra_json_schema={"minimum": 0, "maximum": MAX_COUNT})]
Year = Annotated[int, msgspec.Meta(extra_json_schema={"minimum": YEARS.start, "maximum": YEARS.stop - 1})]
# A date as precise as the page says: a year, a month (01-12) of it, a day (01-31) of that; a checker also asks
# that the day is on the calendar and the year in ``YEARS`` (``pubharvest.recordfiles``).
DATE_PATTERN = "^[0-9]{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?$"
IsoDate = Annotated[str, msgspec.Meta(extra_json_schema={"pattern": DATE_PATTERN})]
Orcid = Annotated[str, msgspec.Meta(extra_json_schema={"pattern": "^[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$"})]
Doi = Annotated[str, msgspec.Meta(extra_json_schema={"pattern": "^10[.][0-9]{4,9}/\\S+$"})]

PageKind = Literal["profile", "publication_list", "publication", "rows", "coauthors", "search"]


class _Record(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    """Base for all records: keyword-only, strict when decoding. Not tracked by the cycle collector
    (``gc=False``): a record never refers back to what holds it, and a large page's hundreds of
    thousands of records made each collection walk them all."""


class Ids(_Record):
    """Identifiers of a person on the sites and registries that name them."""

    scholar: str | None = None
    scholar_org: str | None = None
    orcid: Orcid | None = None
    openalex: str | None = None
    wikidata: str | None = None
    msr: str | None = None
    elamur: str | None = None
    other: dict[str, str] = {}  # ids on registered sites that have no field of their own, by site name


class Provenance(_Record, omit_defaults=True):
    """Where one value of a record came from, and how it was found: the page itself, or a service asked.

    ``field`` is the dotted path of the value it gives (``ids.doi``, ``ids.arxiv``, ``ids.orcid``,
    ``ids.openalex``, ``open_access``, ...) and ``value`` the value as the record holds it. ``source`` is
    ``page`` or the service (``crossref``, ``openalex``); ``method`` how it was read or matched: on a page
    ``link`` (a link's address), ``meta`` (the page's meta data), ``text`` (its text), ``venue`` (the venue
    as written); of a service ``doi`` (asked by DOI) or ``query`` (a bibliographic search). ``where`` is the
    address or attribute it was read from, or the request's URL; ``score`` how close a service's match
    was; ``date`` when the service answered. A candidate that was not taken has ``accepted`` false and
    says why in ``reason``. Left out of the JSON when absent, like ``Source``'s optional fields.

    >>> to_json(Provenance(field="ids.doi", value="10.1145/3458817.3476205", source="page", method="link",
    ...                    where="https://dl.acm.org/doi/10.1145/3458817.3476205"))[:92]
    b'{"field":"ids.doi","value":"10.1145/3458817.3476205","source":"page","method":"link","where"'
    """

    field: str
    value: str
    source: str
    method: str
    where: str | None = None
    score: float | None = None
    date: IsoDate | None = None
    accepted: bool = True
    reason: str | None = None


class Affiliation(_Record):
    name: str
    kind: str | None = None
    city: str | None = None
    country: str | None = None
    start_year: Year | None = None
    end_year: Year | None = None
    papers: Count | None = None
    current: bool | None = None
    url: str | None = None


class Topic(_Record):
    name: str
    kind: str | None = None
    count: Count | None = None
    url: str | None = None


class Metrics(_Record):
    citations: Count | None = None
    citations_since: Count | None = None
    since_year: Year | None = None
    h_index: Count | None = None
    h_index_since: Count | None = None
    i10_index: Count | None = None
    i10_index_since: Count | None = None
    works: Count | None = None
    library_works: Count | None = None
    library_citations: Count | None = None
    rank: Count | None = None
    # Elamur: all of the author's works in its library (``library_works`` counts those with a page)
    library_works_all: Count | None = None
    # Elamur "Cited by": papers of the library that cite the author, and how many bibliographies the
    # library read in all (library-wide: the denominator the page gives, not the author's figure)
    library_citing_papers: Count | None = None
    library_papers_read: Count | None = None


class YearCitations(_Record):
    year: Year
    citations: Count


class YearWorks(_Record):
    year: Year
    works: Count


class PublicAccess(_Record):
    available: Count | None = None
    not_available: Count | None = None


class Coauthor(_Record):
    name: str
    name_truncated: bool = False  # the sidebar cut the name short (2014–2017: "George C. Kagadi...")
    affiliation: str | None = None
    email_domain: str | None = None
    ids: Ids = msgspec.field(default_factory=Ids)
    papers: Count | None = None
    url: str | None = None
    interests: list[str] = []
    citations: Count | None = None  # the co-author's own "Cited by" count (Scholar's co-author list)


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
    updated: IsoDate | None = None
    snapshot_date: IsoDate | None = None  # date of the OpenAlex data behind ids, metrics and affiliations
    provenance: list[Provenance] = []  # where the profile's ids came from (``Provenance``)


class PublicationIds(_Record):
    scholar: str | None = None
    scholar_clusters: list[str] = []
    arxiv: str | None = None
    doi: Doi | None = None
    isbn: str | None = None
    report_number: str | None = None
    patent_number: str | None = None
    msr: str | None = None
    elamur: str | None = None
    other: dict[str, str] = {}  # ids on registered sites that have no field of their own, by site name
    openalex: str | None = None  # the OpenAlex work id (``W`` and digits), from OpenAlex (``--enrich``)


class OpenAccess(_Record):
    """Whether a paper can be read free, as a service says (OpenAlex's ``open_access``): ``status`` is its
    word for how (``gold``, ``green``, ``hybrid``, ``bronze``, ``diamond``, ``closed``), ``url`` where."""

    is_oa: bool
    status: str | None = None
    url: str | None = None


class CitedBy(_Record):
    """How many works a service counts citing a paper, in all and per year (every year from the paper's
    to the service's latest, a year with none as 0), and the day it answered."""

    source: str
    citations: Count | None = None
    by_year: list[YearCitations] = []
    date: IsoDate | None = None


class Facets(_Record):
    """The MSR groupings a paper was listed under."""

    years: list[Year] = []
    research_areas: list[str] = []
    types: list[str] = []


class Author(_Record):
    """An author with identifiers, where the page links one (MSR publication pages)."""

    name: str
    ids: Ids = msgspec.field(default_factory=Ids)
    url: str | None = None


class Publication(_Record):
    title: str | None = None
    title_truncated: bool = False  # the page cut the title short ("..." or "…", taken off ``title``)
    authors: list[str] = []
    authors_truncated: bool = False
    author_links: list[Author] = []
    venue: str | None = None
    venue_truncated: bool = False
    year: Year | None = None
    date: IsoDate | None = None
    type: str | None = None
    citations: Count | None = None
    ids: PublicationIds = msgspec.field(default_factory=PublicationIds)
    url: str | None = None
    links: list[Link] = []
    publisher: str | None = None
    summary: str | None = None
    facets: Facets = msgspec.field(default_factory=Facets)
    flags: list[str] = []
    # Search results: the badge before the title as written ("PDF", "BOOK", "CITATION", localised),
    # and the count of the "All N versions" link (its cluster is in ``ids.scholar_clusters``)
    result_type: str | None = None
    versions: Count | None = None
    result_id: str | None = None  # the result's own id on a search page (``data-cid``, used by Cite and related:)
    # the paper's own page (Scholar's view_citation) gives these; the venue keeps them too, as a profile row writes it
    citations_by_year: list[YearCitations] = []
    container: str | None = None  # the journal, conference or book alone: the venue without volume, issue, pages
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    patent_office: str | None = None
    provenance: list[Provenance] = []  # where the paper's ids and other found values came from (``Provenance``)
    # what a service asked with ``--enrich`` says (each with its ``provenance``); the page's own count is ``citations``
    open_access: OpenAccess | None = None
    cited_by: list[CitedBy] = []


class PageWarning(_Record):
    """Something odd that was still parsed: ``code`` names it, ``message`` says where and why."""

    code: str
    message: str


class Source(_Record, omit_defaults=True):
    """Where a record came from: the input's hash and the parser; a scraper job adds its ``run`` id and
    when the page was fetched (``fetched_at``, ISO UTC), left out of the JSON when absent (an offline parse)."""

    sha256: str
    parser: str
    run: str | None = None
    fetched_at: str | None = None


class SearchInfo(_Record):
    """What a search results page says about the search itself (``page: search``).

    ``kind`` is ``articles`` (``/scholar?q=``, ``cites=``, ``cluster=``) or ``authors``
    (``view_op=search_authors``); ``total_results`` is the count the page states, 0 for a page that
    says nothing matched; ``next_start`` and ``next_url`` are those of the "Next" link (null on the
    last page)."""

    kind: Literal["articles", "authors"]
    query: str | None = None
    cites: list[str] = []  # the cluster ids of a "Cited by" list (``cites=``)
    cluster: str | None = None  # the cluster of an "All versions" list (``cluster=``)
    total_results: Count | None = None
    page_number: Count | None = None
    next_start: Count | None = None
    next_url: str | None = None


class PageResult(_Record):
    site: str  # a name in the registry (``registered_sites()``)
    page: PageKind
    url: str | None = None
    profile: Profile | None = None
    publications: list[Publication] = []
    warnings: list[PageWarning] = []
    source: Source | None = None
    search: SearchInfo | None = None  # search results pages: the query, the total, the next page
    profiles: list[Profile] = []  # search pages: the profiles listed (stubs: name, ids, affiliation, ...)

    def warn(self, code: Warn, message: str) -> None:
        """Record something odd that was still parsed (``code`` from the catalogue, ``warning_codes.Warn``)."""
        self.warnings.append(PageWarning(code=code.name, message=message))

    def __post_init__(self) -> None:  # msgspec runs it on decoding too, and reports the error as invalid data
        sites = registered_sites()
        if self.site not in sites:
            raise ValueError(f"{self.site!r} is not a site pubharvest knows ({', '.join(sites)})")


def registered_sites() -> tuple[str, ...]:
    """The names of the sites in the registry (``pubharvest.parsers.SITES``), read on every call so
    that a site added there is known at once."""
    return registry.SITES


def own_id(ids: Ids | PublicationIds, site: str) -> str | None:
    """The id ``ids`` hold on ``site``: the field named like the site, else ``other[site]``.

    >>> own_id(PublicationIds(msr="zero-offload"), "msr"), own_id(Ids(other={"toy": "ada"}), "toy")
    ('zero-offload', 'ada')
    >>> own_id(Ids(), "toy") is None, own_id(PublicationIds(scholar_clusters=["1"]), "scholar_clusters") is None
    (True, True)
    """
    if _has_field_for(ids, site):
        value: str | None = getattr(ids, site)
        return value
    return ids.other.get(site)


def _has_field_for(ids: Ids | PublicationIds, site: str) -> bool:
    """Whether ``ids`` has a field of its own for ids on ``site`` (one holding a single id, not a list)."""
    return site in type(ids).__struct_fields__ and isinstance(getattr(ids, site), (str, type(None)))


def set_own_id(ids: Ids | PublicationIds, site: str, value: str | None) -> None:
    """Store ``value`` as the id on ``site``: in the field named like the site, else in ``other``.

    >>> ids = Ids()
    >>> set_own_id(ids, "elamur", "ada"); set_own_id(ids, "toy", "ada-1"); (ids.elamur, ids.other)
    ('ada', {'toy': 'ada-1'})
    """
    if _has_field_for(ids, site):
        setattr(ids, site, value)
    elif value is None:
        ids.other.pop(site, None)
    else:
        ids.other[site] = value


def id_value(ids: Ids | PublicationIds, kind: str) -> str | None:
    """The identifier of one ``kind`` in ``ids``: a site's own id for a site's name, else the field.

    >>> ids = PublicationIds(doi="10.1/x", msr="123")
    >>> id_value(ids, "msr"), id_value(ids, "doi"), id_value(ids, "elamur")
    ('123', '10.1/x', None)
    """
    if kind in registered_sites():
        return own_id(ids, kind)
    value: str | None = getattr(ids, kind)
    return value


def id_values(ids: Ids | PublicationIds, kinds: tuple[str, ...]) -> dict[str, str]:
    """The identifiers of ``kinds`` that ``ids`` holds (each as ``id_value`` gives it), read in one pass.

    >>> id_values(PublicationIds(doi="10.1/x", msr="123"), ("doi", "arxiv", "msr", "elamur"))
    {'doi': '10.1/x', 'msr': '123'}
    """
    found, sites = {}, registered_sites()
    for kind, place in _id_places(type(ids), kinds, sites):
        value = getattr(ids, place) if place else None
        if place is None or (kind in sites and not isinstance(value, str | None)):  # as ``own_id`` reads it
            value = ids.other.get(kind)
        if value:
            found[kind] = value
    return found


@functools.lru_cache(maxsize=64)
def _id_places(ids_type: type[Ids] | type[PublicationIds], kinds: tuple[str, ...],
               sites: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    """Where ``id_values`` reads each kind: the field of that name, or (None) ``other`` for a site with no field
    of its own; a kind that is no field and no site is left out. Worked out once per type, kinds and registry."""
    fields = ids_type.__struct_fields__
    return tuple((kind, kind if kind in fields else None) for kind in kinds if kind in fields or kind in sites)


def string_kinds(ids_type: type[Ids] | type[PublicationIds]) -> tuple[str, ...]:
    """The kinds of which ``ids_type`` holds one string, in field order (not lists such as
    ``scholar_clusters``), then every registered site without a field of its own: what the store,
    the merge and the tables read from a record's ``ids``.

    >>> string_kinds(PublicationIds)
    ('scholar', 'arxiv', 'doi', 'isbn', 'report_number', 'patent_number', 'msr', 'elamur', 'openalex')
    """
    fields = tuple(f.name for f in msgspec.structs.fields(ids_type) if _unannotated(f.type) == (str | None))
    return fields + tuple(site for site in registered_sites() if site not in ids_type.__struct_fields__)


def _unannotated(kind: Any) -> Any:
    """``kind`` without the ``Annotated`` constraints of its members: ``Doi | None`` is ``str | None``."""
    if typing.get_origin(kind) is Annotated:
        return typing.get_args(kind)[0]
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return functools.reduce(operator.or_, map(_unannotated, typing.get_args(kind)))
    return kind


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
    """The JSON Schema of ``PageResult`` and every record inside it; ``site`` names the registered sites,
    a warning's ``code`` the catalogue's codes.

    >>> json_schema()["$defs"]["PageResult"]["properties"]["site"]
    {'enum': ['elamur', 'msr', 'scholar']}
    >>> json_schema()["$defs"]["PageWarning"]["properties"]["code"]["enum"][:3]
    ['charset_guessed', 'charset_unsupported', 'charset_mismatch']
    """
    schema = msgspec.json.schema(PageResult)
    schema["$defs"]["PageResult"]["properties"]["site"] = {"enum": sorted(registered_sites())}
    schema["$defs"]["PageWarning"]["properties"]["code"] = {"enum": codes()}
    return schema
