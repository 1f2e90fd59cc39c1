"""``--engine scrapy``: the same job, the same records, outcomes and exit codes as the httpx runner.

Scrapy runs in a subprocess (its reactor starts once per process); these tests need the ``scrapy``
extra and skip without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("scrapy")

from fakesite import FakeSite
from scrapejobs import SCHOLAR_A, SCHOLAR_B, SCHOLAR_C, lines_without_when, profile_key, records, write_job
from scrapyjobs import run_cli, start_cli, wait_until
from slowsite import SlowSite

from pubharvest.cli import main

pytestmark = pytest.mark.slow  # a Scrapy process per run
EVERY_SITE = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B},
              {"site": "msr", "id": "adaexample"}, {"site": "elamur", "id": "olatunji-ruwase"}]


def faults(site: FakeSite) -> None:
    site.clear_faults()
    site.fault(f"user={SCHOLAR_A}&hl=en&pagesize=100&cstart=100", "500", "ok")
    site.fault(f"user={SCHOLAR_B}", "503")
    site.fault("/people/adaexample/", "reset")


def test_the_scrapy_engine_gives_the_records_and_archive_of_the_default_engine(tmp_path: Path, capsys) -> None:
    with FakeSite() as site:
        site.scholar[SCHOLAR_A] = 250  # three pages, the second failing once
        bases = {"scholar": site.url, "msr": site.url, "elamur": site.url}
        (tmp_path / "httpx").mkdir()
        (tmp_path / "scrapy").mkdir()
        faults(site)
        assert main(["scrape", str(write_job(tmp_path / "httpx", EVERY_SITE, bases))]) == 0, capsys.readouterr().err
        faults(site)
        done = run_cli("scrape", str(write_job(tmp_path / "scrapy", EVERY_SITE, bases)), "--engine", "scrapy")
        assert done.returncode == 0, done.stderr
        assert "4 done" in done.stderr and "retries" in done.stderr
    by_httpx = lines_without_when((tmp_path / "httpx" / "out.jsonl").read_text(encoding="utf-8"))
    by_scrapy = lines_without_when((tmp_path / "scrapy" / "out.jsonl").read_text(encoding="utf-8"))
    assert len(by_scrapy) == 4 and by_scrapy == by_httpx
    stored = [lines_without_when(run_cli("store", "export", "--store", str(tmp_path / engine / "store.sqlite")).stdout)
              for engine in ("httpx", "scrapy")]
    assert stored[0] == stored[1] and len(stored[0]) == 4
    reparsed = run_cli("parse", "--format", "jsonl", str(tmp_path / "scrapy" / "out.warc.gz"))
    assert reparsed.returncode == 0 and all(": warning: " in line for line in reparsed.stderr.splitlines())
    assert reparsed.stdout == (tmp_path / "scrapy" / "out.jsonl").read_text(encoding="utf-8"), "re-parsed as written"


def test_a_captcha_stops_the_host_for_the_scrapy_engine_too(tmp_path: Path) -> None:
    with FakeSite() as scholar, FakeSite() as other:
        scholar.scholar[SCHOLAR_A] = 250
        scholar.fault(f"user={SCHOLAR_B}", "captcha")
        targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B},
                   {"site": "elamur", "id": "olatunji-ruwase"}, {"site": "scholar", "id": SCHOLAR_C}]
        # two in flight: requests wait in the host's slot behind the CAPTCHA, and must not be sent
        job = write_job(tmp_path, targets, {"scholar": scholar.url, "elamur": other.url}, concurrency=2)
        done = run_cli("scrape", str(job), "--engine", "scrapy")
        assert done.returncode == 3, done.stderr
        assert SCHOLAR_B in scholar.log[-1][1]  # the CAPTCHA was the last request that host saw
        assert "blocked" in done.stderr and "pending" in done.stderr
        assert [profile_key(r) for r in records(tmp_path / "out.jsonl")] == ["elamur:olatunji-ruwase"]
        rerun = run_cli("scrape", str(job), "--engine", "scrapy", "--force")  # within block_wait
        assert rerun.returncode == 0, rerun.stderr
        assert "1 already finished" in rerun.stderr
        assert len(other.paths("/authors/")) == 1, "a finished target is not fetched again"
    got = records(tmp_path / "out.jsonl")
    assert sorted(profile_key(r) for r in got) == sorted(f"{t['site']}:{t['id']}" for t in targets)
    assert len(next(r for r in got if profile_key(r) == f"scholar:{SCHOLAR_A}")["publications"]) == 250


def test_a_captcha_sent_with_503_is_not_retried(tmp_path: Path) -> None:
    with FakeSite() as site:
        site.fault(SCHOLAR_A, "captcha:503")
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B}],
                        {"scholar": site.url}, retries=3, concurrency=2)
        done = run_cli("scrape", str(job), "--engine", "scrapy")
        assert done.returncode == 3, done.stderr
        assert len(site.paths(SCHOLAR_A)) == 1 and not site.paths(SCHOLAR_B)


def test_robots_txt_is_obeyed_by_the_scrapy_engine(tmp_path: Path) -> None:
    with FakeSite() as site:
        site.robots = "User-agent: *\nDisallow: /free/\nDisallow: /citations?*cstart=\n"
        site.scholar[SCHOLAR_A] = 150
        targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "elamur", "id": "olatunji-ruwase"},
                   {"site": "msr", "id": "adaexample"}]
        job = write_job(tmp_path, targets, {"scholar": site.url, "msr": site.url, "elamur": site.url})
        done = run_cli("scrape", str(job), "--engine", "scrapy")
        assert done.returncode == 1, done.stderr
        assert "elamur:olatunji-ruwase: robots_disallowed: robots.txt of" in done.stderr
        assert f"scholar:{SCHOLAR_A}: partial: stopped after 1 page(s)" in done.stderr
        assert not site.paths("/free/") and not site.paths("cstart")
    got = {profile_key(r): r for r in records(tmp_path / "out.jsonl")}
    assert set(got) == {f"scholar:{SCHOLAR_A}", "msr:adaexample"}
    assert [w["code"] for w in got[f"scholar:{SCHOLAR_A}"]["warnings"]] == ["partial"]


def test_the_command_line_does_not_import_scrapy_until_a_crawl() -> None:
    import subprocess
    import sys

    probe = "import sys; from pubharvest.cli import build_parser; build_parser(); print('scrapy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "False"


def test_a_redirect_to_the_google_sign_in_page_is_not_followed() -> None:
    from types import SimpleNamespace

    from twisted.python.failure import Failure

    from pubharvest.scrapers import job_from_toml
    from pubharvest.scrapers.crawl import BlockMiddleware, CrawlEngine, ProfileSpider, RedirectRefused, fetch_error

    job = job_from_toml('contact = "a@b.org"\noutput = "o.jsonl"\n[[targets]]\nsite = "scholar"\nid = "qc6CJjYAAAAJ"')
    spider = ProfileSpider(engine=CrawlEngine(job, SimpleNamespace(run="r", finished={}), []), seeds=[])
    [first] = spider.first_requests(job.targets)
    middleware = BlockMiddleware(SimpleNamespace(spider=spider))
    assert middleware.process_request(first) is None
    sign_in = first.replace(url="https://accounts.google.com/ServiceLogin?continue=x",
                            meta={"redirect_urls": [first.url]})
    with pytest.raises(RedirectRefused) as refused:
        middleware.process_request(sign_in)
    failure = Failure(refused.value)
    failure.request = sign_in  # type: ignore[attr-defined]  # as Scrapy sets it on an errback's failure
    error = fetch_error(failure)
    assert (error.code, error.transient) == ("not_found_or_private", False)
    assert "sign-in page" in error.message


def test_ctrl_c_stops_cleanly_and_a_rerun_finishes_the_rest(tmp_path: Path) -> None:
    import signal

    users = [f"Intr{i:04d}xAAAAJ" for i in range(8)]
    with SlowSite(delay=0.3) as site:
        job = write_job(tmp_path, [{"site": "scholar", "id": u} for u in users], {"scholar": site.url})
        crawl = start_cli("scrape", str(job), "--engine", "scrapy", log=tmp_path / "first.log")
        assert wait_until(lambda: len(site.page_counts()) >= 3, timeout=60)
        crawl.send_signal(signal.SIGINT)
        assert crawl.wait(timeout=60) == 130
        first = (tmp_path / "first.log").read_text()
        assert "interrupted" in first and "--engine scrapy` again" in first, first
        finished = len(records(tmp_path / "out.jsonl"))
        assert 0 < finished < len(users)
        rerun = run_cli("scrape", str(job), "--engine", "scrapy")
        assert rerun.returncode == 0 and f"{finished} already finished" in rerun.stderr, rerun.stderr
        assert max(site.page_counts().values()) == 1, "no page fetched twice"
    assert sorted(profile_key(r) for r in records(tmp_path / "out.jsonl")) == sorted(f"scholar:{u}" for u in users)


def test_polite_scrapy_settings_come_from_the_job() -> None:
    from types import SimpleNamespace

    from pubharvest.scrapers import job_from_toml
    from pubharvest.scrapers.crawl import CrawlEngine, ProfileSpider

    job = job_from_toml('contact = "a@b.org"\noutput = "o.jsonl"\nrate = 0.5\nretries = 3\n'
                        '[[targets]]\nsite = "scholar"\nid = "qc6CJjYAAAAJ"')
    engine = CrawlEngine(job, SimpleNamespace(run="r", finished={}), [])
    settings = engine.settings()
    # robots.txt and pacing are the gates' (RobotsGate, HostGate with the job's clock), not Scrapy's own
    assert "crawl.RobotsGate" in str(settings["DOWNLOADER_MIDDLEWARES"]) and not settings["ROBOTSTXT_OBEY"]
    assert settings["DOWNLOAD_DELAY"] == 0 and not settings["AUTOTHROTTLE_ENABLED"]
    assert ProfileSpider(engine=engine, seeds=[]).pace("scholar.google.com").interval == 2.0
    assert settings["RETRY_TIMES"] == 3
    assert settings["CONCURRENT_REQUESTS_PER_DOMAIN"] == 1
    assert {429, 500, 503} <= set(settings["RETRY_HTTP_CODES"])
    assert "a@b.org" in settings["USER_AGENT"] and not settings["COOKIES_ENABLED"]


def test_bad_engine_input_gets_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    job = write_job(tmp_path, [{"site": "elamur", "id": "olatunji-ruwase"}], {"elamur": "http://127.0.0.1:9"})
    cases = {
        "--redis needs --engine scrapy": ["--redis", "redis://127.0.0.1:1/0"],
        "cannot reach Redis at redis://127.0.0.1:1/0": ["--engine", "scrapy", "--redis", "redis://127.0.0.1:1/0"],
        "a store is an SQLite file or a postgresql:// URL": ["--engine", "scrapy", "--store", "mysql://db/x"],
    }
    for message, flags in cases.items():
        assert main(["scrape", str(job), *flags]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_record_the_store_cannot_hold_fails_its_target_and_the_crawl_goes_on() -> None:
    from types import SimpleNamespace

    from pubharvest.errors import OutOfRange
    from pubharvest.parsers.records import PageResult
    from pubharvest.scrapers import job_from_toml
    from pubharvest.scrapers.crawl import CrawlEngine, Finished, RecordPipeline
    from pubharvest.scrapers.engine import Outcome

    job = job_from_toml('contact = "a@b.org"\noutput = "o.jsonl"\n' + "".join(
        f'[[targets]]\nsite = "scholar"\nid = "{user}"\n' for user in (SCHOLAR_A, SCHOLAR_B, SCHOLAR_C)))
    refusals = {SCHOLAR_A: OverflowError("Python int too large to convert to SQLite INTEGER"),
                SCHOLAR_B: OutOfRange("the store cannot hold a value of this record: NUL")}
    committed: list[tuple[str, str, str | None]] = []

    def sink(run, target, record):
        if target.id in refusals:
            raise refusals[target.id]

    ledger = SimpleNamespace(run="r", finished={}, commit=lambda key, status, code, line: committed.append(
        (key, status, code)))
    engine = CrawlEngine(job, ledger, [sink])
    crawler = SimpleNamespace(spider=SimpleNamespace(engine=engine))
    pipeline = RecordPipeline(crawler)
    for target in job.targets:
        pipeline.process_item(Finished(target.key, Outcome(target.key, "done", pages=1),
                                       PageResult(site="scholar", page="profile")))
    assert engine.write_error is None, "the crawl was not stopped"
    assert committed == [(f"scholar:{SCHOLAR_A}", "failed", "out_of_range"),
                         (f"scholar:{SCHOLAR_B}", "failed", "out_of_range"), (f"scholar:{SCHOLAR_C}", "done", None)]
