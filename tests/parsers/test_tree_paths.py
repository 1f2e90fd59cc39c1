"""A page up to ``page.WHOLE_TREE_BYTES`` is read from one whole tree, a larger one streamed (lxml's pull
parser, each row or article dropped once read). Both readings must give the very same records, warnings and
refusals: every fixture and corpus page, and variants made of them (rows and articles repeated, nested past
libxml2's depth limit, cut short), are parsed both ways here, the threshold forced to 0 for the streamed one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, corpus_dir
from drift import nested, repeated, truncations

import pubharvest.parsers as parsers
from pubharvest.errors import ParseError
from pubharvest.parsers import page as page_module
from pubharvest.parsers.records import to_json

SITES = ("scholar", "msr")


def pages() -> Iterator[tuple[str, bytes]]:
    """Every saved page of the fixtures and, when it is set, the corpus, of the sites read with a tree."""
    corpus = corpus_dir()
    for root in [FIXTURES, *([corpus] if corpus is not None else [])]:
        for site in SITES:
            for path in sorted((root / site).glob("*")):
                if path.suffix in (".html", ".htm", ".txt"):
                    yield f"{root.name}/{site}/{path.name}", path.read_bytes()


def variants(text: str) -> Iterator[tuple[str, str]]:
    """The page's rows or articles repeated, its table or main part nested deep, and the page cut short."""
    for start, end in (('<tr class="gsc_a_tr"', '</tbody>'), ("<article", "</ul>")):
        if start in text and end in text[text.index(start):]:
            yield f"{start} x3", repeated(text, start, end, 3)
    for start, end in (('<table id="gsc_a_t"', "</table>"), ("<main", "</main>"), ("<article", "</article>")):
        if start in text and end in text[text.index(start):]:
            for depth in (2030, 2100):
                yield f"{start} nested {depth}", nested(text, start, end, depth)
    yield from truncations(text, (0.5, 0.9))


def outcome(data: bytes) -> str:
    try:
        return to_json(parsers.parse(data)).decode()
    except ParseError as error:
        return f"{type(error).__name__}: {error}"


def both_ways(data: bytes, monkeypatch: pytest.MonkeyPatch, calls: Callable[[], int]) -> tuple[str, str, int]:
    """The page's outcome from a whole tree, then streamed, and how many streamed readings the second made."""
    whole = outcome(data)
    before = calls()
    with monkeypatch.context() as patched:
        patched.setattr(page_module, "WHOLE_TREE_BYTES", 0)
        streamed = outcome(data)
    return whole, streamed, calls() - before


@pytest.fixture
def streamed_calls(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """How often ``html_root_streamed`` has run since the test began."""
    counted = [0]
    original = page_module.html_root_streamed

    def counting(*args, **kwargs):
        counted[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(page_module, "html_root_streamed", counting)
    return lambda: counted[0]


CASES = [(name, label) for name, data in pages() for label in ["as saved", *(v for v, _ in variants(
    data.decode("utf-8", "replace")))]]


@pytest.mark.parametrize(("name", "label"), [
    pytest.param(n, v, id=f"{n} [{v}]", marks=[pytest.mark.corpus] if not n.startswith("fixtures/") else [])
    for n, v in CASES])
def test_whole_tree_and_streamed_give_the_same_records(name: str, label: str, monkeypatch: pytest.MonkeyPatch,
                                                       streamed_calls: Callable[[], int]) -> None:
    data = dict(pages())[name]
    if label != "as saved":
        data = dict(variants(data.decode("utf-8", "replace")))[label].encode("utf-8")
    whole, streamed, _ = both_ways(data, monkeypatch, streamed_calls)
    assert whole == streamed


def test_the_threshold_picks_the_reading(monkeypatch: pytest.MonkeyPatch, streamed_calls: Callable[[], int]) -> None:
    """The Japanese Scholar fixture page is read from a whole tree at the default threshold, streamed at 0;
    its 4 rows (tr.gsc_a_tr, counted on the page) come out of both."""
    data = (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_bytes()
    assert len(data) < page_module.WHOLE_TREE_BYTES
    whole, streamed, streamed_readings = both_ways(data, monkeypatch, streamed_calls)
    assert streamed_readings == 1 and streamed_calls() == 1
    assert whole == streamed
    assert len(parsers.parse(data).publications) == 4


def test_pages_were_found() -> None:
    """The fixtures hold Scholar and MSR pages read with a tree: the cases above are not vacuous."""
    names = [name for name, _ in pages()]
    assert any("/scholar/" in n for n in names) and any("/msr/" in n for n in names)
    assert Path(FIXTURES).is_dir()
