"""``pubharvest report``: one self-contained HTML file of citation figures, a section per person with
what each source shows of them side by side, and the people side by side when there are several.

The file works offline: its CSS and its one small script are inline (a Content-Security-Policy allows
those two by hash and nothing else, so the page can load nothing, and a stray ``<script>`` in a record
could not run even if it were not escaped, which it is), and its charts are SVG written here, with
every axis label and value in the DOM (``<text>``, ``data-year``/``data-value``, ``<title>``), each
drawn twice, for a wide window and for a phone's, the style showing one (``at_both_widths``).

Reading is kept apart from drawing: ``report_data`` turns page results (and a store's run history)
into ``ReportData``, which is all ``render`` looks at.

>>> from pubharvest.parsers.records import PageResult, Profile, Publication, YearCitations
>>> page = PageResult(site="scholar", page="profile", profile=Profile(name="<b>Ada</b>",
...     citations_by_year=[YearCitations(year=2020, citations=3), YearCitations(year=2022, citations=5)]),
...     publications=[Publication(title="<script>alert(1)</script>", citations=8)])
>>> html = render(report_data([("ada.html", page)]))
>>> "<script>alert" in html, "&lt;script&gt;alert(1)&lt;/script&gt;" in html, html.count('class="bar"')
(False, True, 6)
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
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

from .changes import ChangeReport, by_person, change_text, person_heading, plural, run_text, summary_line
from .merge import (
    Paper,
    identifiable,
    latest_records,
    merge_papers,
    nameless_owners,
    people,
    recency,
    shared_papers,
)
from .metrics import METRICS, MetricSet, PersonMetrics, RowRef, SourceGap, YearPoint, metrics
from .metrics.indicators import h_of
from .names import name_key
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


@dataclass(frozen=True)
class Placement:
    """Why a page that names nobody is shown in a person's section (``merge.nameless_owners``): the papers
    it shares with the person's other pages, and how many of its rows name the person among their authors
    (of how many, and how many of those rows have an author list the page cut short)."""

    shared: int
    naming: int
    rows: int
    cut: int


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
    pages: list[int] = field(default_factory=list)  # its pages, by index into the report's pages
    placement: Placement | None = None  # a page that names nobody, shown in this person's section
    label: str = ""  # its name in the person's tables and legends: the site, numbered when two share one

    def __post_init__(self) -> None:
        self.label = self.label or self.site


@dataclass
class PersonView:
    """One person (``merge.people``), or one page that names nobody: what each site shows of them, and
    (when several sources show them) their papers merged across the sources (``merge.merge_papers``:
    each source's input is the index of its page, so a paper tells which view lists it)."""

    name: str
    views: list[ProfileView]
    papers: list[Paper] = field(default_factory=list)
    figures: PersonMetrics | None = None  # ``metrics.metrics`` of the person's pages, by source


@dataclass
class ReportData:
    people: list[PersonView]


def report_data(pages: Sequence[tuple[str, PageResult]],
                runs: Mapping[int, list[RunPoint]] | None = None) -> ReportData:
    """The report's data from ``(input name, page result)`` pairs and, by index into ``pages``, the
    store runs of each: one section per person (``merge``'s people, of the records ``merge`` keeps: a
    job's earlier fetches of a page are left out), a page that names nobody in the section of the person
    whose papers it lists (``merge.nameless_owners``), else in one of its own."""
    runs = runs or {}
    kept = latest_indexes(pages)
    pages = [pages[i] for i in kept]
    runs = {at: runs[i] for at, i in enumerate(kept) if i in runs}
    return ReportData(people=[person_view(pages, indexes, runs, name) for name, indexes in person_pages(pages)])


def latest_indexes(pages: Sequence[tuple[str, PageResult]]) -> list[int]:
    """The indexes of the pages ``merge`` keeps (``merge.latest_records``), in input order."""
    kept = {id(pair) for pair in latest_records(pages)}
    return [i for i, pair in enumerate(pages) if id(pair) in kept]


def person_pages(pages: Sequence[tuple[str, PageResult]]) -> list[tuple[str | None, list[int]]]:
    """Each person's name and the indexes of their pages (``merge.people``, with the pages that name
    nobody but list their papers: ``merge.nameless_owners``), and each other page that names nobody on
    its own, in the order of their first page.

    >>> from pubharvest.parsers.records import Ids
    >>> def page(user):
    ...     return ("in", PageResult(site="scholar", page="profile", profile=Profile(ids=Ids(scholar=user))))
    >>> person_pages([page("A"), ("rows.html", PageResult(site="scholar", page="rows")), page("A")])
    [(None, [0, 2]), (None, [1])]
    """
    found = people(pages)
    owners = nameless_owners(pages, found)
    listed = [(person.name, sorted(indexes + [i for i, owner in owners.items() if owner == at]))
              for at, (person, indexes) in enumerate(found)]
    placed = {i for _, indexes in listed for i in indexes}
    return sorted(listed + [(None, [i]) for i in range(len(pages)) if i not in placed], key=lambda p: p[1][0])


def person_view(pages: Sequence[tuple[str, PageResult]], indexes: list[int], runs: Mapping[int, list[RunPoint]],
                name: str | None) -> PersonView:
    """One person from their pages: a view per site (a page that names nobody, one of its own), in the
    order each first comes, and their papers across the views when there are several."""
    by_view: dict[object, list[int]] = {}
    for i in indexes:
        result = pages[i][1]
        by_view.setdefault(result.site if identifiable(result) or len(indexes) == 1 else ("nameless", i), []).append(i)
    first_name, first = pages[indexes[0]]
    name = name or first.url or PurePath(first_name).name
    views = [site_view(pages, found, runs, name) for found in by_view.values()]
    named = [i for i in indexes if identifiable(pages[i][1])]
    for view in views:
        if len(by_view) > 1 and not any(i in named for i in view.pages):
            view.placement = placement(pages, view.pages[0], named, name)
    for site, same in itertools.groupby(sorted(views, key=lambda v: v.site), key=lambda v: v.site):
        numbered = list(same)
        for n, view in enumerate(numbered[1:], 2):
            view.label = f"{site} {n}"
    papers = merge_papers([(str(i), pages[i][1]) for i in indexes]) if len(views) > 1 else []
    return PersonView(name=name, views=views, papers=papers, figures=person_metrics([pages[i] for i in indexes]))


def person_metrics(pages: Sequence[tuple[str, PageResult]]) -> PersonMetrics | None:
    """The figures of one person's pages by source (``metrics.metrics``), None when its grouping of the
    pages gives no one person (its rules are ``merge``'s, as the report's, so it gives one)."""
    found = metrics(pages, by="source").people
    return found[0] if len(found) == 1 else None


def placement(pages: Sequence[tuple[str, PageResult]], nameless: int, named: list[int], name: str) -> Placement:
    """Why page ``nameless`` is in the section of the person of pages ``named``, called ``name``."""
    rows = pages[nameless][1].publications
    key = name_key(name)
    naming = sum(any(name_key(author) == key for author in row.authors) for row in rows)
    return Placement(shared=len(shared_papers(pages, nameless, named)), naming=naming, rows=len(rows),
                     cut=sum(row.authors_truncated for row in rows))


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
        coauthors=latest(lambda p: p.coauthors, []), pages=sorted(indexes))


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
PHONE_WIDTH = 290  # the width aimed at by a chart's phone drawing: about 340 px with the axis, at scale 1


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


def year_axis(years: Sequence[YearCitations], width: int = CHART_WIDTH) -> XAxis:
    """The axis of the yearly charts: the bars and the cumulative line share it, year under year."""
    return slot_axis([str(y.year) for y in years], width, narrowest=6)


def slot_axis(labels: Sequence[str], width: int, narrowest: int = 10, widest: int = 34,
              names: Sequence[str] = ()) -> XAxis:
    """An axis of ``labels`` (``names``: their tooltips) whose slots share ``width`` px, each at least
    ``narrowest`` and at most ``widest``."""
    return XAxis(labels, step=max(narrowest, min(widest, width // max(len(labels), 1))), names=names)


def at_both_widths(draw: Callable[[int], str]) -> str:
    """A chart drawn for a wide window and again for a phone's (``draw`` given the width each aims at);
    the style shows one of the two, so that a phone does not shrink a wide chart's text to a third. The
    drawings are told apart by a class set on their ``svg.chart``: ``wide`` or ``phone``."""
    return "".join(draw(width).replace('<svg class="chart"', f'<svg class="chart {fit}"', 1)
                   for fit, width in (("wide", CHART_WIDTH), ("phone", PHONE_WIDTH)))


def bar_chart(years: Sequence[YearCitations], label: str, width: int = CHART_WIDTH) -> str:
    """Citations per year as SVG bars, one per year on the axis (zero years drawn as empty slots); the
    counts stand over the bars when every one fits its slot."""
    axis, height = year_axis(years, width), 160
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


# Each series of a line chart is told apart by three things, never by colour alone: its colour, the shape
# of its points and the dash of its line, the same in the legend under the chart (cycled past six series).
SERIES_SHAPES = ("circle", "square", "triangle", "diamond", "cross", "plus")
SERIES_DASHES = ("", "7 3", "2 3", "9 3 2 3", "1 3", "12 4")


def marker(number: int, x: float, y: float, attributes: str = "", tooltip: str = "") -> str:
    """The point of series ``number`` at ``(x, y)``: its shape (``SERIES_SHAPES``), with ``attributes``
    and a ``<title>`` tooltip.

    >>> marker(1, 10, 20)
    '<rect class="point" x="6.5" y="16.5" width="7" height="7"/>'
    """
    title = f"<title>{tooltip}</title>" if tooltip else ""
    shape = SERIES_SHAPES[number % len(SERIES_SHAPES)]
    opened = {
        "circle": f'<circle class="point"{attributes} cx="{x:.1f}" cy="{y:.1f}" r="3.5"',
        "square": f'<rect class="point"{attributes} x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7"',
        "triangle": f'<polygon class="point"{attributes} points="{x:.1f},{y - 4.5:.1f} {x + 4.5:.1f},{y + 3.5:.1f} '
                    f'{x - 4.5:.1f},{y + 3.5:.1f}"',
        "diamond": f'<polygon class="point"{attributes} points="{x:.1f},{y - 4.5:.1f} {x + 4.5:.1f},{y:.1f} '
                   f'{x:.1f},{y + 4.5:.1f} {x - 4.5:.1f},{y:.1f}"',
        "cross": f'<path class="point open"{attributes} d="M{x - 4:.1f} {y - 4:.1f}L{x + 4:.1f} {y + 4:.1f}'
                 f'M{x + 4:.1f} {y - 4:.1f}L{x - 4:.1f} {y + 4:.1f}"',
        "plus": f'<path class="point open"{attributes} d="M{x - 4.5:.1f} {y:.1f}H{x + 4.5:.1f}M{x:.1f} {y - 4.5:.1f}'
                f'V{y + 4.5:.1f}"',
    }[shape]
    return f"{opened}>{title}</{opened[1:opened.index(' ')]}>" if title else f"{opened}/>"


def _dash(number: int) -> str:
    """Series ``number``'s dash: its colour and shape come round every six series, its dash one step later
    each round, so the first 36 series all differ."""
    dash = SERIES_DASHES[(number + number // len(SERIES_SHAPES)) % len(SERIES_DASHES)]
    return f' stroke-dasharray="{dash}"' if dash else ""


def legend(names: Sequence[str]) -> str:
    """The key of a chart's series: each one's line and point, drawn as in the chart, and its name."""
    keys = "".join(f'<span class="key s{n % len(SERIES_SHAPES)}" data-series="{esc(name)}">'
                   f'<svg class="swatch" width="30" height="12" viewBox="0 0 30 12" aria-hidden="true">'
                   f'<line x1="1" x2="29" y1="6" y2="6"{_dash(n)}/>{marker(n, 15, 6)}</svg>{esc(name)}</span>'
                   for n, name in enumerate(names))
    return f'<p class="legend">{keys}</p>'


def lines(series: Sequence[tuple[str, Sequence[int | None]]], labels: Sequence[str], label: str, kind: str,
          narrowest: int = 4, widest: int = 34, names: Sequence[str] = ()) -> str:
    """``line_chart`` at both widths (``at_both_widths``) on an axis of ``labels`` (``slot_axis``), and its
    legend when it has several series."""
    key = legend([name for name, _ in series]) if len(series) > 1 else ""
    return at_both_widths(lambda width: line_chart(
        series, slot_axis(labels, width, narrowest, widest, names), label, kind)) + key


def line_chart(series: Sequence[tuple[str, Sequence[int | None]]], axis: XAxis, label: str, kind: str) -> str:
    """Lines of points, one value per slot of ``axis`` (None: no point), one line per named series, each
    in its colour, point shape and dash (``legend`` draws their key)."""
    height = 140
    bottom, width = CHART_TOP + height, axis.width
    top = nice_ceiling(max((v for _, values in series for v in values if v is not None), default=0))
    parts = [f'{_svg_open(width, bottom + 24, kind, label)}{_y_axis(top, CHART_LEFT, bottom, height, width)}']
    for number, (name, values) in enumerate(series):
        xy = [(axis.centre(i), bottom - height * v / top, axis.name(i), v)
              for i, v in enumerate(values) if v is not None]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in xy)
        parts.append(f'<g class="series s{number % len(SERIES_SHAPES)}" data-series="{esc(name)}">'
                     f'<polyline points="{path}"{_dash(number)}/>')
        for x, y, x_name, v in xy:
            said = f"{esc(name)}, {esc(x_name)}: {v}"
            parts.append(marker(number, x, y, f' role="listitem" aria-label="{said}" data-x="{esc(x_name)}" '
                                              f'data-value="{v}"', said))
        parts.append("</g>")
    parts.append(f"{axis.text(bottom)}</svg>")
    return "".join(parts)


def cumulative(years: Sequence[YearCitations]) -> list[int | None]:
    """The running total of the yearly counts.

    >>> cumulative([YearCitations(year=2020, citations=2), YearCitations(year=2021, citations=3)])
    [2, 5]
    """
    return list(itertools.accumulate(y.citations for y in years))


def stated_metrics(person: PersonView) -> str:
    """The figures each source's page states, side by side: a row per metric some page gives, a column
    per source (an absent figure is an empty cell, never 0); a figure shown under the computed one of
    every source that states it (``computed_metrics``) is not repeated."""
    checked = {(each.source, c.name) for each in person.figures.sets for c in each.checks} if person.figures else set()
    rows = []
    for name, label in METRIC_LABELS.items():
        values = [getattr(view.metrics, name) for view in person.views]
        if all(value is None or (view.site, name) in checked for view, value in zip(person.views, values, strict=True)):
            continue
        years = {view.metrics.since_year for view in person.views if view.metrics.since_year}
        if name.endswith("_since") and len(years) == 1:
            label = f"{label} {years.pop()}"
        cells = "".join(f'<td class="num" data-source="{esc(view.label)}">'
                        f'{"" if value is None else f"{value:,}"}</td>' for view, value in zip(
                            person.views, values, strict=True))
        rows.append(f'<tr data-metric="{name}"><th scope="row">{esc(label)}</th>{cells}</tr>')
    if not rows:
        return ""
    headers = "".join(f'<th scope="col">{esc(view.label)}</th>' for view in person.views)
    return (f'<div class="scroll"><table class="metrics stated"><caption>As each page states them</caption><thead><tr>'
            f'<th scope="col">Metric</th>{headers}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


_Value = TypeVar("_Value")


def said_by(person: PersonView, values: Callable[[ProfileView], Iterable[_Value]],
            key: Callable[[_Value], Hashable]) -> list[tuple[_Value, list[str]]]:
    """Each distinct value (by ``key``) that the person's views give, the first view's own, with the
    labels of the views that give it, in the order first given."""
    found: dict[Hashable, tuple[_Value, list[str]]] = {}
    for view in person.views:
        for value in values(view):
            found.setdefault(key(value), (value, []))[1].append(view.label)
    return [(value, list(dict.fromkeys(labels))) for value, labels in found.values()]


def person_details(person: PersonView) -> str:
    """The affiliation, research interests and co-authors the pages give (each left out when absent; the
    same value given by several sources once, with the sources that give it, when the person has
    several); a co-author is linked to their page when the record has its URL."""
    tagged = len(person.views) > 1

    def item(shown: str, labels: list[str]) -> str:
        return f'{shown} <span class="from">{esc(", ".join(labels))}</span>' if tagged else shown

    affiliations = said_by(person, lambda v: [v.affiliation] if v.affiliation else [], str.casefold)
    interests = said_by(person, lambda v: v.interests, str.casefold)
    coauthors = said_by(person, lambda v: v.coauthors, lambda c: name_key(c.name))
    parts = []
    if len(affiliations) == 1 and not tagged:
        parts.append(("affiliation", "Affiliation", f"<bdi>{esc(affiliations[0][0])}</bdi>"))
    elif affiliations:
        parts.append(("affiliation", "Affiliation", "<ul>" + "".join(
            f'<li dir="auto">{item(f"<bdi>{esc(a)}</bdi>", labels)}</li>' for a, labels in affiliations) + "</ul>"))
    if interests:
        parts.append(("interests", "Interests", "<ul>" + "".join(
            f'<li dir="auto">{item(esc(i), labels)}</li>' for i, labels in interests) + "</ul>"))
    if coauthors:
        parts.append(("coauthors", f"Co-authors ({len(coauthors)})", "<ul>" + "".join(
            coauthor_item(c, labels if tagged else []) for c, labels in coauthors) + "</ul>"))
    items = "".join(f'<div data-part="{part}"><dt>{label}</dt><dd>{shown}</dd></div>' for part, label, shown in parts)
    return f'<dl class="person">{items}</dl>' if items else ""


def coauthor_item(coauthor: Coauthor, sources: Sequence[str] = ()) -> str:
    """A co-author, linked to their page when the record has its URL (a name the page cut short marked
    "…"), with their affiliation when given, and the ``sources`` that name them.

    >>> coauthor_item(Coauthor(name="Ada", url="https://a.org/ada", affiliation="Analytical Engines"))
    '<li dir="auto"><a href="https://a.org/ada">Ada</a> <span class="aff">Analytical Engines</span></li>'
    """
    affiliation = f' <span class="aff">{esc(coauthor.affiliation)}</span>' if coauthor.affiliation else ""
    cut = '<span class="cut" title="the page cut this name short">…</span>' if coauthor.name_truncated else ""
    said = f' <span class="from">{esc(", ".join(sources))}</span>' if sources else ""
    return f'<li dir="auto">{link(coauthor.url, esc(coauthor.name))}{cut}{affiliation}{said}</li>'


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
    """One person: their name, then each of ``PERSON_PARTS`` that has something to show."""
    heading = link(person.views[0].url, esc(person.name)) if len(person.views) == 1 else esc(person.name)
    sources = "".join(f'<li>{link(view.url, f"<span class=site>{esc(view.label)}</span>")} {esc(view.source)}'
                      f'{placement_flag(view)}</li>' for view in person.views)
    return (f'<section class="profile" id="p{number}"><h2>{heading}</h2><ul class="sources">{sources}</ul>'
            + "".join(part(person, top) for part in PERSON_PARTS) + "</section>")


def part(name: str, heading: str, body: str) -> str:
    """One part of a person's section (empty when ``body`` is)."""
    return f'<div class="part" data-part="{name}"><h3>{heading}</h3>{body}</div>' if body else ""


def who_part(person: PersonView, top: int) -> str:
    return part("who", "Who", person_details(person))


def metrics_part(person: PersonView, top: int) -> str:
    """The figures computed from each source's rows and from the person's papers merged, beside those the
    pages state; then why they differ: the rows that make a stated figure differ, the inputs that are not
    whole, and the papers behind each gap between two sources."""
    return part("metrics", "Metrics", computed_metrics(person) + stated_metrics(person) + differences(person, top))


# The marks of the metrics table, explained above it where they occur: a figure computed from inputs that are
# not whole, and a stated figure that the rows do (or do not) give.
INCOMPLETE = ("incomplete", "†", "computed from inputs that are not whole (below: which)")
AGREES = ("agrees", "=", "the figure the rows give")
DIFFERS = ("differs", "≠", "not the figure the rows give (below: why)")


def figure_text(value: float | None) -> str:
    """A figure as the table shows it: whole numbers grouped, others to two decimals, nothing for none.

    >>> figure_text(4916), figure_text(361.5), figure_text(2.0), figure_text(None)
    ('4,916', '361.50', '2', '')
    """
    if value is None:
        return ""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def computed_metrics(person: PersonView) -> str:
    """Every figure (``metrics.METRICS``) of each source and of the merge, a column each; under the h-index,
    the i10-index and the citations, the figure each page states, marked = or ≠."""
    figures = person.figures
    if figures is None or not figures.sets:
        return ""
    sets = figures.sets
    rows, marks = [], set()
    for metric in METRICS:
        cells = []
        for each in sets:
            figure = each.figure(metric.name)
            mark = ""
            if not figure.complete and figure.value is not None:
                marks.add(INCOMPLETE)
                mark = (f' <span class="mark" data-mark="incomplete" title="computed from incomplete inputs: '
                        f'{esc(", ".join(figure.incomplete))}">†</span>')
            incomplete = f' data-incomplete="{esc(" ".join(figure.incomplete))}"' if figure.incomplete else ""
            cells.append(f'<td class="num" data-source="{esc(each.source)}" data-value="{figure.value}"{incomplete}>'
                         f'{figure_text(figure.value)}{mark}</td>')
        rows.append(f'<tr data-metric="{metric.name}"><th scope="row">{esc(metric.label)}</th>{"".join(cells)}</tr>')
        stated = [next((c for c in each.checks if c.name == metric.name), None) for each in sets]
        if any(stated):
            marks.update(AGREES if c.agree else DIFFERS for c in stated if c)
            said = "".join(f'<td class="num stated" data-source="{esc(each.source)}" data-stated="{c.stated}">'
                           f'{c.stated:,} <span class="mark" data-mark="{"agrees" if c.agree else "differs"}">'
                           f'{"=" if c.agree else "≠"}</span></td>' if c else '<td class="num stated"></td>'
                           for each, c in zip(sets, stated, strict=True))
            rows.append(f'<tr class="stated" data-metric="{metric.name}"><th scope="row">{esc(metric.label)}, '
                        f'as the page states</th>{said}</tr>')
    headers = "".join(f'<th scope="col">{esc(each.source)}</th>' for each in sets)
    note = (f'<p class="note" data-as-of="{esc(sets[0].as_of or "")}">Computed from the rows of each source, and of '
            f'the person’s papers merged across them (each counted by its highest count). {as_of_said(sets)} '
            f'Definitions: docs/metrics.md.</p>')
    return (f'{note}{marks_legend(*(m for m in (INCOMPLETE, AGREES, DIFFERS) if m in marks))}<div class="scroll">'
            f'<table class="metrics computed"><caption>Computed from the rows</caption><thead><tr>'
            f'<th scope="col">Metric</th>{headers}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def as_of_said(sets: Sequence[MetricSet]) -> str:
    """The reference year of the figures of age (years active, per year, hc, hA, m, ACC, AWCR...), and where
    it came from; or, when there is none, why those cells are empty.

    >>> from pubharvest.metrics import MetricSet
    >>> as_of_said([MetricSet(person="A", source="msr", input=None, as_of=None, figures=[],
    ...                       as_of_from="none: the pages carry no fetch time or date; give --at")])
    'Figures of age are empty: the pages carry no fetch time or date; give --at (to <code>pubharvest metrics</code>).'
    """
    dated = sorted({f"{each.as_of} ({each.as_of_from})" for each in sets if each.as_of})
    if dated:
        return f"Figures of age as of {esc('; '.join(dated))}."
    why = sets[0].as_of_from.removeprefix("none: ") if sets else ""
    return f"Figures of age are empty: {esc(why)} (to <code>pubharvest metrics</code>)."


def named_rows(rows: Sequence[RowRef], shown: int = 5) -> str:
    """The rows an explanation names: title, year and count, the first ``shown`` of them."""
    items = "".join(f'<li>{esc(row.title or "(no title)")}'
                    f'{f" ({row.year})" if row.year else ""}: {figure_text(row.citations) or "no count"}</li>'
                    for row in rows[:shown])
    more = f'<li class="note">and {len(rows) - shown} more</li>' if len(rows) > shown else ""
    return f'<ul class="rows">{items}{more}</ul>' if items else ""


def differences(person: PersonView, top: int) -> str:
    """Why the figures differ: each stated figure the rows do not give, with the reasons and the rows they
    name; each input that is not whole; and for each two sources, the papers behind their gap."""
    figures = person.figures
    if figures is None:
        return ""
    checks = []
    for each in figures.sets:
        for c in each.checks:
            if c.agree:
                continue
            reasons = "".join(
                f'<li data-reason="{esc(r.code)}">{esc(r.message)}'
                f'{" (this accounts for it)" if r.accounts else " (this alone does not account for it)"}'
                f'{named_rows(r.rows)}</li>' for r in c.reasons) or "<li>No cause found in the rows.</li>"
            checks.append(f'<li data-source="{esc(each.source)}" data-check="{esc(c.name)}"><b>{esc(each.source)}, '
                          f'{esc(LABELS.get(c.name, c.name))}</b>: the page states {c.stated:,}, its rows give '
                          f'{figure_text(c.computed) or "none"}.<ul>{reasons}</ul></li>')
    shortfalls = [f'<li data-source="{esc(each.source)}" data-input="{esc(s.input)}"><b>{esc(each.source)}</b>: '
                  f'{esc(s.why)}</li>' for each in figures.sets for s in each.shortfalls]
    parts = []
    if checks:
        parts.append(f'<h4>Stated and computed</h4><ul class="why checks">{"".join(checks)}</ul>')
    if shortfalls:
        parts.append(f'<h4>Inputs that are not whole</h4><ul class="why shortfalls">{"".join(shortfalls)}</ul>')
    gaps = "".join(source_gap_block(gap, top) for gap in figures.gaps)
    if gaps:
        parts.append(f'<h4>Between sources</h4>{gaps}')
    return "".join(parts)


LABELS = {metric.name: metric.label for metric in METRICS}
GAP_FIGURES = ("papers", "citations", "h_index", "i10_index")  # the figures ``SourceGap.by_figure`` explains


def deciding_figures(gap: SourceGap, key: str) -> list[str]:
    """The labels of the headline figures whose gap the paper ``key`` helps decide."""
    return [LABELS[name] for name in GAP_FIGURES if key in gap.by_figure.get(name, [])]


def source_gap_block(gap: SourceGap, top: int) -> str:
    """Two sources of a person: the headline figures that differ, and the papers that decide each one."""
    said = [f"{LABELS[name]} {figure_text(gap.figures[name][0]) or 'none'} and "
            f"{figure_text(gap.figures[name][1]) or 'none'}" for name in GAP_FIGURES if name in gap.figures]
    if not gap.papers:
        return ""
    by_key = {paper.key: paper for paper in gap.papers}
    shown = gap.papers[:top or None]
    rows = "".join(
        f'<tr data-key="{esc(p.key)}" data-kind="{esc(p.kind)}"><td>{esc(p.title or "(no title)")}</td>'
        f'{_number_cell(p.year, grouped=False)}{_number_cell(p.counts.get(gap.a))}{_number_cell(p.counts.get(gap.b))}'
        f'<td>{esc(p.detail)}</td><td>{esc(", ".join(deciding_figures(gap, p.key)))}</td></tr>' for p in shown)
    decided = [name for name in GAP_FIGURES if any(key in by_key for key in gap.by_figure.get(name, []))]
    deciding = {key for name in decided for key in gap.by_figure[name]}
    summary = (f"{esc(gap.a)} and {esc(gap.b)}: " + (esc("; ".join(said)) if said else "the same headline figures")
               + f" ({len(gap.papers)} papers shown differently, {len(deciding)} deciding "
               + (esc(", ".join(LABELS[n] for n in decided)) if decided else "none") + ")")
    return (f'<details class="gap" data-a="{esc(gap.a)}" data-b="{esc(gap.b)}"><summary>{summary}</summary>'
            f'<div class="scroll"><table class="gap"><caption>The papers the two show differently, most cited first'
            f'</caption><thead><tr><th>Title</th><th>Year</th><th>{esc(gap.a)}</th><th>{esc(gap.b)}</th>'
            f'<th>How</th><th>Decides</th></tr></thead><tbody>{rows}</tbody></table></div></details>')


def yearly_part(person: PersonView, top: int) -> str:
    """Citations per year and their running total, each source's on one chart (bars when only one source
    gives them), and papers per year of each source's list."""
    counted = [view for view in person.views if view.years]
    parts = []
    if len(counted) == 1:
        view = counted[0]
        label = f"{view.name} on {view.label}" if len(person.views) > 1 else view.name
        parts += ['<h4>Citations per year</h4>',
                  at_both_widths(lambda width: bar_chart(view.years, f"Citations per year of {label}", width)),
                  '<h4>Cumulative citations</h4>',
                  lines([(view.label, cumulative(view.years))], [str(y.year) for y in view.years],
                        f"Cumulative citations of {label}", "cumulative")]
    elif counted:
        axis = axis_years(YearCitations(year=y.year, citations=0) for view in counted for y in view.years)
        labels = [str(y.year) for y in axis]
        per_year = [(view.label, on_axis(view.years, axis)) for view in counted]
        totals = [(view.label, on_axis(view.years, axis, running=True)) for view in counted]
        parts += ['<h4>Citations per year</h4>',
                  lines(per_year, labels, f"Citations per year of {person.name}, by source", "per-year"),
                  '<h4>Cumulative citations</h4>',
                  lines(totals, labels, f"Cumulative citations of {person.name}, by source", "cumulative")]
    if counted:
        parts.append('<p class="note">The running total of the yearly counts above (a site may count years before '
                     'its chart starts in the total only).</p>')
    return part("yearly", "Per year", "".join(parts) + papers_per_year(person))


def on_axis(years: Sequence[YearCitations], axis: Sequence[YearCitations], running: bool = False) -> list[int | None]:
    """A source's yearly counts (or their running total) on a chart's ``axis``: None (no point) for a year
    its chart does not cover.

    >>> axis = axis_years([YearCitations(year=2019, citations=0), YearCitations(year=2022, citations=0)])
    >>> on_axis([YearCitations(year=2020, citations=2), YearCitations(year=2021, citations=3)], axis, running=True)
    [None, 2, 5, None]
    """
    values = dict(zip((y.year for y in years), cumulative(years) if running else (y.citations for y in years),
                      strict=True))
    return [values.get(y.year) for y in axis]


def papers_per_year(person: PersonView) -> str:
    """How many rows of each source's list give each year, one line per source, every year from the
    first to the last (0 where a list has none); the rows without a year said under it."""
    listed = [view for view in person.views if any(p.year for p in view.papers)]
    if not listed:
        return ""
    counts = [Counter(p.year for p in view.papers if p.year) for view in listed]
    axis = axis_years(YearCitations(year=year, citations=0) for found in counts for year in found)
    series = [(view.label, [found.get(y.year, 0) for y in axis]) for view, found in zip(listed, counts, strict=True)]
    yearless = [f"{esc(view.label)}: {n}" for view in listed if (n := sum(not p.year for p in view.papers))]
    return ('<h4>Papers per year</h4>'
            + lines(series, [str(y.year) for y in axis], f"Papers per year of {person.name}, by source",
                    "papers-per-year")
            + '<p class="note">Rows of each source’s list by the year they give: a list the page cut short counts '
              'only the rows it shows.' + (f' Rows without a year, not drawn: {"; ".join(yearless)}.' if yearless
                                           else "") + "</p>")


def across_part(person: PersonView, top: int) -> str:
    return part("across", "The same papers across sources", papers_across(person, top)) if person.papers else ""


def sources_part(person: PersonView, top: int) -> str:
    """What each source shows apart: where it came from, its warnings, its runs, its papers."""
    folded = len(person.views) > 1
    return part("sources", "Each source" if folded else "Papers",
                "".join(source_block(view, top, folded) for view in person.views))


def runs_part(person: PersonView, top: int) -> str:
    charts = "".join((f'<h4>{esc(view.label)}</h4>' if len(person.views) > 1 else "") + runs_chart(view)
                     for view in person.views if len(view.runs) > 1)
    return part("runs", "h-index and i10-index over the store’s runs", charts)


# The parts of a person's section, in order: each takes the person and ``--top`` and gives its HTML ("" to
# leave it out). A new part (such as what changed since the last run) is one function added here.
PERSON_PARTS: list[Callable[[PersonView, int], str]] = [
    who_part, metrics_part, yearly_part, runs_part, across_part, sources_part]


def source_block(view: ProfileView, top: int, folded: bool) -> str:
    """What one source shows of a person apart from the others: its inputs, why a page that names nobody
    is here, its warnings and its top papers (folded, when the person has several sources)."""
    list_warnings = [w for w in view.warnings if w.code in LIST_WARNINGS]
    other_warnings = [w for w in view.warnings if w.code not in LIST_WARNINGS]
    badge = f'<span class="site">{esc(view.label)}</span>'
    parts = [f'<div class="view" data-site="{esc(view.site)}" data-source="{esc(view.label)}">',
             f'<p class="source">{link(view.url, badge)} From {esc(view.source)}</p>', placement_note(view),
             warnings_list(other_warnings, "page"), warnings_list(list_warnings, "list")]
    if view.papers:
        table = papers_table(view.papers, top)
        summary = f"<summary>Top papers on {esc(view.label)} ({len(view.papers)})</summary>"
        parts.append(f"<details>{summary}{table}</details>" if folded else f"<h4>Top papers</h4>{table}")
    return "".join(parts) + "</div>"


def placement_flag(view: ProfileView) -> str:
    """The short form of ``placement_note``, beside the source in the section's list of sources."""
    found = view.placement
    if found is None:
        return ""
    return (f' <span class="flag">names nobody; here for {found.shared} shared papers; the person is an author '
            f'of {found.naming} of its {found.rows} rows</span>')


def placement_note(view: ProfileView) -> str:
    """Why a page that names nobody is in this section, and how far its rows bear that out."""
    found = view.placement
    if found is None:
        return ""
    cut = f", {found.cut} with an author list the page cut short" if found.cut else ""
    return (f'<p class="note placed" data-shared="{found.shared}" data-naming="{found.naming}">This page names nobody: '
            f'it is shown here because {found.shared} of its papers are on this person’s other pages. '
            f'{esc(view.name)} is among the authors of {found.naming} of its {found.rows} rows{cut}; '
            f'a list where most rows do not name the person may be a co-author’s.</p>')


def papers_across(person: PersonView, top: int) -> str:
    """The person's papers merged across their sources, each source's count side by side, most cited on
    the source that counts the most of them first."""
    views = person.views
    counted = max(views, key=lambda view: sum(view_count(p, view) is not None for p in person.papers))
    shared = sum(sum(view_lists(p, view) for view in views) > 1 for p in person.papers)
    shown = _by_citations(person.papers, lambda p: view_count(p, counted))[:top or None]
    rows = "".join(f"<tr>{_text_cell(p.title, link(p.url, esc(p.title or '(no title)')))}"
                   f"{_number_cell(p.year, grouped=False)}" + "".join(_view_cell(p, view) for view in views) + "</tr>"
                   for p in shown)
    headers = "".join(_header(view.label, "number", "descending" if view is counted else None) for view in views)
    marks = {mark for p in shown for view in views if (mark := _absent(p, view))}
    return (f'<p>{len(person.papers)} papers, {shared} of them on more than one source.</p>'
            f'{marks_legend(*(m for m in (NO_COUNT, NOT_LISTED) if m in marks))}'
            f'<div class="scroll"><table class="sortable across"><caption>Citations of each paper on each source, '
            f'most cited on {esc(counted.label)} first</caption><thead><tr>{_header("Title", "text")}'
            f'{_header("Year", "number")}{headers}</tr></thead><tbody>{rows}</tbody></table></div>')


def view_lists(paper: Paper, view: ProfileView) -> bool:
    """Whether one of ``view``'s pages lists ``paper`` (a person's papers name their page by index)."""
    return any(s.input is not None and int(s.input) in view.pages for s in paper.sources)


def view_count(paper: Paper, view: ProfileView) -> int | None:
    """A paper's count on ``view``'s pages: the highest, when two of them list it."""
    return max((s.citations for s in paper.sources if s.citations is not None and s.input is not None
                and int(s.input) in view.pages), default=None)


def _absent(paper: Paper, view: ProfileView) -> tuple[str, str, str] | None:
    """Why ``paper`` has no count on ``view`` (None when it has one)."""
    if view_count(paper, view) is not None:
        return None
    return NO_COUNT if view_lists(paper, view) else NOT_LISTED


def _view_cell(paper: Paper, view: ProfileView) -> str:
    return _number_cell(view_count(paper, view), absent=_absent(paper, view),
                        more=f' data-site="{esc(view.site)}" data-source="{esc(view.label)}"')


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
    chart = lines([("h-index", [r.h_index for r in view.runs]), ("i10-index", [r.i10_index for r in view.runs])],
                  labels, f"h-index and i10-index of {view.name} over {len(view.runs)} runs", "runs", 24, 96,
                  [f"{label} (run {run.run})" for label, run in zip(labels, view.runs, strict=True)])
    computed = any(r.computed for r in view.runs)
    return chart + ('<p class="note">Where the page gave no h-index or i10-index, they are computed from the '
                    'citations of the publications listed in that run.</p>' if computed else "")


@dataclass(frozen=True)
class Career:
    """A person's citations per year as one source's chart gives them (``metrics``' year points, with
    the career year: years since the person's first paper)."""

    name: str
    points: list[YearPoint]


def careers(people: Sequence[PersonView]) -> list[Career]:
    """Each person whose pages give citations per year: the points of their first source that does (in
    the order of their sources), named with it when they have several."""
    found = []
    for person in people:
        points = person.figures.years if person.figures else []
        source = next((view.site for view in person.views if any(p.source == view.site for p in points)), None)
        if source is None:
            continue
        name = f"{person.name} ({source})" if len(person.views) > 1 else person.name
        found.append(Career(name=name, points=[p for p in points if p.source == source]))
    return found


def aligned(found: Sequence[Career], slot: Callable[[YearPoint], int | None]) -> tuple[
        list[int], list[tuple[str, list[int | None]]], list[tuple[str, list[int | None]]]]:
    """The slots from the first to the last that ``slot`` gives a point (its calendar or career year), and
    each person's citations and cumulative citations on them (None where their chart has no point)."""
    at = [{s: p for p in career.points if (s := slot(p)) is not None} for career in found]
    every = [s for points in at for s in points]
    slots = list(range(min(every), max(every) + 1)) if every else []
    per_year = [(c.name, [p.citations if (p := points.get(s)) else None for s in slots])
                for c, points in zip(found, at, strict=True)]
    running = [(c.name, [p.cumulative if (p := points.get(s)) else None for s in slots])
               for c, points in zip(found, at, strict=True)]
    return slots, per_year, running


def compare_section(people: Sequence[PersonView]) -> str:
    """People side by side: citations per year and cumulative, by calendar year and by career year (years
    since the first paper), as charts and a table each."""
    found = careers(people)
    if len(found) < 2:
        return ""
    slots, per_year, running = aligned(found, lambda p: p.year)
    parts = [alignment("calendar", "By calendar year", "Year", [str(s) for s in slots], per_year, running)]
    with_career = [c for c in found if c.points[0].career_year is not None]
    if len(with_career) > 1:
        slots, per_year, running = aligned(with_career, lambda p: p.career_year)
        parts.append(alignment("career", "By career year (years since the first paper)", "Career year",
                               [str(s) for s in slots], per_year, running))
    notes = ["Citations per year as the first source giving them shows them; a source may count years before "
             "its chart starts in its total only. Career year 0 is the year of a person’s first listed paper."]
    left = [person.name for person in people if not any(view.years for view in person.views)]
    if left:
        notes.append(f"Without citations per year on their pages, not shown: {esc(', '.join(left))}.")
    notes += [f"Without a paper year, not aligned by career: {esc(c.name)}." for c in found if c not in with_career]
    return ('<section class="compare" id="compare"><h2>People side by side</h2>'
            + "".join(f'<p class="note">{note}</p>' for note in notes) + "".join(parts) + "</section>")


CHARTED = 12  # people drawn on the side-by-side charts, at most


def alignment(kind: str, heading: str, slot_name: str, slots: Sequence[str],
              per_year: Sequence[tuple[str, Sequence[int | None]]],
              running: Sequence[tuple[str, Sequence[int | None]]]) -> str:
    """One alignment of the people: the two charts (of the ``CHARTED`` people most cited at the end, when
    there are more: more lines are not read apart) and a table of both figures per slot, of everyone."""
    ranked = sorted(range(len(running)), key=lambda n: -max((v for v in running[n][1] if v is not None), default=0))
    charted = sorted(ranked[:CHARTED])
    title = heading.lower()
    headers = "".join(f'<th scope="col" data-series="{esc(name)}">{esc(name)}</th>' for name, _ in per_year)
    rows = "".join(
        f'<tr><th scope="row">{esc(slot)}</th>' + "".join(
            f'<td class="num">{"" if values[i] is None else f"{values[i]:,}"}'
            f'{"" if totals[i] is None else f" <span class=total>({totals[i]:,})</span>"}</td>'
            for (_, values), (_, totals) in zip(per_year, running, strict=True)) + "</tr>"
        for i, slot in enumerate(slots))
    return (f'<div class="alignment" data-align="{kind}"><h3>{heading}</h3><h4>Citations per year</h4>'
            + lines([per_year[n] for n in charted], slots, f"Citations per year, {title}", f"{kind}-per-year")
            + '<h4>Cumulative citations</h4>'
            + lines([running[n] for n in charted], slots, f"Cumulative citations, {title}", f"{kind}-cumulative")
            + (f'<p class="note">The charts show the {CHARTED} people with the most citations; the table shows '
               f'all {len(running)}.</p>' if len(running) > CHARTED else "")
            + f'<details><summary>The figures as a table</summary><div class="scroll"><table class="aligned">'
              f'<caption>Citations per year (cumulative in brackets)</caption><thead><tr><th scope="col">'
              f'{esc(slot_name)}</th>{headers}</tr></thead><tbody>{rows}</tbody></table></div></details></div>')


STYLE = """
*{box-sizing:border-box}body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:12px}h1{font-size:1.5em;margin:.4em 0}
section{background:#fff;border:1px solid #d8dce3;border-radius:8px;padding:12px 14px;margin:14px 0}
h2{font-size:1.25em;margin:.2em 0;overflow-wrap:anywhere}h3{font-size:1.05em;margin:1.1em 0 .3em;
border-bottom:1px solid #e3e6eb;padding-bottom:2px}h4{font-size:.95em;margin:.9em 0 .2em}
.site{font-size:.7em;background:#e6ecf5;border-radius:4px;padding:1px 6px;vertical-align:middle}
ul.sources{list-style:none;margin:4px 0;padding:0;color:#5a6270;font-size:.88em;overflow-wrap:anywhere}
ul.sources .site{font-size:.95em;color:#1d2330}
.source,.note,caption{color:#5a6270;font-size:.88em;overflow-wrap:anywhere}caption{text-align:left;padding:4px 0}
dt{font-size:.8em;color:#5a6270}dd{margin:0}
dl.person{margin:8px 0}dl.person>div{display:flex;gap:12px;
margin:4px 0}dl.person dt{flex:0 0 6.5em;padding-top:.15em}dl.person dd{overflow-wrap:anywhere;min-width:0}
dl.person ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:3px 6px}
dl.person [data-part=interests] li{background:#eef1f5;border-radius:4px;padding:0 6px}
dl.person [data-part=coauthors] li:not(:last-child):after{content:","}.aff,.from{color:#5a6270;font-size:.88em}
.from{font-size:.75em;background:#eef1f5;border-radius:3px;padding:0 4px;white-space:nowrap}
table.metrics{width:auto;min-width:50%}table.metrics td{min-width:5.5em}tr.stated>*{color:#5a6270;font-weight:400;
font-style:italic}.flag{background:#fff6e0;border-radius:3px;padding:0 4px;color:#6b4e00}
.source .site{font-size:.9em}.view+.view{border-top:1px solid #d8dce3;margin-top:10px;padding-top:4px}
summary{cursor:pointer;margin:4px 0;overflow-wrap:anywhere}
ul.why{overflow-wrap:anywhere;padding-left:1.2em}ul.why ul{padding-left:1.2em}
.mark{font-weight:400;padding:0 .2em}.marks span{margin-right:1.2em}
.warnings{background:#fff6e0;border-left:4px solid #d99a00;padding:4px 10px;margin:8px 0;
overflow-wrap:anywhere}.warnings ul{margin:4px 0;padding-left:1.2em}
svg.chart{max-width:100%;height:auto;display:block}svg .grid{stroke:#e3e6eb}
svg text{font-size:11px;fill:#3b4350}svg .bar rect{fill:#3867b5}svg .bar:hover rect{fill:#1f4690}
svg polyline,svg.swatch line{fill:none;stroke-width:2}.point.open{fill:none;stroke-width:2}
.s0 polyline,.s0 line{stroke:#3867b5}.s0 .point{fill:#3867b5;stroke:#3867b5}
.s1 polyline,.s1 line{stroke:#c0562b}.s1 .point{fill:#c0562b;stroke:#c0562b}
.s2 polyline,.s2 line{stroke:#2a8a4a}.s2 .point{fill:#2a8a4a;stroke:#2a8a4a}
.s3 polyline,.s3 line{stroke:#8a4bab}.s3 .point{fill:#8a4bab;stroke:#8a4bab}
.s4 polyline,.s4 line{stroke:#8a6d00}.s4 .point{fill:#8a6d00;stroke:#8a6d00}
.s5 polyline,.s5 line{stroke:#333a45}.s5 .point{fill:#333a45;stroke:#333a45}
.legend{margin:2px 0 8px;font-size:.88em}.legend .key{display:inline-flex;align-items:center;gap:4px;
margin-right:1.2em;white-space:nowrap}.total{color:#5a6270}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.92em}
th,td{border-bottom:1px solid #e3e6eb;padding:4px 6px;text-align:left;vertical-align:top}
td.num{text-align:right;white-space:nowrap}td{overflow-wrap:break-word}.authors{color:#5a6270;font-size:.88em}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit;
white-space:nowrap}
th[aria-sort=ascending] button:after{content:" ▲"}th[aria-sort=descending] button:after{content:" ▼"}
nav a{margin-right:.8em}svg.phone{display:none}@media (max-width:600px){svg.wide{display:none}svg.phone{display:block}
main{padding:4px}section{padding:8px}
dl.person>div{display:block}table{font-size:.85em}th,td{padding:3px 4px}table.metrics td{min-width:0}
.legend .key{white-space:normal}}
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
    compared = compare_section(data.people)
    nav = ('<a href="#since">Since last run</a>' if since_last_run else "") + "".join(
        f'<a href="#p{i}">{esc(person.name)}</a>' for i, person in enumerate(data.people)) + (
        '<a href="#compare">Side by side</a>' if compared else "")
    sections.append(compared)
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


def since_last_run_section(report: ChangeReport, top: int = 0) -> str:
    """The HTML report's "Since last run" section: the summary, then each person's changes, biggest first,
    the first ``top`` of each (0: all); nothing when no profile has two runs and none was skipped."""
    if not report.compared and not report.runs_skipped:
        return ""
    parts = [f'<section id="since"><h2>Since last run</h2><p class="note">{esc(summary_line(report))}</p>']
    for profile, items in by_person(report):
        runs = f"{run_text(items[0].from_run)} → {run_text(items[0].to_run)}"
        parts.append(f'<h3>{esc(person_heading(profile))}</h3><p class="source">{esc(runs)}</p><ul>')
        shown_items = items[:top] if top else items
        parts += [f'<li data-kind="{c.kind}">{esc(change_text(c))}</li>' for c in shown_items]
        more = len(items) - len(shown_items)
        parts.append("</ul>" + (f'<p class="note">and {plural(more, "change")} more: pubharvest changes '
                                f'--person {esc(profile.site)}:{esc(profile.id)}</p>' if more else ""))
    skipped = [f"<li>{esc(person_heading(s.profile))}: {esc(run_text(s.run))}: {esc(s.code)}</li>"
               for s in report.runs_skipped]
    if skipped:
        parts.append(f'<div class="warnings">Runs skipped (evidence of nothing):<ul>{"".join(skipped)}</ul></div>')
    parts.append("</section>")
    return "".join(parts)


# ---- reading: inputs, archives and a store --------------------------------------------------------------

def store_pages(location: str) -> tuple[list[tuple[str, PageResult]], dict[int, list[RunPoint]]]:
    """A store's exported profiles, and each one's runs, oldest first."""
    from .store import Store, _Sql, decoded

    store = Store(location, readonly=True)
    try:
        db = _Sql(store.connection, store.dialect)
        keyed = list(store.keyed_profiles())
        pages = [(f"{location} ({site}:{profile_id})", result) for (site, profile_id), result in keyed]
        has_runs = "profile_runs" in store.tables
        runs = {i: run_points(db, site, profile_id, decoded, store.time_column)
                for i, ((site, profile_id), _) in enumerate(keyed) if has_runs}
    finally:
        store.close()
    return pages, runs


def run_points(db: _Sql, site: str, profile_id: str, decoded: Callable[[str, type[PageResult]], PageResult],
               time_column: str = "taken_at") -> list[RunPoint]:
    """A profile's runs in a store, in the order their pages were captured (``Store.time_column``): the
    metrics its page gave, else those of the run's snapshots."""
    points = []
    for run, saved_at, record in db.execute(
            f"SELECT run_id, {time_column}, record FROM profile_runs WHERE site = ? AND profile_id = ? "
            f"ORDER BY {time_column}, saved_at, run_id", (site, profile_id)).fetchall():
        page = decoded(record, PageResult)
        metrics = (page.profile or _NO_PROFILE).metrics
        counts = [c for (c,) in db.execute(
            "SELECT s.citations FROM run_publications r JOIN citation_snapshots s ON s.run_id = r.run_id "
            "AND s.site = r.site AND s.publication_id = r.publication_id "
            "WHERE r.site = ? AND r.profile_id = ? AND r.run_id = ?", (site, profile_id, run)).fetchall()]
        computed = metrics.h_index is None or metrics.i10_index is None
        points.append(RunPoint(
            run=run, saved_at=saved_at,
            h_index=metrics.h_index if metrics.h_index is not None else h_of(c for c in counts if c is not None),
            i10_index=metrics.i10_index if metrics.i10_index is not None else sum((c or 0) >= 10 for c in counts),
            citations=metrics.citations, computed=computed,
            when=(page.source.fetched_at if page.source else None) or saved_at))
    return points
