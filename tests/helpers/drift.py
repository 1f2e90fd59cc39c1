"""Drift variants of a saved page, for any site: what a page looks like after the site renames a
class or an id, after a save cut short, or with its rows repeated. ``check_variant`` says whether a
parser met a variant honestly: a ``ParseError``, a result carrying a warning the original lacks, or
the very same records. Anything else is a silently wrong record.

>>> rename_token('<td class="gsc_a_t x"><a class="gsc_a_tr">', "gsc_a_t")
'<td class="gscXaXtdrift x"><a class="gsc_a_tr">'
>>> tokens_in_source('X = "gsc_a_t"; Y = "#gsc_rsb_st td.gs_gray"', r"gsc?_[\\w-]*[A-Za-z0-9]")
['gs_gray', 'gsc_a_t', 'gsc_rsb_st']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from pubharvest.errors import ParseError
from pubharvest.parsers.records import PageResult, to_builtins


def rename_token(page: str, token: str, new: str | None = None) -> str:
    """``page`` with every whole-word ``token`` (in ids, classes, CSS and scripts alike) renamed; the
    new name does not contain the old one, so that a substring test cannot still find it."""
    return re.sub(rf"(?<![\w-]){re.escape(token)}(?![\w-])", new or token.replace("_", "X") + "drift", page)


def tokens_in_source(source: str, pattern: str) -> list[str]:
    """The distinct class / id names matching ``pattern`` in a parser's source, sorted."""
    return sorted(set(re.findall(rf"(?<![\w-])(?:{pattern})(?![\w-])", source)))


def emptied(page: str, start: str, end: str) -> str:
    """``page`` with what lies between the first ``start`` and the next ``end`` removed."""
    head = page.index(start) + len(start)
    return page[:head] + page[page.index(end, head):]


def repeated(page: str, start: str, end: str, times: int = 2) -> str:
    """``page`` with the block from the first ``start`` to the next ``end`` (excluded) repeated."""
    first = page.index(start)
    last = page.index(end, first)
    return page[:first] + page[first:last] * times + page[last:]


def nested(page: str, start: str, end: str, depth: int, tag: str = "div") -> str:
    """``page`` with the block from ``start`` to the end of the next ``end`` wrapped in ``depth`` elements."""
    first = page.index(start)
    last = page.index(end, first) + len(end)
    return page[:first] + f"<{tag}>" * depth + page[first:last] + f"</{tag}>" * depth + page[last:]


def truncations(page: str, fractions: tuple[float, ...] = (0.25, 0.5, 0.75, 0.9, 0.99)) -> Iterator[tuple[str, str]]:
    """(label, page cut at that fraction of its length)."""
    for fraction in fractions:
        yield f"cut at {fraction:.0%}", page[: int(len(page) * fraction)]


def comparable(result: PageResult) -> dict[str, Any]:
    """The records of a result without what depends on the input bytes (``source``) or warnings."""
    data = to_builtins(result)
    data.pop("source", None)
    data.pop("warnings", None)
    return data


def check_variant(parse: Callable[[bytes], PageResult], original: PageResult, variant: str, label: str) -> str:
    """``"error"``, ``"warned"`` or ``"same"`` for an honest outcome; fails the test otherwise."""
    try:
        result = parse(variant.encode("utf-8"))
    except ParseError as exc:
        assert exc.code and "\n" not in exc.message, f"{label}: {exc!r}"
        return "error"
    before = {(w.code, w.message) for w in original.warnings}
    if {(w.code, w.message) for w in result.warnings} - before:
        return "warned"
    assert comparable(result) == comparable(original), f"{label}: a different record with no new warning"
    return "same"
