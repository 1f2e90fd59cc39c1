"""Parse time of a large MSR people publications page, next to a bare lxml parse of the same bytes.

    python bench/bench_msr.py [--copies 100,1000] [--repeat 15]

The page is the hand-written fixture with every ``<article>`` repeated ``--copies`` times (each
copy a different paper, listed in the same groups), so de-duplication and facets do real work:
100 copies are 500 papers, 1,000 copies 5,000. Goal: <= 3x the raw lxml parse at both,
and linear in papers (the time per paper at 5,000 <= 1.5x that at 500). Medians of CPU time (the machine is shared).
Beside them, for where the time goes: the streamed tree alone (``page.html_root_streamed``, which the MSR
parser reads the page with, each article cleared as it closes and nothing read).
Not a timed test: it prints numbers and asserts nothing about them.
"""

from __future__ import annotations

import argparse
import gc
import re
import sys
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import lxml.html  # noqa: E402
from bench_size_msr_elamur import enlarged_msr  # noqa: E402
from figures import median_seconds, verdict  # noqa: E402

from pubharvest.parsers import msr  # noqa: E402
from pubharvest.parsers.page import Document, html_root_streamed, utf8_pieces  # noqa: E402
from pubharvest.parsers.records import PageResult  # noqa: E402

PAGE = ROOT / "fixtures" / "msr" / "010_people_publications.html"
ARTICLE = re.compile(r"<article\b.*?</article>", re.S)


def parsed(data: bytes) -> PageResult:
    """The page as ``msr.parse`` reads it: decoded, parsed and extracted."""
    return msr.parse(Document.from_input(data))


def streamed_tree(data: bytes) -> None:
    """The page's tree built as the MSR parser builds it (the cycle collector paused, as it pauses it), each
    article cleared as it closes and nothing read."""
    gc.disable()
    try:
        doc = Document.from_input(data)
        html_root_streamed(utf8_pieces(doc.text, doc.raw), "article", lambda article: article.clear())
    finally:
        gc.enable()


def big_page(copies: int) -> bytes:
    """The fixture page with each article repeated ``copies`` times, copy ``i`` being paper ``i``."""
    return enlarged_msr(PAGE.read_text(encoding="utf-8"), copies).encode("utf-8")


GOAL_RATIO, GOAL_GROWTH = 3.0, 1.5


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--copies", default="100,1000", help="copies of each article, comma-separated (default 100,1000)")
    args.add_argument("--repeat", type=int, default=15, help="timed runs; the median is printed (default 15)")
    options = args.parse_args()

    per_paper = []
    for copies in map(int, options.copies.split(",")):
        data = big_page(copies)
        result = parsed(data)
        listings = len(ARTICLE.findall(data.decode("utf-8")))
        print(f"page: {len(data) / 1024:.0f} KiB, {listings} article listings, {len(result.publications)} papers")
        # Each timed in a row (in turn, each would run on memory the one before just gave back to the system).
        parse = median_seconds(partial(parsed, data), options.repeat)
        raw = median_seconds(partial(lxml.html.fromstring, data), options.repeat)
        streamed = median_seconds(partial(streamed_tree, data), options.repeat)
        per_paper.append(parse / len(result.publications))
        print(f"  msr.parse (decode + parse + extract): {parse * 1000:8.2f} ms  (median of {options.repeat}, CPU)")
        print(f"  lxml.html.fromstring (same bytes):    {raw * 1000:8.2f} ms  (median of {options.repeat}, CPU)")
        print(f"  streamed tree alone (decode + parse):  {streamed * 1000:8.2f} ms  ({streamed / raw:.1f}x lxml)")
        print(f"  ratio: {parse / raw:.1f}x (goal <= {GOAL_RATIO:.0f}x)  {verdict(parse / raw <= GOAL_RATIO)}")
    if len(per_paper) > 1:
        growth = per_paper[-1] / per_paper[0]
        print(f"time per paper, largest page / smallest: {growth:.2f}x (linear: 1x; goal <= {GOAL_GROWTH}x)  "
              f"{verdict(growth <= GOAL_GROWTH)}")


if __name__ == "__main__":
    main()
