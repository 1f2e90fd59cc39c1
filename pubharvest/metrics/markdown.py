"""``metrics -f md``: the figures as Markdown tables, a person's sources side by side, a figure whose
inputs were not whole marked ``*``, the stated figures with why they differ, the papers behind each
gap between sources, and the people's citations per year side by side.

>>> from pubharvest.metrics.model import Figure, MetricSet, MetricsResult, PersonMetrics
>>> one = MetricSet(person="Ada", source="scholar", input=None, as_of=None, as_of_from="none",
...                 figures=[Figure(name="h_index", value=3, complete=False, incomplete=["rows"])])
>>> print(markdown(MetricsResult(by="source", at=None, people=[PersonMetrics(name="Ada", ids={}, sets=[one])])))
## Ada
<BLANKLINE>
Figures of age as of: — (none)
<BLANKLINE>
| figure | scholar |
|---|---|
| h-index | 3* |
<BLANKLINE>
\\* computed from inputs that are not whole: see the shortfalls below.
<BLANKLINE>
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .indicators import METRICS
from .model import MetricSet, MetricsResult, Number, PersonMetrics
from .series import Alignment, side_by_side

__all__ = ["markdown"]
_LABELS = {m.name: m.label for m in METRICS}
GAP_ROWS = 15  # papers shown per pair of sources (the JSON and CSV give them all)


def markdown(result: MetricsResult, align: Alignment = "calendar") -> str:
    """The whole result as Markdown."""
    parts = [_person(person) for person in result.people]
    points = [point for person in result.people for point in person.years]
    if points:
        parts.append(f"## Citations per year, cumulative, by {align} year\n\n"
                     + _table(side_by_side(points, align)) + "\n")
    return "\n".join(parts)


def _cell(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(rows: Sequence[Sequence[object]]) -> str:
    header, *body = rows
    lines = ["| " + " | ".join(map(_cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(_cell, row)) + " |" for row in body]
    return "\n".join(lines) + "\n"


def _value(each: MetricSet, name: str) -> str:
    figure = each.figure(name)
    return _cell(figure.value) + ("*" if not figure.complete else "")


def _person(person: PersonMetrics) -> str:
    sets = person.sets
    text = [f"## {_cell(person.name)}\n", f"Figures of age as of: {_cell(sets[0].as_of) if sets else '—'} "
            f"({sets[0].as_of_from if sets else 'no set'})\n"]
    rows: list[list[object]] = [["figure", *(each.source for each in sets)]]
    names = [figure.name for figure in sets[0].figures] if sets else []
    rows += [[_LABELS.get(name, name), *(_value(each, name) for each in sets)] for name in names]
    text.append(_table(rows))
    if any(not f.complete for each in sets for f in each.figures):
        text.append("\\* computed from inputs that are not whole: see the shortfalls below.\n")
    text += _shortfalls(sets) + _checks(sets) + _gaps(person)
    return "\n".join(text) + "\n"


def _shortfalls(sets: Iterable[MetricSet]) -> list[str]:
    rows: list[list[object]] = [["source", "input", "why"]]
    rows += [[each.source, s.input, s.why] for each in sets for s in each.shortfalls]
    return ["### Inputs not whole\n\n" + _table(rows)] if len(rows) > 1 else []


def _checks(sets: Iterable[MetricSet]) -> list[str]:
    rows: list[list[object]] = [["source", "figure", "stated", "computed", "why they differ"]]
    for each in sets:
        for c in each.checks:
            why = "agree" if c.agree else "; ".join(
                f"{r.code}{' (accounts)' if r.accounts else ''}: {r.message}"
                + (f" [rows: {', '.join(_row_name(ref.position, ref.title, ref.citations) for ref in r.rows[:5])}"
                   f"{', ...' if len(r.rows) > 5 else ''}]" if r.rows else "")
                for r in c.reasons) or "not explained"
            rows.append([each.source, _LABELS.get(c.name, c.name), c.stated, c.computed, why])
    return ["### Stated and computed\n\n" + _table(rows)] if len(rows) > 1 else []


def _row_name(position: int | None, title: str | None, citations: Number) -> str:
    return f"{'#' + str(position) + ' ' if position else ''}{(title or '')[:60]} ({_cell(citations)})"


def _gaps(person: PersonMetrics) -> list[str]:
    text = []
    for gap in person.gaps:
        differ = ", ".join(f"{_LABELS[name]} {_cell(a)} vs {_cell(b)}" for name, (a, b) in gap.figures.items()
                           if name in ("papers", "citations", "h_index", "i10_index"))
        rows: list[list[object]] = [["paper", "year", gap.a, gap.b, "how"]]
        rows += [[p.title, p.year, p.counts.get(gap.a, "absent" if gap.a not in p.rows else None),
                  p.counts.get(gap.b, "absent" if gap.b not in p.rows else None), p.detail]
                 for p in gap.papers[:GAP_ROWS]]
        more = f"\n{len(gap.papers) - GAP_ROWS} more papers differ (the JSON and CSV list them all).\n" \
            if len(gap.papers) > GAP_ROWS else ""
        text.append(f"### {gap.a} and {gap.b}\n\n{differ or 'The main figures agree.'}\n\n" + _table(rows) + more)
    return text
