"""Elamur's plain CommonMark reading (``plain_blocks``) gives the blocks markdown-it gives, or leaves the
stretch to markdown-it: on every stretch of the fixture pages and their drift variants, cut and enlarged, and
on generated Markdown full of what it must refuse. The pages at hand are read without importing markdown-it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT
from drift import elamur_variants, truncations
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace

import pubharvest.parsers as parsers
from pubharvest.errors import ParseError
from pubharvest.parsers.elamur import plain, sections
from pubharvest.parsers.elamur._base import Section
from pubharvest.parsers.records import to_builtins

sys.path.insert(0, str(ROOT / "bench"))
from bench_size_msr_elamur import enlarged_elamur, one_line

PAGES = sorted([*(FIXTURES / "elamur").glob("*.txt"), *(FIXTURES / "elamur").glob("*.md")])


def same_as_markdown_it(body: str) -> bool:
    """Whether ``body`` is read plain (True) or left to markdown-it (False); fails when the plain reading
    differs from markdown-it's."""
    blocks = plain.plain_blocks(body)
    if blocks is not None:
        assert blocks == sections._token_blocks(body), body
    return blocks is not None


def page_variants() -> Iterator[tuple[str, str]]:
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        yield path.name, text
        yield f"{path.name} in one line", one_line(text)
        if path.suffix == ".md":  # the multi-line page, which ``enlarged_elamur`` copies papers of
            yield f"{path.name} enlarged", enlarged_elamur(text, 3)
            yield f"{path.name} enlarged, in one line", one_line(enlarged_elamur(text, 3))
        for label, variant, _ in elamur_variants(text):
            yield f"{path.name}: {label}", variant
        for label, variant in truncations(text):
            yield f"{path.name}: {label}", variant


def stretches(page: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every stretch the page's reading hands to ``_markdown_sections``."""
    seen: list[str] = []
    real = sections._markdown_sections

    def recorded(body: str) -> list[Section]:
        seen.append(body)
        return real(body)

    monkeypatch.setattr(sections, "_markdown_sections", recorded)
    try:
        parsers.parse(page.encode("utf-8"))
    except ParseError:
        pass
    monkeypatch.setattr(sections, "_markdown_sections", real)
    return seen


def test_every_stretch_of_every_page_and_variant_reads_as_markdown_it_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    read = left = 0
    for _, page in page_variants():
        for body in stretches(page, monkeypatch):
            if same_as_markdown_it(body):
                read += 1
            else:
                left += 1
    assert read > 20 * left  # nearly all are read plain (the left ones hold an entity or a tab)


@pytest.mark.parametrize("path", PAGES, ids=lambda path: path.name)
def test_the_pages_at_hand_are_read_plain_throughout(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for body in stretches(path.read_text(encoding="utf-8"), monkeypatch):
        assert same_as_markdown_it(body), body


def records(page: str) -> object:
    try:
        got = to_builtins(parsers.parse(page.encode("utf-8")))
    except ParseError as exc:
        return type(exc).__name__, str(exc)
    got.pop("source")
    return got


def test_records_are_those_markdown_it_alone_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    variants = list(page_variants())
    fast = [records(page) for _, page in variants]
    monkeypatch.setattr(sections, "plain_blocks", lambda body: None)
    slow = [records(page) for _, page in variants]
    for (label, _), one, other in zip(variants, fast, slow, strict=True):
        assert one == other, label


def test_a_page_read_plain_does_not_import_markdown_it() -> None:
    page = FIXTURES / "elamur" / "000_e63c2e80f8ecde3e.txt"
    code = ("import sys; from pubharvest.parsers import parse; "
            f"parse(open({str(page)!r}, 'rb').read()); print('markdown_it' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_characters_count_as_punctuation_and_whitespace_as_markdown_it_counts_them() -> None:
    for code in range(0x110000):
        char = chr(code)
        assert plain._char_kind(char) == (isMdAsciiPunct(code) or isPunctChar(char), isWhiteSpace(code)), hex(code)


# --- generated Markdown -----------------------------------------------------------------------------

WORDS = ["Ana", "María", "2021", "·", "🏢", "GPU", "&", "a&b", "x!", "(OpenAlex,", "2026-10-14)", "→", "é", "—", ":",
         "'s", "%", "~", "+1", "=", "|", "C#", "4,916", "ß", "’", "“q”", "$", "^", "@", "2.", "1)"]
ODD = ["_x_", "`c`", "<b>", "\\*", "&amp;", "&#42;", "![i](https://x.org/i.png)", "[", "]", "\t", "\u00a0", "***",
       "****", "*", "**", "\u2003", "[a]: https://x.org", "[a][b]", "\r", "\0", "\u2028", "#3972"]
HREFS = ["https://x.org/a", "https://x.org", "#also", "https://x.org/a?b=1&c=2", "https://x.org/%C3%AD",
         "http://x.org/a'b", "https://x.org/a#b#c", "https://x.org/a_b", "https://x.org:8080/a", "https://X.org/a",
         "https://x.org/(a)", "https://x.org/a b", "https://x.org/%zz", "mailto:a@b", "/rel/path",
         "javascript:alert(1)", "https://x.org/a*b", "<https://x.org>", 'https://x.org "t"', "https://x.org/ä", "https://xn--d-1ga.org/",
         "https://x.org/?a&amp;b", "https://x.org/?a&b;c"]
BREAKS = ["\n", " \n", "  \n", "\n  ", "\n "]


def emphasis(inner: st.SearchStrategy[str], plain_only: bool) -> st.SearchStrategy[str]:
    sides = st.just("") if plain_only else st.sampled_from(["", " ", ".", "🏢", "a"])
    return st.tuples(st.sampled_from(["*", "**"]), sides, inner, sides).map(lambda p: f"{p[0]}{p[1]}{p[2]}{p[3]}{p[0]}")


def inline(plain_only: bool) -> st.SearchStrategy[str]:
    words = st.sampled_from([w for w in WORDS if not plain_only or w not in ("2.", "1)", "=", "C#")])
    pieces = words if plain_only else st.one_of(words, st.sampled_from(ODD + BREAKS))
    texts = st.lists(st.one_of(pieces, emphasis(pieces, plain_only)), min_size=1, max_size=4).map(" ".join)
    hrefs = st.sampled_from(HREFS[:7] if plain_only else HREFS)
    links = st.tuples(st.one_of(st.just(""), texts), hrefs).map(lambda p: f"[{p[0]}]({p[1]})")
    parts = st.one_of(texts, links, emphasis(links, plain_only))
    joins = st.just(" ") if plain_only else st.sampled_from([" ", "", "  ", *BREAKS])
    return st.tuples(st.lists(parts, min_size=1, max_size=5), joins).map(lambda p: p[1].join(p[0]))


PLAIN_STARTS = ["", "", "# ", "## ", "### ", "- ", "1. ", "2. ", "3) "]
OTHER_STARTS = ["####### ", "#", "-  ", "* ", "+ ", " ", "    ", "> ", "1.", "- - ", "1. # ", "10000000000. "]
OTHER_LINES = ["---", "===", "***", "-", "- ", "```", "~~~", "<div>", "## Title #", "#", "2."]


def markdown(plain_only: bool) -> st.SearchStrategy[str]:
    starts = st.sampled_from(PLAIN_STARTS if plain_only else PLAIN_STARTS + OTHER_STARTS)
    line = st.tuples(starts, inline(plain_only)).map("".join)
    lines = line if plain_only else st.one_of(line, st.sampled_from(OTHER_LINES))
    seps = st.sampled_from(["\n", "\n\n", "\n\n\n"] if plain_only else ["\n", "\n\n", "\n \n", "\n\n\n"])
    return st.lists(st.tuples(lines, seps), min_size=1, max_size=6).map(lambda parts: "".join(a + b for a, b in parts))


@given(markdown(plain_only=False))
@example("**a** \nb")
@example("a  \n**b**")
@example("[**x**](https://x.org) **y**")
@example("para\n2. item\n- item\n2. item")
@example("- a\nlazy\n\n1. b\n\n3. c\npara")
@example("[](https://x.org) [y](#z)")
@example("*a **b** c*")
@example("**a**b**c**")
@example("*a** b")
def test_generated_markdown_reads_as_markdown_it_reads_it(body: str) -> None:
    same_as_markdown_it(body)


@given(markdown(plain_only=True))
def test_generated_plain_markdown_is_read_without_markdown_it(body: str) -> None:
    assert same_as_markdown_it(body), body
