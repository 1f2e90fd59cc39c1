"""What the benches share: medians of repeated runs, the fitted exponent of a scaling, verdicts.

>>> round(exponent([1_000, 10_000, 100_000], [0.01, 0.1, 1.0]), 2)
1.0
>>> verdict(True), verdict(False)
('ok', 'MISSED')
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable


def median_seconds(work: Callable[[], object], repeat: int, clock: Callable[[], float] = time.process_time) -> float:
    """The median time of ``repeat`` runs of ``work`` by ``clock`` (CPU time by default: the machine is
    shared, and wall time follows its load)."""
    times = []
    for _ in range(repeat):
        start = clock()
        work()
        times.append(clock() - start)
    return statistics.median(times)


def exponent(sizes: list[int], seconds: list[float]) -> float:
    """The least-squares slope of log(time) on log(size): 1 is linear, 2 quadratic."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def verdict(good: bool) -> str:
    """How a figure stands against its goal."""
    return "ok" if good else "MISSED"
