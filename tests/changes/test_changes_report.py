"""The report's "Since last run" section: the store's changes (each profile's last run against the one
before), read back from the HTML and, in Chromium, as a person sees it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from histories import ED, RX, WEEK, save
from lxml import html
from test_report import Opened, browser, report_of  # noqa: F401 (browser: the module's Chromium fixture)

from pubharvest.store import Store


def two_weeks(page, location: Path) -> Path:
    store = Store(location)
    save(store, "w1", page(ED), WEEK[0])
    save(store, "w1", page(RX), WEEK[0])
    save(store, "w2", page(ED).count("u5HHmVD_uO8C", 25).drop("9yKSN-GCB0IC"), WEEK[1])
    store.save_failure("w2", "scholar", "RxmmtT8AAAAJ", "failed", "blocked", "a CAPTCHA page", taken_at=WEEK[1])
    store.close()
    return location


def test_the_section_lists_the_changes_and_names_the_blocked_run(page, tmp_path: Path) -> None:
    out = report_of(tmp_path, "--store", str(two_weeks(page, tmp_path / "s.sqlite")))
    [section] = html.parse(str(out)).getroot().xpath("//section[@id='since']")
    assert section.xpath("string(h2)") == "Since last run"
    assert section.xpath("string(p[@class='note'])") == (
        "2 changes for 1 of 1 profile compared: 1 paper gone, 1 paper's count; 1 profile without two runs to "
        "compare; 1 run skipped (blocked).")
    items = [(li.get("data-kind"), li.text_content()) for li in section.xpath(".//ul/li[@data-kind]")]
    assert items == [
        ("gone_paper", "paper gone: Promoting the Culture of Qinhuai River Lantern Shadow Puppetry with a Digital "
                       "Archive and Immersive Experience (4 citations)"),
        ("citations", "+7 (+38.9%): Set in stone: Analysis of an immutable web3 social media platform (18 → 25)")]
    [skipped] = section.xpath(".//div[@class='warnings']//li")
    assert skipped.text_content() == ("K. Srinivasan (scholar:RxmmtT8AAAAJ): run w2 (2026-11-20 09:00 UTC, blocked): "
                                      "blocked")


def test_top_keeps_the_biggest_changes_of_each_person(page, tmp_path: Path) -> None:
    out = report_of(tmp_path, "--store", str(two_weeks(page, tmp_path / "s.sqlite")), "--top", "1")
    [section] = html.parse(str(out)).getroot().xpath("//section[@id='since']")
    assert [li.get("data-kind") for li in section.xpath(".//ul/li[@data-kind]")] == ["gone_paper"]
    assert "and 1 change more: pubharvest changes --person scholar:P1RwlvoAAAAJ" in section.text_content()


def test_a_store_with_one_run_has_no_section(page, tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    save(store, "w1", page(ED), WEEK[0])
    store.close()
    out = report_of(tmp_path, "--store", str(tmp_path / "s.sqlite"))
    assert html.parse(str(out)).getroot().xpath("//section[@id='since']") == []


@pytest.mark.slow  # Chromium
@pytest.mark.parametrize("width", [1000, 390])
def test_the_section_in_chromium(browser, page, tmp_path: Path, width: int) -> None:  # noqa: F811
    opened = Opened(browser, report_of(tmp_path, "--store", str(two_weeks(page, tmp_path / "s.sqlite"))), width)
    opened.check_quiet()
    opened.check_no_sideways_scroll(width)
    shown = opened.page.inner_text("#since")
    assert "Since last run" in shown and "+7 (+38.9%): Set in stone" in shown
    opened.page.locator("#since").screenshot(path=tmp_path / f"since-{width}.png")
    if os.environ.get("PUBHARVEST_KEEP_SCREENSHOTS"):  # to look at them
        shutil.copy(tmp_path / f"since-{width}.png", os.environ["PUBHARVEST_KEEP_SCREENSHOTS"])
