"""An enlarged Elamur page: the scanner that reads the long lists (and the plain reading of the rest) gives
the records markdown-it gives, in both forms, and each copied paper is the small page's paper under its new name."""

from __future__ import annotations

import sys

import pytest
from conftest import FIXTURES, ROOT

import pubharvest.parsers as parsers
from pubharvest.parsers.elamur import sections as elamur_sections
from pubharvest.parsers.records import to_builtins

sys.path.insert(0, str(ROOT / "bench"))
from bench_size_msr_elamur import enlarged_elamur, one_line

pytestmark = pytest.mark.slow  # pages of thousands of papers
COPIES = 1000  # two papers with a page, copied: 2,002 papers, 4,003 list items
SMALL = (FIXTURES / "elamur" / "000_multiline.md").read_text(encoding="utf-8")
# One copy in each list that no shape of the scanner takes (markup, an entity, a tab): read by markdown-it.
ODD = enlarged_elamur(SMALL, COPIES).replace("[C7 ZeRO-Offload", "[C7 *Zero*-Offload &amp;", 1).replace(
    "[**C9 ZeRO-Infinity", "[**C9 ZeRO\tInfinity", 1)
# A quote at the start of a line in a summary: a block that may run on (lazy lines), so the scanner
# leaves the rest of the page to markdown-it.
QUOTED = enlarged_elamur(SMALL, 20).replace("states.\n2. **[C1 ", "states.\n> so they say\n2. **[C1 ", 1)


def records(text: str) -> dict:
    got = to_builtins(parsers.parse(text.encode("utf-8")))
    got.pop("source")
    return got


@pytest.fixture(scope="module")
def large() -> dict:
    return records(enlarged_elamur(SMALL, COPIES))


def test_both_forms_give_the_same_records(large: dict) -> None:
    assert len(large["publications"]) == 3 + 2 * COPIES
    assert records(one_line(enlarged_elamur(SMALL, COPIES))) == large


def test_each_copy_is_the_small_pages_paper_renamed(large: dict) -> None:
    small = {pub["ids"]["elamur"]: pub for pub in records(SMALL)["publications"] if pub["ids"]["elamur"]}
    assert len(small) == 2
    # Papers first (the small page's two, then copy 1 of both, 2, ...), then what only All works lists.
    assert [pub["title"] for pub in large["publications"][:2]] == [pub["title"] for pub in small.values()]
    assert large["publications"][-1] == records(SMALL)["publications"][-1]
    copies = large["publications"][2:-1]
    for number, pub in enumerate(copies):
        i = number // 2 + 1
        slug = pub["ids"]["elamur"]
        original = small[slug.removesuffix(f"-c{i}")]
        assert pub["title"] == f"C{i} {original['title']}"
        assert pub["url"] == original["url"].replace(f"/{original['ids']['elamur']}/", f"/{slug}/")
        renamed = {k: v for k, v in pub.items() if k not in ("title", "url", "ids")}
        assert renamed == {k: v for k, v in original.items() if k not in ("title", "url", "ids")}
        assert {k: v for k, v in pub["ids"].items() if k != "elamur"} == {
            k: v for k, v in original["ids"].items() if k != "elamur"}
    assert large["warnings"] == records(SMALL)["warnings"]


def test_the_scanner_reads_what_markdown_it_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = [records(ODD), records(one_line(ODD))]
    taken = []
    real = elamur_sections._scanned
    monkeypatch.setattr(elamur_sections, "_scanned", lambda *args: taken.append(real(*args)))  # None: markdown-it
    monkeypatch.setattr(elamur_sections, "plain_blocks", lambda body: None)  # and nothing read plain
    assert [records(ODD), records(one_line(ODD))] == fast
    quoted = records(QUOTED)
    monkeypatch.setattr(elamur_sections, "_scanned", real)
    assert records(QUOTED) == quoted
    assert len(quoted["publications"]) == 3 + 2 * 20  # the quote is a block of its own: no paper lost
    assert sum(item is not None for item in taken) > 4 * COPIES  # the scanner did take nearly all items
    titles = {pub["ids"]["elamur"]: pub["title"] for pub in fast[0]["publications"]}
    assert titles["ren-2021-zero-offload-democratizing-billion-scale-c7"] == (
        "C7 Zero-Offload &: Democratizing Billion-Scale Model Training")
    # The Papers title is kept (All works says the same with a tab, which is a space once read).
    assert titles["rajbhandari-2021-zero-infinity-breaking-gpu-memory-c9"] == (
        "C9 ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning")


SMALLER = enlarged_elamur(SMALL, 50)
VARIANTS = {  # pages as saved copies or odd summaries have them; each must read the same both ways
    "newlines dropped, no space left": SMALLER.replace("\n   ", ""),
    "that, on one line": one_line(SMALLER.replace("\n   ", "")),
    "a non-breaking space before the year": SMALLER.replace("** *(", "**\u00a0*("),
    "punctuation beside the stars": SMALLER.replace(")* ", ")*— ").replace("*2021 ·", "*«2021 ·"),
    "tabs as indentation": SMALLER.replace("\n   ", "\n\t"),
    "a number too long for a list": SMALLER.replace("\n2. **[", "\n1234567890. **["),
    "a heading in a summary": SMALLER.replace("fivefold.", "fivefold. ## Extra words", 3),
    "a bullet line in a summary": SMALLER.replace("\n   Dense", "\n   - Dense", 2),
    "a setext underline in a summary": SMALLER.replace("fivefold.\n", "fivefold.\n   ===\n", 2),
    "Windows line ends": SMALLER.replace("\n", "\r\n"),
    "co-author addresses with a query, an escape, a fragment and an entity": SMALLER.replace(
        "yuxiong-he/) ×", "yuxiong-he/?a=1&b=%C3%AD#x) ×").replace("rajbhandari/) ×", "rajbhandari/?a=1&amp;b=2) ×"),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_odd_pages_read_the_same_by_scanner_and_markdown_it(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    page = VARIANTS[variant]
    fast = records(page)
    monkeypatch.setattr(elamur_sections, "_scanned", lambda *args: None)
    monkeypatch.setattr(elamur_sections, "plain_blocks", lambda body: None)
    assert records(page) == fast
