"""Jobs that complete a profile (``details = true``, ``coauthors = true``): each publication's own
page and the full co-author list, fetched at the site's pace and as robots.txt allows, both engines
through the shared core; off by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakesite import FakeSite
from scrapejobs import SCHOLAR_A, lines_without_when, records, scrape, write_job

from pubharvest.cli import main
from pubharvest.parsers.warning_codes import Warn

# Google's rules for /citations (its robots.txt): profiles are allowed, every other view_op is not.
GOOGLE_ROBOTS = "User-agent: *\nDisallow: /citations?\nAllow: /citations?user=\nDisallow: /citations?*cstart=\n"
FULL_AUTHORS = ["Hanako Yamada", "Ichiro Tanaka", "Jane Smith"]


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def one_record(folder: Path) -> dict:
    (record,) = records(folder / "out.jsonl")
    return record


def test_completing_is_off_by_default(site, tmp_path: Path, capsys) -> None:
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
    code, err = scrape(capsys, job)
    assert code == 0, err
    assert not site.paths("view_citation") and not site.paths("list_colleagues")
    assert one_record(tmp_path)["publications"][0]["authors"] == ["H Yamada", "I Tanaka"]


def test_details_and_coauthors_complete_the_record(site, tmp_path: Path, capsys) -> None:
    site.scholar[SCHOLAR_A] = 3
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url},
                    details=True, coauthors=True)
    code, err = scrape(capsys, job)
    assert code == 0, err
    assert "1 done" in err
    assert len(site.paths("view_op=view_citation")) == 3 and len(site.paths("view_op=list_colleagues")) == 1
    record = one_record(tmp_path)
    assert record["page"] == "profile"
    for number, pub in enumerate(record["publications"], 1):
        assert pub["title"] == f"Paper {number} of {SCHOLAR_A}"
        assert (pub["authors"], pub["authors_truncated"]) == (FULL_AUTHORS, False)
        assert pub["date"] == "2016-05" and pub["pages"] == "112-130"
        assert pub["citations_by_year"] == [{"year": 2018, "citations": 3}]
    assert [c["name"] for c in record["profile"]["coauthors"]] == ["Kalpana Platel", "Søren Ødegård"]
    assert not [w for w in record["warnings"] if w["code"].endswith("_missing")]
    # the archive holds every page of the target: parsed again offline, it gives the same record
    assert main(["parse", "--format", "jsonl", str(tmp_path / "out.warc.gz")]) == 0
    assert capsys.readouterr().out == (tmp_path / "out.jsonl").read_text(encoding="utf-8")


def test_pages_robots_txt_disallows_are_skipped_and_the_record_says_so(site, tmp_path: Path, capsys) -> None:
    site.robots = GOOGLE_ROBOTS
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url},
                    details=True, coauthors=True)
    code, err = scrape(capsys, job)
    assert code == 0, err
    assert not site.paths("view_citation") and not site.paths("list_colleagues")
    record = one_record(tmp_path)
    codes = [w["code"] for w in record["warnings"]]
    assert codes.count("details_missing") == 4 and codes.count("coauthors_missing") == 1
    assert all("robots_disallowed" in w["message"] for w in record["warnings"] if w["code"].endswith("_missing"))
    assert record["publications"][0]["authors"] == ["H Yamada", "I Tanaka"]  # the profile's values stay


def test_a_paper_page_that_fails_leaves_the_others(site, tmp_path: Path, capsys) -> None:
    site.fault("citation_for_view=" + SCHOLAR_A + ":P00000000001", "404")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url}, details=True)
    code, err = scrape(capsys, job)
    assert code == 0, err
    record = one_record(tmp_path)
    assert [p["authors"] == FULL_AUTHORS for p in record["publications"]] == [True, False, True, True]
    (missing,) = [w for w in record["warnings"] if w["code"] == "details_missing"]
    assert "http_error" in missing["message"] or "not_found" in missing["message"]


def test_a_captcha_on_a_paper_page_stops_the_host(site, tmp_path: Path, capsys) -> None:
    site.fault("view_citation", "ok", "captcha")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url}, details=True)
    code, err = scrape(capsys, job)
    assert code == 3, err
    assert len(site.paths("view_citation")) == 2  # nothing after the CAPTCHA


@pytest.mark.slow
@pytest.mark.parametrize("robots", [None, GOOGLE_ROBOTS])
def test_the_scrapy_engine_completes_a_profile_as_the_default_engine_does(tmp_path: Path, capsys, robots) -> None:
    pytest.importorskip("scrapy")
    from scrapyjobs import run_cli

    with FakeSite() as site:
        if robots:
            site.robots = robots
        for engine in ("httpx", "scrapy"):
            (tmp_path / engine).mkdir()
            job = write_job(tmp_path / engine, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url},
                            details=True, coauthors=True)
            if engine == "httpx":
                assert scrape(capsys, job)[0] == 0
            else:
                done = run_cli("scrape", str(job), "--engine", "scrapy")
                assert done.returncode == 0, done.stderr
    by_httpx, by_scrapy = (lines_without_when((tmp_path / e / "out.jsonl").read_text(encoding="utf-8"))
                           for e in ("httpx", "scrapy"))
    assert by_scrapy == by_httpx
    record = one_record(tmp_path / "scrapy")
    assert record["publications"][0]["authors"] == (["H Yamada", "I Tanaka"] if robots else FULL_AUTHORS)


def test_a_papers_page_replaces_the_rows_cut_values_and_their_flags() -> None:
    from pubharvest.parsers.records import Ids, PageResult, Profile, Publication, PublicationIds
    from pubharvest.scrapers import sites

    row = Publication(title="Decentralized applications", authors=["W Cai", "Z Wang"], authors_truncated=True,
                      venue="IEEE acc", venue_truncated=True, ids=PublicationIds(scholar="U:P"))
    listing = PageResult(site="scholar", page="profile", profile=Profile(ids=Ids(scholar="U")), publications=[row])
    listing.warn(Warn.coauthors_partial, "more behind View all")
    detail = PageResult(site="scholar", page="publication", publications=[Publication(
        title="Decentralized applications: The blockchain-empowered software system", authors=["Wei Cai", "Zehua Wang"],
        venue="IEEE access 6, 53019-53033", date="2018-09-16", ids=PublicationIds(scholar="U:P"))])
    listed = PageResult(site="scholar", page="coauthors", profile=Profile(coauthors=[]))
    record = sites.SITES["scholar"].merge([listing, detail, listed])
    (pub,) = record.publications
    assert (pub.authors, pub.authors_truncated) == (["Wei Cai", "Zehua Wang"], False)
    assert (pub.venue, pub.venue_truncated, pub.date) == ("IEEE access 6, 53019-53033", False, "2018-09-16")
    assert pub.title == "Decentralized applications: The blockchain-empowered software system"
    assert not [w for w in record.warnings if w.code == "coauthors_partial"]
