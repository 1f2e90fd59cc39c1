"""Peak memory and speed of one parse of a 100 MB synthetic page, per site.

    PUBHARVEST_CORPUS=../shared/research python bench/bench_size.py [SITE ...] [--mb 100]

Each site has a function here that builds its synthetic page (a real page of the corpus with its
rows repeated) and hands it to ``measure``, which parses it in a fresh subprocess and prints the
page size, the peak resident memory the parse added (``ru_maxrss`` after minus before) as a ratio
to the page size with "ok" or "MISSED" against the goal (<= 10x), and MB/s. Nothing is asserted;
figures are of this run only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PUBHARVEST_CORPUS", ROOT.parent / "shared" / "research"))
GOAL = 10.0  # peak memory added by the parse, as a multiple of the page's size

_CHILD = """
import resource, sys, time
import pubharvest.parsers as parsers
data = open(sys.argv[1], "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
result = parsers.parse(data)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(before * 1024, peak * 1024, seconds, len(result.publications), len(result.warnings))
"""


def measure(site: str, page: bytes) -> dict[str, float]:
    """Parse ``page`` in a fresh interpreter; print and return its figures."""
    with tempfile.NamedTemporaryFile(suffix=".html") as handle:
        handle.write(page)
        handle.flush()
        out = subprocess.run([sys.executable, "-c", _CHILD, handle.name], check=True, capture_output=True,
                             text=True).stdout.split()
    before, peak, seconds, rows, warnings = float(out[0]), float(out[1]), float(out[2]), int(out[3]), int(out[4])
    size = len(page)
    figures = {"mb": size / 1e6, "ratio": (peak - before) / size, "mb_s": size / 1e6 / seconds, "rows": rows}
    verdict = "ok" if figures["ratio"] <= GOAL else "MISSED"
    print(f"{site:8} {figures['mb']:7.1f} MB  {rows:>8} rows  peak +{(peak - before) / 1e6:7.0f} MB "
          f"= {figures['ratio']:4.1f}x the page (goal <= {GOAL:g}x) {verdict}  {figures['mb_s']:5.1f} MB/s  "
          f"{warnings} warnings")
    return figures


def scholar(mb: float = 100) -> dict[str, float]:
    """A real 20-row profile with its rows repeated to ``mb`` MB, its row range saying so."""
    page = (CORPUS / "scholar" / "profile_RxmmtT8AAAAJ_scholar-scraper_2026.html").read_bytes()
    first = page.index(b'<tr class="gsc_a_tr"')
    end = page.index(b"</tbody>", first)
    rows = page[first:end]
    times = max(1, int((mb * 1e6 - len(page)) / len(rows)) + 1)
    body = page[:first] + rows * times + page[end:]
    return measure("scholar", body.replace(b"Articles 1&ndash;20", f"Articles 1&ndash;{20 * times}".encode()))


SITES: dict[str, Callable[..., dict[str, float]]] = {"scholar": scholar}


def main(argv: list[str]) -> None:
    mb = float(argv[argv.index("--mb") + 1]) if "--mb" in argv else 100
    names = [a for a in argv if a in SITES] or list(SITES)
    for name in names:
        SITES[name](mb)


if __name__ == "__main__":
    main(sys.argv[1:])
