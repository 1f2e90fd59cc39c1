"""BibTeX and CSL-JSON exports at 1k, 10k, 100k and 1M publications beside the JSON Lines writer of
the same records, keys under collisions, and the memory of the streamed merged JSON.

    python bench/bench_exports.py [--sizes 1000,10000,100000,1000000] [--repeat 3]

Input: ``synthetic.faculty_pages`` (page results of profiles on three sites), held in memory; each
writer writes them all, as ``pubharvest parse -f FORMAT`` does, to /dev/null. Figures are CPU time
(the machine is shared with other work), medians of ``--repeat`` runs (one at 1M); the baseline
is ``-f jsonl`` (msgspec encoding) of the same records in the same run. The floors of the ratios are the same
publications as flat rows (title, authors, venue, year, date, type, DOI, arXiv id, URL) written by
``csv.writer`` (BibTeX's) and by ``json.dumps`` a row a line (CSL-JSON's), timed interleaved with the
exports, min and median.

Goals: 100k publications to BibTeX or CSL-JSON in <= 2 s and <= 2x its floor; keys linear in collisions (16,000 papers
of one base key take <= 2.5x the time of 8,000); the merged JSON written with a peak that does not
grow with the output (the peak while writing 100k papers <= 2x that of 10k, measured by
tracemalloc beside encoding the whole merge at once). Not a timed test.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
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

GOAL_100K_S, GOAL_FLOOR, GOAL_COLLISION_RATIO, GOAL_STREAM_RATIO = 2.0, 2.0, 2.5, 2.0


def export(fmt: str, results: list[PageResult]) -> None:
    with open("/dev/null", "w", encoding="utf-8") as stream:
        writer: Any = WRITERS[fmt](stream)
        for result in results:
            writer.write(result)
        writer.close()


def rows(results: list[PageResult]) -> list[dict[str, Any]]:
    """The same publications as flat rows of the fields the exports write (the floors' input)."""
    return [{"title": pub.title, "authors": pub.authors, "venue": pub.venue, "year": pub.year, "date": pub.date,
             "type": pub.type, "doi": pub.ids.doi, "arxiv": pub.ids.arxiv, "url": pub.url}
            for result in results for pub in result.publications]


def csv_floor(table: list[dict[str, Any]]) -> None:
    """``csv.writer`` of the rows, the authors joined: BibTeX's floor."""
    with open("/dev/null", "w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream)
        for row in table:
            writer.writerow([row["title"], "; ".join(row["authors"]), row["venue"], row["year"], row["date"],
                             row["type"], row["doi"], row["arxiv"], row["url"]])


def json_floor(table: list[dict[str, Any]]) -> None:
    """``json.dumps`` of each row, a row a line: CSL-JSON's floor."""
    with open("/dev/null", "w", encoding="utf-8") as stream:
        for row in table:
            stream.write(json.dumps(row, ensure_ascii=False) + "\n")


def timed(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def exports(sizes: list[int], repeat: int) -> None:
    print("exports of page results to /dev/null beside their floors (csv.writer / json.dumps of the same rows), "
          "interleaved; CPU time, min and median; the machine is shared with other work")
    times: dict[str, dict[int, float]] = {"bibtex": {}, "csl-json": {}}
    floors = {"bibtex": ("csv.writer", csv_floor), "csl-json": ("json.dumps", json_floor)}
    for size in sizes:
        results = [result for _, result in faculty_pages(size)]
        table = rows(results)
        runs: dict[str, list[float]] = {name: [] for name in ("jsonl", *floors, *(f for f, _ in floors.values()))}
        for _ in range(1 if size >= 1_000_000 else repeat):  # interleaved: the load falls on each alike
            for fmt, (floor_name, write_floor) in floors.items():
                runs[floor_name].append(timed(partial(write_floor, table)))
                runs[fmt].append(timed(partial(export, fmt, results)))
            runs["jsonl"].append(timed(partial(export, "jsonl", results)))
        print(f"{len(table):>9,} publications: jsonl {statistics.median(runs['jsonl']):.2f} s")
        for fmt, (floor_name, _) in floors.items():
            median, least = statistics.median(runs[fmt]), min(runs[fmt])
            floor, least_floor = statistics.median(runs[floor_name]), min(runs[floor_name])
            times[fmt][size] = median
            ratio = median / floor
            print(f"    {fmt:8} {median:6.2f} s (min {least:.2f}), {floor_name} {floor:5.2f} s (min {least_floor:.2f}):"
                  f" {ratio:.1f}x, min to min {least / least_floor:.1f}x (goal <= {GOAL_FLOOR:.0f}x)"
                  f"{'  ' + verdict(ratio <= GOAL_FLOOR) if size == 100_000 else ''}", flush=True)
    for fmt, figures in times.items():
        print(f"{fmt}:", end="")
        if len(figures) >= 2:
            print(f" fitted exponent k = {exponent(list(figures), list(figures.values())):.2f}", end="")
        if 100_000 in figures:
            print(f"{';' * (len(figures) >= 2)} 100k in {figures[100_000]:.2f} s (goal <= {GOAL_100K_S:.0f} s)  "
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
