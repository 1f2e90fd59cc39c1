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

from pubharvest.parsers.records import Metrics, PageResult, PageWarning, Profile, Publication, YearCitations
from pubharvest.parsers.warning_codes import Warn

from .merge import MergeResult, Paper, merge
from .output import _Writer

if TYPE_CHECKING:
    from .store import _Sql

_Item = TypeVar("_Item")

# Warnings about the publication list itself: shown above the papers' table, where they matter.
LIST_WARNINGS = frozenset(code.name for code in (
    Warn.partial, Warn.truncated, Warn.rows_unreadable, Warn.row_count, Warn.count_mismatch, Warn.duplicate_rows,
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
    run's citation snapshots) and total citations."""

    run: str
    saved_at: str
    h_index: int | None
    i10_index: int | None
    citations: int | None
    computed: bool = False


@dataclass
class ProfileView:
    """What the report shows of one page result."""

    name: str
    site: str
    source: str  # the input it came from (file, archive or store)
    url: str | None
    metrics: Metrics
    years: list[YearCitations]  # every year on the axis, 0 where no citations
    papers: list[Publication]
    warnings: list[PageWarning]
    runs: list[RunPoint] = field(default_factory=list)


@dataclass
class ReportData:
    profiles: list[ProfileView]
    merged: MergeResult | None = None  # several page results, merged: the same paper on each site


def report_data(pages: Sequence[tuple[str, PageResult]],
                runs: Mapping[int, list[RunPoint]] | None = None) -> ReportData:
    """The report's data from ``(input name, page result)`` pairs and, by index into ``pages``, the
    store runs of each; pages of more than one site are also merged (``pubharvest.merge``), to set each
    paper's counts on the sites side by side."""
    runs = runs or {}
    views = [ProfileView(
        name=(result.profile and result.profile.name) or result.url or PurePath(name).name,
        site=result.site, source=name,
        url=result.url or (result.profile.url if result.profile else None),
        metrics=result.profile.metrics if result.profile else Metrics(),
        years=axis_years(result.profile.citations_by_year if result.profile else []),
        papers=list(result.publications), warnings=list(result.warnings), runs=runs.get(i, []),
    ) for i, (name, result) in enumerate(pages)]
    several_sites = len({result.site for _, result in pages}) > 1
    merged = merge([(name, result) for name, result in pages]) if several_sites else None
    return ReportData(profiles=views, merged=merged)


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


def _svg_open(width: int, height: int) -> str:
    """An SVG's opening, at its own size in pixels (CSS only ever shrinks it, to the page's width)."""
    return f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}"'


def bar_chart(years: Sequence[YearCitations], label: str) -> str:
    """Citations per year as SVG bars, one per year on the axis (zero years drawn as empty slots)."""
    step, left, top_pad, height = max(16, min(34, 820 // len(years))), 48, 18, 160
    width, bottom = max(320, left + step * len(years) + 8), top_pad + height
    top = nice_ceiling(max(y.citations for y in years))
    slant = len(years) > 14
    bars = []
    for i, item in enumerate(years):
        x, h = left + step * i + 4, height * item.citations / top
        centre = x + (step - 8) / 2
        year_label = (f'<text class="year" x="{centre:.1f}" y="{bottom + 14}" text-anchor="end" '
                      f'transform="rotate(-50 {centre:.1f} {bottom + 14})">{item.year}</text>' if slant else
                      f'<text class="year" x="{centre:.1f}" y="{bottom + 14}" text-anchor="middle">{item.year}</text>')
        value = (f'<text class="value" x="{centre:.1f}" y="{bottom - h - 3:.1f}" text-anchor="middle">'
                 f'{item.citations}</text>' if len(years) <= 24 else "")
        bars.append(f'<g class="bar" role="listitem" aria-label="{item.year}: {item.citations}" '
                    f'data-year="{item.year}" data-value="{item.citations}">'
                    f'<rect x="{x}" y="{bottom - h:.1f}" width="{step - 8}" height="{h:.1f}">'
                    f'<title>{item.year}: {item.citations} citations</title></rect>{value}{year_label}</g>')
    return (f'{_svg_open(width, bottom + (44 if slant else 24))} role="list" '
            f'aria-label="{esc(label)}"><title>{esc(label)}</title>'
            f'{_y_axis(top, left, bottom, height, width)}{"".join(bars)}</svg>')


def line_chart(series: Sequence[tuple[str, Sequence[tuple[str, int | None]]]], label: str) -> str:
    """Lines of points ``(x label, value)``, one per named series, sharing the x labels of the first."""
    labels = [x for x, _ in series[0][1]]
    slant = len(labels) > 10 or any(len(x) > 6 for x in labels)
    longest = max(map(len, labels), default=0)
    step, left, top_pad, height = max(24, min(60, 600 // max(len(labels), 1))), 48, 18, 140
    left += min(120, 5 * longest) if slant else 0  # room for the first slanted label
    width, bottom = max(320, left + step * len(labels) + 16), top_pad + height
    top = nice_ceiling(max((v for _, points in series for _, v in points if v is not None), default=0))
    parts = [f'{_svg_open(width, bottom + (min(120, 5 * longest) + 10 if slant else 24))} role="list" '
             f'aria-label="{esc(label)}"><title>{esc(label)}</title>{_y_axis(top, left, bottom, height, width)}']
    for i, x_label in enumerate(labels):
        x = left + step * i + step / 2
        rotate = f' transform="rotate(-50 {x:.1f} {bottom + 14})"' if slant else ""
        parts.append(f'<text class="x" x="{x:.1f}" y="{bottom + 14}" text-anchor="{"end" if slant else "middle"}"'
                     f'{rotate}>{esc(x_label)}</text>')
    for number, (name, points) in enumerate(series):
        xy = [(left + step * i + step / 2, bottom - height * v / top, x, v)
              for i, (x, v) in enumerate(points) if v is not None]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in xy)
        parts.append(f'<g class="series s{number}" data-series="{esc(name)}"><polyline points="{path}"/>')
        parts.extend(f'<circle class="point" role="listitem" aria-label="{esc(name)}, {esc(x_label)}: {v}" '
                     f'data-x="{esc(x_label)}" data-value="{v}" cx="{x:.1f}" cy="{y:.1f}" r="3.5">'
                     f'<title>{esc(name)}, {esc(x_label)}: {v}</title></circle>' for x, y, x_label, v in xy)
        parts.append("</g>")
    legend = "".join(f'<span class="key s{n}">{esc(name)}</span>' for n, (name, _) in enumerate(series))
    return "".join(parts) + f'</svg><p class="legend">{legend}</p>' if len(series) > 1 else "".join(parts) + "</svg>"


def cumulative(years: Sequence[YearCitations]) -> list[tuple[str, int | None]]:
    """``(year, running total)`` over the yearly counts.

    >>> cumulative([YearCitations(year=2020, citations=2), YearCitations(year=2021, citations=3)])
    [('2020', 2), ('2021', 5)]
    """
    totals = itertools.accumulate(y.citations for y in years)
    return [(str(y.year), total) for y, total in zip(years, totals, strict=True)]


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


def warnings_list(warnings: Sequence[PageWarning], where: str) -> str:
    if not warnings:
        return ""
    items = "".join(f'<li data-code="{esc(w.code)}"><code>{esc(w.code)}</code> {esc(w.message)}</li>'
                    for w in warnings)
    return f'<div class="warnings {where}" role="note"><ul>{items}</ul></div>'


def _header(label: str, kind: str, sort: str | None = None) -> str:
    state = f' aria-sort="{sort}"' if sort else ""
    return f'<th data-type="{kind}"{state}><button type="button">{esc(label)}</button></th>'


def _number_cell(value: int | None, grouped: bool = True) -> str:
    shown = "—" if value is None else f"{value:,}" if grouped else str(value)
    return f'<td class="num" data-sort="{"" if value is None else value}">{shown}</td>'


def _text_cell(value: str | None, shown: str | None = None) -> str:
    return f'<td data-sort="{esc((value or "").casefold())}">{shown if shown is not None else esc(value)}</td>'


def _by_citations(items: Iterable[_Item], count: Callable[[_Item], int | None]) -> list[_Item]:
    """Most cited first, those without a count last, page order kept among equals."""
    return sorted(items, key=lambda item: (count(item) is None, -(count(item) or 0)))


def papers_table(papers: Sequence[Publication], top: int) -> str:
    """The most cited papers (``top``; 0 for all), in a table sortable by any column."""
    shown = _by_citations(papers, lambda p: p.citations)[:top or None]
    cut = sum(p.authors_truncated for p in papers)
    note = (f'<p class="note" data-code="authors_truncated">{cut} of {len(papers)} papers have an author list '
            f'the page cut short (marked “et al.”).</p>' if cut else "")
    rows = []
    for rank, pub in enumerate(shown, 1):
        authors = esc(", ".join(pub.authors)) + (' <span class="cut" title="the page cut this list short">et al.'
                                                  '</span>' if pub.authors_truncated else "")
        title = f'{link(pub.url, esc(pub.title or "(no title)"))}<div class="authors">{authors}</div>'
        rows.append(f"<tr>{_number_cell(rank)}{_text_cell(pub.title, title)}{_number_cell(pub.year, grouped=False)}"
                    f"{_text_cell(pub.venue)}{_number_cell(pub.citations)}</tr>")
    caption = f"The {len(shown)} most cited of {len(papers)} papers" if len(shown) < len(papers) else \
        f"All {len(papers)} papers, most cited first"
    return (f'{note}<div class="scroll"><table class="sortable papers"><caption>{caption}</caption><thead><tr>'
            f'{_header("#", "number")}{_header("Title", "text")}{_header("Year", "number")}'
            f'{_header("Venue", "text")}{_header("Citations", "number", "descending")}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def profile_section(view: ProfileView, number: int, top: int) -> str:
    """One profile: metrics, warnings, charts, runs and papers."""
    list_warnings = [w for w in view.warnings if w.code in LIST_WARNINGS]
    other_warnings = [w for w in view.warnings if w.code not in LIST_WARNINGS]
    parts = [f'<section class="profile" id="p{number}" data-site="{esc(view.site)}">',
             f'<h2>{link(view.url, esc(view.name))} <span class="site">{esc(view.site)}</span></h2>',
             f'<p class="source">From {esc(view.source)}</p>', warnings_list(other_warnings, "page"),
             metrics_list(view.metrics)]
    if view.years:
        parts += ['<h3>Citations per year</h3>', bar_chart(view.years, f"Citations per year of {view.name}"),
                  '<h3>Cumulative citations</h3>',
                  line_chart([("citations", cumulative(view.years))], f"Cumulative citations of {view.name}"),
                  '<p class="note">The running total of the yearly counts above (a site may count years before '
                  'its chart starts in the total only).</p>']
    if len(view.runs) > 1:
        parts += ['<h3>h-index and i10-index over the store’s runs</h3>', runs_chart(view)]
    if view.papers:
        parts += ['<h3>Top papers</h3>', warnings_list(list_warnings, "list"), papers_table(view.papers, top)]
    else:
        parts.append(warnings_list(list_warnings, "list"))
    return "".join(parts) + "</section>"


def runs_chart(view: ProfileView) -> str:
    labels = [run.run for run in view.runs]
    chart = line_chart([("h-index", list(zip(labels, [r.h_index for r in view.runs], strict=True))),
                        ("i10-index", list(zip(labels, [r.i10_index for r in view.runs], strict=True)))],
                       f"h-index and i10-index of {view.name} over {len(view.runs)} runs")
    computed = any(r.computed for r in view.runs)
    return chart + ('<p class="note">Where the page gave no h-index or i10-index, they are computed from the '
                    'citations of the publications listed in that run.</p>' if computed else "")


def merged_section(merged: MergeResult, top: int) -> str:
    """The same paper's citation count on each site, side by side."""
    sites = list(dict.fromkeys(s.site for paper in merged.papers for s in paper.sources))
    shared = sum(len({s.site for s in p.sources}) > 1 for p in merged.papers)
    shown = _by_citations(merged.papers, lambda p: p.citations_max)[:top or None]
    rows = "".join(f"<tr>{_text_cell(p.title, link(p.url, esc(p.title or '(no title)')))}"
                   f"{_number_cell(p.year, grouped=False)}" + "".join(_site_cell(p, site) for site in sites) + "</tr>"
                   for p in shown)
    headers = "".join(_header(site, "number", "descending" if i == 0 else None) for i, site in enumerate(sites))
    return (f'<section class="merged" id="merged"><h2>The same papers across sources</h2>'
            f'<p>{len(merged.papers)} papers, {shared} of them found on more than one site.</p>'
            f'<div class="scroll"><table class="sortable across"><caption>Citations of each paper on each site'
            f'</caption><thead><tr>{_header("Title", "text")}{_header("Year", "number")}{headers}</tr></thead>'
            f'<tbody>{rows}</tbody></table></div></section>')


def _site_cell(paper: Paper, site: str) -> str:
    """A paper's count on ``site`` (the highest, when two pages of that site list it)."""
    counts = [s.citations for s in paper.sources if s.site == site and s.citations is not None]
    listed = any(s.site == site for s in paper.sources)
    cell = _number_cell(max(counts) if counts else None)
    marks = f' data-site="{esc(site)}"' + ("" if listed else ' title="not listed"')
    return cell.replace('class="num"', 'class="num"' + marks)


STYLE = """
*{box-sizing:border-box}body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:12px}h1{font-size:1.5em;margin:.4em 0}
section{background:#fff;border:1px solid #d8dce3;border-radius:8px;padding:12px 14px;margin:14px 0}
h2{font-size:1.25em;margin:.2em 0;overflow-wrap:anywhere}h3{font-size:1.05em;margin:1em 0 .3em}
.site{font-size:.7em;background:#e6ecf5;border-radius:4px;padding:1px 6px;vertical-align:middle}
.source,.note,caption{color:#5a6270;font-size:.88em;overflow-wrap:anywhere}caption{text-align:left;padding:4px 0}
dl.metrics{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}dl.metrics div{border:1px solid #d8dce3;
border-radius:6px;padding:4px 10px;min-width:7em}dt{font-size:.8em;color:#5a6270}dd{margin:0;font-size:1.2em;
font-weight:600}.warnings{background:#fff6e0;border-left:4px solid #d99a00;padding:4px 10px;margin:8px 0;
overflow-wrap:anywhere}.warnings ul{margin:4px 0;padding-left:1.2em}
svg.chart{max-width:100%;height:auto;display:block}svg .grid{stroke:#e3e6eb}
svg text{font-size:11px;fill:#3b4350}svg .bar rect{fill:#3867b5}svg .bar:hover rect{fill:#1f4690}
svg polyline{fill:none;stroke-width:2}.s0 polyline{stroke:#3867b5}.s0 circle{fill:#3867b5}
.s1 polyline{stroke:#c0562b}.s1 circle{fill:#c0562b}.legend .key{margin-right:1em}
.legend .key:before{content:"";display:inline-block;width:.8em;height:.8em;margin-right:.3em}
.legend .s0:before{background:#3867b5}.legend .s1:before{background:#c0562b}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.92em}
th,td{border-bottom:1px solid #e3e6eb;padding:4px 6px;text-align:left;vertical-align:top}
td.num{text-align:right;white-space:nowrap}td{overflow-wrap:anywhere}.authors{color:#5a6270;font-size:.88em}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit}
th[aria-sort=ascending] button:after{content:" ▲"}th[aria-sort=descending] button:after{content:" ▼"}
nav a{margin-right:.8em}@media (max-width:600px){main{padding:4px}section{padding:8px}
table{font-size:.85em}}
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


def render(data: ReportData, title: str = "Citation report", top: int = DEFAULT_TOP) -> str:
    """The whole report as one HTML document."""
    sections = [profile_section(view, i, top) for i, view in enumerate(data.profiles)]
    if data.merged and data.merged.papers:
        sections.append(merged_section(data.merged, top))
    nav = "".join(f'<a href="#p{i}">{esc(view.name)}</a>' for i, view in enumerate(data.profiles)) + (
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
        metrics = (decoded(record, PageResult).profile or _NO_PROFILE).metrics
        counts = [c for (c,) in db.execute(
            "SELECT s.citations FROM run_publications r JOIN citation_snapshots s ON s.run_id = r.run_id "
            "AND s.site = r.site AND s.publication_id = r.publication_id "
            "WHERE r.site = ? AND r.profile_id = ? AND r.run_id = ?", (site, profile_id, run)).fetchall()]
        computed = metrics.h_index is None or metrics.i10_index is None
        points.append(RunPoint(
            run=run, saved_at=saved_at,
            h_index=metrics.h_index if metrics.h_index is not None else h_index(counts),
            i10_index=metrics.i10_index if metrics.i10_index is not None else sum((c or 0) >= 10 for c in counts),
            citations=metrics.citations, computed=computed))
    return points
