"""Scholar's single-publication page and co-author list: parse time against the floor, the raw
``lxml.html`` parse of the same bytes (goal: within 3x; CPU time, min and median, each run in turn with its floor).

    python bench/bench_scholar_pages.py

The pages are generated here from the hand-made fixtures: a publication page whose chart spans 40
years, and co-author lists of 20 and 300 cards in the current dialog layout. The real pages of the
corpus (``PUBHARVEST_CORPUS``) are measured too when it is there. Figures are measured in this
run only; no timing is asserted anywhere in the tests.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from bench_scholar import against_lxml
from figures import HEADER

import pubharvest.parsers as parsers

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "scholar"
CORPUS = Path(os.environ.get("PUBHARVEST_CORPUS", ROOT.parent / "shared" / "research")) / "scholar"
REAL = ["view_citation_SbUmSEAAAAAJ_compscidr_2024_prettified.html",
        "legacy2013_view_citation_fragment_ruby-google-scholar.htm",
        "list_colleagues_-FW8OqsAAAAJ_6coauthors_bowding_2017.html",
        "list_colleagues_-6MSlJkAAAAJ_none_bowding_2017.html"]
GOAL = 3.0


def publication_with_years(years: int) -> bytes:
    """The hand-made French publication page with a bar for each of ``years`` years."""
    page = (FIXTURES / "handwritten_view_citation_fr.html").read_text(encoding="utf-8")
    first = 2025 - years
    labels = "".join(f'<span class="gsc_oci_g_t" style="left:{i * 33}px">{first + i}</span>' for i in range(years))
    bars = "".join(f'<a href="https://scholar.google.com/scholar?oi=bibs&amp;hl=fr&amp;cites=111,222&amp;as_sdt=5'
                   f'&amp;as_ylo={first + i}&amp;as_yhi={first + i}" class="gsc_oci_g_a" style="left:{i * 33 + 5}px;'
                   f'height:4px;top:36px;z-index:{years - i}"><span class="gsc_oci_g_al">{i + 1}</span></a>'
                   for i in range(years))
    chart = re.compile(r'(<div id="gsc_oci_graph_bars">).*?(</div>)', re.S)
    return chart.sub(lambda m: m.group(1) + labels + bars + m.group(2), page, count=1).encode()


def coauthors(count: int) -> bytes:
    """The hand-made co-author dialog with ``count`` cards (its first card, renumbered)."""
    page = (FIXTURES / "handwritten_coauthors_dialog.html").read_text(encoding="utf-8")
    head, first, _ = page.split('<div class="gsc_ucoar gs_scl"')
    card = '<div class="gsc_ucoar gs_scl"' + first
    cards = "".join(card.replace("5RZfcocAAAAJ", f"C{i:07d}AAAAJ").replace("Kalpana Platel", f"Person {i}")
                    for i in range(count))
    return (head + cards + "</div>\n").encode()


def pages() -> list[tuple[str, bytes]]:
    made = [("generated: publication, 40 chart years", publication_with_years(40)),
            ("generated: publication, chapter", (FIXTURES / "handwritten_view_citation_chapter.html").read_bytes()),
            ("generated: co-author dialog, 20 cards", coauthors(20)),
            ("generated: co-author dialog, 300 cards", coauthors(300))]
    real = [(f"corpus: {name}", (CORPUS / name).read_bytes()) for name in REAL if (CORPUS / name).is_file()]
    return made + real


def main() -> None:
    print(f"{'page':62} {'kind':>12} {HEADER}")
    for name, data in pages():
        result = parsers.parse(data)
        print(f"{name[:62]:62} {result.page:>12} {against_lxml(data, GOAL)}")


if __name__ == "__main__":
    main()
