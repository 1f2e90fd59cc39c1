"""The Scholar parser's fast paths must answer what the general code answers: a row of the usual markup read
by position gives the parts the class search finds, query values found by ``str.find`` are what the
documented expression matches, and each shortcut (text without invisible characters, counts of ASCII digits,
single-class elements, the chart walked once, rows in document order) gives what the long way gives, on
generated markup as on every row of the saved pages. The records of every page are compared before and
after by ``tools/records_digest.py``; these tests keep the shortcuts honest from now on."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

import pytest
from conftest import FIXTURES, corpus_dir
from hypothesis import example, given
from hypothesis import strategies as st
from lxml import etree

import pubharvest.parsers as parsers
from pubharvest.parsers.numbers import Cells, digits_count, digits_year, read_count, read_year
from pubharvest.parsers.page import _in_closing_order, closes_html
from pubharvest.parsers.scholar._base import by_class, first_with_class, query_value
from pubharvest.parsers.scholar.profile import _chart
from pubharvest.parsers.scholar.rows import _is_no_articles_row, _plain_row_parts, _row_parts, _text_without_year
from pubharvest.parsers.text import _BIDI, _STRAY_SELECTOR, clean

HTML = etree.HTMLParser(encoding="utf-8")


def fragment(markup: str) -> etree._Element:
    """The first element of ``markup`` as the parser's HTML parser builds it, inside a table body for rows."""
    wrapped = f"<table><tbody>{markup}</tbody></table>" if markup.startswith("<tr") else markup
    root = etree.fromstring(wrapped.encode(), HTML)
    found = root.find(".//tr") if markup.startswith("<tr") else root.find("body/*")
    assert found is not None
    return found


# --- rows read by position -------------------------------------------------------------------------


def same_parts(row: etree._Element) -> None:
    """A row read by position has the very parts the class search finds (``merged``: the same presence)."""
    plain = _plain_row_parts(row)
    if plain is None:
        return
    searched = _row_parts(row)
    assert not _is_no_articles_row(row)
    for key in ("anchor", "count", "year"):
        assert plain.get(key) is searched.get(key), key
    assert plain["grays"] == searched["grays"]
    assert ("merged" in plain) == ("merged" in searched)


USUAL_ROW = ('<tr class="gsc_a_tr"><td class="gsc_a_t"><a href="/c?citation_for_view=U:P" class="gsc_a_at">T</a>'
             '<div class="gs_gray">A Bee</div><div class="gs_gray">Nature 1<span class="gs_oph">, 2020</span></div>'
             '</td><td class="gsc_a_c"><a href="/s?cites=1" class="gsc_a_ac gs_ibl">5</a>{mark}</td>'
             '<td class="gsc_a_y"><span class="gsc_a_h gsc_a_hc gs_ibl">2020</span></td></tr>')
MERGED_MARK = '<span class="gsc_a_m"><a href="javascript:void(0)" class="gsc_a_am">*</a></span>'


def test_the_usual_row_is_read_by_position_with_its_merged_mark() -> None:
    plain = _plain_row_parts(fragment(USUAL_ROW.format(mark="")))
    assert plain is not None and "merged" not in plain
    anchor = plain["anchor"]
    assert anchor is not None and anchor.text == "T" and [g.text for g in plain["grays"]] == ["A Bee", "Nature 1"]
    merged = _plain_row_parts(fragment(USUAL_ROW.format(mark=MERGED_MARK)))
    assert merged is not None and merged["merged"].text == "*"


# Pieces a generated row is made of: the usual classes and tags, near misses of them, and what a redesign or a
# hostile page could put in their place (an extra class, a comment, a cell of another kind, the "no articles" row).
ROW_CLASSES = st.sampled_from(["gsc_a_tr", "gsc_a_tr x", "gsc_a_e", "gsc_a_tr gsc_a_e", ""])
CELL_CLASSES = st.sampled_from(["gsc_a_t", "gsc_a_c", "gsc_a_y", "gsc_a_t x", "gsc_a_e", "gsc_a_x"])
TITLE_CHILDREN = st.lists(st.sampled_from([
    '<a class="gsc_a_at" href="/c?citation_for_view=U:P">T</a>', '<a class="gsc_a_atx">T</a>', '<a class="x">T</a>',
    '<span class="gsc_a_at">T</span>', '<div class="gs_gray">A Bee</div>', '<div class="gs_grayx">B</div>',
    '<div class="gs_gray">N<span class="gs_oph">, 2001</span></div>', '<p class="gs_gray">P</p>', "<!-- c -->",
    '<div><a class="gsc_a_at">Deep</a></div>']), max_size=4).map("".join)
COUNT_CHILDREN = st.lists(st.sampled_from([
    '<a class="gsc_a_ac gs_ibl" href="/s?cites=1">5</a>', '<a class="gsc_a_ac">5<b>x</b></a>',
    '<span class="gsc_a_ac">7</span>', MERGED_MARK, '<span class="gsc_a_m">*</span>', '<a class="gsc_a_am">*</a>',
    '<span class="gsc_a_m"><b>*</b></span>',
    '<span class="gsc_a_mx"><a class="gsc_a_am">*</a></span>', "<!-- c -->"]), max_size=3).map("".join)
YEAR_CHILDREN = st.lists(st.sampled_from([
    '<span class="gsc_a_h gsc_a_hc gs_ibl">2020</span>', '<span class="gsc_a_h">1999</span>',
    '<span class="x">3</span>', '<b><span class="gsc_a_h">2</span></b>', '<span class="gsc_a_hx">4</span>']),
    max_size=2).map("".join)


@st.composite
def rows(draw: st.DrawFn) -> str:
    cells = []
    for _ in range(draw(st.integers(2, 4))):
        kind = draw(CELL_CLASSES)
        content = {"gsc_a_t": TITLE_CHILDREN, "gsc_a_c": COUNT_CHILDREN, "gsc_a_y": YEAR_CHILDREN}.get(
            kind.split()[0], st.one_of(TITLE_CHILDREN, COUNT_CHILDREN, YEAR_CHILDREN))
        cells.append(f'<{draw(st.sampled_from(["td", "td", "th"]))} class="{kind}">{draw(content)}</td>')
    if draw(st.booleans()):  # the usual order of the usual cells, where the plain reading applies
        cells = [f'<td class="gsc_a_t">{draw(TITLE_CHILDREN)}</td>', f'<td class="gsc_a_c">{draw(COUNT_CHILDREN)}</td>',
                 f'<td class="gsc_a_y">{draw(YEAR_CHILDREN)}</td>']
    return f'<tr class="{draw(ROW_CLASSES)}">{"".join(cells)}</tr>'


@given(rows())
@example(USUAL_ROW.format(mark=MERGED_MARK))
@example(USUAL_ROW.format(mark='<span class="gsc_a_m">*</span>'))
@example(USUAL_ROW.format(mark="").replace('class="gsc_a_tr"', 'class="gsc_a_tr gsc_a_e"'))
def test_a_row_read_by_position_has_the_parts_the_search_finds(markup: str) -> None:
    same_parts(fragment(markup))


def saved_pages() -> Iterator[tuple[str, bytes]]:
    roots = [FIXTURES / "scholar", *([corpus / "scholar"] if (corpus := corpus_dir()) else [])]
    for root in roots:
        for path in sorted(root.glob("*.htm*")):
            yield path.name, path.read_bytes()


def test_every_saved_row_read_by_position_has_the_parts_the_search_finds() -> None:
    plain = 0
    for _, data in saved_pages():
        for row in etree.fromstring(data, HTML).iter("tr"):
            same_parts(row)
            plain += _plain_row_parts(row) is not None
    assert plain >= 4  # the fixtures' rows of today's markup at least: the reading by position is taken


def test_rows_that_share_an_authors_line_get_lists_of_their_own() -> None:
    row = USUAL_ROW.format(mark="")
    result = parsers.parse((row + row.replace("U:P", "U:Q")).encode())
    first, second = result.publications
    first.authors.append("C Dee")
    assert second.authors == ["A Bee"]


@pytest.mark.parametrize(("markup", "text"), [
    ('<div class="gs_gray">Nature 1, 2<span class="gs_oph">, 2020</span> (3)</div>', "Nature 1, 2 (3)"),
    ('<div class="gs_gray">K Platel, K Srinivasan</div>', "K Platel, K Srinivasan"),
    ('<div class="gs_gray">Food 44<span>, 2000</span></div>', "Food 44"),
    ('<div class="gs_gray">Food 44<span class="x">, vol. 2</span></div>', "Food 44, vol. 2"),
    ('<div class="gs_gray"><b>Food</b> 44<span class="gs_oph">, 2000</span></div>', "Food 44"),
])
def test_grey_line_text_without_its_phone_year(markup: str, text: str) -> None:
    assert _text_without_year(fragment(markup)) == text


# --- strings: query values, cleaning, numbers ------------------------------------------------------


def query_by_expression(url: str | None, key: str) -> str | None:
    """What ``query_value`` is documented to find, by the expression it was written with before."""
    match = re.search(f"[?&;]{key}=([^&#]*)", url) if url else None
    return unquote(match.group(1)) if match and match.group(1) else None


URL_PIECES = st.sampled_from(["?", "&", ";", "#", "=", "user", "user=", "xuser=", "cites=", "12,34", "%2D", "%",
                              "a", "/citations", "&amp;", "é", " "])


@given(st.lists(URL_PIECES, max_size=16).map("".join), st.sampled_from(["user", "cites", "citation_for_view"]))
@example("/citations?hl=en&xuser=1&user=AB%2DC#x", "user")
@example("user=1&user=2", "user")
@example("?user=#&user=3", "user")
def test_query_value_finds_what_the_expression_finds(url: str, key: str) -> None:
    assert query_value(url, key) == query_value(url or None, key) == query_by_expression(url, key)


TEXT_PIECES = st.sampled_from(["a", " ", "\u00a0", "\n", "é", "山", "\u200e", "\u00ad", "\ufeff", "\ufe0f",
                               "\U000e0100", "\u2066", "\u200b", "\u200d", "…"])


@given(st.lists(TEXT_PIECES, max_size=12).map("".join))
def test_clean_gives_what_its_two_passes_give(text: str) -> None:
    assert clean(text) == " ".join(_STRAY_SELECTOR.sub("", text.translate(_BIDI)).split())


@given(st.lists(st.sampled_from(["<", "/", "</", "html", "HTML", "HtMl", ">", "h", "T", "é", "\u0130", "\u212a", " "]),
                max_size=14).map("".join), st.integers(0, 4100))
def test_closes_html_answers_what_lower_casing_the_tail_answers(text: str, padding: int) -> None:
    for page in (text, "x" * padding + text, text + "é" * padding):
        assert closes_html(page) == ("</html>" in page[-4096:].lower())


@given(st.text(alphabet="0123456789 ,.١٢", max_size=8))
@example("0123")
@example("9" * 20)
def test_cells_read_counts_and_years_as_the_number_readers_do(text: str) -> None:
    assert Cells().count(text, "cell") == (read_count(text) if text.strip() else None)
    assert Cells().year(text, "cell") == read_year(text)
    assert digits_count(text) in (None, read_count(text)) and digits_year(text) in (None, read_year(text))
    if text.isascii() and text.isdigit():  # what the shortcuts are for: they answer, and as the readers do
        assert digits_count(text) == read_count(text) and digits_year(text) == read_year(text)


# --- elements: classes, the chart, rows in closing order ---------------------------------------------

CLASS_VALUES = ["a", "b", "a b", "b a", "a\tb", "ab", " a ", "a\x0cb", "", "c"]
CHART_CLASSES = [value.replace("a", "gsc_g_t").replace("b", "gsc_g_a") for value in CLASS_VALUES]


@st.composite
def elements(draw: st.DrawFn, class_values: list[str] = CLASS_VALUES) -> etree._Element:
    """A small tree of spans, links and divs with class values drawn from ``class_values``."""
    def element(depth: int) -> str:
        tag = draw(st.sampled_from(["span", "a", "div"]))
        classes = draw(st.one_of(st.none(), st.sampled_from(class_values)))
        attribute = "" if classes is None else f' class="{classes}"'
        children = "".join(element(depth + 1) for _ in range(draw(st.integers(0, 2 if depth < 3 else 0))))
        return f"<{tag}{attribute}>{draw(st.sampled_from(['', '1', '2001']))}{children}</{tag}>"
    return fragment(f"<div>{element(0)}{element(0)}</div>")


def classes_by_loop(root: etree._Element, rules: dict[str, str]) -> dict[str, list[etree._Element]]:
    """``by_class`` as it read every element before its one-name shortcut."""
    found: dict[str, list[etree._Element]] = {}
    for element in root.iter():
        names = (element.get("class") or "").split()
        part = next((part for name, part in rules.items() if name in names), None)
        if part is not None:
            found.setdefault(part, []).append(element)
    return found


@given(elements())
def test_by_class_and_first_with_class_find_what_the_loop_finds(root: etree._Element) -> None:
    rules = {"a": "first", "b": "second"}
    assert by_class(root, rules) == classes_by_loop(root, rules)
    assert first_with_class(root, "b") is next(iter(classes_by_loop(root, {"b": "b"}).get("b", [None])))


@given(elements(CHART_CLASSES))
def test_the_chart_walk_finds_what_its_xpaths_found(root: etree._Element) -> None:
    labels = etree.XPath(".//span[contains(concat(' ', @class, ' '), ' gsc_g_t ')]")(root)
    bars = etree.XPath(".//a[contains(concat(' ', @class, ' '), ' gsc_g_a ')]")(root)
    assert _chart({"gsc_g": root}) == (labels, bars)
    assert _chart({}) is None


NESTING = st.recursive(st.just("<td>x</td>"), lambda inner: st.lists(inner, min_size=1, max_size=3).map(
    lambda cells: "<tr>" + "".join(f"<td><table>{c}</table></td>" if c.startswith("<tr") else c for c in cells)
    + "</tr>"), max_leaves=8)


@given(st.lists(NESTING, min_size=1, max_size=3))
def test_rows_are_handed_over_in_the_order_they_close(tables: list[str]) -> None:
    markup = "".join(f"<table>{t if t.startswith('<tr') else '<tr>' + t + '</tr>'}</table>" for t in tables)
    root = etree.fromstring(f"<html><body>{markup}</body></html>".encode(), HTML)
    closing = [element for _, element in etree.iterwalk(root, events=("end",), tag="tr")]
    assert _in_closing_order(root, "tr") == closing
