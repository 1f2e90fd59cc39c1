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
from dataclasses import dataclass


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


@dataclass(frozen=True)
class Paired:
    """The times of a piece of work and of its floor, run in turn so that both saw the same machine:
    (min, median) seconds of each."""

    work: tuple[float, float]
    floor: tuple[float, float]

    @property
    def ratio(self) -> float:
        """The work's median over the floor's median."""
        return self.work[1] / self.floor[1]

    @property
    def ratio_of_minima(self) -> float:
        return self.work[0] / self.floor[0]

    def line(self, goal: float) -> str:
        """``work ms min/median, floor ms min/median, ratio min/median, <= goal verdict``, the columns of
        ``HEADER``; the verdict is the median's."""
        return (f"{self.work[0] * 1e3:8.3f} {self.work[1] * 1e3:8.3f} {self.floor[0] * 1e3:8.3f} "
                f"{self.floor[1] * 1e3:8.3f} {self.ratio_of_minima:5.2f} {self.ratio:5.2f} <= {goal:.1f}x "
                f"{verdict(self.ratio <= goal)}")


HEADER = f"{'ms min':>8} {'ms med':>8} {'floor min':>8} {'floor med':>8} {'r min':>5} {'r med':>5} goal"


def interleaved(work: Callable[[], object], floor: Callable[[], object], repeat: int,
                clock: Callable[[], float] = time.process_time) -> Paired:
    """``work`` and ``floor`` run ``repeat`` times each, one after the other, timed by ``clock`` (CPU time
    by default).

    >>> paired = interleaved(lambda: sum(range(20_000)), lambda: sum(range(10_000)), 21)
    >>> 1.2 < paired.ratio < 4
    True
    """
    works: list[float] = []
    floors: list[float] = []
    for _ in range(repeat):
        for times, job in ((works, work), (floors, floor)):
            start = clock()
            job()
            times.append(clock() - start)
    return Paired((min(works), statistics.median(works)), (min(floors), statistics.median(floors)))
