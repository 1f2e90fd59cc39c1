"""Scholar search pages' parse speed against the floor: the raw ``lxml.html`` parse of the same bytes.

    python bench/bench_search.py

Builds its own pages: a ``/scholar?q=`` results page of 10 and of 20 results (the 2020+ markup,
with full-text links, linked authors and the page bar) and an author search page of 10 profile
cards, each with the size and element count of a real page's head (style, script, menus); when
``PUBHARVEST_CORPUS`` holds the real search pages, they are measured too. Prints the median full
``parsers.parse`` time, the median raw lxml time and their ratio against the goal (within 3x),
"ok" or "MISSED". No timing is asserted in the tests.
"""

from __future__ import annotations

import os
from pathlib import Path

from bench_scholar import against_lxml
from figures import HEADER

import pubharvest.parsers as parsers

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PUBHARVEST_CORPUS", ROOT.parent / "shared" / "research"))
GOAL = 3.0
# A real results page (2025) carries ~53 KB of inline style, ~58 KB of script and ~800 elements of
# menus and forms before its results: the made pages do too.
MENU = "".join(f'<li class="gs_md_li"><a href="/scholar?as_ylo={2000 + n}&amp;hl=en" class="gs_md_li">'
               f'<span class="gs_lbl">Since {2000 + n}</span></a></li>' for n in range(200))
HEAD = ("<!doctype html><html><head><title>q - Google Scholar</title><style>" + ".gs_x{margin:0}" * 3500 +
        "</style><script>" + "var gs_x=function(a){return a+1};" * 1700 + "</script></head><body>"
        '<div id="gs_hdr_drw"><ul>' + MENU + "</ul></div>")

RESULT = (
    '<div class="gs_r gs_or gs_scl" data-cid="R{n:010d}J" data-rp="{n}"><div class="gs_ggs gs_fl"><div class="gs_ggsd">'
    '<div class="gs_or_ggsm"><a href="https://example.org/{n}.pdf"><span class="gs_ctg2">[PDF]</span> example.org</a>'
    '</div></div></div><div class="gs_ri"><h3 class="gs_rt"><span class="gs_ctc"><span class="gs_ct1">[PDF]</span>'
    '<span class="gs_ct2">[PDF]</span></span> <a id="R{n:010d}J" href="https://example.org/{n}" data-clk="d={n}">'
    'A study of <b>river</b> fish number {n}</a></h3><div class="gs_a"><a href="/citations?user=U{n:010d}J&amp;'
    'hl=en&amp;oi=sra">A Bee</a>, C Dee, E Eff\u2026&#160;- Journal of Rivers, 2020 - example.org</div>'
    '<div class="gs_rs">Abstract ' + "words of the snippet " * 12 + '</div><div class="gs_fl">'
    '<a href="javascript:void(0)" class="gs_or_sav" role="button"></a> <a href="/scholar?cites={n}&amp;hl=en">'
    'Cited by {n}</a> <a href="/scholar?q=related:R{n:010d}J:scholar.google.com/&amp;hl=en">Related articles</a> '
    '<a href="/scholar?cluster={n}&amp;hl=en" class="gs_nph">All 4 versions</a></div></div></div>')
CARD = (
    '<div class="gsc_1usr"><div class="gs_ai gs_scl gs_ai_chpr"><a href="/citations?hl=en&amp;user=U{n:010d}J" '
    'class="gs_ai_pho"><img src="/i.png"></a><div class="gs_ai_t"><h3 class="gs_ai_name"><a href="/citations?hl=en'
    '&amp;user=U{n:010d}J">Author {n}</a></h3><div class="gs_ai_aff">University {n}</div><div class="gs_ai_eml">'
    'Verified email at u{n}.edu</div><div class="gs_ai_cby">Cited by {n}</div><div class="gs_ai_int">'
    '<a class="gs_ai_one_int" href="/citations?view_op=search_authors&amp;mauthors=label:fish">Fish</a> '
    '<a class="gs_ai_one_int" href="/citations?view_op=search_authors&amp;mauthors=label:rivers">Rivers</a>'
    '</div></div></div></div>')


def results_page(count: int) -> bytes:
    nav = "".join(f'<td><a href="/scholar?start={10 * p}&amp;q=fish">{p + 1}</a></td>' for p in range(1, 10))
    return (HEAD + '<div id="gs_hdr"><input name="q" value="fish"></div><div id="gs_ab_md"><div class="gs_ab_mdw">'
            'About 1,620,000 results (<b>0.05</b> sec)</div></div><div id="gs_res_ccl"><div id="gs_res_ccl_mid">'
            + "".join(RESULT.format(n=n + 1) for n in range(count)) +
            '</div><div id="gs_res_ccl_bot"><div id="gs_n"><table><tr><td><span class="gs_ico gs_ico_nav_current">'
            '</span><b>1</b></td>' + nav + '<td><a href="/scholar?start=10&amp;q=fish"><span class="gs_ico '
            'gs_ico_nav_next"></span>Next</a></td></tr></table></div></div></div><div id="gs_ftr"></div>'
            "</body></html>").encode()


def author_page(count: int) -> bytes:
    return (HEAD + '<div id="gs_hdr"><input name="mauthors" value="fish"></div><div id="gsc_sa_ccl">'
            + "".join(CARD.format(n=n + 1) for n in range(count)) +
            '</div><div class="gsc_pgn"><button class="gsc_pgn_pnx" onclick="window.location=\'/citations?'
            'view_op\\x3dsearch_authors\\x26mauthors\\x3dfish\\x26after_author\\x3dabc\\x26astart\\x3d10\'">'
            "</button></div></body></html>").encode()


def pages() -> list[tuple[str, bytes]]:
    made = [("made: results page, 10 results", results_page(10)), ("made: results page, 20 results", results_page(20)),
            ("made: author search, 10 cards", author_page(10))]
    real = sorted((CORPUS / "scholar").glob("search_*.html")) if (CORPUS / "scholar").is_dir() else []
    return made + [(f"real: {page.name}", page.read_bytes()) for page in real]


def main() -> None:
    print(f"{'page':62} {'KB':>5} {'read':>4} {HEADER}")
    for label, data in pages():
        result = parsers.parse(data)
        read = len(result.publications) + len(result.profiles)
        print(f"{label[:62]:62} {len(data) // 1024:5d} {read:4d} {against_lxml(data, GOAL)}")


if __name__ == "__main__":
    main()
