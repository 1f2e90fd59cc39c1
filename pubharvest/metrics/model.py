"""What ``pubharvest metrics`` gives, as typed records (their JSON is ``metrics -f json``, their schema
``metrics_json_schema()``): per person, a ``MetricSet`` per source and one merged, each figure with
whether it is complete, each stated figure beside the computed one with the rows that explain a
difference, the papers that explain the gaps between sources, and the citations per year."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = ["Figure", "Shortfall", "RowRef", "Reason", "Check", "MetricSet", "PaperGap", "SourceGap", "YearPoint",
           "PersonMetrics", "MetricsResult", "INPUTS", "REASONS", "GAP_KINDS", "metrics_json_schema"]

# What a figure is computed from: all the rows of a listing, and each row's count, year and authors.
INPUTS = ("rows", "citations", "years", "authors")
Input = Literal["rows", "citations", "years", "authors"]
# Why a computed figure differs from the one the page states, each found by the rows' structure.
REASONS = ("rows_missing", "uncounted_rows", "duplicate_rows", "merged_versions", "yearless_rows", "at_threshold")
Reasons = Literal["rows_missing", "uncounted_rows", "duplicate_rows", "merged_versions", "yearless_rows",
                  "at_threshold"]
# How a paper differs between two sources of one person.
GAP_KINDS = ("only_on", "counted_differently", "merged_differently", "no_count")
GapKind = Literal["only_on", "counted_differently", "merged_differently", "no_count"]
Number = int | float | None


class _Struct(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of the metrics records: keyword-only, strict when decoding."""


class Figure(_Struct):
    """One figure of a set: its value (None when it cannot be computed: no row with what it needs), and
    whether every input it is computed from was whole (``incomplete``: those that were not)."""

    name: str
    value: Number
    complete: bool
    incomplete: list[Input] = []


class Shortfall(_Struct):
    """An input of a set that is not whole: ``rows`` lacking it (for ``rows``: those missing from the
    listing, when the page states how many there are) of ``of``, and why, in one line."""

    input: Input
    rows: int | None
    of: int | None
    why: str


class RowRef(_Struct):
    """A row named in an explanation: where it is (its site, input and 1-based place on its page, or
    its merged paper's key) and what it says."""

    site: str
    title: str | None
    citations: int | None
    year: int | None
    position: int | None = None
    input: str | None = None
    key: str | None = None


class Reason(_Struct):
    """A cause of a difference, by structure: ``rows``, the rows it names; ``accounts``, whether the
    figure recomputed with that cause removed (or the rows the page lacks supplied) is the stated one."""

    code: Reasons
    message: str
    rows: list[RowRef]
    accounts: bool


class Check(_Struct):
    """A figure the page states beside the one computed from its rows, and when they differ, why."""

    name: str  # h_index, i10_index or citations
    stated: int
    computed: int | None
    agree: bool
    reasons: list[Reason] = []

    @property
    def explained(self) -> bool:
        """Whether the figures agree, or a reason accounts for the difference."""
        return self.agree or any(reason.accounts for reason in self.reasons)


class MetricSet(_Struct, kw_only=True):
    """Every figure of one source of a person (a site, or ``merged``: the person's papers merged across
    sites, each counted by its highest count), or of one page (``--by page``)."""

    person: str | None
    source: str  # a site, "merged", or (--by page) the page's site
    input: str | None  # the inputs the rows came from
    as_of: int | None  # the reference year of the figures of age
    as_of_from: str  # where that year came from (``--at``, a fetch time, the page's date), or why there is none
    first_year: int | None = None  # the earliest year of its papers (Publish or Perish's "publication years")
    last_year: int | None = None
    figures: list[Figure]
    shortfalls: list[Shortfall] = []
    checks: list[Check] = []

    def value(self, name: str) -> Number:
        """The value of the figure ``name`` (a name of ``METRICS``)."""
        return next(figure.value for figure in self.figures if figure.name == name)

    def figure(self, name: str) -> Figure:
        return next(figure for figure in self.figures if figure.name == name)


class PaperGap(_Struct):
    """A paper of one person that two sources show differently: its key in the merge, its title, what
    each source says of it (``counts``: site to count, null where the source lists it without one; a
    site that does not list it is absent), and how (``kind``, ``rows``: each source's rows merged into it)."""

    key: str
    title: str | None
    year: int | None
    kind: GapKind
    counts: dict[str, int | None]
    rows: dict[str, int]
    detail: str


class SourceGap(_Struct):
    """Two sources of one person side by side: the figures that differ (``figures``: name to each side's
    value) and the papers that explain it, most cited first; ``by_figure`` names, for the h-index,
    i10-index, papers and citations, the keys of the papers that decide that gap."""

    a: str
    b: str
    figures: dict[str, list[Number]]
    papers: list[PaperGap]
    by_figure: dict[str, list[str]] = {}


class YearPoint(_Struct):
    """A person's citations in one year on one source (its citations-per-year chart), with the
    cumulative count and the career year (years since the person's first paper; 0 in that year)."""

    person: str | None
    source: str
    year: int
    career_year: int | None
    citations: int
    cumulative: int


class PersonMetrics(_Struct):
    """One person (``merge``'s people; a page that names nobody is a person of its own): a set per
    source and, when there are several, the merged set last; the gaps between sources; the years."""

    name: str | None
    ids: dict[str, str]
    sets: list[MetricSet]
    gaps: list[SourceGap] = []
    years: list[YearPoint] = []
    first_year: int | None = None  # of the person's papers, where career years start


class MetricsResult(_Struct):
    """What ``metrics(pages)`` gives: ``by`` (person, source or page) and one entry per person."""

    by: Literal["person", "source", "page"]
    at: str | None  # the --at given, if any
    people: list[PersonMetrics]


def metrics_json_schema() -> dict[str, Any]:
    """The JSON Schema of ``MetricsResult`` (``pubharvest schema --metrics``).

    >>> sorted(metrics_json_schema()["$defs"]["Reason"]["properties"]["code"]["enum"])[:2]
    ['at_threshold', 'duplicate_rows']
    """
    return msgspec.json.schema(MetricsResult)
