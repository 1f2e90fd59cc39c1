"""Scholar parse speed against the floor: the raw ``lxml.html`` parse of the same bytes.

    PUBHARVEST_CORPUS=../shared/research python bench/bench_scholar.py

Prints, per real page, the median full ``parsers.parse`` time, the median raw lxml parse time,
and their ratio (goals: within 3x for a 20-row profile page, within 6x for the 1,114-row
fragment), then the start-up time of ``pubharvest --help`` beside a bare ``python -c pass``.
Figures are measured in this run only; no timing is asserted anywhere in the tests.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import lxml.html

import pubharvest.parsers as parsers

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PUBHARVEST_CORPUS", ROOT.parent / "shared" / "research"))
PAGES = [*sorted((CORPUS / "scholar").glob("profile_*.html")),
         CORPUS / "scholar" / "fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html"]
GOALS = {"profile": 3.0, "rows": 6.0}


def _seconds(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def median_seconds(work, repeat: int) -> float:
    return statistics.median(_seconds(work) for _ in range(repeat))


def paired_medians(full, floor, repeat: int) -> tuple[float, float]:
    """Median times of ``full`` and ``floor``, run alternately so that both see the same machine."""
    pairs = [(_seconds(full), _seconds(floor)) for _ in range(repeat)]
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def raw_lxml(data: bytes) -> None:
    if data.lstrip().startswith(b"<tr"):  # a bare row fragment needs a table around it, as the parser gives it
        lxml.html.fromstring(b"<table><tbody>" + data + b"</tbody></table>")
    else:
        lxml.html.fromstring(data)


def against_lxml(data: bytes, goal: float, repeat: int = 201) -> str:
    """``parse ms, lxml ms, ratio, <= goal verdict`` for one page: its median parse time beside a raw
    lxml parse of the same bytes, as the columns the page benches print."""
    full, floor = paired_medians(lambda: parsers.parse(data), lambda: raw_lxml(data), repeat)
    ratio = full / floor
    return f"{full * 1e3:9.3f} {floor * 1e3:8.3f} {ratio:6.2f} <= {goal:.0f}x {'ok' if ratio <= goal else 'MISSED'}"


def main() -> None:
    print(f"{'page':58} {'rows':>5} {'parse ms':>9} {'lxml ms':>8} {'ratio':>6} goal")
    for page in PAGES:
        data = page.read_bytes()
        result = parsers.parse(data)
        repeat = 31 if len(data) > 500_000 else 201
        full, floor = paired_medians(partial(parsers.parse, data), partial(raw_lxml, data), repeat)
        goal = GOALS[result.page]
        ratio = full / floor
        verdict = "ok" if ratio <= goal else "MISSED"
        print(f"{page.name[:58]:58} {len(result.publications):5d} {full * 1e3:9.2f} {floor * 1e3:8.2f} "
              f"{ratio:6.2f} <= {goal:.0f}x {verdict}")
    cli = [sys.executable, "-m", "pubharvest.cli", "--help"]
    bare = [sys.executable, "-c", "pass"]
    run = lambda cmd: subprocess.run(cmd, capture_output=True, check=True)  # noqa: E731
    help_time = median_seconds(lambda: run(cli), 9)
    bare_time = median_seconds(lambda: run(bare), 9)
    verdict = "ok" if help_time < 0.2 else "MISSED"
    print(f"pubharvest --help: {help_time * 1e3:.0f} ms "
          f"(bare python: {bare_time * 1e3:.0f} ms; goal < 200 ms) {verdict}")


if __name__ == "__main__":
    main()
