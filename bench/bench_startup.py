"""Whole-process time of ``pubharvest parse SMALL_PAGE`` and of ``pubharvest --help``, beside a bare
``python -c pass`` measured in the same run.

    python bench/bench_startup.py [--repeat 21]

Goals: a small page parsed in at most 3x the bare interpreter's time, and ``--help`` in
at most 2x (the ratio is what carries to another machine). The small pages are the three seed pages
in ``fixtures/`` (one per site, 4-20 kB), each written to a temporary file so that the run reads what
a user's saved page would be; each command runs ``--repeat`` times, interleaved, and the medians of
its CPU time (user + system, as the goals are stated) and of its wall time are printed, with the min
and median of its ratios to the bare interpreter of the same round. Not a timed test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from figures import verdict  # noqa: E402

SEEDS = {"scholar": "fixtures/scholar/003_9ea93ed9343d2054.txt", "msr": "fixtures/msr/001_0be51d225ce2b3fb.txt",
         "elamur": "fixtures/elamur/000_e63c2e80f8ecde3e.txt"}
GOAL_RATIO, HELP_GOAL_RATIO = 3.0, 2.0
BARE = "python -c pass"


def command() -> list[str]:
    """The installed console script (what a user runs), else the module."""
    script = Path(sys.executable).with_name("pubharvest")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pubharvest.cli"]


def timed_runs(commands: dict[str, list[str]], repeat: int) -> dict[str, list[tuple[float, float]]]:
    """Each command's CPU time (user + system, of its process) and wall time in each of ``repeat``
    rounds, in ms, the commands interleaved so that the machine's load (shared today) falls on all of
    them alike."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for run in range(repeat + 1):
        for name, argv in commands.items():
            start = time.perf_counter()
            process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            _, _, usage = os.wait4(process.pid, 0)
            process.returncode = 0  # reaped by wait4
            if run:  # the first run writes the bytecode caches
                times[name].append(((usage.ru_utime + usage.ru_stime) * 1000, (time.perf_counter() - start) * 1000))
    return times


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--repeat", type=int, default=21, help="runs of each command; the median is printed")
    options = args.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        commands = {"python -c pass": [sys.executable, "-c", "pass"], "pubharvest --help": [*command(), "--help"]}
        for site, seed in SEEDS.items():
            page = Path(folder) / f"{site}{Path(seed).suffix}"
            shutil.copyfile(ROOT / seed, page)
            commands[f"pubharvest parse ({site}, {page.stat().st_size // 1024} kB)"] = (
                [*command(), "parse", str(page), "-o", str(Path(folder) / "out.json")])
        runs = timed_runs(commands, options.repeat)
    print(f"CPU time (wall time beside it), medians of {options.repeat} runs; ratios to {BARE} of the same round, "
          f"min and median; the machine is shared with other work (load average {os.getloadavg()[0]:.1f})")
    for name, values in runs.items():
        ms, wall = statistics.median(cpu for cpu, _ in values), statistics.median(wall for _, wall in values)
        line = f"{name:38s} {ms:7.1f} ms ({wall:6.1f} ms wall)"
        if name == BARE:
            print(f"{line}  (the floor)")
            continue
        ratios = [cpu / bare for (cpu, _), (bare, _) in zip(values, runs[BARE], strict=True)]
        goal = HELP_GOAL_RATIO if name == "pubharvest --help" else GOAL_RATIO
        middle = statistics.median(ratios)
        print(f"{line}  {min(ratios):4.2f}x / {middle:4.2f}x {BARE} (goal <= {goal:g}x: {verdict(middle <= goal)})")


if __name__ == "__main__":
    main()
