"""``pubharvest report``: the HTML it writes, read as text and opened in headless Chromium.

The browser tests drive Debian's ``chromium`` through Playwright's Python API (never a downloaded
browser); when it cannot start they skip, saying why.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import FIXTURES
from test_archive import foreign_archive

from pubharvest import parse
from pubharvest.cli import main
from pubharvest.parsers.records import (
    Ids,
    Metrics,
    PageResult,
    PageWarning,
    Profile,
    Publication,
    PublicationIds,
    YearCitations,
)
from pubharvest.report import LIST_WARNINGS, render, report_data, store_pages
from pubharvest.store import Store

SEEDS = [FIXTURES / "scholar/003_9ea93ed9343d2054.txt", FIXTURES / "msr/001_0be51d225ce2b3fb.txt",
         FIXTURES / "elamur/000_e63c2e80f8ecde3e.txt"]
CORPUS_PROFILE = "scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HOSTILE = '<script>window.injected = 1</script>'


def hostile_page() -> PageResult:
    """A profile whose every string tries to break out of HTML."""
    return PageResult(
        site="scholar", page="profile", url="javascript:alert(1)",
        profile=Profile(name='<img src=x onerror="window.injected=2">', metrics=Metrics(citations=7, h_index=1),
                        citations_by_year=[YearCitations(year=2020, citations=7)]),
        publications=[Publication(title=HOSTILE, authors=['"><svg onload=window.injected=3>'], venue="</td><b>v",
                                  citations=7, url="https://example.org/?a=1&b=<x>")],
        warnings=[PageWarning(code="partial", message="<iframe src=https://evil.example/>")])


def synthetic_profile(papers: int = 300, first_year: int = 1990) -> PageResult:
    """A profile of ``papers`` papers with a histogram over many years, some of them zero."""
    years = [YearCitations(year=y, citations=0 if y % 7 == 0 else (y - first_year + 1) * 13)
             for y in range(first_year, 2026)]
    pubs = [Publication(title=f"Paper number {i} on a long and winding subject " * 2, authors=[f"A {j}" for j in
            range(8)], authors_truncated=i % 3 == 0, venue="Proceedings of a conference", year=1990 + i % 35,
            citations=(i * 37) % 1000, url=f"https://example.org/p{i}",
            ids=PublicationIds(scholar=f"U:{i}")) for i in range(papers)]
    return PageResult(site="scholar", page="profile", url="https://scholar.google.com/citations?user=U",
                      profile=Profile(name="Synthetic Person", ids=Ids(scholar="U"),
                                      metrics=Metrics(citations=99999, h_index=60, i10_index=250),
                                      citations_by_year=years), publications=pubs)


def profile_of(result: PageResult) -> Profile:
    assert result.profile is not None
    return result.profile


def three_run_store(path: Path) -> Path:
    """A store holding one profile saved by three runs whose counts grow."""
    store = Store(path)
    for run, growth in enumerate((0, 5, 12), 1):
        page = synthetic_profile(papers=30)
        profile_of(page).metrics.h_index, profile_of(page).metrics.i10_index = 10 + growth, 20 + growth
        for pub in page.publications:
            pub.citations = (pub.citations or 0) + growth
        store.save(f"run{run}", "U", page)
    store.close()
    return path


# ---- the HTML as text ------------------------------------------------------------------------------------

def test_every_record_string_is_escaped() -> None:
    html = render(report_data([("<in>.html", hostile_page())]))
    assert "<script>window" not in html and "&lt;script&gt;window.injected = 1&lt;/script&gt;" in html
    assert "<img" not in html and "<iframe" not in html and "<svg onload" not in html and "</td><b>" not in html
    assert 'href="javascript:' not in html
    assert 'href="https://example.org/?a=1&amp;b=&lt;x&gt;"' in html


def test_the_report_loads_nothing_and_allows_nothing_else() -> None:
    html = render(report_data([("seed", parse(SEEDS[0].read_bytes())), ("p", synthetic_profile())]))
    assert not re.search(r"<(img|link|script|iframe)[^>]+(src|href)=\"(?!data:)", html)
    assert "url(" not in html and "@import" not in html
    assert "default-src 'none'" in html and "unsafe-inline" not in html


def test_bars_are_every_year_on_the_axis_zero_years_included() -> None:
    page = synthetic_profile(papers=3)
    profile_of(page).citations_by_year = [y for y in profile_of(page).citations_by_year if y.citations]  # gaps
    html = render(report_data([("p", page)]))
    bars = re.findall(r'class="bar"[^>]*data-year="(\d+)" data-value="(\d+)"', html)
    assert [int(year) for year, _ in bars] == list(range(1990, 2026))
    assert {int(year) for year, value in bars if value == "0"} == {y for y in range(1990, 2026) if y % 7 == 0}


def test_a_300_paper_profile_stays_under_5_mb() -> None:
    assert len(render(report_data([("p", synthetic_profile())]), top=0).encode()) < 5_000_000


def test_store_runs_give_the_h_index_and_i10_over_runs(tmp_path: Path) -> None:
    pages, runs = store_pages(str(three_run_store(tmp_path / "s.sqlite")))
    assert len(pages) == 1 and [(p.h_index, p.i10_index) for p in runs[0]] == [(10, 20), (15, 25), (22, 32)]
    assert [p.publications[0].citations for _, p in pages] == [12]  # the latest run's counts


def test_report_reads_pages_records_archives_and_a_store(tmp_path: Path, capsys) -> None:
    records = tmp_path / "seed.jsonl"
    assert main(["parse", "-f", "jsonl", "-o", str(records), str(SEEDS[1])]) == 0
    foreign_archive(tmp_path / "crawl.warc.gz")
    out = tmp_path / "report.html"
    argv = ["report", str(SEEDS[0]), str(records), str(tmp_path / "crawl.warc.gz"),
            "--store", str(three_run_store(tmp_path / "s.sqlite")), "-o", str(out)]
    assert main(argv) == 0
    html = out.read_text()
    assert html.count('<section class="profile"') == 4 and '<section class="merged"' in html
    assert html.count('class="point"') >= 6  # h-index and i10 over three runs


def test_a_store_that_is_not_there_is_one_line_and_the_pages_are_still_reported(tmp_path: Path, capsys) -> None:
    out = tmp_path / "report.html"
    argv = ["report", str(SEEDS[0]), "--store", str(tmp_path / "missing.sqlite"), "-o", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'missing.sqlite'}: store_error: " in err and "Traceback" not in err
    assert out.read_text().count('<section class="profile"') == 1 and not (tmp_path / "missing.sqlite").exists()


def test_nothing_to_report_fails_without_writing(tmp_path: Path, capsys) -> None:
    assert main(["report", str(tmp_path / "missing.html"), "-o", str(tmp_path / "r.html")]) == 1
    assert not (tmp_path / "r.html").exists() and "missing.html: unreadable" in capsys.readouterr().err


# ---- in a real browser ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium; .ci/services installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    with sync_api.sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        except Exception as error:  # no display libraries, a sandbox refused, ...
            pytest.skip(f"Chromium cannot start: {str(error).splitlines()[0]}")
        yield chromium
        chromium.close()


class Opened:
    """A report open in a page, with what the page logged and requested."""

    def __init__(self, browser, path: Path, width: int = 1000) -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": 1100})
        self.page.on("console", lambda m: self.errors.extend([m.text] if m.type == "error" else []))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_load_state("load")

    def check_quiet(self) -> None:
        assert self.errors == [] and self.requests == [self.url]
        assert self.page.evaluate("window.injected") is None

    def bars(self, section: int) -> list[tuple[int, int]]:
        return self.page.eval_on_selector_all(
            f"#p{section} g.bar", "bars => bars.map(b => [+b.dataset.year, +b.dataset.value])")

    def axis_years(self, section: int) -> list[int]:
        return self.page.eval_on_selector_all(f"#p{section} svg text.year", "ts => ts.map(t => +t.textContent)")

    def column(self, table: str, index: int) -> list[str]:
        return self.page.eval_on_selector_all(
            f"{table} tbody tr", f"rows => rows.map(r => r.cells[{index}].dataset.sort)")


def report_of(tmp_path: Path, *argv: str) -> Path:
    out = tmp_path / "report.html"
    assert main(["report", *argv, "-o", str(out)]) in (0, 1)
    return out


def check_bars(opened: Opened, section: int, result: PageResult) -> None:
    expected = [[y.year, y.citations] for y in profile_of(result).citations_by_year]
    assert opened.bars(section) == expected and opened.axis_years(section) == [y for y, _ in expected]


def check_sorting(opened: Opened, table: str, text_column: int, number_column: int) -> None:
    opened.page.click(f"{table} thead th:nth-child({text_column + 1}) button")
    titles = opened.column(table, text_column)
    in_order = opened.page.evaluate("ts => ts.slice().sort((a, b) => a.localeCompare(b))", titles)
    assert titles == in_order and len(set(titles)) > 1
    assert [t[:1] for t in titles] == sorted(t[:1] for t in titles)  # not only the browser's own word for it
    opened.page.click(f"{table} thead th:nth-child({number_column + 1}) button")  # descending to ascending
    counts = [int(v) for v in opened.column(table, number_column) if v]
    assert counts == sorted(counts) and counts != sorted(counts, reverse=True)


@pytest.mark.slow  # Chromium
def test_a_real_corpus_profile_in_chromium(browser, read_corpus, tmp_path: Path) -> None:
    result = parse(read_corpus(CORPUS_PROFILE))
    assert len(profile_of(result).citations_by_year) > 3
    (tmp_path / "profile.html").write_bytes(read_corpus(CORPUS_PROFILE))
    opened = Opened(browser, report_of(tmp_path, str(tmp_path / "profile.html")))
    opened.check_quiet()
    check_bars(opened, 0, result)
    check_sorting(opened, "#p0 table.papers", 1, 4)
    opened.page.screenshot(path=tmp_path / "profile.png")


@pytest.mark.slow  # Chromium
def test_the_merged_seeds_in_chromium(browser, tmp_path: Path) -> None:
    opened = Opened(browser, report_of(tmp_path, *map(str, SEEDS)))
    opened.check_quiet()
    scholar = parse(SEEDS[0].read_bytes())
    counts = opened.page.eval_on_selector_all("#merged td[data-site=scholar]", "cs => cs.map(c => c.dataset.sort)")
    assert sorted(int(c) for c in counts if c) == sorted(p.citations for p in scholar.publications if p.citations)
    check_sorting(opened, "#merged table", 0, 2)
    shown = opened.page.eval_on_selector_all("#p0 .warnings li", "ls => ls.map(l => l.dataset.code)")
    assert shown == [w.code for w in scholar.warnings if w.code not in LIST_WARNINGS] + [
        w.code for w in scholar.warnings if w.code in LIST_WARNINGS] and shown
    opened.page.screenshot(path=tmp_path / "merged.png", full_page=True)


@pytest.mark.slow  # Chromium
def test_a_store_of_three_runs_in_chromium(browser, tmp_path: Path) -> None:
    store = three_run_store(tmp_path / "s.sqlite")
    opened = Opened(browser, report_of(tmp_path, "--store", str(store)))
    opened.check_quiet()
    pages, _ = store_pages(str(store))
    check_bars(opened, 0, pages[0][1])
    points = opened.page.eval_on_selector_all(
        "#p0 g.series", "gs => gs.map(g => [g.dataset.series, [...g.querySelectorAll('circle')].map(c => "
                        "+c.dataset.value)])")
    assert points[-2:] == [["h-index", [10, 15, 22]], ["i10-index", [20, 25, 32]]]
    opened.page.screenshot(path=tmp_path / "store.png", full_page=True)


@pytest.mark.slow  # Chromium
def test_hostile_records_show_as_text_and_a_phone_width_page_does_not_scroll_sideways(browser, tmp_path) -> None:
    out = tmp_path / "hostile.html"
    out.write_text(render(report_data([("<in>", hostile_page()), ("p", synthetic_profile())])))
    opened = Opened(browser, out, width=375)
    opened.check_quiet()
    assert opened.page.locator("#p0 table.papers tbody tr td:nth-child(2) a").inner_text().startswith(HOSTILE)
    assert opened.page.evaluate("document.documentElement.scrollWidth") <= 375
