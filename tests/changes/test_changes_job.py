"""``store add`` of saved pages, then ``changes``, says what a scraper job that fetched the same pages
from the stand-in server says: the same changes, papers not seen and runs skipped, run ids and times aside."""

from __future__ import annotations

from pathlib import Path

import httpx
from fakesite import FakeSite
from scrapejobs import SCHOLAR_A, SCHOLAR_B, scrape, write_job

from pubharvest.changes import ChangeReport, changes
from pubharvest.cli import main
from pubharvest.store import Store


def save_pages(site: FakeSite, folder: Path) -> None:
    """Each profile's page as a browser saves it: the bytes the stand-in server answers."""
    folder.mkdir()
    for user in (SCHOLAR_A, SCHOLAR_B):
        answer = httpx.get(f"{site.url}/citations", params={"user": user, "hl": "en", "pagesize": "100"})
        (folder / f"{user}.html").write_bytes(answer.content)


def without_runs(report: ChangeReport) -> list[tuple]:
    """What the report says, each change's two runs left out (their ids and capture times differ)."""
    return sorted([(c.kind, c.profile.id, c.paper.id if c.paper else c.field, c.before, c.after, c.delta,
                    c.from_run.standing, c.to_run.standing) for c in report.changes]
                  + [("not_seen", n.profile.id, n.paper.id, n.citations, n.seen_in, None, n.from_run.standing,
                      n.to_run.standing) for n in report.not_seen])


def report_of(location: Path) -> ChangeReport:
    store = Store(location, readonly=True)
    try:
        return changes(store)
    finally:
        store.close()


def test_changes_from_saved_pages_are_the_changes_from_the_job_that_fetched_them(tmp_path: Path, capsys) -> None:
    with FakeSite() as site:
        site.scholar.update({SCHOLAR_A: 12, SCHOLAR_B: 3})  # row i is cited site.cites + i times
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B}],
                        {"scholar": site.url})
        assert scrape(capsys, job)[0] == 0
        save_pages(site, tmp_path / "week1")
        site.scholar.update({SCHOLAR_A: 14, SCHOLAR_B: 1})  # A: two papers more; B: 1 of its 3 rows left
        site.cites = 5  # every row cited 5 times more
        assert scrape(capsys, job, "--new-run")[0] == 0
        save_pages(site, tmp_path / "week2")
    mine = tmp_path / "mine.sqlite"
    for week, at in (("week1", "2024-01-01"), ("week2", "2024-01-08")):
        assert main(["store", "add", str(tmp_path / week), "--store", str(mine), "--at", at]) == 0
    theirs = without_runs(report_of(tmp_path / "store.sqlite"))
    assert without_runs(report_of(mine)) == theirs
    expected = sorted(
        [("citations", SCHOLAR_A, f"{SCHOLAR_A}:P{i:011d}", i, i + 5) for i in range(12)]
        + [("new_paper", SCHOLAR_A, f"{SCHOLAR_A}:P{i:011d}", None, i + 5) for i in (12, 13)]
        + [("citations", SCHOLAR_B, f"{SCHOLAR_B}:P{0:011d}", 0, 5)]
        # 1 row of 3, the page stating no total: shrunk, an incomplete listing, so the two are not gone
        + [("not_seen", SCHOLAR_B, f"{SCHOLAR_B}:P{i:011d}", i, "from") for i in (1, 2)])
    assert [row[:5] for row in theirs if row[0] != "metric"] == expected
    assert {row[7] for row in theirs if row[1] == SCHOLAR_B} == {"shrunk"}
    capsys.readouterr()
