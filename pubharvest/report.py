"""``pubharvest report``: one self-contained HTML file of citation figures, per profile and across sites.

The file works offline: its CSS and its one small script are inline (a Content-Security-Policy allows
those two by hash and nothing else, so the page can load nothing, and a stray ``<script>`` in a record
could not run even if it were not escaped, which it is), and its charts are SVG written here, with
every axis label and value in the DOM (``<text>``, ``data-year``/``data-value``, ``<title>``).

Reading is kept apart from drawing: ``report_data`` turns page results (and a store's run history)
into ``ReportData``, which is all ``render`` looks at.

>>> from pubharvest.parsers.records import PageResult, Profile, Publication, YearCitations
>>> page = PageResult(site="scholar", page="profile", profile=Profile(name="<b>Ada</b>",
...     citations_by_year=[YearCitations(year=2020, citations=3), YearCitations(year=2022, citations=5)]),
...     publications=[Publication(title="<script>alert(1)</script>", citations=8)])
>>> html = render(report_data([("ada.html", page)]))
>>> "<script>alert" in html, "&lt;script&gt;alert(1)&lt;/script&gt;" in html, html.count('class="bar"')
(False, True, 3)
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, TypeVar

from pubharvest.parsers.records import (
    Coauthor,
    Metrics,
    PageResult,
    PageWarning,
    Profile,
    Publication,
    YearCitations,
)
from pubharvest.parsers.warning_codes import Warn

from .merge import MergeResult, Paper, latest_records, merge, merge_papers, people, recency
from .output import _Writer

if TYPE_CHECKING:
    from .store import _Sql

_Item = TypeVar("_Item")
_Part = TypeVar("_Part")

# Warnings about the publication list itself: shown above the papers' table, where they matter.
LIST_WARNINGS = frozenset(code.name for code in (
    Warn.partial, Warn.truncated, Warn.rows_unreadable, Warn.column_unreadable, Warn.lines_swapped, Warn.row_count,
    Warn.count_mismatch, Warn.duplicate_rows,
    Warn.shrunk, Warn.past_end, Warn.unsplit_row, Warn.title_looks_like_authors, Warn.title_may_hold_venue,
    Warn.post_without_title,
))
METRIC_LABELS = {
    "citations": "Citations", "citations_since": "Citations since", "h_index": "h-index",
    "h_index_since": "h-index since", "i10_index": "i10-index", "i10_index_since": "i10-index since",
    "works": "Works", "library_works": "Library works", "library_citations": "Library citations", "rank": "Rank",
}
DEFAULT_TOP = 100
_NO_PROFILE = Profile()


@dataclass(frozen=True)
class RunPoint:
    """One store run of a profile: its h-index and i10-index (the page's, else ``computed`` from the
    run's citation snapshots) and total citations; ``when``, the time its page was fetched (else saved)."""

    run: str
    saved_at: str
    h_index: int | None
    i10_index: int | None
    citations: int | None
    computed: bool = False
    when: str = ""


@dataclass
class ProfileView:
    """What the report shows of a person on one site: of the pages of that site, each part from the
    latest page that gives it (``merge.recency``), and the rows of all of them as one listing."""

    name: str
    site: str
    source: str  # the inputs it came from (files, archives or store)
    url: str | None
    metrics: Metrics
    years: list[YearCitations]  # every year on the axis, 0 where no citations
    papers: Sequence[Publication | Paper]
    warnings: list[PageWarning]
    runs: list[RunPoint] = field(default_factory=list)
    affiliation: str | None = None
    interests: list[str] = field(default_factory=list)
    coauthors: list[Coauthor] = field(default_factory=list)


@dataclass
class PersonView:
    """One person (``merge.people``), or one page that names nobody: what each site shows of them."""

    name: str
    views: list[ProfileView]


@dataclass
class ReportData:
    people: list[PersonView]
    merged: MergeResult | None = None  # several page results, merged: the same paper on each site


def report_data(pages: Sequence[tuple[str, PageResult]],
                runs: Mapping[int, list[RunPoint]] | None = None) -> ReportData:
    """The report's data from ``(input name, page result)`` pairs and, by index into ``pages``, the
    store runs of each: one person per section (``merge``'s people, of the records ``merge`` keeps: a
    job's earlier fetches of a page are left out); pages of more than one site are also merged, to
    set each paper's counts on the sites side by side."""
    runs = runs or {}
    kept = latest_indexes(pages)
    pages = [pages[i] for i in kept]
    runs = {at: runs[i] for at, i in enumerate(kept) if i in runs}
    people = [person_view(pages, indexes, runs, name) for name, indexes in person_pages(pages)]
    several_sites = len({result.site for _, result in pages}) > 1
    return ReportData(people=people, merged=merge(pages) if several_sites else None)


def latest_indexes(pages: Sequence[tuple[str, PageResult]]) -> list[int]:
    """The indexes of the pages ``merge`` keeps (``merge.latest_records``), in input order."""
    kept = {id(pair) for pair in latest_records(pages)}
    return [i for i, pair in enumerate(pages) if id(pair) in kept]


def person_pages(pages: Sequence[tuple[str, PageResult]]) -> list[tuple[str | None, list[int]]]:
    """Each person's name and the indexes of their pages (``merge.people``), and each page that names
    nobody on its own, in the order of their first page.

    >>> from pubharvest.parsers.records import Ids
    >>> def page(user):
    ...     return ("in", PageResult(site="scholar", page="profile", profile=Profile(ids=Ids(scholar=user))))
    >>> person_pages([page("A"), ("rows.html", PageResult(site="scholar", page="rows")), page("A")])
    [(None, [0, 2]), (None, [1])]
    """
    found = [(person.name, indexes) for person, indexes in people(pages)]
    named = {i for _, indexes in found for i in indexes}
    return sorted(found + [(None, [i]) for i in range(len(pages)) if i not in named], key=lambda p: p[1][0])


def person_view(pages: Sequence[tuple[str, PageResult]], indexes: list[int], runs: Mapping[int, list[RunPoint]],
                name: str | None) -> PersonView:
    """One person from their pages: a view per site, in the order each site first comes."""
    by_site: dict[str, list[int]] = {}
    for i in indexes:
        by_site.setdefault(pages[i][1].site, []).append(i)
    first_name, first = pages[indexes[0]]
    name = name or first.url or PurePath(first_name).name
    return PersonView(name=name, views=[site_view(pages, found, runs, name) for found in by_site.values()])


def site_view(pages: Sequence[tuple[str, PageResult]], indexes: list[int], runs: Mapping[int, list[RunPoint]],
              name: str) -> ProfileView:
    """What the pages ``indexes`` of one site show of a person: each part from the latest page that gives
    it, the rows of every page as one listing (``merge.merge_papers``, when there are several)."""
    latest_first = sorted(indexes, key=lambda i: recency(pages[i][1], i), reverse=True)
    results = [pages[i][1] for i in latest_first]
    profiles = [result.profile for result in results if result.profile]

    def latest(part: Callable[[Profile], _Part | None], empty: _Part) -> _Part:
        return next((value for profile in profiles if (value := part(profile))), empty)

    listing = [pages[i] for i in sorted(indexes) if pages[i][1].publications]
    warnings: list[PageWarning] = []
    for i in sorted(indexes):
        warnings += [w for w in pages[i][1].warnings if w not in warnings]
    return ProfileView(
        name=name, site=results[0].site, source=", ".join(dict.fromkeys(pages[i][0] for i in sorted(indexes))),
        url=next((url for result in results if (url := result.url or (result.profile and result.profile.url))), None),
        metrics=latest(lambda p: p.metrics if p.metrics != Metrics() else None, Metrics()),
        years=axis_years(latest(lambda p: p.citations_by_year, [])),
        papers=merge_papers(listing) if len(listing) > 1 else [pub for _, page in listing for pub in page.publications],
        warnings=warnings, runs=next((runs[i] for i in latest_first if runs.get(i)), []),
        affiliation=latest(lambda p: p.affiliation, None), interests=latest(lambda p: p.interests, []),
        coauthors=latest(lambda p: p.coauthors, []))


def axis_years(years: Iterable[YearCitations]) -> list[YearCitations]:
    """Every year from the first to the last, 0 where the record has none (the records already give
    every year on the page's axis; a gap is filled, never dropped).

    >>> [(y.year, y.citations) for y in axis_years([YearCitations(year=2021, citations=4),
    ...                                              YearCitations(year=2019, citations=1)])]
    [(2019, 1), (2020, 0), (2021, 4)]
    """
    counts = {y.year: y.citations for y in years}
    if not counts:
        return []
    return [YearCitations(year=year, citations=counts.get(year, 0)) for year in range(min(counts), max(counts) + 1)]


def h_index(counts: Iterable[int | None]) -> int:
    """The largest h such that h papers have at least h citations each.

    >>> h_index([10, 8, 5, 4, 3, None]), h_index([])
    (4, 0)
    """
    ranked = sorted((c for c in counts if c), reverse=True)
    return sum(1 for rank, count in enumerate(ranked, 1) if count >= rank)


# ---- drawing -------------------------------------------------------------------------------------------

def esc(value: object) -> str:
    """Text from a record, safe in HTML text and in a quoted attribute.

    >>> esc('<script>"x"</script>')
    '&lt;script&gt;&quot;x&quot;&lt;/script&gt;'
    """
    return html.escape("" if value is None else str(value), quote=True)


def link(url: str | None, text: str) -> str:
    """``text`` (already escaped) as a link to ``url`` when it is an http(s) URL, else as it is: a
    ``javascript:`` URL from a record never becomes a link.

    >>> link("javascript:alert(1)", "T"), link("https://a.org/?x=1&y=2", "T")
    ('T', '<a href="https://a.org/?x=1&amp;y=2">T</a>')
    """
    if url and url.lower().startswith(("https://", "http://")):
        return f'<a href="{esc(url)}">{text}</a>'
    return text


def nice_ceiling(value: int) -> int:
    """The axis top for a largest value: 1, 2 or 5 times a power of ten, at least ``value`` (and 1).

    >>> [nice_ceiling(v) for v in (0, 7, 12, 230, 1750)]
    [1, 10, 20, 500, 2000]
    """
    if value <= 1:
        return 1
    power: int = 10 ** int(math.log10(value))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value)


def _y_axis(top: int, left: int, bottom: int, height: int, width: int) -> str:
    """Horizontal grid lines with their values, from 0 to ``top`` in whole steps."""
    parts, steps = [], next(n for n in (5, 4, 2, 1) if top % n == 0)
    for i in range(steps + 1):
        value, y = top * i // steps, bottom - height * i / steps
        parts.append(f'<line class="grid" x1="{left}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}"/>'
                     f'<text class="tick" x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{value}</text>')
    return "".join(parts)


def _svg_open(width: int, height: int, kind: str, label: str) -> str:
    """An SVG chart's opening, at its own size in pixels (CSS only ever shrinks it, to the page's width),
    named ``label`` for a screen reader and a tooltip."""
    return (f'<svg class="chart" data-chart="{kind}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="list" aria-label="{esc(label)}"><title>{esc(label)}</title>')


# The widest a character of the charts' 11 px text is drawn (DejaVu Sans, Chromium's fallback on Debian: its
# digits are 0.64 em, 7 px), and the space kept between two labels: what decides which labels fit.
CHAR_PX = 7.2
LABEL_GAP = 4
CHART_LEFT, CHART_TOP, CHART_WIDTH = 48, 18, 640  # the y axis' room, the space above, the width aimed at


def text_width(text: str) -> float:
    """The most ``text`` takes in a chart, in pixels."""
    return len(text) * CHAR_PX


def label_every(step: float, longest: str) -> int:
    """Every how many slots of ``step`` px a label as long as ``longest`` fits without touching the next:
    1, 2 or 5 times a power of ten.

    >>> label_every(34, "2024"), label_every(22, "2024"), label_every(12, "2024"), label_every(88, "2024-05-01")
    (1, 2, 5, 1)
    """
    return nice_ceiling(math.ceil((text_width(longest) + LABEL_GAP) / step))


@dataclass(frozen=True)
class XAxis:
    """A chart's slots, ``step`` px each, one per label: every ``label_every``-th label is drawn, counting
    back from the last (so the latest is always named), horizontally, so none is cut or overlaps another.
    ``names`` are the slots' full names, for tooltips (the labels by default)."""

    labels: Sequence[str]
    step: int
    names: Sequence[str] = ()

    def centre(self, i: int) -> float:
        return CHART_LEFT + self.step * i + self.step / 2

    def name(self, i: int) -> str:
        return self.names[i] if self.names else self.labels[i]

    @property
    def width(self) -> int:
        """The chart's width: its slots, and the half of the last label that may stand past its slot."""
        longest = max(self.labels, key=len, default="")
        overhang = max(0.0, text_width(longest) / 2 - self.step / 2)
        return max(320, math.ceil(CHART_LEFT + self.step * len(self.labels) + overhang + 8))

    def text(self, bottom: int) -> str:
        every = label_every(self.step, max(self.labels, key=len, default=""))
        last = len(self.labels) - 1
        shown = "".join(f'<text class="x" x="{self.centre(i):.1f}" y="{bottom + 14}" text-anchor="middle">'
                        f'{esc(label)}</text>' for i, label in enumerate(self.labels) if (last - i) % every == 0)
        return f'<g class="x-axis">{shown}</g>'


def year_axis(years: Sequence[YearCitations]) -> XAxis:
    """The axis of the yearly charts: the bars and the cumulative line share it, year under year."""
    return XAxis([str(y.year) for y in years], step=max(10, min(34, CHART_WIDTH // max(len(years), 1))))


def bar_chart(years: Sequence[YearCitations], label: str) -> str:
    """Citations per year as SVG bars, one per year on the axis (zero years drawn as empty slots); the
    counts stand over the bars when every one fits its slot."""
    axis, height = year_axis(years), 160
    bottom, width = CHART_TOP + height, axis.width
    top = nice_ceiling(max(y.citations for y in years))
    gap = max(2, axis.step // 4)
    values = all(text_width(str(y.citations)) + 2 <= axis.step for y in years)
    bars = []
    for i, item in enumerate(years):
        x, h = CHART_LEFT + axis.step * i + gap / 2, height * item.citations / top
        value = (f'<text class="value" x="{axis.centre(i):.1f}" y="{bottom - h - 3:.1f}" text-anchor="middle">'
                 f'{item.citations}</text>' if values else "")
        bars.append(f'<g class="bar" role="listitem" aria-label="{item.year}: {item.citations}" '
                    f'data-year="{item.year}" data-value="{item.citations}">'
                    f'<rect x="{x:.1f}" y="{bottom - h:.1f}" width="{axis.step - gap}" height="{h:.1f}">'
                    f'<title>{item.year}: {item.citations} citations</title></rect>{value}</g>')
    return (f'{_svg_open(width, bottom + 24, "per-year", label)}'
            f'{_y_axis(top, CHART_LEFT, bottom, height, width)}{"".join(bars)}{axis.text(bottom)}</svg>')


def line_chart(series: Sequence[tuple[str, Sequence[int | None]]], axis: XAxis, label: str, kind: str) -> str:
    """Lines of points, one value per slot of ``axis`` (None: no point), one line per named series."""
    height = 140
    bottom, width = CHART_TOP + height, axis.width
    top = nice_ceiling(max((v for _, values in series for v in values if v is not None), default=0))
    parts = [f'{_svg_open(width, bottom + 24, kind, label)}{_y_axis(top, CHART_LEFT, bottom, height, width)}']
    for number, (name, values) in enumerate(series):
        xy = [(axis.centre(i), bottom - height * v / top, axis.name(i), v)
              for i, v in enumerate(values) if v is not None]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in xy)
        parts.append(f'<g class="series s{number}" data-series="{esc(name)}"><polyline points="{path}"/>')
        parts.extend(f'<circle class="point" role="listitem" aria-label="{esc(name)}, {esc(x_name)}: {v}" '
                     f'data-x="{esc(x_name)}" data-value="{v}" cx="{x:.1f}" cy="{y:.1f}" r="3.5">'
                     f'<title>{esc(name)}, {esc(x_name)}: {v}</title></circle>' for x, y, x_name, v in xy)
        parts.append("</g>")
    parts.append(f"{axis.text(bottom)}</svg>")
    if len(series) > 1:
        keys = "".join(f'<span class="key s{n}">{esc(name)}</span>' for n, (name, _) in enumerate(series))
        parts.append(f'<p class="legend">{keys}</p>')
    return "".join(parts)


def cumulative(years: Sequence[YearCitations]) -> list[int | None]:
    """The running total of the yearly counts.

    >>> cumulative([YearCitations(year=2020, citations=2), YearCitations(year=2021, citations=3)])
    [2, 5]
    """
    return list(itertools.accumulate(y.citations for y in years))


def metrics_list(metrics: Metrics) -> str:
    """The metrics the page gives, as a description list (absent ones left out, never shown as 0)."""
    items = []
    for name, label in METRIC_LABELS.items():
        value = getattr(metrics, name)
        if value is None:
            continue
        if name.endswith("_since") and metrics.since_year:
            label = f"{label} {metrics.since_year}"
        items.append(f'<div data-metric="{name}"><dt>{esc(label)}</dt><dd>{value:,}</dd></div>')
    return f'<dl class="metrics">{"".join(items)}</dl>' if items else '<p class="none">No metrics on this page.</p>'


def person_details(view: ProfileView) -> str:
    """The affiliation, research interests and co-authors the pages give (each left out when absent); a
    co-author is linked to their page when the record has its URL."""
    parts = []
    if view.affiliation:
        parts.append(("affiliation", "Affiliation", f"<bdi>{esc(view.affiliation)}</bdi>"))
    if view.interests:
        parts.append(("interests", "Interests", "".join(f'<li dir="auto">{esc(i)}</li>' for i in view.interests)))
    if view.coauthors:
        parts.append(("coauthors", f"Co-authors ({len(view.coauthors)})", "".join(map(coauthor_item, view.coauthors))))
    items = "".join(f'<div data-part="{part}"><dt>{label}</dt><dd>'
                    + (f"<ul>{shown}</ul>" if part != "affiliation" else shown) + "</dd></div>"
                    for part, label, shown in parts)
    return f'<dl class="person">{items}</dl>' if items else ""


def coauthor_item(coauthor: Coauthor) -> str:
    """A co-author, linked to their page when the record has its URL (a name the page cut short marked
    "…"), with their affiliation when given.

    >>> coauthor_item(Coauthor(name="Ada", url="https://a.org/ada", affiliation="Analytical Engines"))
    '<li dir="auto"><a href="https://a.org/ada">Ada</a> <span class="aff">Analytical Engines</span></li>'
    """
    affiliation = f' <span class="aff">{esc(coauthor.affiliation)}</span>' if coauthor.affiliation else ""
    cut = '<span class="cut" title="the page cut this name short">…</span>' if coauthor.name_truncated else ""
    return f'<li dir="auto">{link(coauthor.url, esc(coauthor.name))}{cut}{affiliation}</li>'


def warnings_list(warnings: Sequence[PageWarning], where: str) -> str:
    if not warnings:
        return ""
    items = "".join(f'<li data-code="{esc(w.code)}"><code>{esc(w.code)}</code> {esc(w.message)}</li>'
                    for w in warnings)
    return f'<div class="warnings {where}" role="note"><ul>{items}</ul></div>'


def _header(label: str, kind: str, sort: str | None = None) -> str:
    state = f' aria-sort="{sort}"' if sort else ""
    return f'<th data-type="{kind}"{state}><button type="button">{esc(label)}</button></th>'


# The marks of a count that is not there, told apart: a source that lists the paper without a count, and a
# source that does not list it (in the table across sites). Both sort last, whichever way a column is sorted.
NO_COUNT = ("no-count", "—", "listed without a citation count")
NOT_LISTED = ("not-listed", "·", "not listed on that site")


def _number_cell(value: int | None, grouped: bool = True, absent: tuple[str, str, str] | None = None,
                 more: str = "") -> str:
    """A number, sortable; ``absent`` is the mark shown (and said in a tooltip) when there is none."""
    if value is not None:
        return f'<td class="num" data-sort="{value}"{more}>{f"{value:,}" if grouped else value}</td>'
    mark = f' data-mark="{absent[0]}" title="{absent[2]}"' if absent else ""
    return f'<td class="num" data-sort=""{mark}{more}>{absent[1] if absent else ""}</td>'


def marks_legend(*marks: tuple[str, str, str]) -> str:
    """What the marks ``marks`` in the table below mean (nothing when none is used)."""
    items = "".join(f'<span data-mark="{name}"><b class="mark">{mark}</b> {said}</span>' for name, mark, said in marks)
    return f'<p class="note marks">{items}</p>' if items else ""


def _text_cell(value: str | None, shown: str | None = None) -> str:
    return f'<td data-sort="{esc((value or "").casefold())}">{shown if shown is not None else esc(value)}</td>'


def _by_citations(items: Iterable[_Item], count: Callable[[_Item], int | None]) -> list[_Item]:
    """Most cited first, those without a count last, input order kept among equals (as the table's
    script sorts a column of counts, descending)."""
    return sorted(items, key=lambda item: (count(item) is None, -(count(item) or 0)))


def citations(paper: Publication | Paper) -> int | None:
    """A paper's count: the page's, or (the rows of several pages of one site, merged) the highest."""
    return paper.citations if isinstance(paper, Publication) else paper.citations_max


def papers_table(papers: Sequence[Publication | Paper], top: int) -> str:
    """The most cited papers (``top``; 0 for all), in a table sortable by any column; when the site gives
    no paper a count, the first ``top`` in page order, without a column of counts."""
    counted = any(citations(p) is not None for p in papers)
    shown = (_by_citations(papers, citations) if counted else list(papers))[:top or None]
    cut = sum(p.authors_truncated for p in papers)
    note = (f'<p class="note" data-code="authors_truncated">{cut} of {len(papers)} papers have an author list '
            f'the page cut short (marked “et al.”).</p>' if cut else "")
    rows = []
    for rank, pub in enumerate(shown, 1):
        authors = esc(", ".join(pub.authors)) + (' <span class="cut" title="the page cut this list short">et al.'
                                                  '</span>' if pub.authors_truncated else "")
        title = f'{link(pub.url, esc(pub.title or "(no title)"))}<div class="authors">{authors}</div>'
        count = _number_cell(citations(pub), absent=NO_COUNT) if counted else ""
        rows.append(f"<tr>{_number_cell(rank)}{_text_cell(pub.title, title)}{_number_cell(pub.year, grouped=False)}"
                    f"{_text_cell(pub.venue)}{count}</tr>")
    caption = papers_caption(len(shown), len(papers), counted)
    legend = marks_legend(*[NO_COUNT] * any(citations(p) is None for p in shown)) if counted else ""
    headers = (_header("#", "number", None if counted else "ascending") + _header("Title", "text")
               + _header("Year", "number") + _header("Venue", "text")
               + (_header("Citations", "number", "descending") if counted else ""))
    return (f'{note}{legend}<div class="scroll"><table class="sortable papers"><caption>{caption}</caption><thead>'
            f'<tr>{headers}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def papers_caption(shown: int, papers: int, counted: bool) -> str:
    """What the papers' table holds, in what order.

    >>> papers_caption(100, 300, True), papers_caption(20, 20, False)
    ('The 100 most cited of 300 papers', 'All 20 papers, in page order (the site gives no citation counts)')
    """
    if counted:
        return f"The {shown} most cited of {papers} papers" if shown < papers else \
            f"All {papers} papers, most cited first"
    which = f"The first {shown} of {papers} papers" if shown < papers else f"All {papers} papers"
    return f"{which}, in page order (the site gives no citation counts)"


def person_section(person: PersonView, number: int, top: int) -> str:
    """One person: their name, and what each site shows of them."""
    heading = link(person.views[0].url, esc(person.name)) if len(person.views) == 1 else esc(person.name)
    return (f'<section class="profile" id="p{number}"><h2>{heading}</h2>'
            + "".join(site_block(view, top) for view in person.views) + "</section>")


def site_block(view: ProfileView, top: int) -> str:
    """What one site shows of a person: who they are, metrics, warnings, charts, runs and papers."""
    list_warnings = [w for w in view.warnings if w.code in LIST_WARNINGS]
    other_warnings = [w for w in view.warnings if w.code not in LIST_WARNINGS]
    badge = f'<span class="site">{esc(view.site)}</span>'
    parts = [f'<div class="view" data-site="{esc(view.site)}">',
             f'<p class="source">{link(view.url, badge)} From {esc(view.source)}</p>', person_details(view),
             warnings_list(other_warnings, "page"),
             metrics_list(view.metrics)]
    if view.years:
        parts += ['<h3>Citations per year</h3>', bar_chart(view.years, f"Citations per year of {view.name}"),
                  '<h3>Cumulative citations</h3>',
                  line_chart([("citations", cumulative(view.years))], year_axis(view.years),
                             f"Cumulative citations of {view.name}", "cumulative"),
                  '<p class="note">The running total of the yearly counts above (a site may count years before '
                  'its chart starts in the total only).</p>']
    if len(view.runs) > 1:
        parts += ['<h3>h-index and i10-index over the store’s runs</h3>', runs_chart(view)]
    if view.papers:
        parts += ['<h3>Top papers</h3>', warnings_list(list_warnings, "list"), papers_table(view.papers, top)]
    else:
        parts.append(warnings_list(list_warnings, "list"))
    return "".join(parts) + "</div>"


def run_labels(runs: Sequence[RunPoint]) -> list[str]:
    """The runs' dates (when each page was fetched, else saved): the day, or the minute or the second
    when two runs share the day (or the minute); the run ids when two share the second.

    >>> run_labels([RunPoint("r1", "", 1, 1, 1, when="2024-05-01T10:00:00Z"),
    ...             RunPoint("r2", "", 1, 1, 1, when="2024-05-01T18:30:00Z")])
    ['2024-05-01 10:00', '2024-05-01 18:30']
    """
    for length in (10, 16, 19):  # YYYY-MM-DD, then THH:MM, then :SS
        labels = [run.when[:length].replace("T", " ") for run in runs]
        if len(set(labels)) == len(labels):
            return labels
    return [run.run for run in runs]


def runs_chart(view: ProfileView) -> str:
    labels = run_labels(view.runs)
    axis = XAxis(labels, step=max(24, min(96, CHART_WIDTH // len(labels))),
                 names=[f"{label} (run {run.run})" for label, run in zip(labels, view.runs, strict=True)])
    chart = line_chart([("h-index", [r.h_index for r in view.runs]), ("i10-index", [r.i10_index for r in view.runs])],
                       axis, f"h-index and i10-index of {view.name} over {len(view.runs)} runs", "runs")
    computed = any(r.computed for r in view.runs)
    return chart + ('<p class="note">Where the page gave no h-index or i10-index, they are computed from the '
                    'citations of the publications listed in that run.</p>' if computed else "")


def merged_section(merged: MergeResult, top: int) -> str:
    """The same paper's citation count on each site, side by side, sorted by the first site's count."""
    sites = list(dict.fromkeys(s.site for paper in merged.papers for s in paper.sources))
    shared = sum(len({s.site for s in p.sources}) > 1 for p in merged.papers)
    shown = _by_citations(merged.papers, lambda p: site_count(p, sites[0]))[:top or None]
    rows = "".join(f"<tr>{_text_cell(p.title, link(p.url, esc(p.title or '(no title)')))}"
                   f"{_number_cell(p.year, grouped=False)}" + "".join(_site_cell(p, site) for site in sites) + "</tr>"
                   for p in shown)
    headers = "".join(_header(site, "number", "descending" if i == 0 else None) for i, site in enumerate(sites))
    marks = {mark for p in shown for site in sites if (mark := _absent(p, site))}
    return (f'<section class="merged" id="merged"><h2>The same papers across sources</h2>'
            f'<p>{len(merged.papers)} papers, {shared} of them found on more than one site.</p>'
            f'{marks_legend(*(m for m in (NO_COUNT, NOT_LISTED) if m in marks))}'
            f'<div class="scroll"><table class="sortable across"><caption>Citations of each paper on each site, '
            f'most cited on {esc(sites[0])} first</caption><thead><tr>{_header("Title", "text")}'
            f'{_header("Year", "number")}{headers}</tr></thead><tbody>{rows}</tbody></table></div></section>')


def site_count(paper: Paper, site: str) -> int | None:
    """A paper's count on ``site``: the highest, when two pages of that site list it."""
    return max((s.citations for s in paper.sources if s.site == site and s.citations is not None), default=None)


def _absent(paper: Paper, site: str) -> tuple[str, str, str] | None:
    """Why ``paper`` has no count on ``site`` (None when it has one)."""
    if site_count(paper, site) is not None:
        return None
    return NO_COUNT if any(s.site == site for s in paper.sources) else NOT_LISTED


def _site_cell(paper: Paper, site: str) -> str:
    return _number_cell(site_count(paper, site), absent=_absent(paper, site), more=f' data-site="{esc(site)}"')


STYLE = """
*{box-sizing:border-box}body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:12px}h1{font-size:1.5em;margin:.4em 0}
section{background:#fff;border:1px solid #d8dce3;border-radius:8px;padding:12px 14px;margin:14px 0}
h2{font-size:1.25em;margin:.2em 0;overflow-wrap:anywhere}h3{font-size:1.05em;margin:1em 0 .3em}
.site{font-size:.7em;background:#e6ecf5;border-radius:4px;padding:1px 6px;vertical-align:middle}
.source,.note,caption{color:#5a6270;font-size:.88em;overflow-wrap:anywhere}caption{text-align:left;padding:4px 0}
dl.metrics{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}dl.metrics div{border:1px solid #d8dce3;
border-radius:6px;padding:4px 10px;min-width:7em}dt{font-size:.8em;color:#5a6270}dd{margin:0}
dl.metrics dd{font-size:1.2em;font-weight:600}dl.person{margin:8px 0}dl.person>div{display:flex;gap:12px;
margin:4px 0}dl.person dt{flex:0 0 6.5em;padding-top:.15em}dl.person dd{overflow-wrap:anywhere;min-width:0}
dl.person ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:3px 6px}
dl.person [data-part=interests] li{background:#eef1f5;border-radius:4px;padding:0 6px}
dl.person [data-part=coauthors] li:not(:last-child):after{content:","}.aff{color:#5a6270;font-size:.88em}
.source .site{font-size:.9em}.view+.view{border-top:2px solid #d8dce3;margin-top:18px;padding-top:6px}
.mark{font-weight:400;padding:0 .2em}.marks span{margin-right:1.2em}
.warnings{background:#fff6e0;border-left:4px solid #d99a00;padding:4px 10px;margin:8px 0;
overflow-wrap:anywhere}.warnings ul{margin:4px 0;padding-left:1.2em}
svg.chart{max-width:100%;height:auto;display:block}svg .grid{stroke:#e3e6eb}
svg text{font-size:11px;fill:#3b4350}svg .bar rect{fill:#3867b5}svg .bar:hover rect{fill:#1f4690}
svg polyline{fill:none;stroke-width:2}.s0 polyline{stroke:#3867b5}.s0 circle{fill:#3867b5}
.s1 polyline{stroke:#c0562b}.s1 circle{fill:#c0562b}.legend .key{margin-right:1em}
.legend .key:before{content:"";display:inline-block;width:.8em;height:.8em;margin-right:.3em}
.legend .s0:before{background:#3867b5}.legend .s1:before{background:#c0562b}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.92em}
th,td{border-bottom:1px solid #e3e6eb;padding:4px 6px;text-align:left;vertical-align:top}
td.num{text-align:right;white-space:nowrap}td{overflow-wrap:break-word}.authors{color:#5a6270;font-size:.88em}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit;
white-space:nowrap}
th[aria-sort=ascending] button:after{content:" ▲"}th[aria-sort=descending] button:after{content:" ▼"}
nav a{margin-right:.8em}@media (max-width:600px){main{padding:4px}section{padding:8px}
dl.person>div{display:block}table{font-size:.85em}}
"""

SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () {
      var ascending = th.getAttribute("aria-sort") !== "ascending", column = th.cellIndex;
      var numeric = th.dataset.type === "number", body = table.tBodies[0];
      table.querySelectorAll("thead th").forEach(function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[column].dataset.sort, y = b.cells[column].dataset.sort;
        if (x === "" || y === "") { return (x === "") - (y === ""); }
        var order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def render(data: ReportData, title: str = "Citation report", top: int = DEFAULT_TOP,
           since_last_run: str = "") -> str:
    """The whole report as one HTML document (``since_last_run``: the store's changes section, first)."""
    sections = [since_last_run] + [person_section(person, i, top) for i, person in enumerate(data.people)]
    if data.merged and data.merged.papers:
        sections.append(merged_section(data.merged, top))
    nav = "".join(f'<a href="#p{i}">{esc(person.name)}</a>' for i, person in enumerate(data.people)) + (
        '<a href="#merged">Across sources</a>' if data.merged and data.merged.papers else "")
    policy = (f"default-src 'none'; style-src {_csp_hash(STYLE)}; script-src {_csp_hash(SCRIPT)}; "
              "img-src data:; base-uri 'none'; form-action 'none'")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
            f'<link rel="icon" href="data:,"><title>{esc(title)}</title><style>{STYLE}</style></head>'
            f'<body><main><h1>{esc(title)}</h1><nav>{nav}</nav>{"".join(sections)}</main>'
            f'<script>{SCRIPT}</script></body></html>\n')


class HtmlWriter(_Writer):
    """``open_output``'s writer of a rendered report."""

    def write(self, text: str) -> None:
        self.stream.write(text)


# ---- reading: inputs, archives and a store --------------------------------------------------------------

def store_pages(location: str) -> tuple[list[tuple[str, PageResult]], dict[int, list[RunPoint]]]:
    """A store's exported profiles, and each one's runs, oldest first."""
    from .store import Store, _Sql, decoded

    store = Store(location, readonly=True)
    try:
        db = _Sql(store.connection, store.dialect)
        keys = db.execute("SELECT site, profile_id FROM profiles ORDER BY site, profile_id").fetchall()
        pages = [(f"{location} ({site}:{profile_id})", result) for (site, profile_id), result in
                 zip(keys, store.profiles(), strict=True)]  # both in (site, profile_id) order
        has_runs = "profile_runs" in store.tables
        runs = {i: run_points(db, site, profile_id, decoded)
                for i, (site, profile_id) in enumerate(keys) if has_runs}
    finally:
        store.close()
    return pages, runs


def run_points(db: _Sql, site: str, profile_id: str,
               decoded: Callable[[str, type[PageResult]], PageResult]) -> list[RunPoint]:
    """A profile's runs in a store: the metrics its page gave, else those of the run's snapshots."""
    points = []
    for run, saved_at, record in db.execute(
            "SELECT run_id, saved_at, record FROM profile_runs WHERE site = ? AND profile_id = ? "
            "ORDER BY saved_at, run_id", (site, profile_id)).fetchall():
        page = decoded(record, PageResult)
        metrics = (page.profile or _NO_PROFILE).metrics
        counts = [c for (c,) in db.execute(
            "SELECT s.citations FROM run_publications r JOIN citation_snapshots s ON s.run_id = r.run_id "
            "AND s.site = r.site AND s.publication_id = r.publication_id "
            "WHERE r.site = ? AND r.profile_id = ? AND r.run_id = ?", (site, profile_id, run)).fetchall()]
        computed = metrics.h_index is None or metrics.i10_index is None
        points.append(RunPoint(
            run=run, saved_at=saved_at,
            h_index=metrics.h_index if metrics.h_index is not None else h_index(counts),
            i10_index=metrics.i10_index if metrics.i10_index is not None else sum((c or 0) >= 10 for c in counts),
            citations=metrics.citations, computed=computed,
            when=(page.source.fetched_at if page.source else None) or saved_at))
    return points
