"""``pubharvest merge`` of a university's records at 1k, 10k, 100k and 1M publications: time, peak
memory, the ratio 100k/10k and the fitted exponent.

    python bench/bench_merge.py [--sizes 1000,10000,100000,1000000] [--repeat 3]

Input: ``synthetic.faculty_pages`` (profiles on three sites, 1.7 listings per paper, title variants,
cut titles, near years, arXiv ids, DOIs and report numbers), written as JSON Lines of page results,
as ``pubharvest parse -f jsonl`` or a scraper job writes them. Each size runs the whole command,
``pubharvest merge IN.jsonl -o OUT.json`` (reading, merging, writing), in a process of its own:
the figures are its CPU time (user + system: the machine is shared with other work, and wall time
follows the load) and its peak resident memory, medians of ``--repeat`` runs (one run at 1M).

The floor of each size is a title-hash merge of the same input, also a whole process: the JSON Lines
decoded by msgspec (into dicts, no check), publications grouped by their lower-cased title with all
but letters and digits dropped, the groups written as JSON. Floor and merge runs are interleaved, so that
the machine's load falls on both; each is printed as its min and median and the merge as a ratio to its
floor (min to min, median to median).

Goals: 100k in <= 4 s and <= 2x its floor, <= 400 MB; 1M in <= 40 s; 100k/10k time ratio
<= 12 (near-linear). The exponent is fitted to the time beyond the start-up (the same command on no
records, measured first). Not a timed test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import msgspec  # noqa: E402
from figures import exponent, run_once, verdict  # noqa: E402
from synthetic import faculty_pages  # noqa: E402

GOAL_RATIO, GOAL_100K_S, GOAL_100K_FLOOR, GOAL_100K_MB, GOAL_1M_S = 12.0, 4.0, 2.0, 400.0, 40.0
# The floor: a merge by a hash of the title alone, reading and writing as the command does (argv: IN OUT).
TITLE_HASH_MERGE = """
import re, sys, msgspec
drop, groups = re.compile(r"[^a-z0-9]+"), {}
with open(sys.argv[1], "rb") as source:
    pages = msgspec.json.Decoder().decode_lines(source.read())
for page in pages:
    for pub in page["publications"]:
        groups.setdefault(drop.sub("", (pub["title"] or "").lower()), []).append(pub)
with open(sys.argv[2], "wb") as out:
    out.write(msgspec.json.encode(list(groups.values())))
"""


def write_input(path: Path, publications: int) -> int:
    """JSON Lines of the synthetic page results; returns the number of publications written."""
    encoder, count = msgspec.json.Encoder(), 0
    with path.open("wb") as out:
        for _, result in faculty_pages(publications):
            out.write(encoder.encode(result) + b"\n")
            count += len(result.publications)
    return count


def command() -> list[str]:
    script = Path(sys.executable).with_name("pubharvest")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pubharvest.cli"]


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--sizes", default="1000,10000,100000,1000000", help="publication counts, comma-separated")
    args.add_argument("--repeat", type=int, default=3, help="runs per size below 1M; the median is printed")
    args.add_argument("--format", default="json", help="output format of the merge (default: json)")
    options = args.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    figures: dict[int, tuple[float, float, float]] = {}
    ratios: dict[int, tuple[float, float]] = {}
    print(f"pubharvest merge IN.jsonl -f {options.format} -o OUT (CPU time and peak RSS of the process; "
          "medians; the machine is shared with other work)")
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.json"  # one page result of no rows: a list of none is no_pages, exit 1
        empty.write_text('[{"site": "msr", "page": "rows"}]')
        runs = [run_once([*command(), "merge", str(empty), "-o", str(Path(folder) / "out")]) for _ in range(5)]
        start_up = statistics.median(r.cpu for r in runs)
        print(f"baseline, the same command on no records (start-up): {start_up:.2f} s CPU, "
              f"{statistics.median(r.peak for r in runs):.0f} MB peak")
        for size in sizes:
            source, target = Path(folder) / f"in{size}.jsonl", Path(folder) / f"out{size}"
            count = write_input(source, size)
            argv = [*command(), "merge", str(source), "-f", options.format, "-o", str(target), "--max-bytes", "4G"]
            floor_argv = [sys.executable, "-c", TITLE_HASH_MERGE, str(source), str(target) + ".floor"]
            runs, floors = [], []
            for _ in range(1 if size >= 1_000_000 else options.repeat):  # interleaved: the load falls on both
                floors.append(run_once(floor_argv))
                runs.append(run_once(argv))
            wall, cpu, peak = (statistics.median(column) for column in zip(*runs, strict=True))  # Run's order
            floor, least, least_floor = statistics.median(f.cpu for f in floors), min(r.cpu for r in runs), \
                min(f.cpu for f in floors)
            figures[size] = (cpu, wall, peak)
            ratios[size] = (cpu / floor, least / least_floor)
            print(f"{count:>9,} publications ({source.stat().st_size / 2**20:6.1f} MB in): "
                  f"{cpu:7.2f} s CPU (min {least:.2f})  {wall:7.2f} s wall  {peak:7.0f} MB peak  "
                  f"{cpu / count * 1e6:6.1f} us/publication; floor {floor:.2f} s (min {least_floor:.2f}): "
                  f"{cpu / floor:.1f}x (min to min {least / least_floor:.1f}x)", flush=True)
            Path(str(target) + ".floor").unlink()
            source.unlink()
            target.unlink()
    if len(figures) >= 2:
        work = [max(f[0] - start_up, 1e-3) for f in figures.values()]
        print(f"fitted exponent (time - start-up ~ size^k): k = {exponent(list(figures), work):.2f}")
    if 10_000 in figures and 100_000 in figures:
        ratio = figures[100_000][0] / figures[10_000][0]
        print(f"ratio 100k/10k: {ratio:.1f}x (goal <= {GOAL_RATIO:.0f}x)  {verdict(ratio <= GOAL_RATIO)}")
    if 100_000 in figures:
        cpu, _, peak = figures[100_000]
        median_ratio, min_ratio = ratios[100_000]
        print(f"100k: {cpu:.2f} s (goal <= {GOAL_100K_S:.0f} s)  {verdict(cpu <= GOAL_100K_S)}; "
              f"{median_ratio:.1f}x its floor, min to min {min_ratio:.1f}x (goal <= {GOAL_100K_FLOOR:.0f}x)  "
              f"{verdict(median_ratio <= GOAL_100K_FLOOR)}; "
              f"{peak:.0f} MB peak (goal <= {GOAL_100K_MB:.0f} MB)  {verdict(peak <= GOAL_100K_MB)}")
    if 1_000_000 in figures:
        cpu = figures[1_000_000][0]
        print(f"1M: {cpu:.1f} s (goal <= {GOAL_1M_S:.0f} s)  {verdict(cpu <= GOAL_1M_S)}")


if __name__ == "__main__":
    main()
