"""``pubharvest metrics --by person`` over 10,000 people of 200 papers each: the whole command's time beside
a floor measured in the same run, and the figures alone (records already in memory).

    python bench/bench_metrics.py [--people 10000] [--papers 200] [--repeat 3]

Input: one Scholar profile per person (as a job writes it: a fetch time, the stated h, i10 and citations,
a 15-year chart), 200 rows each with counts drawn from a heavy-tailed law, years 1990-2025, 1 to 12
authors (a list cut short in one row in five), a row in fifty without a year; written as JSON Lines.

Figures (CPU time, min and median of ``--repeat`` runs, the command's and its floor's interleaved; the machine
is shared, and wall time follows its load):
- the command, ``pubharvest metrics IN.jsonl --by person -f csv -o OUT`` (reading, figures, writing);
- the floor, ``pubharvest merge IN.jsonl -f csv --table profiles -o OUT``: the same records read and one
  row per person written, no figure computed;
- the figures alone: ``pubharvest.metrics.metrics(pages, by="person")`` on the decoded records.
Goal: the command under 10 s. Not a timed test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import msgspec  # noqa: E402
from bench_merge import command, run_once  # noqa: E402
from figures import median_seconds, verdict  # noqa: E402

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


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--people", type=int, default=10_000)
    args.add_argument("--papers", type=int, default=200)
    args.add_argument("--repeat", type=int, default=3)
    options = args.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "in.jsonl", Path(folder) / "out.csv"
        start = time.perf_counter()
        write_input(source, options.people, options.papers)
        print(f"{options.people:,} people x {options.papers} papers: {source.stat().st_size / 2**20:.0f} MB of JSON "
              f"Lines (written in {time.perf_counter() - start:.0f} s)")
        floor_argv = [*command(), "merge", str(source), "-f", "csv", "--table", "profiles", "-o", str(target),
                      "--max-bytes", "4G"]
        argv = [*command(), "metrics", str(source), "--by", "person", "-f", "csv", "-o", str(target),
                "--max-bytes", "4G"]
        floors, runs = [], []
        for _ in range(options.repeat):  # interleaved: the machine's load falls on both alike
            floors.append(run_once(floor_argv)[0])
            runs.append(run_once(argv))
        floor, cpu, peak = statistics.median(floors), statistics.median(r[0] for r in runs), \
            statistics.median(r[2] for r in runs)
        least, least_floor = min(r[0] for r in runs), min(floors)
        decoder = msgspec.json.Decoder(PageResult)
        pages = [(source.name, decoder.decode(line)) for line in source.read_bytes().splitlines()]
        alone = median_seconds(lambda: metrics(pages, by="person"), options.repeat)
    print(f"floor, merge -f csv --table profiles (read, one row per person): {floor:6.2f} s CPU "
          f"(min {least_floor:.2f})")
    print(f"metrics --by person -f csv:                                   {cpu:6.2f} s CPU (min {least:.2f}), "
          f"{peak:.0f} MB peak, {cpu / floor:.1f}x the floor (min to min {least / least_floor:.1f}x)  "
          f"(goal < {GOAL_S:.0f} s)  {verdict(cpu < GOAL_S)}")
    print(f"the figures alone (records in memory):                        {alone:6.2f} s CPU, "
          f"{alone / options.people * 1e6:.0f} us per person")


if __name__ == "__main__":
    main()
