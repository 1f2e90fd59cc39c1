"""What the benches share: medians of repeated runs, the fitted exponent of a scaling, verdicts.

>>> round(exponent([1_000, 10_000, 100_000], [0.01, 0.1, 1.0]), 2)
1.0
>>> verdict(True), verdict(False)
('ok', 'MISSED')
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple


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


class Run(NamedTuple):
    """One run of a command: wall seconds, CPU seconds (the process and its workers), peak MB of their
    resident memory together."""

    wall: float
    cpu: float
    peak: float


def run_once(argv: list[str]) -> Run:
    """Run ``argv`` (it must succeed); its peak memory is that of its process and the workers it starts,
    sampled while it runs, or its own high-water mark when larger."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak, done = [0.0], threading.Event()
    sampler = threading.Thread(target=_sample_memory, args=(process.pid, peak, done), daemon=True)
    sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return Run(wall, usage.ru_utime + usage.ru_stime, max(peak[0], usage.ru_maxrss / 1024))


def _sample_memory(pid: int, peak: list[float], done: threading.Event) -> None:
    """The largest sum of the resident memory of process ``pid`` and its children seen every 20 ms, in ``peak``,
    until ``done``."""
    while not done.wait(0.02):
        peak[0] = max(peak[0], sum(map(_resident_mb, _tree(pid))))


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it (``/proc/PID/task/TID/children``)."""
    found, at = [pid], 0
    while at < len(found):
        try:
            tasks = os.listdir(f"/proc/{found[at]}/task")
            found += [int(child) for task in tasks
                      for child in Path(f"/proc/{found[at]}/task/{task}/children").read_text().split()]
        except OSError:
            pass
        at += 1
    return found


def _resident_mb(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    line = next((line for line in status.splitlines() if line.startswith("VmRSS:")), "VmRSS: 0 kB")
    return int(line.split()[1]) / 1024
