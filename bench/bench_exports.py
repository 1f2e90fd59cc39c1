"""BibTeX and CSL-JSON exports at 1k, 10k, 100k and 1M publications beside the JSON Lines writer of
the same records, keys under collisions, and the memory of the streamed merged JSON.

    python bench/bench_exports.py [--sizes 1000,10000,100000,1000000] [--repeat 3]

Input: ``synthetic.faculty_pages`` (page results of profiles on three sites), held in memory; each
writer writes them all, as ``pubharvest parse -f FORMAT`` does, to /dev/null. Figures are CPU time
(the machine is shared with other work), medians of ``--repeat`` runs (one at 1M); the baseline
is ``-f jsonl`` (msgspec encoding) of the same records in the same run.

Goals: 100k publications to BibTeX or CSL-JSON in <= 2 s; keys linear in collisions (16,000 papers
of one base key take <= 2.5x the time of 8,000); the merged JSON written with a peak that does not
grow with the output (the peak while writing 100k papers <= 2x that of 10k, measured by
tracemalloc beside encoding the whole merge at once). Not a timed test.
"""

from __future__ import annotations

import argparse
import sys
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from figures import exponent, median_seconds, verdict  # noqa: E402
from synthetic import faculty_pages  # noqa: E402

from pubharvest.keys import Keys  # noqa: E402
from pubharvest.merge import merge  # noqa: E402
from pubharvest.output import WRITERS, MergedJsonWriter  # noqa: E402
from pubharvest.parsers.records import PageResult, Publication, to_json  # noqa: E402

GOAL_100K_S, GOAL_COLLISION_RATIO, GOAL_STREAM_RATIO = 2.0, 2.5, 2.0


def export(fmt: str, results: list[PageResult]) -> None:
    with open("/dev/null", "w", encoding="utf-8") as stream:
        writer: Any = WRITERS[fmt](stream)
        for result in results:
            writer.write(result)
        writer.close()


def exports(sizes: list[int], repeat: int) -> None:
    print("exports of page results to /dev/null (CPU time, medians; the machine is shared with other work)")
    times: dict[str, dict[int, float]] = {"bibtex": {}, "csl-json": {}}
    for size in sizes:
        results = [result for _, result in faculty_pages(size)]
        count = sum(len(r.publications) for r in results)
        measured = {fmt: median_seconds(partial(export, fmt, results), 1 if size >= 1_000_000 else repeat)
                    for fmt in ("jsonl", *times)}
        base = measured.pop("jsonl")
        line = f"{count:>9,} publications: jsonl {base:6.2f} s"
        for fmt, seconds in measured.items():
            times[fmt][size] = seconds
            line += f"  {fmt} {seconds:6.2f} s ({seconds / base:4.1f}x jsonl)"
        print(line, flush=True)
    for fmt, figures in times.items():
        if len(figures) >= 2:
            print(f"{fmt}: fitted exponent k = {exponent(list(figures), list(figures.values())):.2f}", end="")
        if 100_000 in figures:
            print(f"; 100k in {figures[100_000]:.2f} s (goal <= {GOAL_100K_S:.0f} s)  "
                  f"{verdict(figures[100_000] <= GOAL_100K_S)}", end="")
        print()


def collisions(repeat: int) -> None:
    def keys_of(count: int) -> Callable[[], object]:
        pubs = [Publication(title="Zero", authors=["S Rajbhandari"], year=2020) for _ in range(count)]

        def give() -> list[str]:
            keys = Keys()
            return [keys.key(pub) for pub in pubs]
        return give
    small, large = (median_seconds(keys_of(count), repeat) for count in (8_000, 16_000))
    ratio = large / small
    print(f"keys, one base key: 8,000 papers {small * 1000:.1f} ms, 16,000 papers {large * 1000:.1f} ms: "
          f"{ratio:.1f}x (linear: 2x; goal <= {GOAL_COLLISION_RATIO}x)  {verdict(ratio <= GOAL_COLLISION_RATIO)}")


def traced_peak(work: Callable[[], object]) -> int:
    """Bytes allocated at the peak of ``work`` beyond what was held before it."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    work()
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return peak


def streamed_json() -> None:
    def streamed(merged) -> Callable[[], object]:
        def write() -> None:
            with open("/dev/null", "w", encoding="utf-8") as stream:
                MergedJsonWriter(stream).write(merged)
        return write

    peaks = {}
    for size in (10_000, 100_000):
        merged = merge(faculty_pages(size))
        whole = traced_peak(partial(to_json, merged))
        peaks[size] = traced_peak(streamed(merged))
        print(f"merged JSON of {len(merged.papers):,} papers ({len(to_json(merged)) / 2**20:.1f} MB): "
              f"streamed peak {peaks[size] / 2**20:.2f} MB, whole-encoding peak {whole / 2**20:.1f} MB "
              f"({whole / peaks[size]:.0f}x)", flush=True)
    ratio = peaks[100_000] / peaks[10_000]
    print(f"streamed peak 100k/10k: {ratio:.2f}x (goal <= {GOAL_STREAM_RATIO:.0f}x)  "
          f"{verdict(ratio <= GOAL_STREAM_RATIO)}")


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--sizes", default="1000,10000,100000,1000000", help="publication counts, comma-separated")
    args.add_argument("--repeat", type=int, default=3, help="runs per size below 1M; the median is printed")
    options = args.parse_args()
    exports([int(size) for size in options.sizes.split(",")], options.repeat)
    collisions(options.repeat)
    streamed_json()


if __name__ == "__main__":
    main()
