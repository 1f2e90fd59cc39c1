"""Time and size of ``pubharvest report`` on 50 profiles of 300 papers each.

    PUBHARVEST_CORPUS=../shared/research python bench/bench_report.py [--profiles 50] [--papers 300]

The profiles are synthetic, made from a real Scholar profile of the corpus: its histogram, metrics
and rows, the rows repeated (titles numbered, counts varied) to ``--papers`` and the profile given a
new id and name for each of ``--profiles``. They are written as JSON Lines and reported with the
command line (reading, merging the 50 profiles, drawing, writing), with ``--top`` 100 (the default)
and 0 (every paper). The baseline, measured in the same run, is the floor of that work: reading the
same records and writing them back as JSON Lines (``read_results`` and ``to_json``). Goal:
the report of one 300-paper profile with ``--top 0`` under 5 MB ("ok" or "MISSED"). Nothing is
asserted; the figures are of this run only.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import msgspec

from pubharvest import parse
from pubharvest.cli import main
from pubharvest.inputs import read_results
from pubharvest.parsers.records import PageResult, to_json

ROOT = Path(__file__).resolve().parent.parent
SIZE_GOAL = 5e6  # bytes: one 300-paper profile, every paper shown
CORPUS = Path(os.environ.get("PUBHARVEST_CORPUS", ROOT.parent / "shared" / "research"))
PROFILE = "scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html"


def synthetic_profiles(real: PageResult, profiles: int, papers: int) -> list[PageResult]:
    """``profiles`` copies of ``real``, each with ``papers`` publications made from its rows."""
    assert real.profile is not None and real.publications
    rows = real.publications
    made = []
    for n in range(profiles):
        pubs = [msgspec.structs.replace(
            rows[i % len(rows)], title=f"{rows[i % len(rows)].title} ({n}.{i})",
            citations=((rows[i % len(rows)].citations or 0) * (i + 7)) % 5000,
            ids=msgspec.structs.replace(rows[i % len(rows)].ids, scholar=f"P{n}:{i}")) for i in range(papers)]
        ids = msgspec.structs.replace(real.profile.ids, scholar=f"P{n}")
        profile = msgspec.structs.replace(real.profile, name=f"{real.profile.name} {n}", ids=ids)
        made.append(msgspec.structs.replace(real, profile=profile, publications=pubs, url=None))
    return made


def run(argv: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    assert main(argv) == 0
    return time.perf_counter() - start, os.path.getsize(argv[argv.index("-o") + 1])


def baseline(records: Path, out: Path) -> float:
    """Seconds to read ``records`` and write them back as JSON Lines: the floor of any command on them."""
    start = time.perf_counter()
    out.write_bytes(b"".join(to_json(r) + b"\n" for r in read_results(records.read_bytes())))
    return time.perf_counter() - start


def bench(profiles: int, papers: int) -> None:
    real = parse((CORPUS / PROFILE).read_bytes())
    with tempfile.TemporaryDirectory() as folder:
        records = Path(folder) / "profiles.jsonl"
        records.write_bytes(b"".join(to_json(r) + b"\n" for r in synthetic_profiles(real, profiles, papers)))
        out = str(Path(folder) / "report.html")
        floor = min(baseline(records, Path(folder) / "copy.jsonl") for _ in range(3))  # the first warms imports
        print(f"baseline: read and write back the {profiles} profiles' records: {floor:.2f} s")
        for top in ("100", "0"):
            seconds, size = run(["report", str(records), "-o", out, "--top", top])
            print(f"report of {profiles} profiles x {papers} papers, --top {top}: "
                  f"{seconds:.2f} s ({seconds / floor:.1f}x the baseline), {size / 1e6:.2f} MB "
                  f"({size / profiles / 1e3:.0f} kB per profile)")
        single = Path(folder) / "one.jsonl"
        single.write_bytes(records.read_bytes().split(b"\n", 1)[0] + b"\n")
        seconds, size = run(["report", str(single), "-o", out, "--top", "0"])
        verdict = "ok" if size < SIZE_GOAL else "MISSED"
        print(f"report of 1 profile x {papers} papers, --top 0: {seconds:.2f} s, {size / 1e6:.3f} MB "
              f"(goal: under {SIZE_GOAL / 1e6:.0f} MB): {verdict}")


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--profiles", type=int, default=50)
    options.add_argument("--papers", type=int, default=300)
    args = options.parse_args()
    bench(args.profiles, args.papers)
