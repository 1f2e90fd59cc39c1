"""Page results in, the figures of each person out: per source (a site: the rows of all its pages of the
person as one listing), merged (the person's papers merged across sites, each counted by its highest
count), or per page; each figure with the inputs that were not whole, the stated figures checked, the
gaps between sources explained, and the citations per year.

>>> from pubharvest.parsers.records import Ids, Metrics, PageResult, Profile, Publication
>>> page = PageResult(site="scholar", page="profile", profile=Profile(name="Ada", ids=Ids(scholar="A"),
...     metrics=Metrics(h_index=2, i10_index=1, citations=16)), publications=[
...     Publication(title="One", year=2020, citations=12, authors=["A", "B"]),
...     Publication(title="Two", year=2022, citations=4, authors=["A"])])
>>> person = metrics([("ada.html", page)], at="2024-06-01").people[0]
>>> ada = person.sets[0]
>>> ada.source, ada.as_of, ada.as_of_from, ada.value("h_index"), round(ada.value("awcr"), 4)  # 12/5 + 4/3
('scholar', 2024, '2024-06-01 (given with --at)', 2, 3.7333)
>>> [(c.name, c.stated, c.computed, c.agree) for c in ada.checks]
[('h_index', 2, 2, True), ('i10_index', 1, 1, True), ('citations', 16, 16, True)]
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import combinations
from pathlib import PurePath
from typing import Literal

from pubharvest.parsers.records import Metrics, PageResult, Profile, Publication, id_values
from pubharvest.parsers.text import title_key
from pubharvest.parsers.warning_codes import Warn

from ..merge import (
    MIN_PREFIX_KEY,
    Paper,
    identifiable,
    latest_records,
    listing_of,
    merge_papers,
    people,
    person_id_kinds,
    profile_named,
    recency,
    same_name_pages,
)
from .explain import CHECKED, check
from .indicators import METRICS, Row, indicators
from .items import MERGED_SITE as MERGED
from .items import Item, is_merged, page_items, paper_items, rows_of
from .model import (
    Check,
    Figure,
    MetricSet,
    MetricsResult,
    Number,
    PaperGap,
    PersonMetrics,
    Shortfall,
    SourceGap,
)
from .series import year_points

__all__ = ["metrics", "at_year", "BY", "By", "MERGED", "Known", "Who", "metric_set", "person_alone", "rows_tell_whose",
           "source_gap", "paper_gap", "stated_checks"]

By = Literal["person", "source", "page"]
BY: tuple[By, ...] = ("source", "person", "page")
MIN_SHARED_PAPERS = 2  # a page that names nobody joins the person it shares this many papers with
# Warnings that say a page's rows are not the whole listing.
SHORT_LISTING = frozenset({Warn.partial.name, Warn.truncated.name, Warn.row_count.name})
_AT = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?)?)?")
Pages = Sequence[tuple[str | None, PageResult]]
Who = tuple[str | None, dict[str, str]]  # a person's name and ids, as ``merge.people`` gives them


def at_year(at: str) -> int:
    """The year of ``--at``: an ISO year, month, day or date-time; ValueError for anything else.

    >>> at_year("2026"), at_year("2026-02-16"), at_year("2026-02-16T18:23:34Z")
    (2026, 2026, 2026)
    >>> at_year("last run")
    Traceback (most recent call last):
    ValueError: not a date (YYYY, YYYY-MM, YYYY-MM-DD or an ISO date-time): 'last run'
    """
    match = _AT.fullmatch(at.strip())
    if match is None or not 1 <= int(match.group(2) or 1) <= 12 or not 1 <= int(match.group(3) or 1) <= 31:
        raise ValueError(f"not a date (YYYY, YYYY-MM, YYYY-MM-DD or an ISO date-time): {at!r}")
    return int(match.group(1))


def metrics(pages: Pages, by: By = "source", at: str | None = None, known: Known | None = None) -> MetricsResult:
    """The figures of ``(input name, page result)`` pairs: ``by`` ``source`` (each person's sites and the
    merge, with the gaps between sites), ``person`` (each person's one set: merged across sites) or
    ``page`` (each page on its own). ``at``: the ISO date (or year) the figures are as of: pages a job
    fetched after it are left out, and its year is the reference year of the figures of age; without
    it, each person's latest fetch time or page date is, and a person with neither has none (those
    figures are then null, and ``as_of_from`` says so). ``known``: what was worked out of the pages
    before (``metrics.parallel``); by default nothing, and every page holds its rows."""
    known = known or Known()
    year = at_year(at) if at else None
    if at:
        pages = [(name, result) for name, result in pages if not _fetched_after(result, at)]
    if by == "page":
        return MetricsResult(by=by, at=at, people=[known.alone(result) or _page_person(name, result, year, at)
                                                   for name, result in pages])
    pages = latest_records(pages)
    return MetricsResult(by=by, at=at, people=[_person_of(pages, indexes, person, by, year, at, known)
                                               for person, indexes in _people(pages, known)])


class Known:
    """What was worked out of some pages before ``metrics`` groups them (nothing, here: every page is
    whole). ``metrics.parallel`` reads a file's pages in worker processes that work out each page's
    figures as a person of its own and send the page without its rows; ``alone`` gives those figures
    back when the page is indeed a person of its own, ``whole`` the rows when something reads them."""

    @property
    def rowless(self) -> bool:
        """Whether some pages are without their rows."""
        return False

    def alone(self, result: PageResult) -> PersonMetrics | None:
        """The figures of ``result`` as a person of its own (``by`` and ``at`` as asked), when they were
        worked out (a person of one page is who that page alone names: ``merge.people`` of it)."""
        return None

    def whole(self, pages: list[tuple[str | None, PageResult]], indexes: Iterable[int]) -> None:
        """Make ``pages[i]`` for each of ``indexes`` hold its rows (in place)."""


def person_alone(name: str | None, result: PageResult, by: By, at: str | None) -> PersonMetrics | None:
    """The figures of ``result`` (read from input ``name``) as ``metrics`` gives them for it as a person of its
    own (``by``, ``at`` as asked); None for a page ``at`` leaves out."""
    return next(iter(metrics([(name, result)], by=by, at=at).people), None)


def rows_tell_whose(result: PageResult) -> bool:
    """Whether ``metrics`` reads the rows of ``result`` to tell whose page it is or which listing its rows are
    of (beyond the co-authors of people of one name, which ``Known.whole`` brings): a paper's own page (its
    source is the paper), a page that names nobody (it joins a person by its papers), a profile with neither
    an id on its site nor a URL (its listing is the one its rows' ids name)."""
    return (result.page == "publication" or result.profile is None or not identifiable(result)
            or not profile_named(result))


def _person_of(pages: list[tuple[str | None, PageResult]], indexes: list[int], who: Who, by: By, year: int | None,
               at: str | None, known: Known) -> PersonMetrics:
    """A person's figures: those ``known`` worked out, for a person of one page, else computed from the
    pages, whole."""
    if len(indexes) == 1 and (found := known.alone(pages[indexes[0]][1])):
        return found
    known.whole(pages, indexes)
    return _person(pages, indexes, who, by, year, at)


def _fetched_after(result: PageResult, at: str) -> bool:
    fetched = result.source.fetched_at if result.source else None
    return bool(fetched) and (fetched or "")[:len(at)] > at


def _people(pages: list[tuple[str | None, PageResult]], known: Known | None = None) -> list[tuple[Who, list[int]]]:
    """Each person (name, ids) with the indexes of their pages, in the order of their first page. A page
    that names nobody joins the person of its listing (Scholar's "Show more" rows, whose ids name their
    profile: ``merge.listing_of``), else the one person it shares at least ``MIN_SHARED_PAPERS`` merged
    papers with (Scholar's saved table); else it is a person of its own. The rows read on the way (the
    co-authors of people of one name, every page's papers when a nameless page lists some) are made
    ``whole`` by ``known`` first."""
    known = known or Known()
    if known.rowless:
        known.whole(pages, same_name_pages(pages))
    found = [((person.name, id_values(person.ids, person_id_kinds())), indexes) for person, indexes in people(pages)]
    named = {i for _, indexes in found for i in indexes}
    alone = [i for i in range(len(pages)) if i not in named]
    joined = _joined_by_listing(pages, [indexes for _, indexes in found], alone)
    unjoined = [i for i in alone if i not in joined]
    if any(pages[i][1].publications for i in unjoined):  # pages that name nobody hold their rows
        known.whole(pages, range(len(pages)))
    joined |= _joined_by_papers(pages, [indexes for _, indexes in found], unjoined)
    for i, person in joined.items():
        found[person][1].append(i)
    found = [(who, sorted(indexes)) for who, indexes in found]
    return sorted(found + [((None, {}), [i]) for i in alone if i not in joined], key=lambda pair: pair[1][0])


def _joined_by_listing(pages: Pages, people_pages: Sequence[Sequence[int]], alone: Sequence[int]) -> dict[int, int]:
    """For each page of ``alone``, the person (an index into ``people_pages``) one of whose pages is of
    the same listing (``merge.listing_of``: one profile on one site)."""
    owner = {listing_of(i, pages[i][1]): n for n, indexes in enumerate(people_pages) for i in indexes}
    return {i: person for i in alone if (person := owner.get(listing_of(i, pages[i][1]))) is not None}


def _joined_by_papers(pages: Pages, people_pages: Sequence[Sequence[int]], alone: Sequence[int]) -> dict[int, int]:
    """For each page of ``alone`` (pages that name nobody) with rows, the person (an index into
    ``people_pages``) it shares at least ``MIN_SHARED_PAPERS`` merged papers with, when one person
    shares the most."""
    listed = [i for i in alone if pages[i][1].publications]
    if not listed or not people_pages:
        return {}
    owner = {i: n for n, indexes in enumerate(people_pages) for i in indexes}
    keys = {key for i in listed for pub in pages[i][1].publications for key in _paper_keys(pub)}
    near = [i for i in owner if any(key in keys for pub in pages[i][1].publications for key in _paper_keys(pub))]
    papers = merge_papers([(str(i), pages[i][1]) for i in sorted({*listed, *near})])
    shared: dict[int, Counter[int]] = defaultdict(Counter)
    for paper in papers:
        inputs = {int(s.input or 0) for s in paper.sources}
        persons = {owner[i] for i in inputs if i in owner}
        for i in inputs & set(listed):
            shared[i].update(persons)
    joined = {}
    for i, counts in shared.items():
        best = counts.most_common(2)
        if best and best[0][1] >= MIN_SHARED_PAPERS and (len(best) == 1 or best[1][1] < best[0][1]):
            joined[i] = best[0][0]
    return joined


def _paper_keys(pub: Publication) -> list[str]:
    """What a paper may join another by (``merge``'s rules), coarsely: its title key's first characters
    (a cut title joins the title it begins) and its identifiers; papers with no key in common never join,
    so the merge that decides need not read the others."""
    ids = [f"{kind}:{value}" for kind, value in id_values(pub.ids, ("arxiv", "doi", "report_number")).items()]
    return [title_key(pub.title)[:MIN_PREFIX_KEY], *(key.casefold() for key in ids)] if pub.title else ids


def _as_of(pages: Pages, indexes: Sequence[int], year: int | None, at: str | None) -> tuple[int | None, str]:
    """The reference year of a person's figures and where it came from: ``--at``, else the latest
    fetch time of their pages, else the latest date a page gives its counts (Elamur's OpenAlex snapshot)
    or says it was updated."""
    if year is not None:
        return year, f"{at} (given with --at)"
    fetched = max(((result.source.fetched_at, name) for name, result in (pages[i] for i in indexes)
                   if result.source and result.source.fetched_at), default=None)
    if fetched:
        return int(fetched[0][:4]), f"fetched {fetched[0]} ({fetched[1]})"
    dated = max(((date, name) for name, result in (pages[i] for i in indexes)
                 if result.profile and (date := result.profile.snapshot_date or result.profile.updated)), default=None)
    if dated:
        return int(dated[0][:4]), f"page date {dated[0]} ({dated[1]})"
    return None, "none: the pages carry no fetch time or date; give --at"


def _label(pages: Pages, indexes: Sequence[int], name: str | None) -> str | None:
    """A person's name, else the URL or the file name of their first page."""
    if name:
        return name
    first_name, first = pages[indexes[0]]
    return first.url or (PurePath(first_name).name if first_name else None)


def _person(pages: Pages, indexes: list[int], who: Who, by: By, year: int | None,
            at: str | None) -> PersonMetrics:
    name = _label(pages, indexes, who[0])
    as_of = _as_of(pages, indexes, year, at)
    by_site: dict[str, list[int]] = defaultdict(list)
    for i in indexes:
        by_site[pages[i][1].site].append(i)
    sets = [_site_set(pages, found, name, site, as_of) for site, found in by_site.items()]
    first_year = min((each.first_year for each in sets if each.first_year), default=None)
    gaps: list[SourceGap] = []
    if len(sets) > 1:
        papers = merge_papers([pages[i] for i in indexes if pages[i][1].publications])
        merged = _merged_set(papers, sets, name, as_of)
        gaps = [source_gap(a, b, papers) for a, b in combinations(sets, 2)] if by == "source" else []
        sets = [*sets, merged] if by == "source" else [merged]
    years = [point for site, found in by_site.items()
             for point in year_points(name, site, _latest_profile(pages, found).citations_by_year, first_year)]
    return PersonMetrics(name=name, ids=who[1], sets=sets, gaps=gaps, years=years, first_year=first_year)


def _page_person(name: str | None, result: PageResult, year: int | None, at: str | None) -> PersonMetrics:
    """One page as a person of its own (``--by page``)."""
    pages = [(name, result)]
    label = _label(pages, [0], result.profile.name if result.profile else None)
    items = page_items(name, result)
    as_of = _as_of(pages, [0], year, at)
    profile = result.profile or Profile()
    one = metric_set(label, result.site, name, items, as_of, _shortfalls(items, pages, [0]), profile.metrics)
    return PersonMetrics(name=label, ids=id_values(profile.ids, person_id_kinds()), sets=[one],
                         years=year_points(label, result.site, profile.citations_by_year, one.first_year),
                         first_year=one.first_year)


def _latest_profile(pages: Pages, indexes: Sequence[int]) -> Profile:
    """The profile of the latest page of ``indexes`` that has one with metrics, else with any."""
    ordered = sorted(indexes, key=lambda i: recency(pages[i][1], i), reverse=True)
    profiles = [profile for i in ordered if (profile := pages[i][1].profile)]
    return next((p for p in profiles if p.metrics != Metrics()), profiles[0] if profiles else Profile())


def _site_set(pages: Pages, indexes: list[int], person: str | None, site: str,
              as_of: tuple[int | None, str]) -> MetricSet:
    """One site's set: the rows of all its pages of the person as one listing (a row on two pages once)."""
    listing = [pages[i] for i in indexes if pages[i][1].publications]
    items = (page_items(*listing[0]) if len(listing) == 1
             else paper_items(merge_papers(listing), site) if listing else [])
    inputs = ", ".join(dict.fromkeys(name for name, _ in (pages[i] for i in indexes) if name)) or None
    return metric_set(person, site, inputs, items, as_of, _shortfalls(items, pages, indexes),
                      _latest_profile(pages, indexes).metrics)


def _merged_set(papers: list[Paper], sets: list[MetricSet], person: str | None,
                as_of: tuple[int | None, str]) -> MetricSet:
    """The person's papers merged across sites: each counted by its highest count; the rows shortfalls
    of every site are the merge's too."""
    items = paper_items(papers)
    shortfalls = [Shortfall(input="rows", rows=s.rows, of=s.of, why=f"{each.source}: {s.why}")
                  for each in sets for s in each.shortfalls if s.input == "rows"]
    shortfalls += _row_shortfalls(rows_of(items))
    inputs = ", ".join(dict.fromkeys(each.input for each in sets if each.input)) or None
    return metric_set(person, MERGED, inputs, items, as_of, shortfalls, None)


def metric_set(person: str | None, source: str, inputs: str | None, items: Sequence[Item],
               as_of: tuple[int | None, str], shortfalls: list[Shortfall], stated: Metrics | None) -> MetricSet:
    """The figures of ``items`` as of ``as_of`` (year, where from), each complete unless an input it needs
    is among ``shortfalls``; the figures ``stated`` (the page's) checked against them."""
    short = {s.input for s in shortfalls}
    rows = rows_of(items)
    values = indicators(rows, as_of[0])
    figures = [Figure(name=m.name, value=values[m.name], complete=not short & set(m.inputs),
                      incomplete=[i for i in m.inputs if i in short])
               for m in METRICS]
    missing = next((s for s in shortfalls if s.input == "rows"), None)
    counts = [row.citations for row in rows if row.citations is not None]
    checks = [check(name, value, items, missing, counts) for name in CHECKED
              if stated is not None and (value := getattr(stated, name)) is not None]
    years = [row.year for row in rows if row.year is not None]
    return MetricSet(person=person, source=source, input=inputs, as_of=as_of[0], as_of_from=as_of[1],
                     first_year=min(years, default=None), last_year=max(years, default=None), figures=figures,
                     shortfalls=shortfalls, checks=checks)


def _shortfalls(items: Sequence[Item], pages: Pages, indexes: Sequence[int]) -> list[Shortfall]:
    """What the listing of ``pages[indexes]`` lacks: rows (a page that says it holds part of a longer
    list or was cut, or fewer rows than the works the profile states), then counts, years, authors."""
    found = _listing_shortfall(items, pages, indexes)
    return ([found] if found else []) + _row_shortfalls(rows_of(items))


def _listing_shortfall(items: Sequence[Item], pages: Pages, indexes: Sequence[int]) -> Shortfall | None:
    works = _latest_profile(pages, indexes).metrics.works
    if works is not None and works > len(items):
        return Shortfall(input="rows", rows=works - len(items), of=works,
                         why=f"the input lists {len(items)} of the {works} works the profile states")
    short = [(name, warning) for name, result in (pages[i] for i in indexes if pages[i][1].publications)
             for warning in result.warnings if warning.code in SHORT_LISTING]
    complete = any(pages[i][1].publications and not {w.code for w in pages[i][1].warnings} & SHORT_LISTING
                   for i in indexes)
    if not short or (complete and not any(w.code == Warn.truncated.name for _, w in short)):
        return None  # a listing's last page, which holds no "more follow", ends it
    name, warning = short[0]
    return Shortfall(input="rows", rows=None, of=None, why=f"{name}: {warning.code}: {warning.message}")


def _row_shortfalls(rows: Sequence[Row]) -> list[Shortfall]:
    """The rows without a count, without a year, without a whole author list."""
    total = len(rows)
    counts, years, authors, cut = zip(*rows, strict=True) if rows else ((), (), (), ())  # a column each, one pass
    lacking = {
        "citations": (counts.count(None), "rows have no citation count"),
        "years": (years.count(None), "rows have no year"),
        "authors": (sum(map(_not_whole, authors, cut)),
                    "rows have no author list or one cut short (...)"),
    }
    return [Shortfall(input=name, rows=n, of=total, why=f"{n} of {total} {what}")  # type: ignore[arg-type]
            for name, (n, what) in lacking.items() if n]


def _not_whole(authors: int | None, cut: bool) -> bool:
    """Whether a row's author list is missing or cut short."""
    return not authors or cut


# --- two sources of one person side by side --------------------------------------------------------

def source_gap(a: MetricSet, b: MetricSet, papers: Sequence[Paper]) -> SourceGap:
    """Sites ``a`` and ``b`` of one person (``papers``: the person's merge): the figures that differ, and
    the papers the two show differently."""
    differ = {m.name: [a.value(m.name), b.value(m.name)] for m in METRICS if a.value(m.name) != b.value(m.name)}
    gaps = [gap for paper in papers if (gap := paper_gap(paper, a.source, b.source))]
    gaps.sort(key=lambda gap: -max((count or 0 for count in gap.counts.values()), default=0))
    return SourceGap(a=a.source, b=b.source, figures=differ, papers=gaps, by_figure=_deciding(a, b, gaps))


def paper_gap(paper: Paper, a: str, b: str) -> PaperGap | None:
    """How ``paper`` differs between sites ``a`` and ``b``, or None when they show it alike."""
    rows = {site: sum(1 for s in paper.sources if s.site == site) for site in (a, b)}
    rows = {site: n for site, n in rows.items() if n}
    counts = {site: max((s.citations for s in paper.sources if s.site == site and s.citations is not None),
                        default=None) for site in rows}
    if not rows:
        return None
    if len(rows) == 1:
        (site,) = rows
        kind, detail = "only_on", f"only on {site}"
    elif any(count is None for count in counts.values()):
        kind, detail = "no_count", "listed by both; " + " and ".join(f"{s} gives no count" for s, c in counts.items()
                                                                     if c is None)
    elif rows[a] != rows[b] or _merged_on(paper, a) != _merged_on(paper, b):
        kind, detail = "merged_differently", (f"{rows[a]} row(s) on {a}, {rows[b]} on {b}"
                                              + "; a row counting several versions on " * bool(
                                                  _merged_on(paper, a) or _merged_on(paper, b))
                                              + ", ".join(s for s in (a, b) if _merged_on(paper, s)))
    elif counts[a] != counts[b]:
        kind, detail = "counted_differently", f"{counts[a]} on {a}, {counts[b]} on {b}"
    else:
        return None
    return PaperGap(key=paper.key, title=paper.title, year=paper.year, kind=kind,  # type: ignore[arg-type]
                    counts=counts, rows=rows, detail=detail)


def _merged_on(paper: Paper, site: str) -> bool:
    return any(is_merged(item) for item in paper_items([paper], site)) and any(s.site == site for s in paper.sources)


def _deciding(a: MetricSet, b: MetricSet, gaps: Sequence[PaperGap]) -> dict[str, list[str]]:
    """For papers, citations, the h-index and the i10-index, the papers of ``gaps`` that decide the gap:
    for papers those on one site only, for citations those counted on one only or differently, for the
    h-index those cited on either side at least the lower h, for the i10-index those on different sides of 10."""
    def count(gap: PaperGap, site: str) -> int:
        return gap.counts.get(site) or 0

    low_h = min(_int(a.value("h_index")), _int(b.value("h_index")))
    deciding = {
        "papers": [gap.key for gap in gaps if gap.kind == "only_on"],
        "citations": [gap.key for gap in gaps if count(gap, a.source) != count(gap, b.source)],
        "h_index": [gap.key for gap in gaps if count(gap, a.source) != count(gap, b.source)
                    and max(count(gap, a.source), count(gap, b.source)) >= max(low_h, 1)],
        "i10_index": [gap.key for gap in gaps if (count(gap, a.source) >= 10) != (count(gap, b.source) >= 10)],
    }
    return {name: keys for name, keys in deciding.items() if a.value(name) != b.value(name)}


def _int(value: Number) -> int:
    return int(value or 0)


def stated_checks(result: MetricsResult) -> list[Check]:
    """Every check of every set of ``result``.

    >>> stated_checks(MetricsResult(by="page", at=None, people=[]))
    []
    """
    return [c for person in result.people for each in person.sets for c in each.checks]

