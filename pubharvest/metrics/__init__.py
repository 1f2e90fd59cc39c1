"""Every citation indicator of Publish or Perish, per person, per source and merged, each with what it
was computed from and whether that was whole; the figures a page states checked against its rows,
and the gaps between sources explained by the papers behind them (docs/metrics.md).

- ``indicators``: the pure functions over ``Row`` (citations, year, authors, cut author list) and a
  reference year, and ``METRICS``, every figure with the inputs it needs;
- ``metrics(pages, by=..., at=...)``: page results in, a ``MetricsResult`` out (per person a
  ``MetricSet`` per source and merged, ``SourceGap``s, ``YearPoint``s);
- ``explain.check``: a stated figure beside the computed one, with the ``Reason``s by named rows;
- ``series``: citations per year side by side, by calendar or career year.

>>> from pubharvest.metrics import Row, indicators
>>> indicators([Row(10, 2020, 2), Row(4, 2022, 1)], as_of=2024)["h_index"]
2
"""

from __future__ import annotations

from .explain import CHECKED, check
from .indicators import METRICS, Metric, Row, indicators
from .items import Item, page_items, paper_items
from .measure import BY, MERGED, By, Known, at_year, metric_set, metrics, paper_gap, source_gap, stated_checks
from .model import (
    GAP_KINDS,
    INPUTS,
    REASONS,
    Check,
    Figure,
    MetricSet,
    MetricsResult,
    PaperGap,
    PersonMetrics,
    Reason,
    RowRef,
    Shortfall,
    SourceGap,
    YearPoint,
    metrics_json_schema,
)
from .series import ALIGNMENTS, Alignment, side_by_side, year_points

__all__ = [
    "ALIGNMENTS", "BY", "CHECKED", "GAP_KINDS", "INPUTS", "MERGED", "METRICS", "REASONS", "Alignment", "By", "Check",
    "Figure", "Item", "Known", "Metric", "MetricSet", "MetricsResult", "PaperGap", "PersonMetrics", "Reason", "Row",
    "RowRef",
    "Shortfall", "SourceGap", "YearPoint", "at_year", "check", "indicators", "metric_set", "metrics",
    "metrics_json_schema", "page_items", "paper_gap", "paper_items", "side_by_side", "source_gap", "stated_checks",
    "year_points",
]
