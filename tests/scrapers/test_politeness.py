"""Politeness on both engines, one parametrised test each: robots.txt failures, Crawl-delay and
Retry-After within and past their caps, and the spacing of requests per host. Both engines follow one
rule (``scrapers/politeness.py``); these tests check that each does, as the server sees it.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from fakesite import FakeSite
from hostile import BAD, GOOD, TARGETS
from scrapejobs import ENGINES, SCHOLAR_A, profile_key, records, run_engine, write_job

# The fake server logs a request when its thread reads it, a few ms late on a busy machine; a request's
# spacing is booked as it is sent (httpx) or just before (Scrapy tells nothing of when it is written).
LEEWAY = 0.01


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


# (the robots.txt answers, the job's settings, the code its host's targets end pending with, the line's words)
ROBOTS_FAILURES: dict[str, tuple[list[str], dict[str, Any], str, str]] = {
    "5xx": (["503"] * 3, {"retries": 2}, "http_error",
            "robots.txt of {host} answered HTTP 503; not fetching from a host whose rules are unknown"),
    "timeout": (["hang"] * 2, {"retries": 1, "timeout": 1.0}, "timeout", "within timeout = 1 s"),
    "huge": (["huge:4"], {"max_bytes": 2**20}, "too_large",
             "larger than max_bytes = 1048576 bytes (decompressed): not read further; not fetching from a host "
             "whose rules are unknown"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("failure", list(ROBOTS_FAILURES))
def test_a_robots_txt_that_fails_leaves_its_host_pending_with_nothing_fetched(engine, failure, site, tmp_path: Path,
                                                                              capsys) -> None:
    answers, settings, code, words = ROBOTS_FAILURES[failure]
    with FakeSite() as failing:
        failing.fault("/robots.txt", *answers)
        job = write_job(tmp_path, TARGETS, {"scholar": failing.url, "msr": site.url, "elamur": site.url},
                        **settings)
        exit_code, err = run_engine(engine, capsys, job)
        assert not failing.paths("/citations"), "nothing but robots.txt was asked of the host"
        host = failing.url.split("//")[1]
    assert exit_code == 1, err  # the host answered: not exit 4, which says no host could be reached
    for user in (SCHOLAR_A, BAD):
        assert f"scholar:{user}: {code}: " in err, err
    assert words.format(host=host) in err, err
    assert "2 done, 2 pending" in err and "2 target(s) pending: run `" in err, err
    assert sorted(profile_key(r) for r in records(tmp_path / "out.jsonl")) == sorted(GOOD[1:])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_crawl_delay_of_a_year_leaves_that_host_pending(engine, site, tmp_path: Path, capsys) -> None:
    with FakeSite() as slow:
        slow.robots = "User-agent: *\nCrawl-delay: 31536000\nAllow: /\n"
        job = write_job(tmp_path, TARGETS, {"scholar": slow.url, "msr": site.url, "elamur": site.url})
        code, err = run_engine(engine, capsys, job)
        assert not slow.paths("/citations"), "nothing but robots.txt was asked of the slow host"
    assert code == 3, err
    assert "asking to wait 31536000 s (Crawl-delay), more than max_crawl_delay = 60 s: not waited for" in err
    assert f"scholar:{SCHOLAR_A}: blocked: " in err and f"scholar:{BAD}: blocked: " in err
    assert sorted(profile_key(r) for r in records(tmp_path / "out.jsonl")) == sorted(GOOD[1:])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_crawl_delay_within_its_cap_is_honoured(engine, site, tmp_path: Path, capsys) -> None:
    site.robots = "User-agent: *\nCrawl-delay: 0.3\nAllow: /\n"
    job = write_job(tmp_path, TARGETS[:2], {"scholar": site.url}, max_crawl_delay=1, concurrency=2, per_host=2)
    code, err = run_engine(engine, capsys, job)
    assert code == 0, err
    times = [t for t, path, _ in site.log if path.startswith("/citations")]
    # the host's interval became the Crawl-delay (LEEWAY: the fake server logs a request when its thread reads it)
    assert len(times) == 2 and times[1] - times[0] >= 0.3 - LEEWAY


@pytest.mark.parametrize("engine", ENGINES)
def test_a_year_long_retry_after_date_is_not_waited_for(engine, site, tmp_path: Path, capsys) -> None:
    site.answer("bad", 503, [("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")], b"busy")
    site.fault(f"user={BAD}", "answer:bad")
    job = write_job(tmp_path, TARGETS[1:2], {"scholar": site.url}, max_retry_after=60)
    code, err = run_engine(engine, capsys, job)
    assert code == 3 and "(Retry-After), more than max_retry_after = 60 s: not waited for" in err, err
    assert f"scholar:{BAD}: blocked: " in err and "1 pending" in err, err
    assert len(site.paths(f"user={BAD}")) == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_retry_after_within_its_cap_holds_the_host(engine, site, tmp_path: Path, capsys) -> None:
    site.fault(f"user={SCHOLAR_A}", "429:1")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": BAD}],
                    {"scholar": site.url}, concurrency=2, per_host=1)  # no request on the wire beside the 429
    code, err = run_engine(engine, capsys, job)
    assert code == 0, err
    refused = next(t for t, path, _ in site.log if SCHOLAR_A in path)
    later = [t for t, path, _ in site.log if t > refused]
    assert later and min(later) - refused >= 0.95  # nothing reached the host before Retry-After passed
    assert len(site.paths(SCHOLAR_A)) == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_requests_to_a_host_are_never_closer_than_the_interval(engine, site, tmp_path: Path, capsys) -> None:
    users = [f"Pace{i:04d}xAAAAJ" for i in range(24)]
    rate = 10.0
    job = write_job(tmp_path, [{"site": "scholar", "id": u} for u in users], {"scholar": site.url},
                    rate=rate, jitter=0.5, concurrency=4, per_host=2)
    code, err = run_engine(engine, capsys, job)
    assert code == 0, err
    times = sorted(t for t, _, _ in site.log)
    assert len(times) == len(users) + 1  # robots.txt, then one page each
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # Scrapy's randomised delay went down to half the interval, 50 ms here
    assert min(gaps) >= 1 / rate - LEEWAY, sorted(gaps)[:5]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_host_answering_503_is_exit_1_not_unreachable(engine, site, tmp_path: Path, capsys) -> None:
    site.fault("/", *["503"] * 20)  # robots.txt too: everything this host answers is a 503
    job = write_job(tmp_path, TARGETS[1:2], {"scholar": site.url}, retries=1)
    code, err = run_engine(engine, capsys, job)
    assert code == 1, err
    assert "no host could be reached" not in err and "1 pending" in err, err


@pytest.mark.parametrize("engine", ENGINES)
def test_retries_back_off_exponentially_when_no_retry_after_says_otherwise(engine, site, tmp_path: Path,
                                                                          capsys) -> None:
    site.fault(f"user={SCHOLAR_A}", "500", "500", "500")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url},
                    retries=3, backoff=0.2, max_backoff=0.5)
    code, err = run_engine(engine, capsys, job)
    assert code == 0 and "(3 retries)" in err, err
    times = [t for t, path, _ in site.log if SCHOLAR_A in path]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(gaps) == 3, gaps
    # before retry k: 0.2 * 2^(k-1) plus up to 0.2 of jitter, at most max_backoff = 0.5
    assert gaps[0] >= 0.2 - 0.01 and gaps[1] >= 0.4 - 0.01 and gaps[2] >= 0.5 - 0.01, gaps
    assert max(gaps) < 0.5 + 0.3, gaps
