"""Downloads cut short and pages saved with their URL on the first line, generated from every real
page of the corpus and every HTML fixture: a cut page is ``truncated`` at every offset at which its
site can still be told from what arrived, and ``unrecognised`` only before that; a leading URL line
is the page's URL and changes nothing else."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, corpus_dir, from_corpus

import pubharvest.parsers as parsers
from pubharvest.errors import Blocked, NotFoundOrPrivate, ParseError, Truncated, Unrecognised
from pubharvest.parsers.records import PageResult


def html_pages() -> list[Path]:
    corpus = corpus_dir()
    found = sorted(FIXTURES.glob("*/*.html"))
    if corpus is not None:
        found += sorted(p for p in corpus.glob("*/*.htm*") if p.is_file())
    return found


def page_params() -> list[object]:
    corpus = corpus_dir()
    return [pytest.param(p, id=p.name, marks=from_corpus(p).marks if corpus and p.is_relative_to(corpus) else ())
            for p in html_pages()]


def outcome(data: bytes) -> PageResult | ParseError:
    try:
        return parsers.parse(data)
    except ParseError as error:
        return error


# What a page of each site holds before its content, as a person reading the bytes would tell it:
# the URL it states for itself, or Scholar's style sheet (every Scholar page since 2013 opens with it).
_OWN_URL = re.compile(rb"""(?:rel=["']?canonical["']?[^>]*href|property=["']?og:url["']?[^>]*content|saved from url)"""
                      rb"""[^>]*?(scholar\.google\.|microsoft\.com|research\.elamur\.ai)""", re.I)


def names_its_site(head: bytes) -> bool:
    return bool(_OWN_URL.search(head[:16384])) or b"#gs_top" in head[:16384]


def offsets(size: int, page: str) -> list[int]:
    rng = random.Random(page)
    return sorted({size * k // 25 for k in range(1, 25)} | {rng.randrange(1, size) for _ in range(8)})


@pytest.mark.parametrize("path", page_params())
def test_a_page_cut_at_any_offset_is_truncated_once_its_site_can_be_told(path: Path) -> None:
    page = path.read_bytes()
    whole = outcome(page)
    if isinstance(whole, Unrecognised) or b"</html>" not in page[-4096:].lower():
        pytest.skip("not a whole page of a known site")  # the wrong-site fixture, cite popups, fragments
    for at in offsets(len(page), path.name):
        cut = outcome(page[:at])
        if not names_its_site(page[:at]):
            continue
        ended_early = isinstance(cut, Truncated) or (
            isinstance(cut, PageResult) and any(w.code == "truncated" for w in cut.warnings))
        # A CAPTCHA or sign-in page says what it is as soon as its marker arrived.
        refused_as_whole = isinstance(cut, Blocked | NotFoundOrPrivate) and type(cut) is type(whole)
        assert ended_early or refused_as_whole, (path.name, at, cut)


def test_a_cut_page_that_names_no_site_is_unrecognised() -> None:
    cut = b"<!doctype html><html><head><title>My notes</title><style>body{margin:0}"
    assert isinstance(outcome(cut), Unrecognised)


def test_a_whole_scholar_page_of_an_unread_kind_says_it_is_scholar() -> None:
    page = (b'<!doctype html><html><head><link rel="canonical" href="https://scholar.google.com/scholar_settings">'
            b"</head><body><p>Settings</p></body></html>")
    error = outcome(page)
    assert isinstance(error, Unrecognised) and "Google Scholar page of a kind" in error.message


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
@pytest.mark.parametrize("path", page_params())
def test_a_leading_url_line_is_the_pages_url_and_changes_nothing_else(path: Path, newline: bytes) -> None:
    page = path.read_bytes()
    whole = outcome(page)
    if not isinstance(whole, PageResult):
        pytest.skip("the page itself is refused")
    line = (whole.url or parsers.site_info(whole.site).base_url + "/").encode()  # where it came from
    with_line = outcome(line + newline + page)
    given = parsers.parse(page, url=line.decode())  # the same page with its URL given by the caller
    assert isinstance(with_line, PageResult), with_line
    assert (with_line.site, with_line.page, with_line.url) == (given.site, given.page, given.url)
    assert (with_line.publications, with_line.profile) == (given.publications, given.profile)
    assert [w.code for w in with_line.warnings] == [w.code for w in given.warnings]


def test_a_first_line_that_is_not_only_a_url_is_page_text() -> None:
    from pubharvest.parsers.page import Document

    doc = Document.from_input(b"see https://scholar.google.com/ below\n<html><body>x</body></html>")
    assert doc.url is None and doc.text.startswith("see")
