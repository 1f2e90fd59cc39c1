"""Large Scholar and MSR pages: rows and listings are read while lxml's pull parser builds
the tree, each dropped once read. A page with its rows repeated (built here, several of the parser's 1 MiB
pieces long) must give, row for row, the records of the page itself, and the records a whole tree (the old
path) gives.

The figures typed here were read off the pages: the fragment's 1,114 rows and first paper, the profile's 20
rows ("Articles 1–20") and first title, the MSR fixture's 5 papers and first two titles.
"""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES
from lxml.etree import _Element

import pubharvest.parsers as parsers
from pubharvest.parsers.page import html_root_streamed, html_selector, utf8_pieces
from pubharvest.parsers.records import PageResult, Publication
from pubharvest.parsers.scholar import rows as scholar_rows

pytestmark = pytest.mark.slow  # pages of tens of megabytes, built and parsed
FRAGMENT = "scholar/fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html"
PROFILE = "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html"
EPR = "Can quantum-mechanical description of physical reality be considered complete?"
PEPPER = "Black pepper and its pungent principle-piperine: a review of diverse physiological effects"


def repeated_rows(page: bytes, times: int, end: bytes) -> bytes:
    """``page`` with its run of ``tr.gsc_a_tr`` rows (up to ``end``) repeated ``times`` times."""
    first = page.index(b'<tr class="gsc_a_tr"')
    last = page.index(end, first) if end else len(page)
    return page[:first] + page[first:last] * times + page[last:]


def whole_tree_rows(html: bytes, base: str | None) -> list[Publication]:
    """The rows of the page's first ``#gsc_a_b`` read from a whole tree, as before the pull parser."""
    body = html_selector(html.decode("utf-8"), html).root.find(".//*[@id='gsc_a_b']")
    rows = scholar_rows._article_rows(scholar_rows._table_rows(body))
    return scholar_rows._publications(rows, PageResult(site="scholar", page="rows"), base=base)


def test_a_large_fragment_gives_the_rows_of_the_fragment_repeated(read_corpus) -> None:
    page = read_corpus(FRAGMENT)
    small = parsers.parse(page)
    assert (small.page, len(small.publications), small.publications[0].title) == ("rows", 1114, EPR)
    big_page = repeated_rows(page, 4, b"")
    assert len(big_page) > 2 * (1 << 20)  # several pieces fed to the pull parser, cut anywhere (mid-character too)
    big = parsers.parse(big_page)
    assert len(big.publications) == 4 * 1114
    assert big.publications == small.publications * 4
    wrapped = b'<table><tbody id="gsc_a_b">' + big_page + b"</tbody></table>"
    assert big.publications == whole_tree_rows(wrapped, None)
    assert [w.code for w in big.warnings] == [w.code for w in small.warnings] + ["duplicate_rows"] * (
        "duplicate_rows" not in [w.code for w in small.warnings])


def test_a_large_profile_gives_the_rows_of_the_profile_repeated(read_corpus) -> None:
    page = read_corpus(PROFILE)
    small = parsers.parse(page)
    assert (len(small.publications), small.publications[0].title) == (20, PEPPER)
    big_page = repeated_rows(page, 200, b"</tbody>").replace(b"Articles 1&ndash;20", b"Articles 1&ndash;4000")
    assert len(big_page) > 2 * (1 << 20)
    big = parsers.parse(big_page)
    assert len(big.publications) == 4000
    assert big.publications == small.publications * 200
    assert big.publications == whole_tree_rows(big_page, small.url)
    assert big.profile == small.profile
    assert [w.code for w in big.warnings if w.code != "duplicate_rows"] == [w.code for w in small.warnings]
    assert "duplicate_rows" in [w.code for w in big.warnings]


def test_a_large_fragment_nested_too_deep_is_truncated(read_corpus) -> None:
    # libxml2's push parser logs nothing when it stops at 2048 nested elements: the tree's shape tells.
    page = repeated_rows(read_corpus(FRAGMENT), 2, b"")
    row = page.index(b'<tr class="gsc_a_tr"', len(page) // 2)
    with pytest.raises(parsers.Truncated):
        parsers.parse(page[:row] + b"<div>" * 3000 + page[row:])


def test_rows_read_while_parsing_leave_the_tree_without_them() -> None:
    rows = "".join(f'<tr class="gsc_a_tr"><td>Gödel 山田 {n}</td></tr>' for n in range(500))
    html = f'<table><tbody id="gsc_a_b">{rows}</tbody></table>'.encode()
    seen: list[str] = []

    def take(row: _Element) -> None:
        seen.append(row.findtext("td") or "")
        previous, body = row.getprevious(), row.getparent()
        if previous is not None and body is not None:
            body.remove(previous)

    # one byte a piece: every multi-byte character is cut between two pieces
    root = html_root_streamed(utf8_pieces("", html, size=1), "tr", take)
    assert seen == [f"Gödel 山田 {n}" for n in range(500)]
    body = root.find(".//tbody")
    assert body is not None and len(body) == 1


def test_a_large_msr_people_page_gives_each_copy_of_its_papers_as_the_page_does() -> None:
    # Each <article> listed 400 times, copy i of a paper being "<title> i" at ".../publication/<slug>-i/".
    page = (FIXTURES / "msr" / "010_people_publications.html").read_text(encoding="utf-8")
    small = parsers.parse(page.encode())
    assert [p.title for p in small.publications][:2] == ["Sparse Widgets for Fast Inference",
                                                         "Widget Systems Technical Report"]
    assert len(small.publications) == 5

    def copies(article: re.Match[str]) -> str:
        return "".join(re.sub(r"(/publication/[^/\"]+)/", rf"\1-{i}/", article.group())
                       .replace("</a></h5>", f" {i}</a></h5>").replace("Note</h5>", f"Note {i}</h5>")
                       for i in range(400))

    big_page = re.sub(r"<article\b.*?</article>", copies, page, flags=re.S).encode()
    assert len(big_page) > 2 * (1 << 20)
    big = parsers.parse(big_page)
    assert len(big.publications) == 5 * 400
    by_title = {p.title: p for p in small.publications}
    for pub in big.publications:
        title, _, copy = (pub.title or "").rpartition(" ")
        same = by_title[title]
        assert (pub.url, pub.ids.msr) == ((same.url[:-1] + f"-{copy}/")
                                          if same.url else None, f"{same.ids.msr}-{copy}" if same.ids.msr else None)
        assert (pub.authors, pub.venue, pub.date, pub.type, pub.facets) == (same.authors, same.venue, same.date,
                                                                              same.type, same.facets)
    assert {w.code for w in big.warnings} == {w.code for w in small.warnings}
