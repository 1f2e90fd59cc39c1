"""Parse time of a large MSR people publications page, next to a bare lxml parse of the same bytes.

    python bench/bench_msr.py [--copies 20,200,1000] [--repeat 15]

The page is the hand-written fixture with every ``<article>`` repeated ``--copies`` times (each
copy a different paper, listed in the same groups), so de-duplication and facets do real work:
20 copies are 100 papers, 200 copies 1,000, 1,000 copies 5,000. Goal: <= 2.5x the raw lxml parse
(``lxml.html.fromstring``, the floor), run in turn with it (``figures.interleaved``: CPU time, min and
median), and linear in papers (the time per paper at the largest <= 1.5x that at the smallest). ``msr.parse``
runs with the cycle collector paused, as ``parsers.parse`` runs every site parser; beside it, ``parse`` is that
whole call (decoding, every site's refusals and sniffing, the parse: what ``pubharvest parse`` does), and for
where the time goes, the tree as the parser builds it with nothing read (``html_root_read``: one whole tree
up to ``page.WHOLE_TREE_BYTES``, the streamed reading past it).
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
from figures import HEADER, interleaved, verdict  # noqa: E402

import pubharvest.parsers  # noqa: E402
from pubharvest.parsers import msr, page  # noqa: E402
from pubharvest.parsers.page import Document  # noqa: E402
from pubharvest.parsers.records import PageResult  # noqa: E402
from pubharvest.parsers.text import paused_gc  # noqa: E402

PAGE = ROOT / "fixtures" / "msr" / "010_people_publications.html"
ARTICLE = re.compile(r"<article\b.*?</article>", re.S)


def parsed(data: bytes) -> PageResult:
    """The page as ``msr.parse`` reads it: decoded, parsed and extracted, the cycle collector paused as
    ``parsers.parse`` pauses it around a site parser."""
    doc = Document.from_input(data)
    with paused_gc():
        return msr.parse(doc)


def bare_tree(data: bytes) -> None:
    """The page's tree built as the MSR parser builds it (the cycle collector paused, as it pauses it), each
    article handed over and nothing read."""
    gc.disable()
    try:
        doc = Document.from_input(data)
        if hasattr(page, "html_root_read"):
            page.html_root_read(doc.text, doc.raw, "article", lambda article: None)
        else:  # the parser before html_root_read (to measure it): always streamed
            page.html_root_streamed(page.utf8_pieces(doc.text, doc.raw), "article", lambda article: None)
    finally:
        gc.enable()


def big_page(copies: int) -> bytes:
    """The fixture page with each article repeated ``copies`` times, copy ``i`` being paper ``i``."""
    return enlarged_msr(PAGE.read_text(encoding="utf-8"), copies).encode("utf-8")


GOAL_RATIO, GOAL_GROWTH = 2.5, 1.5


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--copies", default="20,200,1000",
                      help="copies of each article, comma-separated (default 20,200,1000)")
    args.add_argument("--repeat", type=int, default=15, help="timed runs; the median is printed (default 15)")
    options = args.parse_args()

    per_paper = []
    for copies in map(int, options.copies.split(",")):
        data = big_page(copies)
        result = parsed(data)
        listings = len(ARTICLE.findall(data.decode("utf-8")))
        print(f"page: {len(data) / 1024:.0f} KiB, {listings} article listings, {len(result.publications)} papers")
        print(f"  {'':34} {HEADER}")
        paired = interleaved(partial(parsed, data), partial(lxml.html.fromstring, data), options.repeat)
        whole = interleaved(partial(pubharvest.parsers.parse, data), partial(lxml.html.fromstring, data),
                            options.repeat)
        tree = interleaved(partial(bare_tree, data), partial(lxml.html.fromstring, data), options.repeat)
        per_paper.append(paired.work[1] / len(result.publications))
        print(f"  {'msr.parse / fromstring':34} {paired.line(GOAL_RATIO)}")
        print(f"  {'parse (whole call) / fromstring':34} {whole.line(GOAL_RATIO)}")
        print(f"  {'tree alone / fromstring':34} {tree.line(GOAL_RATIO)}")
    if len(per_paper) > 1:
        growth = per_paper[-1] / per_paper[0]
        print(f"time per paper, largest page / smallest: {growth:.2f}x (linear: 1x; goal <= {GOAL_GROWTH}x)  "
              f"{verdict(growth <= GOAL_GROWTH)}")


if __name__ == "__main__":
    main()
