"""The records as flat tables: which tables there are, their columns, the kind of each column, and
the rows of one page result (or one merge). This is the one description of each table: its CSV
(``--format csv``, every ``--table``) writes these columns as they are, and ``pubharvest.dataframes``
makes DataFrames and Parquet of them with the dtypes the kinds name. Plain Python, no pandas.

>>> from pubharvest.parsers.records import Coauthor, PageResult, Profile, Ids
>>> page = PageResult(site="elamur", page="profile", profile=Profile(name="Ada", ids=Ids(elamur="ada"),
...     coauthors=[Coauthor(name="Bo", papers=3)]))
>>> table = TABLES["coauthors"]
>>> [(c.name, c.cell(row)) for row in table.rows(page) for c in table.columns][:6]
[('site', 'elamur'), ('profile_id', 'ada'), ('profile_name', 'Ada'), ('position', 1), ('name', 'Bo'), \
('affiliation', None)]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias, get_args

import msgspec

from pubharvest.parsers.records import (
    Coauthor,
    Ids,
    Metrics,
    PageKind,
    PageResult,
    Profile,
    Publication,
    PublicationIds,
    YearCitations,
    id_value,
    registered_sites,
    string_kinds,
)

from .merge import MergeResult, Paper, SourceRecord
from .output import _CsvTable, _Writer
from .store import HISTORY_KEYS

if TYPE_CHECKING:  # the metrics are imported by the metric tables only: they cost every other command's start
    from .metrics import Check, MetricSet, MetricsResult, PaperGap, PersonMetrics, SourceGap, YearPoint

__all__ = ["Column", "Table", "TABLES", "PAGE_TABLES", "MERGED_TABLES", "METRIC_TABLES", "CLI_TABLES", "profile_id",
           "site_citations",
           "columns_of", "history_columns", "COLUMN_SETS", "selected", "columns_misuse", "csv_cells",
           "TableCsvWriter", "csv_writer", "table_writers", "HISTORY_WRITERS"]

# What a column holds: text, a nullable integer, a nullable boolean, one of a few values, or a list.
Kind = Literal["string", "int", "float", "bool", "category", "strings", "ints"]
KINDS: tuple[str, ...] = get_args(Kind)
Result: TypeAlias = "PageResult | MergeResult | MetricsResult"


class Column(NamedTuple):
    """One column: its name, its kind, how to get its cell from a row, and (categories) the values it
    may take, when they are known beforehand."""

    name: str
    kind: Kind
    cell: Callable[[Any], Any]
    categories: Callable[[], tuple[str, ...]] | None = None


class Table(NamedTuple):
    """A table: its columns (``columns()``, read on each call, as the registry names some) and the rows
    one page result or merge gives (``rows``; none from the other kind of result)."""

    make_columns: Callable[[], list[Column]]
    rows: Callable[[Result], Iterable[Any]]

    @property
    def columns(self) -> list[Column]:
        return self.make_columns()


# --- what a row is made of ---------------------------------------------------------------------------

class PubRow(NamedTuple):
    result: PageResult
    position: int  # 1-based, page order
    pub: Publication


class CoauthorRow(NamedTuple):
    result: PageResult
    position: int
    coauthor: Coauthor


class YearRow(NamedTuple):
    """One bar of a histogram: the profile's (``pub`` None) or one publication's."""

    result: PageResult
    position: int | None
    pub: Publication | None
    bar: YearCitations


class SourceRow(NamedTuple):
    paper: Paper
    at: int  # 0-based: what ``Match.sources`` count in
    source: SourceRecord


def profile_id(result: PageResult) -> str | None:
    """The profile's id on its site, or None (a page without a profile, or a profile without an id)."""
    return id_value(result.profile.ids, result.site) if result.profile else None


def _profile_name(result: PageResult) -> str | None:
    return result.profile.name if result.profile else None


def _pub_rows(result: Result) -> Iterator[PubRow]:
    if isinstance(result, PageResult):
        yield from (PubRow(result, i, pub) for i, pub in enumerate(result.publications, 1))


def _profile_rows(result: Result) -> Iterator[PageResult]:
    yield from (page for page, _ in _with_profile(result))


def _with_profile(result: Result) -> Iterator[tuple[PageResult, Profile]]:
    if isinstance(result, PageResult) and result.profile is not None:
        yield result, result.profile


def _coauthor_rows(result: Result) -> Iterator[CoauthorRow]:
    for page, profile in _with_profile(result):
        yield from (CoauthorRow(page, i, c) for i, c in enumerate(profile.coauthors, 1))


def _year_rows(result: Result) -> Iterator[YearRow]:
    for page, profile in _with_profile(result):
        yield from (YearRow(page, None, None, bar) for bar in profile.citations_by_year)
    for row in _pub_rows(result):
        yield from (YearRow(row.result, row.position, row.pub, bar) for bar in row.pub.citations_by_year)


def _papers(result: Result) -> Iterator[Paper]:
    if isinstance(result, MergeResult):
        yield from result.papers


def _source_rows(result: Result) -> Iterator[SourceRow]:
    for paper in _papers(result):
        yield from (SourceRow(paper, i, source) for i, source in enumerate(paper.sources))


# --- columns -----------------------------------------------------------------------------------------

def _page_kinds() -> tuple[str, ...]:
    return get_args(PageKind)


def _of(path: Callable[[Any], Any], columns: Iterable[Column]) -> list[Column]:
    """``columns`` of a part of the row (``path(row)``) as columns of the row."""
    return [column._replace(cell=_composed(column.cell, path)) for column in columns]


def _prefixed(prefix: str, columns: Iterable[Column]) -> list[Column]:
    return [column._replace(name=prefix + column.name) for column in columns]


def _composed(cell: Callable[[Any], Any], path: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda row: cell(path(row))


def _fields(kind: Kind, *names: str) -> list[Column]:
    """Columns that are attributes of the same name and kind."""
    return [Column(name, kind, attrgetter(name)) for name in names]


def _id_columns(ids_type: type[Ids] | type[PublicationIds]) -> list[Column]:
    """One column per identifier kind ``ids_type`` holds one of (``_string_id_columns``), then its
    lists (Scholar's clusters)."""
    lists = [Column(f.name, "strings", attrgetter(f.name)) for f in msgspec.structs.fields(ids_type)
             if f.type == list[str]]
    return _string_id_columns(ids_type) + lists


def _string_id_columns(ids_type: type[Ids] | type[PublicationIds]) -> list[Column]:
    """One column per kind of which ``ids_type`` holds one string, in field order, a site's own as
    ``<site>_id``, then a ``<site>_id`` for each registered site without a field of its own."""
    sites = registered_sites()
    return [Column(f"{kind}_id" if kind in sites else kind, "string", _id_cell(kind))
            for kind in string_kinds(ids_type)]


def _id_cell(kind: str) -> Callable[[Any], str | None]:
    return lambda ids: id_value(ids, kind)


def _of_page() -> list[Column]:
    """Whose row it is: the page's site and its profile (every page table starts with these)."""
    return [Column("site", "category", attrgetter("site"), registered_sites),
            Column("profile_id", "string", profile_id), Column("profile_name", "string", _profile_name)]


def _bibliographic() -> list[Column]:
    """The fields a ``Publication``, a merged ``Paper`` and a ``SourceRecord`` share."""
    return [*_fields("string", "title"), *_fields("bool", "title_truncated"), *_fields("strings", "authors"),
            *_fields("bool", "authors_truncated"),
            *_fields("string", "venue"), *_fields("bool", "venue_truncated"), *_fields("int", "year"),
            *_fields("string", "date"), *_fields("category", "type")]


def _metric_columns() -> list[Column]:
    return [Column(f.name, "int", attrgetter(f.name)) for f in msgspec.structs.fields(Metrics)]


def _optional(path: Callable[[Any], Any], name: str) -> Callable[[Any], Any]:
    """The attribute ``name`` of ``path(row)``, None when that is None."""
    return lambda row: None if (part := path(row)) is None else getattr(part, name)


def profile_columns() -> list[Column]:
    """One row per page result with a profile: who, where, every metric, how much the page lists."""
    profile = attrgetter("profile")
    access = _composed(attrgetter("public_access"), profile)
    return [
        *_of_page(), Column("page", "category", attrgetter("page"), _page_kinds),
        Column("page_url", "string", attrgetter("url")),
        *_of(profile, [*_fields("string", "url", "position", "affiliation", "email_domain", "homepage",
                                "photo_url"), *_fields("strings", "interests", "venues"),
                       *_fields("string", "updated", "snapshot_date")]),
        *_of(_composed(attrgetter("metrics"), profile), _metric_columns()),
        Column("public_access_available", "int", _optional(access, "available")),
        Column("public_access_not_available", "int", _optional(access, "not_available")),
        *_of(_composed(attrgetter("ids"), profile), _id_columns(Ids)),
        Column("publications", "int", lambda page: len(page.publications)),
        Column("coauthors", "int", lambda page: len(page.profile.coauthors)),
        Column("warnings", "strings", lambda page: [w.code for w in page.warnings]),
        Column("run", "string", _optional(attrgetter("source"), "run")),
        Column("fetched_at", "string", _optional(attrgetter("source"), "fetched_at")),
    ]


def publication_columns() -> list[Column]:
    """One row per publication: its page's site and profile, the publication, its ids flattened."""
    facets = attrgetter("facets")
    return [
        *_of(attrgetter("result"), [*_of_page(), Column("page", "category", attrgetter("page"), _page_kinds),
                                    Column("page_url", "string", attrgetter("url"))]),
        *_fields("int", "position"),
        *_of(attrgetter("pub"), [
            *_bibliographic(), *_fields("int", "citations"), *_of(attrgetter("ids"), _id_columns(PublicationIds)),
            *_fields("string", "url", "publisher", "summary"),
            *_prefixed("facet_", _of(facets, [*_fields("ints", "years"),
                                              *_fields("strings", "research_areas", "types")])),
            *_fields("strings", "flags"),
        ]),
    ]


def citation_columns() -> list[Column]:
    """One row per histogram bar: the profile's (``scope`` profile) and, where the page gives them, each
    publication's (``scope`` publication, with its position, id and title)."""
    pub = attrgetter("pub")
    return [
        *_of(attrgetter("result"), _of_page()),
        Column("scope", "category", lambda row: "profile" if row.pub is None else "publication",
               lambda: ("profile", "publication")),
        *_fields("int", "position"),
        Column("publication_id", "string", lambda row: row.pub and id_value(row.pub.ids, row.result.site)),
        Column("title", "string", _optional(pub, "title")),
        *_of(attrgetter("bar"), _fields("int", "year", "citations")),
    ]


def coauthor_columns() -> list[Column]:
    return [
        *_of(attrgetter("result"), _of_page()), *_fields("int", "position"),
        *_of(attrgetter("coauthor"), [*_fields("string", "name", "affiliation", "email_domain"),
                                      *_of(attrgetter("ids"), _id_columns(Ids)), *_fields("int", "papers"),
                                      *_fields("string", "url")]),
    ]


def paper_columns() -> list[Column]:
    """One row per merged paper: the merged fields, each site's count, how its sources matched."""
    return [
        *_fields("string", "key"), *_bibliographic(), *_fields("int", "citations_max", "citations_latest"),
        *_site_count_columns(),
        Column("sites", "strings", lambda paper: list(dict.fromkeys(s.site for s in paper.sources))),
        Column("sources", "int", lambda paper: len(paper.sources)),
        Column("matched_by", "strings", lambda paper: sorted({m.reason for m in paper.matched_by})),
        *_of(attrgetter("ids"), _id_columns(PublicationIds)), *_fields("string", "url", "publisher"),
    ]


def _site_count_columns() -> list[Column]:
    """A ``citations_<site>`` per registered site: the highest count that site's sources give."""
    return [Column(f"citations_{site}", "int", _site_count(site)) for site in registered_sites()]


def _site_count(site: str) -> Callable[[Paper], int | None]:
    return lambda paper: site_citations(paper, site)


def site_citations(paper: Paper, site: str) -> int | None:
    """The highest citation count the sources of one site give for ``paper``."""
    return max((s.citations for s in paper.sources if s.site == site and s.citations is not None), default=None)


def paper_source_columns() -> list[Column]:
    """One row per source of a merged paper: the paper's key beside what that source said."""
    source = attrgetter("source")
    return [
        Column("key", "string", lambda row: row.paper.key), Column("source", "int", attrgetter("at")),
        *_of(source, [Column("site", "category", attrgetter("site"), registered_sites),
                      *_fields("string", "input", "page_url"), *_fields("int", "citations"), *_bibliographic(),
                      Column("publication_id", "string", lambda s: id_value(s.ids, s.site)),
                      *_fields("strings", "flags"), *_fields("string", "run", "fetched_at")]),
    ]


class SetRow(NamedTuple):
    person: PersonMetrics
    set: MetricSet


class GapRow(NamedTuple):
    person: PersonMetrics
    gap: SourceGap
    paper: PaperGap


def _metrics_result(result: Result) -> MetricsResult | None:
    from .metrics import MetricsResult

    return result if isinstance(result, MetricsResult) else None


def _set_rows(result: Result) -> Iterator[SetRow]:
    if (figures := _metrics_result(result)) is not None:
        yield from (SetRow(person, each) for person in figures.people for each in person.sets)


def _gap_rows(result: Result) -> Iterator[GapRow]:
    if (figures := _metrics_result(result)) is not None:
        yield from (GapRow(person, gap, paper) for person in figures.people for gap in person.gaps
                    for paper in gap.papers)


def _year_points(result: Result) -> Iterator[YearPoint]:
    if (figures := _metrics_result(result)) is not None:
        yield from (point for person in figures.people for point in person.years)


def _stated(name: str) -> Callable[[SetRow], int | None]:
    return lambda row: next((c.stated for c in row.set.checks if c.name == name), None)


def _reason_lines(check: Check) -> list[str]:
    return [f"{check.name}: {reason.code}{' (accounts)' * reason.accounts}: {reason.message}"
            for reason in check.reasons]


def metric_columns() -> list[Column]:
    """One row per set of figures (``pubharvest.metrics``): whose, which source, as of when, every figure,
    which are not complete and why, each stated figure beside them and the reasons they differ."""
    from .metrics import METRICS

    figure_kind: dict[type, Kind] = {int: "int", float: "float"}
    integral = {"papers", "citations", "years", "h_index", "g_index", "i10_index", "hc_index", "hi_norm", "ha_index",
                "acc10"}
    return [
        Column("person", "string", lambda row: row.person.name),
        Column("source", "string", lambda row: row.set.source), Column("input", "string", lambda row: row.set.input),
        Column("as_of", "int", lambda row: row.set.as_of),
        Column("as_of_from", "string", lambda row: row.set.as_of_from),
        *(Column(m.name, figure_kind[int] if m.name in integral else figure_kind[float], _figure(m.name))
          for m in METRICS),
        Column("incomplete", "strings", lambda row: [f.name for f in row.set.figures if not f.complete]),
        Column("shortfalls", "strings", lambda row: [f"{s.input}: {s.why}" for s in row.set.shortfalls]),
        *(Column(f"{name}_stated", "int", _stated(name)) for name in ("h_index", "i10_index", "citations")),
        Column("disagree", "strings", lambda row: [c.name for c in row.set.checks if not c.agree]),
        Column("unexplained", "strings", lambda row: [c.name for c in row.set.checks if not c.explained]),
        Column("reasons", "strings", lambda row: [line for c in row.set.checks for line in _reason_lines(c)]),
    ]


def _figure(name: str) -> Callable[[SetRow], Any]:
    return lambda row: row.set.value(name)


def metric_gap_columns() -> list[Column]:
    """One row per paper two sources of a person show differently."""
    from .metrics import GAP_KINDS

    return [
        Column("person", "string", lambda row: row.person.name), Column("a", "string", lambda row: row.gap.a),
        Column("b", "string", lambda row: row.gap.b), Column("key", "string", lambda row: row.paper.key),
        Column("title", "string", lambda row: row.paper.title), Column("year", "int", lambda row: row.paper.year),
        Column("kind", "category", lambda row: row.paper.kind, lambda: GAP_KINDS),
        Column("citations_a", "int", lambda row: row.paper.counts.get(row.gap.a)),
        Column("citations_b", "int", lambda row: row.paper.counts.get(row.gap.b)),
        Column("deciding", "strings", lambda row: [name for name, keys in row.gap.by_figure.items()
                                                   if row.paper.key in keys]),
        Column("detail", "string", lambda row: row.paper.detail),
    ]


def metric_year_columns() -> list[Column]:
    """One row per person, source and year of its citations-per-year chart."""
    return [*_fields("string", "person", "source"), *_fields("int", "year", "career_year", "citations", "cumulative")]


TABLES: dict[str, Table] = {
    "profiles": Table(profile_columns, _profile_rows),
    "publications": Table(publication_columns, _pub_rows),
    "citations_by_year": Table(citation_columns, _year_rows),
    "coauthors": Table(coauthor_columns, _coauthor_rows),
    "papers": Table(paper_columns, _papers),
    "paper_sources": Table(paper_source_columns, _source_rows),
    "metrics": Table(metric_columns, _set_rows),
    "metric_gaps": Table(metric_gap_columns, _gap_rows),
    "metric_years": Table(metric_year_columns, _year_points),
}
PAGE_TABLES = ("profiles", "publications", "citations_by_year", "coauthors")
MERGED_TABLES = ("papers", "paper_sources")
METRIC_TABLES = ("metrics", "metric_gaps", "metric_years")
# The names ``--table`` takes, and the table each names.
CLI_TABLES = {"profiles": "profiles", "publications": "publications", "citations": "citations_by_year",
              "coauthors": "coauthors", "papers": "papers", "paper_sources": "paper_sources"}


def history_columns() -> list[Column]:
    """The columns of a store's citation history (``Store.citation_history``, rows as dicts)."""
    kinds: dict[str, Kind] = {"site": "category", "citations": "int"}
    return [Column(key, kinds.get(key, "string"), itemgetter(key), registered_sites if key == "site" else None)
            for key in HISTORY_KEYS]


def columns_of(name: str) -> list[Column]:
    """The columns of a table of ``TABLES``, or of ``citation_history``."""
    return history_columns() if name == "citation_history" else TABLES[name].columns


# --- column sets: the named selections of a table's columns that a CSV may take ---------------------

def _names(columns: Iterable[Column]) -> list[str]:
    return [column.name for column in columns]


_LATER = frozenset({"title_truncated"})  # bibliographic columns added after the historic CSVs
_LATER_IDS = frozenset({"openalex"})  # id columns added after them (the OpenAlex work id of --enrich)


def _historic_bibliographic() -> list[str]:
    return [name for name in _names(_bibliographic()) if name not in _LATER]


def _historic_publications() -> list[str]:
    """The columns the publications CSV had before it gave the whole table, in their order."""
    return ["site", "page", "profile_name", *_historic_bibliographic(), "citations",
            *(name for name in _names(_string_id_columns(PublicationIds)) if name not in _LATER_IDS), "url",
            "publisher", "flags", "profile_id", "page_url"]


def _historic_papers() -> list[str]:
    """The columns the papers CSV (``merge -f csv``) had before it gave the whole table, in their order:
    the identifiers without a site's own."""
    sites = registered_sites()
    return ["key", *_historic_bibliographic(), "citations_max", *_names(_site_count_columns()), "sites", "matched_by",
            *(kind for kind in string_kinds(PublicationIds) if kind not in sites and kind not in _LATER_IDS), "url",
            "publisher"]


# What ``--columns`` names: every column of the table (``all``, the default), or ``historic``: the
# columns the publications and papers CSVs had before CSV, Parquet and DataFrames shared one
# description of each table (the other tables' CSVs have had all their columns from the start).
COLUMN_SETS: dict[str, dict[str, Callable[[], list[str]]]] = {
    "all": {}, "historic": {"publications": _historic_publications, "papers": _historic_papers}}


def selected(name: str, column_set: str = "all") -> list[Column]:
    """The columns of table ``name`` (of ``TABLES``) that ``column_set`` (of ``COLUMN_SETS``) names, in its order.

    >>> len(selected("publications")), len(selected("publications", "historic")), len(selected("papers", "historic"))
    (33, 25, 22)
    >>> _names(selected("coauthors", "historic")) == _names(selected("coauthors"))
    True
    """
    columns = TABLES[name].columns
    names = COLUMN_SETS[column_set].get(name)
    if names is None:
        return columns
    by_name = {column.name: column for column in columns}
    return [by_name[column] for column in names()]


def columns_misuse(fmt: str | None, column_set: str | None) -> str | None:
    """What is wrong with ``--columns column_set`` beside ``--format fmt``, in one line, or None.

    >>> columns_misuse("csv", "historic"), columns_misuse("csv", "old"), columns_misuse("json", "all")
    (None, "unknown column set 'old' (one of all, historic)", '--columns goes with --format csv')
    """
    if column_set is None:
        return None
    if column_set not in COLUMN_SETS:
        return f"unknown column set {column_set!r} (one of {', '.join(COLUMN_SETS)})"
    return None if fmt == "csv" else "--columns goes with --format csv"


# --- CSV -----------------------------------------------------------------------------------------------

def csv_cells(columns: Iterable[Column]) -> list[tuple[str, Callable[[Any], Any]]]:
    """The CSV columns ``(header, cell)`` of ``columns``: a list is one cell, its items joined by ``; ``."""
    return [(c.name, _joined(c.cell) if c.kind in ("strings", "ints") else c.cell) for c in columns]


def _joined(cell: Callable[[Any], Any]) -> Callable[[Any], str]:
    return lambda row: "; ".join(map(str, cell(row)))


class TableCsvWriter(_CsvTable):
    """One CSV row per row of the table named ``table``, in the columns ``column_set`` names (class
    attributes: see ``csv_writer``)."""

    table = "profiles"
    column_set = "all"

    def __init__(self, stream: Any) -> None:
        super().__init__(stream, csv_cells(selected(self.table, self.column_set)))

    def write(self, result: Result) -> None:
        for row in TABLES[self.table].rows(result):
            self.write_row(row)


def csv_writer(name: str, column_set: str = "all") -> type[TableCsvWriter]:
    """The writer class of the CSV of table ``name`` in ``column_set``, for ``output.open_output``.

    >>> import io
    >>> stream = io.StringIO()
    >>> csv_writer("papers", "historic")(stream).write(MergeResult())
    >>> stream.getvalue().splitlines()[0].split(",")[-5:]
    ['isbn', 'report_number', 'patent_number', 'url', 'publisher']
    """
    attributes = {"table": name, "column_set": column_set}
    return type(f"{name.title().replace('_', '')}CsvWriter", (TableCsvWriter,), attributes)


def table_writers(table: str | None, writers: Mapping[str, type[_Writer]], default: str,
                  column_set: str | None = None) -> dict[str, type[_Writer]]:
    """``writers`` (``output.WRITERS`` or ``MERGED_WRITERS``) with, for ``csv``, the writer of ``--table``
    (``default`` when None) in the columns of ``--columns`` (every column when None)."""
    return {**writers, "csv": csv_writer(CLI_TABLES[table or default], column_set or "all")}


class HistoryJsonLinesWriter(_Writer):
    """One row of a store's citation history per line."""

    def write(self, row: dict[str, Any]) -> None:
        self.stream.write(json.dumps(row, ensure_ascii=False) + "\n")


class HistoryCsvWriter(_CsvTable):
    """One CSV row per row of a store's citation history."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream, csv_cells(history_columns()))

    def write(self, row: dict[str, Any]) -> None:
        self.write_row(row)


HISTORY_WRITERS: dict[str, type[_Writer]] = {"jsonl": HistoryJsonLinesWriter, "csv": HistoryCsvWriter}
