"""``pubharvest metrics --by person`` over 10,000 people of 200 papers each: the whole command's wall time
beside a floor measured in the same run, interleaved, and its peak memory.

    python bench/bench_metrics.py [--people 10000] [--papers 200] [--repeat 3] [--figures-alone]
                                  [--before OTHER_VENV/bin/python]

Input: one Scholar profile per person (as a job writes it: a fetch time, the stated h, i10 and citations,
a 15-year chart), 200 rows each with counts drawn from a heavy-tailed law, years 1990-2025, 1 to 12
authors (a list cut short in one row in five), a row in fifty without a year; written as JSON Lines.

Figures (min and median of ``--repeat`` runs, the floor's and the command's interleaved; ``uptime``'s load
average before and after, as the machine is shared):
- the floor, ``pubharvest merge IN.jsonl -f csv --table profiles -o OUT``: the same records read and
  checked in one process and one row per person written, no figure computed;
- the command, ``pubharvest metrics IN.jsonl --by person -f csv -o OUT`` (reading, figures, writing; a
  file this large is read in worker processes, ``pubharvest.metrics.parallel``): wall time, CPU time of
  the process and its workers, and the peak of their resident memory together (sampled every 20 ms);
- with ``--before PYTHON``, the command again in the same rounds as ``PYTHON -m pubharvest.cli``: an
  interpreter with another checkout installed (the code before a change);
- with ``--figures-alone``, ``pubharvest.metrics.metrics(pages, by="person")`` on records already decoded
  in this process (CPU time; it holds every record: several GB).
Goal: the command under 10 s wall (its median). Not a timed test.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import msgspec  # noqa: E402
from bench_merge import command  # noqa: E402
from figures import Run, median_seconds, run_once, verdict  # noqa: E402

from pubharvest.metrics import metrics  # noqa: E402
from pubharvest.parsers.records import (  # noqa: E402
    Ids,
    Metrics,
    PageResult,
    Profile,
    Publication,
    PublicationIds,
    Source,
    YearCitations,
)

GOAL_S = 10.0


def person_page(rng: random.Random, number: int, papers: int) -> PageResult:
    """One person's Scholar profile of ``papers`` rows."""
    user = f"P{number:07d}AAAJ"
    pubs = []
    for row in range(papers):
        authors = rng.randint(1, 12)
        pubs.append(Publication(
            title=f"Paper {row} of person {number}", authors=[f"A{k} Author" for k in range(min(authors, 6))],
            authors_truncated=authors > 6 or rng.random() < 0.2, year=None if rng.random() < 0.02 else
            rng.randint(1990, 2025), citations=int(rng.paretovariate(1.2)) - 1,
            ids=PublicationIds(scholar=f"{user}:{row:012d}")))
    counts = sorted((pub.citations or 0 for pub in pubs), reverse=True)
    h = max((rank for rank, count in enumerate(counts, 1) if count >= rank), default=0)
    return PageResult(site="scholar", page="profile", url=f"https://scholar.google.com/citations?user={user}",
                      profile=Profile(name=f"Person {number}", ids=Ids(scholar=user),
                                      metrics=Metrics(citations=sum(counts), h_index=h,
                                                      i10_index=sum(1 for c in counts if c >= 10)),
                                      citations_by_year=[YearCitations(year=y, citations=rng.randint(0, 500))
                                                         for y in range(2011, 2026)]),
                      publications=pubs,
                      source=Source(sha256="0" * 64, parser="bench", run="r1", fetched_at="2026-02-16T10:00:00Z"))


def write_input(path: Path, people: int, papers: int) -> None:
    rng, encoder = random.Random(23), msgspec.json.Encoder()
    with path.open("wb") as out:
        for number in range(people):
            out.write(encoder.encode(person_page(rng, number, papers)) + b"\n")


def load() -> str:
    """``uptime``'s three load averages."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def spread(values: Sequence[float]) -> tuple[float, float]:
    return min(values), statistics.median(values)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--people", type=int, default=10_000)
    args.add_argument("--papers", type=int, default=200)
    args.add_argument("--repeat", type=int, default=3)
    args.add_argument("--figures-alone", action="store_true", help="also time the figures on records in memory")
    args.add_argument("--before", metavar="PYTHON", help="also run the command under this interpreter")
    options = args.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "in.jsonl", Path(folder) / "out.csv"
        start = time.perf_counter()
        write_input(source, options.people, options.papers)
        print(f"{options.people:,} people x {options.papers} papers: {source.stat().st_size / 2**20:.0f} MB of JSON "
              f"Lines (written in {time.perf_counter() - start:.0f} s); {os.cpu_count()} CPUs")
        floor_argv = [*command(), "merge", str(source), "-f", "csv", "--table", "profiles", "-o", str(target),
                      "--max-bytes", "4G"]
        argv = [*command(), "metrics", str(source), "--by", "person", "-f", "csv", "-o", str(target),
                "--max-bytes", "4G"]
        before_argv = [options.before, "-m", "pubharvest.cli", *argv[len(command()):]] if options.before else None
        floors: list[Run] = []
        runs: list[Run] = []
        befores: list[Run] = []
        print(f"load average before: {load()}")
        for _ in range(options.repeat):  # interleaved: the machine's load falls on all alike
            floors.append(run_once(floor_argv))
            runs.append(run_once(argv))
            if before_argv:
                befores.append(run_once(before_argv))
        print(f"load average after:  {load()}")
        alone = figures_alone(source, options) if options.figures_alone else None
    report(floors, runs, befores, alone, options.people)


def figures_alone(source: Path, options: argparse.Namespace) -> float:
    decoder = msgspec.json.Decoder(PageResult)
    pages = [(source.name, decoder.decode(line)) for line in source.read_bytes().splitlines()]
    return median_seconds(lambda: metrics(pages, by="person"), options.repeat)


def report(floors: list[Run], runs: list[Run], befores: list[Run], alone: float | None, people: int) -> None:
    """The floor's and the command's figures (and those of the code before), min / median, the ratios to the
    floor and the verdict."""
    print(f"{'':58} {'wall min':>8} {'wall med':>8} {'CPU min':>8} {'CPU med':>8} {'peak MB':>8}  over the floor")
    (floor_wall, floor_wall_med), (floor_cpu, floor_cpu_med) = spread([r.wall for r in floors]), \
        spread([r.cpu for r in floors])
    for label, figures in (("floor: merge -f csv --table profiles (read, a row a person)", floors),
                           ("metrics --by person -f csv", runs), ("the same, the code before (--before)", befores)):
        if not figures:
            continue
        (wall, median_wall), (cpu, median_cpu) = spread([r.wall for r in figures]), spread([r.cpu for r in figures])
        print(f"{label:58} {wall:8.2f} {median_wall:8.2f} {cpu:8.2f} {median_cpu:8.2f} "
              f"{statistics.median(r.peak for r in figures):8.0f}  wall {wall / floor_wall:.2f}x / "
              f"{median_wall / floor_wall_med:.2f}x, CPU {cpu / floor_cpu:.2f}x / {median_cpu / floor_cpu_med:.2f}x")
    wall_med = statistics.median(r.wall for r in runs)
    print(f"goal: metrics --by person under {GOAL_S:.0f} s wall (median {wall_med:.2f} s)  "
          f"{verdict(wall_med < GOAL_S)}")
    if alone is not None:
        print(f"the figures alone (records in memory): {alone:.2f} s CPU, {alone / people * 1e6:.0f} us per person")


if __name__ == "__main__":
    main()
