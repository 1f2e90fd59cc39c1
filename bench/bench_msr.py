"""Parse time of a large MSR people publications page, next to a bare lxml parse of the same bytes.

    python bench/bench_msr.py [--copies 100] [--repeat 15]

The page is the hand-written fixture with every ``<article>`` repeated ``--copies`` times (each
copy a different paper, listed in the same groups), so de-duplication and facets do real work.
Not a timed test: it prints numbers and asserts nothing about them.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import lxml.html  # noqa: E402
from bench_size_msr_elamur import enlarged_msr  # noqa: E402

from pubharvest.parsers import msr  # noqa: E402
from pubharvest.parsers.page import Document  # noqa: E402

PAGE = ROOT / "fixtures" / "msr" / "010_people_publications.html"
ARTICLE = re.compile(r"<article\b.*?</article>", re.S)


def big_page(copies: int) -> bytes:
    """The fixture page with each article repeated ``copies`` times, copy ``i`` being paper ``i``."""
    return enlarged_msr(PAGE.read_text(encoding="utf-8"), copies).encode("utf-8")


def median_seconds(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--copies", type=int, default=100, help="copies of each article (default 100)")
    args.add_argument("--repeat", type=int, default=15, help="timed runs; the median is printed (default 15)")
    options = args.parse_args()

    data = big_page(options.copies)
    result = msr.parse(Document.from_input(data))
    listings = len(ARTICLE.findall(data.decode("utf-8")))
    print(f"page: {len(data) / 1024:.0f} KiB, {listings} article listings, {len(result.publications)} papers")

    parse = median_seconds(lambda: msr.parse(Document.from_input(data)), options.repeat)
    raw = median_seconds(lambda: lxml.html.fromstring(data), options.repeat)
    print(f"msr.parse (decode + parse + extract): {parse * 1000:8.2f} ms  (median of {options.repeat})")
    print(f"lxml.html.fromstring (same bytes):    {raw * 1000:8.2f} ms  (median of {options.repeat})")
    print(f"ratio:                                {parse / raw:8.1f} x")


if __name__ == "__main__":
    main()
