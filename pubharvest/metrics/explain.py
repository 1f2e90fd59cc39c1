"""Why a computed figure differs from the one the page states, by the rows' structure: rows the
input lacks (a page listing 20 of a longer list), rows without a count, rows whose count the page
merged into another row's, rows counting several versions, rows without a year, rows cited exactly
at the threshold. Each cause names its rows and says whether it accounts for the difference: the
figure recomputed with that cause undone (the rows removed, the counts at the threshold moved by
one, the rows the page lacks supplied) is the stated one.

>>> from pubharvest.metrics.indicators import Row
>>> from pubharvest.parsers.records import Publication
>>> def item(count, flags=()):
...     return Item(Row(count, 2020), "scholar", None, None, Publication(title=f"c{count}", flags=list(flags)))
>>> found = check("h_index", 2, [item(5), item(3), item(3, ["duplicate_of:U:P"]), item(1)])
>>> found.computed, found.agree, [(r.code, r.accounts, [row.title for row in r.rows]) for r in found.reasons]
(3, False, [('duplicate_rows', True, ['c3']), ('at_threshold', True, ['c3', 'c3'])])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .indicators import h_of
from .items import Item, is_duplicate, is_merged
from .model import Check, Reason, Reasons, RowRef, Shortfall

__all__ = ["check", "CHECKED", "stated_figure"]

I10 = 10
# The figures a page states that its rows give too: how each is computed from the counts.
CHECKED: dict[str, Callable[[list[int]], int]] = {
    "h_index": h_of,
    "i10_index": lambda counts: sum(1 for count in counts if count >= I10),
    "citations": sum,
}


def stated_figure(name: str, counts: Sequence[int]) -> int:
    """``name`` (of ``CHECKED``) computed from ``counts``.

    >>> stated_figure("i10_index", [10, 9, 30]), stated_figure("h_index", [3, 3, 3, 1])
    (2, 3)
    """
    return CHECKED[name](list(counts))


def _counts(items: Sequence[Item]) -> list[int]:
    return [item.row.citations for item in items if item.row.citations is not None]


def check(name: str, stated: int, items: Sequence[Item], missing: Shortfall | None = None,
          counts: Sequence[int] | None = None) -> Check:
    """The stated figure ``name`` beside the one computed from ``items`` and, when they differ, the
    reasons found; ``missing``, the rows shortfall of the listing, when it lacks rows; ``counts``, the
    items' counts when known (the items themselves are then read only when the figures differ)."""
    counts = _counts(items) if counts is None else counts
    computed = CHECKED[name](list(counts)) if counts or not len(items) else None
    if computed == stated:
        return Check(name=name, stated=stated, computed=computed, agree=True)
    reasons = [reason for find in _FINDERS if (reason := find(name, stated, computed or 0, items, missing))]
    return Check(name=name, stated=stated, computed=computed, agree=False, reasons=reasons)


def _ref(item: Item) -> RowRef:
    return item.ref


def _relevant(name: str, stated: int, computed: int, items: Sequence[Item]) -> list[Item]:
    """The items whose count can move ``name`` between ``stated`` and ``computed``, most cited first:
    for the h-index those cited at least the lower of the two, for the i10-index those cited 10 times
    or more, for citations every counted one."""
    floor = {"h_index": min(stated, computed), "i10_index": I10}.get(name, 1)
    chosen = [item for item in items if item.row.citations is not None and item.row.citations >= floor]
    return sorted(chosen, key=lambda item: -(item.row.citations or 0))


def _need(name: str, stated: int, computed: int, counts: Sequence[int]) -> int:
    """How many rows (of the stated figure's kind) the counts lack for the stated figure: for the
    h-index, rows cited at least ``stated`` times; for the i10-index rows cited 10 times or more;
    for citations the citations themselves."""
    if name == "h_index":
        return stated - sum(1 for count in counts if count >= stated)
    return stated - computed


def _supplied(name: str, stated: int, computed: int, items: Sequence[Item], absent: int | None,
              code: Reasons, what: str) -> Reason | None:
    """The reason of rows the figure could not count (``absent`` of them; None: how many is not known):
    they account for a stated figure above the computed one when there are enough of them."""
    if stated <= computed or absent == 0:
        return None
    need = _need(name, stated, computed, _counts(items))
    enough = absent is None or need <= absent or name == "citations"
    unit = "citations" if name == "citations" else f"rows cited at least {stated if name == 'h_index' else I10} times"
    known = "an unknown number of" if absent is None else str(absent)
    return Reason(code=code, accounts=enough, rows=list(map(_ref, _relevant(name, stated, computed, items))),
                  message=f"{name}: the stated {stated} needs {need} more {unit} than the rows read give; {known} "
                          f"{what}")


def _rows_missing(name: str, stated: int, computed: int, items: Sequence[Item],
                  missing: Shortfall | None) -> Reason | None:
    if missing is None:
        return None
    return _supplied(name, stated, computed, items, missing.rows, "rows_missing",
                     f"rows are not in the input ({missing.why})")


def _uncounted(name: str, stated: int, computed: int, items: Sequence[Item],
               missing: Shortfall | None) -> Reason | None:
    absent = sum(1 for item in items if item.row.citations is None)
    reason = _supplied(name, stated, computed, items, absent, "uncounted_rows", "rows have no count")
    if reason is not None:
        reason.rows = [item.ref for item in items if item.row.citations is None]
    return reason


def _without(code: Reasons, what: str, leave_out: Callable[[Item], bool]) -> Callable[..., Reason | None]:
    """A finder of the rows ``leave_out`` picks: named when some can move the figure, accounting when
    the figure without them is the stated one."""

    def find(name: str, stated: int, computed: int, items: Sequence[Item], missing: Shortfall | None) -> Reason | None:
        picked = [item for item in _relevant(name, stated, computed, items) if leave_out(item)]
        if not picked:
            return None
        without = CHECKED[name](_counts([item for item in items if not leave_out(item)]))
        return Reason(code=code, rows=list(map(_ref, picked)), accounts=without == stated,
                      message=f"{name}: {len(picked)} {what}; without them the figure is {without}")
    return find


def _at_threshold(name: str, stated: int, computed: int, items: Sequence[Item],
                  missing: Shortfall | None) -> Reason | None:
    """Rows cited exactly at the threshold: one citation fewer (the computed figure above the stated)
    or more (below) would move them across it."""
    if name == "citations":
        return None
    threshold = {"h_index": computed if computed > stated else stated - 1, "i10_index": I10 if computed > stated
                 else I10 - 1}[name]
    step = -1 if computed > stated else 1
    picked = [item for item in items if item.row.citations == threshold]
    if not picked:
        return None
    moved = [count + step if count == threshold else count for count in _counts(items)]
    after = CHECKED[name](moved)
    return Reason(code="at_threshold", rows=[item.ref for item in picked], accounts=after == stated,
                  message=f"{name}: {len(picked)} rows are cited exactly {threshold} times; with one citation "
                          f"{'fewer' if step < 0 else 'more'} each the figure is {after}")


_FINDERS: tuple[Callable[..., Reason | None], ...] = (
    _rows_missing,
    _uncounted,
    _without("duplicate_rows", "rows carry a count the page merged into another row's (Scholar's data-eud)",
             is_duplicate),
    _without("merged_versions", "rows count several versions (Scholar's *, several clusters)", is_merged),
    _without("yearless_rows", "rows have no year", lambda item: item.row.year is None),
    _at_threshold,
)
