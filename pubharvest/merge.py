"""One record per paper, and per person, across the pages of several sites.

Papers match by identifier first (arXiv, DOI, report and patent numbers, the sites' own ids; an
ISBN only along with an agreeing title, as all papers of a proceedings volume share its ISBN),
then by normalised title (``parsers.text.title_key``) with years at most one apart, then a title
cut short (ending in ``...`` or ``…``) by the one paper whose title it begins. Titles never join two
rows of one listing (one profile on one site, however many pages it came on: ``listing_of``), and
papers with different arXiv ids, DOIs, report or patent numbers never merge. The rules are
docs/exports.md's "Merging". Every join is recorded in ``matched_by``; every source keeps what it
said in ``sources``.

>>> from pubharvest.parsers.records import PageResult, Publication
>>> a = PageResult(site="scholar", page="rows", publications=[Publication(
...     title="Zero-offload: Democratizing billion-scale model training", year=2021, citations=405,
...     authors=["J Ren", "S Rajbhandari"], authors_truncated=True)])
>>> b = PageResult(site="msr", page="publication_list", publications=[Publication(
...     title="ZeRO-Offload: Democratizing Billion-Scale Model Training", year=2021,
...     authors=["Jie Ren", "Samyam Rajbhandari", "Reza Yazdani Aminabadi"])])
>>> paper = merge([("a", a), ("b", b)]).papers[0]
>>> paper.title, paper.authors[-1]
('ZeRO-Offload: Democratizing Billion-Scale Model Training', 'Reza Yazdani Aminabadi')
>>> [(s.site, s.citations) for s in paper.sources]
[('scholar', 405), ('msr', None)]
>>> paper.matched_by[0].reason
'title_year'
"""

from __future__ import annotations

import functools
import operator
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import compress
from typing import Any, TypeVar, cast

import msgspec

from pubharvest.parsers import site_info
from pubharvest.parsers.identifiers import arxiv_of_doi
from pubharvest.parsers.records import (
    CitedBy,
    Ids,
    OpenAccess,
    PageResult,
    Profile,
    Provenance,
    Publication,
    PublicationIds,
    id_value,
    id_values,
    own_id,
    registered_sites,
)
from pubharvest.parsers.text import paused_gc, title_key

from .citable import PREPRINT, Bibliographic, csl_type, is_preprint_venue
from .keys import Keys
from .names import name_key

# Identifier kinds that name one paper, in the order they are tried, before the sites' own ids
# (``paper_id_kinds``, from the registry).
PAPER_ID_KINDS = ("arxiv", "doi", "isbn", "report_number", "patent_number")
# Scholar's cluster ids and ``duplicate_of`` flags are not used: Scholar's merged rows put the
# clusters of every work it merged in one cites link, and it merges different works (the Einstein
# fragment in the corpus merges distinct letters to Besso), so joining on them chains papers.
# Kinds of which a paper has one: papers with different values are different papers. (Not the
# sites' own ids: each Scholar profile gives a shared paper its own UID:PUBID. Not the ISBN: a
# proceedings volume's ISBN is shared by all its papers, so it only confirms a title.)
UNIQUE_ID_KINDS = ("arxiv", "doi", "report_number", "patent_number")
# Identifier kinds that name one person, before the sites' own ids (``person_id_kinds``).
PERSON_ID_KINDS = ("orcid", "openalex", "wikidata")
TITLE_REASONS = ("title_year", "title_prefix")
NAME_REASON = "name_coauthors"
MIN_SHARED_COAUTHORS = 2
_CUT_TITLE = ("...", "…")  # a cut title's mark, with or without a (no-break) space before it
MIN_PREFIX_KEY = 10  # a cut title joins the one it begins when its key has at least this many characters
MAX_TITLE_YEAR_GAP = 1  # titles join papers whose years are at most this far apart
# A join made: (source index, source index, reason, value)
Join = tuple[int, int, str, str | None]
_Ids = TypeVar("_Ids", Ids, PublicationIds)


def paper_id_kinds() -> tuple[str, ...]:
    """The identifier kinds papers join on, in order: ``PAPER_ID_KINDS``, then each site's own ids."""
    return PAPER_ID_KINDS + registered_sites()


def person_id_kinds() -> tuple[str, ...]:
    """The identifier kinds people join on, in order: ``PERSON_ID_KINDS``, then each site's own ids."""
    return PERSON_ID_KINDS + registered_sites()


def match_reasons() -> tuple[str, ...]:
    """Every ``Match.reason``: an identifier kind, or how titles or names and co-authors agreed.

    >>> match_reasons()[4:10]
    ('patent_number', 'scholar', 'msr', 'elamur', 'title_year', 'title_prefix')
    """
    return tuple(dict.fromkeys(paper_id_kinds() + TITLE_REASONS + person_id_kinds() + (NAME_REASON,)))


class _Merged(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of the merged records: keyword-only, strict when decoding."""


class SourceRecord(Bibliographic, kw_only=True):
    """What one page said about a paper."""

    site: str
    input: str | None = None  # the file (or "<stdin>") the page came from
    page_url: str | None = None
    citations: int | None = None
    flags: list[str] = []  # noqa: RUF012 (a Struct: msgspec gives each instance its own empty list)
    run: str | None = None  # the job run and fetch time of the page (records a job wrote)
    fetched_at: str | None = None
    # what a service asked with ``--enrich`` said of it (``Publication.open_access`` and ``cited_by``)
    open_access: OpenAccess | None = None
    cited_by: list[CitedBy] = []  # noqa: RUF012 (a Struct, as above)


class Match(_Merged, kw_only=True):
    """Why two sources are one record: ``sources`` are indexes into the record's ``sources``."""

    reason: str  # one of ``match_reasons()`` (the JSON Schema lists them)
    value: str | None = None  # the shared identifier, title key, or what agreed
    sources: list[int]


class Paper(Bibliographic, kw_only=True):
    """One paper, with the fullest title, author list and venue its sources give."""

    key: str  # its BibTeX key and CSL id
    citations_max: int | None = None  # the highest count among the sources
    citations_latest: int | None = None  # the count of the most recently fetched source (records a job wrote)
    open_access: OpenAccess | None = None  # the first source's that has it (``--enrich``)
    cited_by: list[CitedBy] = []  # noqa: RUF012 (a Struct, as above): each service's latest answer (``--enrich``)
    sources: list[SourceRecord]
    matched_by: list[Match] = []  # noqa: RUF012 (a Struct, as above)


class ProfileSource(_Merged, kw_only=True):
    """What one page said about a person."""

    site: str
    input: str | None = None
    url: str | None = None
    name: str | None = None
    ids: Ids = msgspec.field(default_factory=Ids)
    affiliation: str | None = None
    citations: int | None = None
    h_index: int | None = None
    run: str | None = None
    fetched_at: str | None = None
    provenance: list[Provenance] = []  # where the page's ids of the person came from


class MergedProfile(_Merged, kw_only=True):
    name: str | None = None
    ids: Ids = msgspec.field(default_factory=Ids)
    sources: list[ProfileSource]
    matched_by: list[Match] = []
    provenance: list[Provenance] = []  # where the merged ids came from (``Provenance``)


class MergeResult(_Merged, kw_only=True):
    profiles: list[MergedProfile] = []
    papers: list[Paper] = []


def merged_json_schema() -> dict[str, Any]:
    """The JSON Schema of ``MergeResult`` and every record inside it; a match's ``reason`` is one of
    ``match_reasons()``, which name the registered sites.

    >>> merged_json_schema()["$defs"]["Match"]["properties"]["reason"]["enum"][:3]
    ['arxiv', 'doi', 'elamur']
    """
    schema = msgspec.json.schema(MergeResult)
    schema["$defs"]["Match"]["properties"]["reason"] = {"enum": sorted(match_reasons())}
    return schema


def merge(pages: Iterable[tuple[str | None, PageResult]]) -> MergeResult:
    """One record per paper and per person, from ``(input name, page result)`` pairs, in input order;
    of the records a job wrote, only the latest of each source and page (``latest_records``)."""
    with paused_gc():
        pages = latest_records(list(pages))
        return MergeResult(profiles=merge_profiles(pages), papers=merge_papers(pages))


def latest_records(pages: Sequence[tuple[str | None, PageResult]]) -> list[tuple[str | None, PageResult]]:
    """``pages`` without the earlier records of a source a job fetched more than once: of the records
    with a fetch time and one ``source_key``, the latest (the last given, of equal times) stays.
    Records without a fetch time (parsed offline) all stay, in input order.

    >>> from pubharvest.parsers.records import Source
    >>> def fetched(when): return PageResult(site="msr", page="profile", url="https://msr/ada",
    ...     source=Source(sha256="", parser="", run=when, fetched_at=when))
    >>> [r.source.fetched_at for _, r in latest_records([(None, fetched("2024-05")), (None, fetched("2024-04"))])]
    ['2024-05']
    """
    latest: dict[tuple[str, str, str], tuple[str, int]] = {}
    for index, (_, result) in enumerate(pages):
        if (key := source_key(result)) and result.source and result.source.fetched_at:
            latest[key] = max(latest.get(key, ("", -1)), recency(result, index))
    kept = {index for _, index in latest.values()}
    return [pair for index, pair in enumerate(pages) if index in kept or source_key(pair[1]) is None
            or not (pair[1].source and pair[1].source.fetched_at)]


def recency(result: PageResult, index: int) -> tuple[str, int]:
    """What orders records of one source by age, the latest highest: the fetch time ("" for a page
    parsed offline), then the place ``index`` in the input (the last given is the latest of equals)."""
    return (result.source.fetched_at or "" if result.source else "", index)


def profile_named(result: PageResult) -> str | None:
    """Who the page's profile is: the person's id on the page's site, else the profile's URL (None without)."""
    profile = result.profile
    return (id_value(profile.ids, result.site) or profile.url) if profile else None


def source_key(result: PageResult) -> tuple[str, str, str] | None:
    """Which source a record is of: its site, page kind, and the person's id on the site, else the
    profile's or the page's URL (None when it has none); for a paper's own page, the paper's id."""
    who = profile_named(result)
    if result.page == "publication":  # one paper's own page: each paper of a person is a source of its own
        who = next((id_value(pub.ids, result.site) or pub.url for pub in result.publications), None) or result.url
    who = who or result.url
    return (result.site, result.page, who) if who else None


# --- papers ------------------------------------------------------------------------------------


class _Groups:
    """Union-find over sources, refusing joins within one listing or across differing identifiers."""

    def __init__(self, sources: Sequence[SourceRecord | ProfileSource], listings: Iterable[int],
                 ids: Iterable[dict[str, str]], id_kinds: Sequence[str]) -> None:
        """``listings``: the listing of each source (``listing_of``, numbered); ``ids``: each source's
        identifiers by kind; those of ``id_kinds`` keep groups apart."""
        self.parent = list(range(len(sources)))
        self.listing = list(listings)  # each source's own
        self.listings = [{listing} for listing in self.listing]  # each group's (at its root)
        self.ids = [{kind: {v} for kind in id_kinds if (v := found.get(kind))} for found in ids]
        # profiles have no year: their groups never differ in years
        self.years: list[set[int]] = [{year} if (year := getattr(s, "year", None)) else set() for s in sources]
        self.matches: list[Join] = []

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def conflicts(self, a: int, b: int, same_listing_ok: bool, max_year_gap: int | None) -> bool:
        """Whether groups ``a`` and ``b`` (roots) must stay apart."""
        if not same_listing_ok and self.listings[a] & self.listings[b]:
            return True
        for kind in self.ids[a].keys() & self.ids[b].keys():
            if self.ids[a][kind] != self.ids[b][kind]:
                return True
        years = self.years[a] | self.years[b]
        return max_year_gap is not None and bool(years) and max(years) - min(years) > max_year_gap

    def join(self, i: int, j: int, reason: str, value: str | None, same_listing_ok: bool = True,
             max_year_gap: int | None = None) -> bool:
        a, b = self.find(i), self.find(j)
        if a == b or self.conflicts(a, b, same_listing_ok, max_year_gap):
            return False
        a, b = min(a, b), max(a, b)
        self.parent[b] = a
        self.listings[a] |= self.listings[b]
        self.years[a] |= self.years[b]
        for kind, values in self.ids[b].items():
            self.ids[a].setdefault(kind, set()).update(values)
        self.matches.append((i, j, reason, value))
        return True

    def groups(self) -> list[tuple[list[int], list[Join]]]:
        """Members of every group with the joins made inside it (in the order they were made),
        groups in order of their first member."""
        members: dict[int, list[int]] = {}
        for i in range(len(self.parent)):
            members.setdefault(self.find(i), []).append(i)
        joins: defaultdict[int, list[Join]] = defaultdict(list)
        for match in self.matches:
            joins[self.find(match[0])].append(match)
        return sorted((group, joins[root]) for root, group in members.items())


def merge_papers(pages: Sequence[tuple[str | None, PageResult]]) -> list[Paper]:
    """One ``Paper`` per paper in ``pages``, in the order each first appears."""
    sources: list[SourceRecord] = []
    listing_numbers: dict[Hashable, int] = {}
    listings: list[int] = []
    for index, (name, result) in enumerate(pages):
        listing = listing_numbers.setdefault(listing_of(index, result), len(listing_numbers))
        page = page_source(name, result)
        for pub in result.publications:
            sources.append(with_publication(page, pub))
            listings.append(listing)
    ids = [paper_ids(s) for s in sources]
    groups = _Groups(sources, listings, ids, UNIQUE_ID_KINDS)
    _join_by_ids(groups, sources, ids)
    _join_by_titles(groups, sources)
    keys = Keys()
    return [build_paper([sources[i] for i in members], _matches_within(members, joins), keys)
            for members, joins in groups.groups()]


def listing_of(index: int, result: PageResult) -> Hashable:
    """Which listing the rows of ``result`` (the ``index``-th page) are of: ``(site, profile)`` for a
    profile's rows, however many pages (Scholar's ``cstart`` pages, "Show more" rows) or saves they
    came on. The profile is the page's (its id on the site, else its URL), else the one that the
    rows' own ids name (Scholar's ``UID:PUBID``); a page of no one profile (a search page, a saved
    table that names nobody) is a listing of its own.

    >>> rows = [Publication(title="A", ids=PublicationIds(scholar="qc6CJjYAAAAJ:u5HHmVD_uO8C"))]
    >>> listing_of(3, PageResult(site="scholar", page="rows", publications=rows))
    ('scholar', 'qc6CJjYAAAAJ')
    >>> listing_of(3, PageResult(site="msr", page="publication_list", publications=[Publication(title="A")]))
    3
    """
    who = profile_named(result) or _profile_named_by_rows(result)
    return (result.site, who) if who else index


def _profile_named_by_rows(result: PageResult) -> str | None:
    """The one profile that the own ids of ``result``'s rows name (``SiteInfo.profile_of_paper``), else None."""
    info = site_info(result.site)
    named = {info.profile_of_paper(own_id(pub.ids, result.site)) for pub in result.publications}
    return named.pop() if len(named) == 1 else None


def source_record(name: str | None, result: PageResult, pub: Publication) -> SourceRecord:
    """What ``pub`` on page ``result`` says, with where it came from."""
    return with_publication(page_source(name, result), pub)


def page_source(name: str | None, result: PageResult) -> SourceRecord:
    """Where the sources of page ``result`` came from, as a source of no publication: what they share."""
    run, fetched_at = _when(result)
    return SourceRecord(site=result.site, input=name, page_url=result.url, run=run, fetched_at=fetched_at)


def with_publication(page: SourceRecord, pub: Publication) -> SourceRecord:
    """``page`` (a ``page_source``) with what ``pub`` says: a copy of it, every field ``pub`` has replaced
    (the fields left, where it came from, are strings: no list is shared between sources)."""
    names, taken = _publication_fields()
    return msgspec.structs.replace(page, **dict(zip(names, taken(msgspec.structs.astuple(pub)), strict=True)))


@functools.cache
def _publication_fields() -> tuple[tuple[str, ...], Callable[[tuple[Any, ...]], tuple[Any, ...]]]:
    """The fields a ``SourceRecord`` takes from its ``Publication``, and what picks their values out of the
    ``Publication``'s values (in its field order)."""
    names = tuple(f for f in SourceRecord.__struct_fields__ if f in Publication.__struct_fields__)
    return names, operator.itemgetter(*(Publication.__struct_fields__.index(f) for f in names))


def _when(result: PageResult) -> tuple[str | None, str | None]:
    """The job run and fetch time of a record (None for a page parsed offline)."""
    source = result.source
    return (source.run, source.fetched_at) if source else (None, None)


def normalised_id(kind: str, value: str) -> str:
    """``value``, an identifier of ``kind``, spelt as every site's spelling of it is (for joining).

    >>> normalised_id("doi", "10.1145/ABC"), normalised_id("scholar", "AbC:dEf")
    ('10.1145/abc', 'AbC:dEf')
    """
    if kind in ("isbn", "patent_number"):
        return "".join(ch for ch in value.upper() if ch.isalnum())
    # DOIs are case-insensitive by definition; the sites' own ids (Scholar's) are not
    return value.casefold() if kind in ("doi", "arxiv", "report_number") else value


def paper_ids(source: SourceRecord) -> dict[str, str]:
    """``source``'s identifiers of every kind papers join on (``paper_id_kinds()``), normalised so that
    the sites' spellings agree.

    >>> paper_ids(SourceRecord(site="msr", ids=PublicationIds(isbn="978-1-4673-8815-3")))
    {'isbn': '9781467388153'}

    arXiv's own DOI names the preprint by its arXiv id, and joins it as one:

    >>> paper_ids(SourceRecord(site="scholar", ids=PublicationIds(doi="10.48550/arXiv.2101.06840")))
    {'arxiv': '2101.06840', 'doi': '10.48550/arxiv.2101.06840'}
    """
    if not any(msgspec.structs.astuple(source.ids)):  # no id at all (most of Scholar's rows): one pass in C
        return {}
    found = {kind: normalised_id(kind, value) for kind, value in id_values(source.ids, paper_id_kinds()).items()}
    if "arxiv" not in found and (arxiv := arxiv_of_doi(found.get("doi"))):
        found = {"arxiv": normalised_id("arxiv", arxiv), **found}
    return found


def _join_by_ids(groups: _Groups, sources: Sequence[SourceRecord], ids: Sequence[dict[str, str]]) -> None:
    """Sources with an identifier in common, kind by kind (``paper_id_kinds()``); ``ids`` are each
    source's ``paper_ids``."""
    for kind in paper_id_kinds():
        agree = (lambda i, j: _titles_agree(sources[i], sources[j])) if kind == "isbn" else None
        _join_equal(groups, [(i, value) for i, found in enumerate(ids) if (value := found.get(kind))], kind, agree)


def _join_equal(groups: _Groups, values: Iterable[tuple[int, Any]], reason: str,
                agree: Callable[[int, int], bool] | None = None) -> None:
    """Join every source to the first source with the same (non-empty) value (when they ``agree``)."""
    first: dict[Any, int] = {}
    for i, value in values:
        if value and (j := first.setdefault(value, i)) != i and (agree is None or agree(j, i)):
            groups.join(j, i, reason, str(value))


def _titles_agree(a: SourceRecord, b: SourceRecord) -> bool:
    """Whether two titles are one, or one is the beginning of the other."""
    key_a, key_b = title_key(a.title), title_key(b.title)
    return bool(key_a and key_b) and (key_a.startswith(key_b) or key_b.startswith(key_a))


def _join_by_titles(groups: _Groups, sources: Sequence[SourceRecord]) -> None:
    """Equal titles a year apart at most, then each cut title with the one paper whose title it begins."""
    keys = [title_key(s.title) if _title_usable(s) else "" for s in sources]
    _join_equal_titles(groups, keys)
    _join_cut_titles(groups, sources, keys)


def _join_cut_titles(groups: _Groups, sources: Sequence[SourceRecord], keys: Sequence[str]) -> None:
    """Each cut title (``keys``: each source's title key) joined to the one paper it can be
    (``_sole_paper``), longest first; a cut title its listing holds twice joins nothing (rule 3 of
    docs/exports.md's "Merging")."""
    ordered = sorted((key, j) for j, key in enumerate(keys) if key)
    sorted_keys = [key for key, _ in ordered]
    cut = [i for i, source in enumerate(sources) if len(keys[i]) >= MIN_PREFIX_KEY and _title_cut(source)]
    twice = Counter((groups.listing[i], keys[i]) for i in cut)
    for i in sorted(cut, key=lambda i: -len(keys[i])):
        if twice[groups.listing[i], keys[i]] > 1:
            continue
        j = _sole_paper(groups, i, _longer_with_prefix(keys[i], sorted_keys, ordered))
        if j is not None:
            groups.join(j, i, "title_prefix", keys[i], same_listing_ok=False, max_year_gap=MAX_TITLE_YEAR_GAP)


def _sole_paper(groups: _Groups, i: int, candidates: Iterable[int]) -> int | None:
    """The first of ``candidates`` (in input order) in the one group that source ``i`` may join by
    title; None when it may join none of their groups, or two or more."""
    own, found, seen = groups.find(i), None, set()
    for j in candidates:
        root = groups.find(j)
        if root == own or root in seen:
            continue
        seen.add(root)
        if groups.conflicts(own, root, same_listing_ok=False, max_year_gap=MAX_TITLE_YEAR_GAP):
            continue
        if found is not None:
            return None
        found = j
    return found


def _title_cut(source: SourceRecord) -> bool:
    """Whether the page cut the source's title short: ``title_truncated``, or (records of versions
    that kept the mark in the title) it ends in ``...`` or ``…``."""
    return source.title_truncated or (source.title or "").rstrip().endswith(_CUT_TITLE)


def _longer_with_prefix(prefix: str, sorted_keys: list[str], ordered: list[tuple[str, int]]) -> list[int]:
    """The sources (in input order) whose key is longer than ``prefix`` and begins with it: the keys
    that begin with it are one run of the sorted keys, found by bisection."""
    found = []
    for at in range(bisect_left(sorted_keys, prefix), len(sorted_keys)):
        key, j = ordered[at]
        if not key.startswith(prefix):
            break
        if len(key) > len(prefix):
            found.append(j)
    return sorted(found)


def _join_equal_titles(groups: _Groups, keys: Sequence[str]) -> None:
    """Join each source to the first earlier one with the same title key that it may join.

    A key's list keeps one source per group, its earliest: a later member of a group that refused
    the join would refuse it too, so scanning it again is wasted (and quadratic in a common title)."""
    seen: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        if not key:
            continue
        earlier = seen.get(key)
        if earlier is None:  # the first source of its title (most are): nothing to join
            seen[key] = [i]
            continue
        roots, kept = set(), []
        for at, j in enumerate(earlier):
            root = groups.find(j)
            if root in roots:
                continue
            roots.add(root)
            kept.append(j)
            if groups.join(j, i, "title_year", key, same_listing_ok=False, max_year_gap=MAX_TITLE_YEAR_GAP):
                kept += earlier[at + 1:]
                break
        else:
            kept.append(i)
        seen[key] = kept


def _title_usable(source: SourceRecord) -> bool:
    """A title fit to match on: not a list of names Scholar put in the title cell."""
    return bool(source.title) and "title_looks_like_authors" not in source.flags


def _matches_within(members: list[int], joins: list[Join]) -> list[Join]:
    """The joins inside one group, with source indexes renumbered within the group."""
    position = {source: n for n, source in enumerate(members)}
    return [(position[i], position[j], reason, value) for i, j, reason, value in joins]


def build_paper(sources: list[SourceRecord], matches: list[Join], keys: Keys) -> Paper:
    """The merged record of sources found to be one paper."""
    primary = _venue_source(sources)
    year = primary.year or min((s.year for s in sources if s.year), default=None)
    paper = Paper(
        key="",
        title=(titled := _best_title(sources)).title,
        title_truncated=_title_cut(titled),
        authors=(authors := _best_authors(sources)).authors,
        authors_truncated=authors.authors_truncated,
        venue=primary.venue,
        venue_truncated=primary.venue_truncated,
        year=year,
        date=_best_date(primary, sources, year),
        type=_merged_type(primary, sources),
        ids=(ids := merged_ids((s.ids for s in sources), PublicationIds)),
        provenance=merged_provenance((s.provenance for s in sources), ids),
        url=primary.url or next((s.url for s in sources if s.url), None),
        publisher=primary.publisher,
        container=primary.container, volume=primary.volume, issue=primary.issue, pages=primary.pages,
        citations_max=max((s.citations for s in sources if s.citations is not None), default=None),
        citations_latest=latest_count(sources),
        open_access=next((s.open_access for s in sources if s.open_access), None),
        cited_by=latest_cited_by(sources),
        sources=sources,
        matched_by=[Match(reason=r, value=v, sources=[i, j]) for i, j, r, v in matches],
    )
    paper.key = keys.key(paper)
    return paper


def latest_cited_by(sources: Sequence[SourceRecord]) -> list[CitedBy]:
    """Each service's count of a paper's citations as its sources give it (``--enrich``): of one service's
    answers, the latest dated (the first of equal dates), in the order the services first appear.

    >>> old, new = CitedBy(source="openalex", citations=3, date="2026-01-02"), CitedBy(source="openalex", citations=5)
    >>> new.date = "2026-03-01"
    >>> [c.citations for c in latest_cited_by([SourceRecord(site="scholar", cited_by=[old]),
    ...                                        SourceRecord(site="elamur", cited_by=[new])])]
    [5]
    """
    chosen: dict[str, CitedBy] = {}
    for source in sources:
        for answer in source.cited_by:
            kept = chosen.get(answer.source)
            if kept is None or (answer.date or "") > (kept.date or ""):
                chosen[answer.source] = answer
    return list(chosen.values())


def latest_count(sources: Sequence[SourceRecord]) -> int | None:
    """The citation count of the most recently fetched source that gives one (None when no source has a fetch time).

    >>> latest_count([SourceRecord(site="scholar", citations=9, fetched_at="2024-05-01T00:00:00Z"),
    ...               SourceRecord(site="elamur", citations=7, fetched_at="2024-06-01T00:00:00Z")])
    7
    """
    timed = [s for s in sources if s.fetched_at and s.citations is not None]
    return max(timed, key=lambda s: s.fetched_at or "").citations if timed else None


def _best_title(sources: list[SourceRecord]) -> SourceRecord:
    """The fullest title (never a cut one when a whole one exists); of equals, the best cased:
    not all capitals, then the most capitals (Scholar lower-cases titles)."""
    def rank(s: SourceRecord) -> _Rank:
        title = s.title or ""
        return (_title_usable(s), not _title_cut(s), len(title_key(title)),
                not title.isupper(), _capitals(title))
    return _best(sources, rank)


_CAPITALS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _capitals(text: str) -> int:
    """How many capital letters ``text`` holds (for ASCII text, by deleting them from its bytes: one pass in C).

    >>> _capitals("ZeRO-Offload"), _capitals("Ærø Ölfus")
    (4, 2)
    """
    return len(text) - len(text.encode().translate(None, _CAPITALS)) if text.isascii() else sum(map(str.isupper, text))


_Source = TypeVar("_Source", SourceRecord, ProfileSource)
_Rank = tuple[int, ...]  # flags (bools) and counts, compared in order: the highest wins


def _best(sources: list[_Source], rank: Callable[[_Source], _Rank]) -> _Source:
    """The source of highest ``rank`` (the first of equals); a lone source, without ranking it."""
    return sources[0] if len(sources) == 1 else max(sources, key=rank)


def _best_authors(sources: list[SourceRecord]) -> SourceRecord:
    """The source with the fullest author list: whole before cut, longer, then full names."""
    return _best(sources, lambda s: (bool(s.authors), not s.authors_truncated, len(s.authors),
                                     sum(map(len, s.authors))))


def _venue_source(sources: list[SourceRecord]) -> SourceRecord:
    """The source whose venue the record takes: a whole venue before a cut one, a published venue
    before a preprint server, one of known type (stated, or certain from the venue) before one of
    unknown type, then the longer. Its year, type and publisher go with it."""
    return _best(sources, lambda s: (bool(s.venue), not s.venue_truncated, not is_preprint_venue(s.venue),
                                     csl_type(s) is not None, len(s.venue or "")))


def _best_date(primary: SourceRecord, sources: list[SourceRecord], year: int | None) -> str | None:
    """The most precise date within ``year`` that a source gives for the record's venue (MSR's
    month for a paper Scholar places at a conference is the month MSR listed it, not the
    conference's), or that any source gives when the record has no venue."""
    dates = [s.date for s in sources if s.date and year and s.date.startswith(str(year))
             and (s is primary or primary.venue is None or s.venue == primary.venue)]
    return max(dates, key=len, default=None)


def _merged_type(primary: SourceRecord, sources: list[SourceRecord]) -> str | None:
    """The venue source's type; else the type most sources agree on, a preprint's only when the
    record's venue is a preprint server or absent."""
    if kind := csl_type(primary):
        return kind
    kinds: dict[str, int] = {}  # a plain count (a Counter costs more than the few sources of a paper)
    for source in sources:
        if kind := csl_type(source):
            kinds[kind] = kinds.get(kind, 0) + 1
    if primary.venue and not is_preprint_venue(primary.venue):
        kinds.pop(PREPRINT, None)
    return max(kinds, key=kinds.__getitem__) if kinds else None  # of equal counts the first, as most_common


def merged_ids(all_ids: Iterable[_Ids], ids_type: type[_Ids]) -> _Ids:
    """Every identifier the sources give: the first of each kind, every item of a list (all Scholar
    clusters), and the first of each key of a mapping (ids of sites without a field of their own).

    >>> ids = merged_ids([PublicationIds(doi="10.1/a", scholar_clusters=["1"]),
    ...                   PublicationIds(doi="10.1/b", arxiv="2101.1", scholar_clusters=["2", "1"])], PublicationIds)
    >>> ids.doi, ids.arxiv, ids.scholar_clusters
    ('10.1/a', '2101.1', ['1', '2'])
    """
    merged, kinds = ids_type(), ids_type.__struct_fields__
    for ids in all_ids:
        values = msgspec.structs.astuple(ids)
        for kind, value in compress(zip(kinds, values, strict=True), values):  # the ids given (most are empty)
            have = getattr(merged, kind)
            if isinstance(value, list):
                have += [item for item in value if item not in have]
            elif isinstance(value, dict):
                have.update({key: item for key, item in value.items() if key not in have})
            elif value and not have:
                setattr(merged, kind, value)
    return merged


def merged_provenance(all_provenance: Iterable[list[Provenance]], ids: Ids | PublicationIds) -> list[Provenance]:
    """The sources' provenance of the ids the merged record holds (``ids``), each once, in source order: an id
    that another source gave first keeps that source's account; every other value's provenance is kept.

    >>> page = Provenance(field="ids.doi", value="10.1/a", source="page", method="link")
    >>> other = Provenance(field="ids.doi", value="10.1/b", source="page", method="meta")
    >>> [p.value for p in merged_provenance([[page], [other, page]], PublicationIds(doi="10.1/a"))]
    ['10.1/a']
    """
    kept: dict[tuple[Any, ...], Provenance] = {}
    for provenance in all_provenance:
        for item in provenance:
            kind = item.field.removeprefix("ids.")
            if kind == item.field or kind not in type(ids).__struct_fields__ or getattr(ids, kind) == item.value:
                kept.setdefault(msgspec.structs.astuple(item), item)
    return list(kept.values())


# --- profiles ----------------------------------------------------------------------------------


def merge_profiles(pages: Sequence[tuple[str | None, PageResult]]) -> list[MergedProfile]:
    """One record per person: profiles join when an id agrees, or when the names agree and at
    least ``MIN_SHARED_COAUTHORS`` co-authors are shared; never when an id of one kind differs."""
    return [person for person, _ in people(pages)]


def people(pages: Sequence[tuple[str | None, PageResult]]) -> list[tuple[MergedProfile, list[int]]]:
    """``merge_profiles``' people, each with the indexes into ``pages`` of the pages that show them
    (the pages that name nobody are in none).

    >>> from pubharvest.parsers.records import Ids, PageResult, Profile
    >>> def page(**ids): return PageResult(site="scholar", page="profile", profile=Profile(ids=Ids(**ids)))
    >>> [indexes for _, indexes in people([(None, page(scholar="A")), (None, PageResult(site="scholar", page="rows")),
    ...                                    (None, page(scholar="B")), (None, page(scholar="A"))])]
    [[0, 3], [2]]
    """
    named, pairs = _named_pages(pages)
    sources = [profile_source(*pages[index]) for index in named]
    # co-authors only of the profiles that share a name with another: reading every paper's authors of
    # every profile cost more than the rest of the people's merge
    coauthors = {i: coauthor_keys(pages[named[i]][1]) for i in sorted({i for pair in pairs for i in pair})}
    kinds = person_id_kinds()
    ids = [id_values(s.ids, kinds) for s in sources]
    groups = _Groups(sources, range(len(sources)), ids, kinds)
    for kind in kinds:
        _join_equal(groups, [(i, value) for i, found in enumerate(ids) if (value := found.get(kind))], kind)
    for i, j in pairs:
        shared = coauthors[i] & coauthors[j]
        if len(shared) >= MIN_SHARED_COAUTHORS:
            groups.join(i, j, "name_coauthors", f"{len(shared)} shared co-authors")
    return [(_merged_profile([sources[i] for i in members], _matches_within(members, joins)),
             [named[i] for i in members]) for members, joins in groups.groups()]


def identifiable(result: PageResult) -> bool:
    """Whether the page names a person (by name or an id): Scholar's saved table names nobody."""
    profile = result.profile
    return profile is not None and bool(profile.name or any(msgspec.structs.astuple(profile.ids)))


def profile_source(name: str | None, result: PageResult) -> ProfileSource:
    """What the page ``result`` says about its person (nothing but where, when it has no profile)."""
    profile = result.profile or Profile()
    run, fetched_at = _when(result)
    return ProfileSource(site=result.site, input=name, url=profile.url or result.url, name=profile.name,
                         ids=profile.ids, affiliation=profile.affiliation,
                         citations=profile.metrics.citations, h_index=profile.metrics.h_index,
                         run=run, fetched_at=fetched_at, provenance=profile.provenance)


def coauthor_keys(result: PageResult) -> set[tuple[str, str]]:
    """Name keys of everyone the page shows working with its person: the co-author box and the
    authors of the listed papers, the person themself left out."""
    profile = result.profile
    own = name_key(profile.name) if profile and profile.name else None
    names = [c.name for c in profile.coauthors] if profile else []
    names += [author for pub in result.publications for author in pub.authors]
    return {key for key in map(name_key, names) if key != own and key[1]}


def same_name_pages(pages: Sequence[tuple[str | None, PageResult]]) -> list[int]:
    """The indexes of the pages naming a person whose name another such page gives too: of all pages, ``people``
    reads the co-authors (every paper's authors) of these only.

    >>> from pubharvest.parsers.records import PageResult, Profile
    >>> def page(name): return PageResult(site="scholar", page="profile", profile=Profile(name=name))
    >>> same_name_pages([(None, page("Ada Byron")), (None, page("Bo Li")), (None, page("ada byron"))])
    [0, 2]
    """
    named, pairs = _named_pages(pages)
    return sorted({named[k] for pair in pairs for k in pair})


def _named_pages(pages: Sequence[tuple[str | None, PageResult]]) -> tuple[list[int], list[tuple[int, int]]]:
    """The indexes of the pages naming a person, and the pairs of those (by their place among them)
    whose names have one key (``_same_name_pairs``)."""
    named = [i for i, (_, result) in enumerate(pages) if identifiable(result)]
    return named, _same_name_pairs([cast(Profile, pages[i][1].profile) for i in named])


def _same_name_pairs(sources: Sequence[Profile]) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of sources whose names have one key, in the order of an
    all-pairs scan (which decides what joins first), without scanning all pairs."""
    by_name: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    for i, source in enumerate(sources):
        if source.name:
            by_name[name_key(source.name)].append(i)
    return sorted((i, j) for same in by_name.values() for at, i in enumerate(same) for j in same[at + 1:])


def _merged_profile(sources: list[ProfileSource], matches: list[Join]) -> MergedProfile:
    """One person: the longest name the sources give (a full name before initials), every id."""
    ids = merged_ids((s.ids for s in sources), Ids)
    return MergedProfile(
        name=max((s.name for s in sources if s.name), key=len, default=None),
        ids=ids, sources=sources, provenance=merged_provenance((s.provenance for s in sources), ids),
        matched_by=[Match(reason=r, value=v, sources=[i, j]) for i, j, r, v in matches],
    )


# --- listings that name nobody ------------------------------------------------------------------

MIN_SHARED_PAPERS = 2  # papers a nameless listing must share with a person to be shown as theirs


def shared_papers(pages: Sequence[tuple[str | None, PageResult]], nameless: int, indexes: Iterable[int]) -> list[Paper]:
    """The papers (``merge_papers``' rules) that the page ``nameless`` lists and that one of the pages
    ``indexes`` lists too."""
    chosen = [nameless, *(i for i in indexes if i != nameless)]
    # each source's input is its position in ``chosen``, so a merged paper tells which page listed it
    papers = merge_papers([(str(at), pages[i][1]) for at, i in enumerate(chosen)])
    return [p for p in papers if any(s.input == "0" for s in p.sources) and any(s.input != "0" for s in p.sources)]


def nameless_owners(pages: Sequence[tuple[str | None, PageResult]],
                    found: Sequence[tuple[MergedProfile, list[int]]]) -> dict[int, int]:
    """For each page that names nobody and lists papers (Scholar's table copied as text), the person
    of ``found`` (``people(pages)``, by position) with whom it shares the most papers (one merge of all
    ``pages``), when that is at least ``MIN_SHARED_PAPERS`` and no other person shares as many; pages
    with no such person are left out. Sharing papers is evidence of a co-author as much as of the
    person: a page placed so should say so (``pubharvest report`` does, with the rows that name the
    person).

    >>> from pubharvest.parsers.records import Ids, PageResult, Profile, Publication
    >>> def listed(*titles, **ids):
    ...     return PageResult(site="msr" if ids else "scholar", page="profile" if ids else "publication_list",
    ...                       profile=Profile(ids=Ids(**ids)) if ids else None,
    ...                       publications=[Publication(title=t, year=2020) for t in titles])
    >>> pages = [(None, listed("Alpha beta gamma", "Delta epsilon zeta", msr="ada")),
    ...          (None, listed("Eta theta iota", msr="bob")),
    ...          (None, listed("alpha beta gamma", "delta epsilon zeta", "Kappa")), (None, listed("Eta theta iota"))]
    >>> nameless_owners(pages, people(pages))
    {2: 0}
    """
    owner = {i: person for person, (_, indexes) in enumerate(found) for i in indexes}
    nameless = {i for i, (_, result) in enumerate(pages) if i not in owner and result.publications}
    if not nameless or not found:
        return {}
    shared: defaultdict[int, Counter[int]] = defaultdict(Counter)
    # each source's input is its page's index, so a merged paper tells which pages list it
    for paper in merge_papers([(str(i), result) for i, (_, result) in enumerate(pages)]):
        listed_on = {int(s.input) for s in paper.sources if s.input is not None}
        persons = {owner[i] for i in listed_on if i in owner}
        for i in listed_on & nameless:
            shared[i].update(persons)
    owners = {}
    for i, counts in sorted(shared.items()):
        best = counts.most_common(2)
        if best and best[0][1] >= MIN_SHARED_PAPERS and (len(best) == 1 or best[1][1] < best[0][1]):
            owners[i] = best[0][0]
    return owners
