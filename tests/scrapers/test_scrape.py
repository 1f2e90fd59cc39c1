"""Scraper jobs against local fake sites with injected faults: every reachable target's record
complete and once, a clear account of the rest, and a rerun that finishes them."""

from __future__ import annotations

import json
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from fakesite import FakeSite
from scrapejobs import SCHOLAR_A, SCHOLAR_B, SCHOLAR_C, profile_key, records, scrape, write_job
from warcio.archiveiterator import ArchiveIterator

from pubharvest.cli import main

EVERY_SITE = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B},
              {"site": "msr", "id": "adaexample"}, {"site": "elamur", "id": "olatunji-ruwase"}]


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def bases(*pairs: tuple[str, FakeSite]) -> dict[str, str]:
    return {name: fake.url for name, fake in pairs}


@pytest.mark.slow
def test_faults_are_retried_and_every_record_is_complete_once(site, tmp_path: Path, capsys) -> None:
    site.scholar[SCHOLAR_A] = 250  # three pages: cstart 0, 100, 200
    site.fault(f"user={SCHOLAR_A}&hl=en&pagesize=100&cstart=100", "500", "ok")
    site.fault(f"user={SCHOLAR_B}", "429:1")
    site.fault("/people/adaexample/", "reset")
    site.fault("/authors/olatunji-ruwase/", "slow:2")  # beyond the 1 s timeout
    job = write_job(tmp_path, EVERY_SITE, bases(("scholar", site), ("msr", site), ("elamur", site)))
    code, err = scrape(capsys, job)
    assert code == 0, err
    got = records(tmp_path / "out.jsonl")
    assert sorted(profile_key(r) for r in got) == sorted(
        [f"scholar:{SCHOLAR_A}", f"scholar:{SCHOLAR_B}", "msr:adaexample", "elamur:olatunji-ruwase"])
    scholar_a = next(r for r in got if profile_key(r) == f"scholar:{SCHOLAR_A}")
    titles = [p["title"] for p in scholar_a["publications"]]
    assert titles == [f"Paper {i} of {SCHOLAR_A}" for i in range(1, 251)]
    assert not [w for w in scholar_a["warnings"] if w["code"] == "partial"]
    assert "4 done" in err and "retries" in err


@pytest.mark.slow
def test_retry_after_holds_back_every_request_to_that_host(site, tmp_path: Path, capsys) -> None:
    site.fault(f"user={SCHOLAR_A}", "429:1")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B}],
                    bases(("scholar", site)), concurrency=2)
    code, err = scrape(capsys, job)
    assert code == 0, err
    refused = next(t for t, path, _ in site.log if SCHOLAR_A in path)
    later = [t for t, path, _ in site.log if t > refused]
    assert later and min(later) - refused >= 0.9  # nothing reached the host before Retry-After passed


def test_retries_run_out_then_a_rerun_finishes_the_pending_target(site, tmp_path: Path, capsys) -> None:
    site.fault(f"user={SCHOLAR_B}", "503", "503", "503", "503")
    targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B}]
    job = write_job(tmp_path, targets, bases(("scholar", site)))
    code, err = scrape(capsys, job)
    assert code == 1
    assert f"scholar:{SCHOLAR_B}: http_error: HTTP 503" in err and "1 target(s) pending" in err
    assert [profile_key(r) for r in records(tmp_path / "out.jsonl")] == [f"scholar:{SCHOLAR_A}"]
    code, err = scrape(capsys, job)
    assert code == 0, err
    assert "1 already finished" in err
    assert [profile_key(r) for r in records(tmp_path / "out.jsonl")] == [f"scholar:{SCHOLAR_A}", f"scholar:{SCHOLAR_B}"]
    assert len(site.paths(f"user={SCHOLAR_A}")) == 1  # the finished target was not fetched again


def test_captcha_mid_job_stops_that_host_and_the_rerun_resumes(tmp_path: Path, capsys) -> None:
    with FakeSite() as scholar, FakeSite() as other:
        scholar.scholar[SCHOLAR_A] = 250
        scholar.fault(f"user={SCHOLAR_B}", "captcha")  # after the first of A's three pages
        targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B},
                   {"site": "elamur", "id": "olatunji-ruwase"}, {"site": "scholar", "id": SCHOLAR_C},
                   {"site": "msr", "id": "adaexample"}]
        job = write_job(tmp_path, targets, bases(("scholar", scholar), ("msr", other), ("elamur", other)),
                        concurrency=2)
        code, err = scrape(capsys, job)
        assert code == 3, err
        assert SCHOLAR_B in scholar.log[-1][1]  # the CAPTCHA was the last request that host saw
        assert len(scholar.paths(f"user={SCHOLAR_A}")) == 1
        assert "blocked" in err and "pending" in err and "pubharvest scrape" in err
        written = sorted(profile_key(r) for r in records(tmp_path / "out.jsonl"))
        assert written == ["elamur:olatunji-ruwase", "msr:adaexample"]
        served = len(scholar.log)
        code, err = scrape(capsys, job, "--force")  # a rerun within block_wait refuses
        assert code == 0, err
        assert not other.paths("/authors/")[1:], "finished targets are not fetched again"
        assert len(scholar.log) > served
    got = records(tmp_path / "out.jsonl")
    assert sorted(profile_key(r) for r in got) == sorted(f"{t['site']}:{t['id']}" for t in targets)
    assert len(next(r for r in got if profile_key(r) == f"scholar:{SCHOLAR_A}")["publications"]) == 250


def test_a_403_blocks_the_host_too(site, tmp_path: Path, capsys) -> None:
    site.fault(f"user={SCHOLAR_A}", "403")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B}],
                    bases(("scholar", site)))
    code, err = scrape(capsys, job)
    assert code == 3 and "403" in err
    assert not site.paths(SCHOLAR_B)


def test_robots_txt_is_read_once_and_obeyed(site, tmp_path: Path, capsys) -> None:
    site.robots = "User-agent: *\nDisallow: /free/\nDisallow: /citations?*cstart=\n"
    site.scholar[SCHOLAR_A] = 150
    targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "elamur", "id": "olatunji-ruwase"},
               {"site": "msr", "id": "adaexample"}]
    job = write_job(tmp_path, targets, bases(("scholar", site), ("msr", site), ("elamur", site)))
    code, err = scrape(capsys, job)
    assert code == 1
    assert "elamur:olatunji-ruwase: robots_disallowed: robots.txt of" in err
    assert f"scholar:{SCHOLAR_A}: partial: stopped after 1 page(s)" in err
    assert site.paths("/robots.txt") == ["/robots.txt"] and not site.paths("/free/") and not site.paths("cstart")
    got = {profile_key(r): r for r in records(tmp_path / "out.jsonl")}
    assert set(got) == {f"scholar:{SCHOLAR_A}", "msr:adaexample"}
    assert len(got[f"scholar:{SCHOLAR_A}"]["publications"]) == 100
    assert [w["code"] for w in got[f"scholar:{SCHOLAR_A}"]["warnings"]] == ["partial"]


def test_robots_ignore_is_an_explicit_opt_out(site, tmp_path: Path, capsys) -> None:
    site.robots = "User-agent: *\nDisallow: /\n"
    job = write_job(tmp_path, [{"site": "elamur", "id": "olatunji-ruwase"}], bases(("elamur", site)), robots="ignore")
    assert scrape(capsys, job)[0] == 0
    assert not site.paths("/robots.txt")


def test_the_archive_reparses_to_the_records_of_the_job(site, tmp_path: Path, capsys) -> None:
    site.scholar[SCHOLAR_A] = 230
    site.fault(f"user={SCHOLAR_B}", "500")
    job = write_job(tmp_path, EVERY_SITE, bases(("scholar", site), ("msr", site), ("elamur", site)))
    assert scrape(capsys, job)[0] == 0
    with open(tmp_path / "out.warc.gz", "rb") as stream:
        kinds = Counter(record.rec_type for record in ArchiveIterator(stream))
    assert kinds["request"] == kinds["response"] == len(site.log)  # every request, the 500 and robots.txt too
    assert kinds["metadata"] == len(EVERY_SITE)
    code = main(["parse", "--format", "jsonl", str(tmp_path / "out.warc.gz")])
    out, err = capsys.readouterr()
    assert (code, [line for line in err.splitlines() if ": warning: " not in line]) == (0, [])  # warnings print
    assert out == (tmp_path / "out.jsonl").read_text(encoding="utf-8")


def test_store_upserts_profiles_and_keeps_a_citation_snapshot_per_run(site, tmp_path: Path, capsys) -> None:
    targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "msr", "id": "adaexample"}]
    job = write_job(tmp_path, targets, bases(("scholar", site), ("msr", site)))
    assert scrape(capsys, job)[0] == 0
    site.cites = 10
    assert scrape(capsys, job, "--new-run")[0] == 0
    store = str(tmp_path / "store.sqlite")
    assert main(["store", "export", "--store", store]) == 0
    profiles = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(profile_key(p) for p in profiles) == ["msr:adaexample", f"scholar:{SCHOLAR_A}"]
    scholar = next(p for p in profiles if p["site"] == "scholar")
    assert [p["citations"] for p in scholar["publications"]] == [10, 11, 12, 13]
    assert main(["store", "export", "--store", store, "--citations"]) == 0
    history = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    first = [h["citations"] for h in history if h["publication_id"] == f"{SCHOLAR_A}:P00000000001"]
    assert first == [1, 11]
    assert len(records(tmp_path / "out.jsonl")) == 4  # the output holds both runs


def test_bad_job_files_get_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    cases = {
        "broken.toml": "contact = ",
        "unknown_site.toml": 'contact = "a@b.org"\noutput = "o.jsonl"\n[[targets]]\nsite = "arxiv"\nid = "x"\n',
        "no_contact.toml": 'output = "o.jsonl"\n[[targets]]\nsite = "elamur"\nid = "x"\n',
        "typo.toml": 'contact = "a@b.org"\noutput = "o.jsonl"\nconcurency = 2\n'
                     '[[targets]]\nsite = "elamur"\nid = "x"\n',
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        code, err = scrape(capsys, tmp_path / name)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (name, err)
    assert main(["scrape", str(tmp_path / "missing.toml")]) == 2


def test_an_unreachable_host_gets_a_clear_account_and_exit_4(tmp_path: Path, capsys) -> None:
    job = write_job(tmp_path, [{"site": "elamur", "id": "olatunji-ruwase"}], {"elamur": "http://127.0.0.1:9"},
                    retries=1)
    code, err = scrape(capsys, job)
    assert code == 4
    assert "unreachable" in err and "no host could be reached" in err and "Traceback" not in err


@pytest.mark.slow
def test_one_off_form_writes_jsonl_to_stdout(site, capsys) -> None:
    code = main(["scrape", "--site", "elamur", "--id", "olatunji-ruwase", "--base-url", site.url,
                 "--contact", "mailto:tests@example.org"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["profile"]["name"] == "Olatunji Ruwase"


@pytest.mark.slow
def test_each_host_is_paced_while_hosts_run_side_by_side(tmp_path: Path, capsys) -> None:
    with FakeSite() as scholar, FakeSite() as other:
        other.robots = "User-agent: *\nCrawl-delay: 0.4\n"
        targets = [{"site": "scholar", "id": u} for u in (SCHOLAR_A, SCHOLAR_B, SCHOLAR_C)]
        targets += [{"site": "msr", "id": name} for name in ("adaexample", "bobexample", "carlaexample")]
        job = write_job(tmp_path, targets, bases(("scholar", scholar), ("msr", other)),
                        rate=5, jitter=0.5, concurrency=2)
        assert scrape(capsys, job)[0] == 0
        scholar_times = [t for t, _, _ in scholar.log]
        other_times = [t for t, path, _ in other.log if "/people/" in path]
    assert min(b - a for a, b in pairwise(scholar_times)) >= 0.15  # 5/s, less the server's slack
    assert min(b - a for a, b in pairwise(other_times)) >= 0.33  # robots.txt's Crawl-delay wins
    assert other_times[0] < scholar_times[-1]  # the two hosts were fetched side by side


def test_redirects_are_followed_hop_by_hop_but_not_to_a_sign_in_page(site, tmp_path: Path, capsys) -> None:
    site.fault("/authors/old-slug/", "redirect:/free/en/authors/olatunji-ruwase/")
    site.fault(f"user={SCHOLAR_A}", "redirect:https://accounts.google.com/v3/signin/identifier?service=citations")
    targets = [{"site": "elamur", "id": "old-slug"}, {"site": "scholar", "id": SCHOLAR_A}]
    job = write_job(tmp_path, targets, bases(("scholar", site), ("elamur", site)))
    code, err = scrape(capsys, job)
    assert code == 1
    assert f"scholar:{SCHOLAR_A}: not_found_or_private: Google redirected to its sign-in page" in err
    assert [profile_key(r) for r in records(tmp_path / "out.jsonl")] == ["elamur:olatunji-ruwase"]


def test_the_unusual_traffic_redirect_is_a_block(site, tmp_path: Path, capsys) -> None:
    site.fault(f"user={SCHOLAR_A}", "redirect:/sorry/index?continue=x")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B}],
                    bases(("scholar", site)))
    code, err = scrape(capsys, job)
    assert code == 3 and "unusual traffic" in err
    assert not site.paths("/sorry/") and not site.paths(SCHOLAR_B)


@pytest.mark.slow
def test_a_faulty_job_accounts_for_every_target_and_a_rerun_finishes_it(tmp_path: Path, capsys) -> None:
    with FakeSite() as scholar, FakeSite() as other:
        scholar.scholar[SCHOLAR_A] = 250
        scholar.fault("cstart=100", "500", "reset")
        scholar.fault(f"user={SCHOLAR_B}", "429:1")
        scholar.fault(f"user={SCHOLAR_C}", "503", "503", "503", "503")  # more than the 3 retries
        other.fault("/people/adaexample/", "reset", "slow:2")
        other.fault("/authors/no-such-author/", "404")
        targets = [{"site": "scholar", "id": u} for u in (SCHOLAR_A, SCHOLAR_B, SCHOLAR_C)]
        targets += [{"site": "msr", "id": "adaexample"}, {"site": "elamur", "id": "olatunji-ruwase"},
                    {"site": "elamur", "id": "no-such-author"}]
        job = write_job(tmp_path, targets, bases(("scholar", scholar), ("msr", other), ("elamur", other)),
                        concurrency=3)
        code, err = scrape(capsys, job)
        assert code == 1
        assert f"scholar:{SCHOLAR_C}: http_error: HTTP 503" in err
        assert "elamur:no-such-author: http_error: HTTP 404" in err
        assert "1 target(s) pending" in err and "4 done, 1 failed, 1 pending" in err
        first = [profile_key(r) for r in records(tmp_path / "out.jsonl")]
        assert sorted(first) == sorted([f"scholar:{SCHOLAR_A}", f"scholar:{SCHOLAR_B}", "msr:adaexample",
                                        "elamur:olatunji-ruwase"])
        code, err = scrape(capsys, job)
        assert code == 0, err
        assert "1 done, 5 already finished" in err
        assert not other.paths("no-such-author")[1:], "a failed target is finished for its run"
    got = records(tmp_path / "out.jsonl")
    assert [profile_key(r) for r in got] == [*first, f"scholar:{SCHOLAR_C}"]
    assert len(got[first.index(f"scholar:{SCHOLAR_A}")]["publications"]) == 250


def test_store_export_refuses_a_missing_or_foreign_file_in_one_line(tmp_path: Path, capsys) -> None:
    foreign = tmp_path / "notes.sqlite"
    foreign.write_text("not a database", encoding="utf-8")
    for path in (foreign, tmp_path / "missing.sqlite"):
        assert main(["store", "export", "--store", str(path)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_one_off_flags_are_refused_beside_a_job_file(tmp_path: Path, capsys) -> None:
    job = write_job(tmp_path, [{"site": "elamur", "id": "olatunji-ruwase"}], {})
    code, err = scrape(capsys, job, "--robots", "ignore")
    assert code == 2 and "--robots belongs to the one-off form" in err


def test_the_real_captcha_page_mid_job_stops_the_host(site, tmp_path: Path, capsys, read_corpus) -> None:
    site.captcha = read_corpus("scholar/captcha_gs_captcha_ccl_search_geomap_2020.html")
    site.scholar[SCHOLAR_A] = 150
    site.fault("cstart=100", "captcha")
    job = write_job(tmp_path, [{"site": "scholar", "id": u} for u in (SCHOLAR_A, SCHOLAR_B, SCHOLAR_C)],
                    bases(("scholar", site)))
    code, err = scrape(capsys, job)
    assert code == 3 and "CAPTCHA" in err
    assert site.log[-1][1].endswith("cstart=100")
    assert f"scholar:{SCHOLAR_A}: blocked" in err
    assert f"scholar:{SCHOLAR_A}" not in [profile_key(r) for r in records(tmp_path / "out.jsonl")]  # never half


def test_a_target_listed_twice_is_refused(tmp_path: Path, capsys) -> None:
    targets = [{"site": "elamur", "id": "x"}, {"site": "msr", "id": "y"}, {"site": "elamur", "id": "x"}]
    job = write_job(tmp_path, targets, {})
    code, err = scrape(capsys, job)
    assert code == 2 and "targets[2] repeats targets[0] (elamur:x)" in err


def test_a_retry_after_beyond_the_limit_leaves_the_host_for_later(site, tmp_path: Path, capsys) -> None:
    site.fault(f"user={SCHOLAR_A}", "503:3600")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B}],
                    bases(("scholar", site)), max_retry_after=60)
    code, err = scrape(capsys, job)
    assert code == 3 and "asking to wait 3600 s (Retry-After)" in err
    assert not site.paths(SCHOLAR_B)


# --- one-off searches ------------------------------------------------------------------

GOOGLE_ROBOTS = "User-agent: *\nDisallow: /scholar?\nAllow: /citations?user=\nDisallow: /citations?\n"  # its shape


def test_one_off_search_obeys_robots_txt_in_one_line(site, capsys) -> None:
    site.robots = GOOGLE_ROBOTS
    code = main(["scrape", "--site", "scholar", "--search", "river fish", "--base-url", site.url,
                 "--contact", "mailto:tests@example.org"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert "robots_disallowed: robots.txt of" in err and "/scholar?hl=en&q=river+fish" in err
    assert "Traceback" not in err
    assert site.paths("/scholar") == []  # nothing but robots.txt was asked


def test_one_off_search_fetches_one_results_page(site, capsys) -> None:
    site.robots = GOOGLE_ROBOTS
    code = main(["scrape", "--site", "scholar", "--search", "lovelace", "--base-url", site.url, "--robots", "ignore",
                 "--contact", "mailto:tests@example.org"])
    out, err = capsys.readouterr()
    assert code == 0, err
    record = json.loads(out)
    assert (record["page"], record["search"]["total_results"]) == ("search", 594000)
    assert [p["title"] for p in record["publications"]] == ["Sketch of the Analytical Engine, with notes"]
    assert site.paths("/scholar") == ["/scholar?hl=en&q=lovelace"]


@pytest.mark.slow
def test_one_off_author_search_gives_profile_stubs(site, capsys) -> None:
    code = main(["scrape", "--site", "scholar", "--author", "ada lovelace", "--base-url", site.url,
                 "--contact", "mailto:tests@example.org"])
    out, err = capsys.readouterr()
    assert code == 0, err
    record = json.loads(out)
    assert [(p["name"], p["ids"]["scholar"]) for p in record["profiles"]] == [
        ("Ada Lovelace", "AdaLove0AAAJ"), ("A. Lovelace", "AdaLove1AAAJ")]
    assert site.paths("search_authors") == ["/citations?hl=en&view_op=search_authors&mauthors=ada+lovelace"]


@pytest.mark.parametrize("argv,message", [
    (["--site", "msr", "--search", "x"], "--search searches Google Scholar: give --site scholar"),
    (["--site", "scholar", "--search", "x", "--author", "y"], "give one of --id, --url, --search and --author"),
])
def test_one_off_search_usage_errors_are_one_line(argv: list[str], message: str, capsys) -> None:
    assert main(["scrape", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
