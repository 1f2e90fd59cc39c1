"""Two Scrapy workers on one job through a real Redis and a real PostgreSQL (started by .ci/run):
every target's records in PostgreSQL once, no page fetched twice, nothing lost when a worker dies.

Skipped when PUBHARVEST_TEST_REDIS / PUBHARVEST_TEST_POSTGRES are unset (a local run without the
servers); CI sets both.
"""

from __future__ import annotations

import secrets
import signal
from pathlib import Path

import pytest

pytest.importorskip("scrapy")

from scrapejobs import records, write_job
from scrapyjobs import fresh_database, service, start_cli, wait_until
from slowsite import SlowSite

pytestmark = pytest.mark.slow  # Scrapy workers against a site that answers late
SCHOLARS = [f"Work{i:04d}erAAAAJ" for i in range(10)]
PEOPLE = ["adaexample"]  # the fake MSR page names its person: one target
ROWS = 150  # two Scholar pages per profile


@pytest.fixture
def redis_url() -> str:
    return service("PUBHARVEST_TEST_REDIS")


@pytest.fixture
def postgres_url():
    with fresh_database(service("PUBHARVEST_TEST_POSTGRES")) as url:
        yield url


@pytest.fixture
def site():
    with SlowSite(delay=0.2) as fake:
        fake.scholar.update({u: ROWS for u in SCHOLARS})
        yield fake


def targets() -> list[dict]:
    return ([{"site": "scholar", "id": u} for u in SCHOLARS] + [{"site": "msr", "id": p} for p in PEOPLE]
            + [{"site": "elamur", "id": "olatunji-ruwase"}])


def expected_pages(site: SlowSite) -> set[str]:
    scholar = {f"/citations?user={u}&hl=en&pagesize=100" + extra for u in SCHOLARS for extra in ("", "&cstart=100")}
    msr = {f"/en-us/research/people/{p}/publications/" for p in PEOPLE}
    return scholar | msr | {"/free/en/authors/olatunji-ruwase/"}


def shared_job(tmp_path: Path, site: SlowSite, postgres_url: str) -> Path:
    return write_job(tmp_path, targets(), {"scholar": site.url, "msr": site.url, "elamur": site.url},
                     name="workers-" + secrets.token_hex(4), store=postgres_url)


def job_name(job: Path) -> str:
    return next(line.split('"')[1] for line in job.read_text().splitlines() if line.startswith("name ="))


def worker(job: Path, redis_url: str, n: int, tmp_path: Path, *extra: str):
    return start_cli("scrape", str(job), "--engine", "scrapy", "--redis", redis_url, *extra,
                     "-o", str(tmp_path / f"w{n}.jsonl"), env={"PUBHARVEST_WORKER_TTL": "2"},
                     log=tmp_path / f"w{n}.log")


def stored(postgres_url: str) -> dict[str, list]:
    import psycopg

    with psycopg.connect(postgres_url) as db:
        profiles = db.execute("SELECT site || ':' || profile_id FROM profiles ORDER BY 1").fetchall()
        links = db.execute("SELECT site || ':' || profile_id, count(*) FROM profile_publications "
                           "GROUP BY 1 ORDER BY 1").fetchall()
        snapshots = db.execute("SELECT run_id, count(*) FROM citation_snapshots GROUP BY 1").fetchall()
        (publications,) = db.execute("SELECT count(*) FROM publications").fetchall()[0]
    return {"profiles": sorted(p for (p,) in profiles), "links": links, "snapshots": snapshots,
            "publications": publications}


def assert_every_record_once(postgres_url: str, outputs: list[Path]) -> None:
    keys = sorted(f"{t['site']}:{t['id']}" for t in targets())
    db = stored(postgres_url)
    assert db["profiles"] == keys
    per_profile = dict(db["links"])
    assert all(per_profile[f"scholar:{u}"] == ROWS for u in SCHOLARS)
    [(_run, snapshots)] = db["snapshots"]  # one run, one snapshot per publication
    assert snapshots == db["publications"]
    written = [r for path in outputs if path.exists() for r in records(path)]
    assert len({(r["site"], r["url"]) for r in written}) == len(keys)


def test_two_workers_share_a_job_fetching_each_page_once(tmp_path: Path, site: SlowSite, redis_url: str,
                                                         postgres_url: str) -> None:
    job = shared_job(tmp_path, site, postgres_url)
    workers = [worker(job, redis_url, n, tmp_path) for n in (1, 2)]
    codes = [w.wait(timeout=120) for w in workers]
    logs = [(tmp_path / f"w{n}.log").read_text() for n in (1, 2)]
    assert codes == [0, 0], logs
    counts = site.page_counts()
    assert set(counts) == expected_pages(site) and max(counts.values()) == 1, counts
    assert_every_record_once(postgres_url, [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"])
    mine = [len(records(tmp_path / f"w{n}.jsonl")) for n in (1, 2) if (tmp_path / f"w{n}.jsonl").exists()]
    assert len(mine) == 2 and sum(mine) == len(targets()), "both workers took part, each target once"


def test_a_worker_killed_midway_loses_nothing(tmp_path: Path, site: SlowSite, redis_url: str,
                                              postgres_url: str) -> None:
    import redis

    job = shared_job(tmp_path, site, postgres_url)
    doomed, survivor = (worker(job, redis_url, n, tmp_path) for n in (1, 2))
    server = redis.Redis.from_url(redis_url)

    def held_by_doomed() -> int:
        keys = server.keys(f"pubharvest:{job_name(job)}:claims:*-{doomed.pid}-*")
        return sum(server.llen(k) for k in keys)

    try:
        assert wait_until(lambda: len(site.page_counts()) >= 8 and held_by_doomed(), timeout=60)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(timeout=10)
        assert held_by_doomed(), "the worker died holding a request"
        assert survivor.poll() is None and len(site.page_counts()) < len(expected_pages(site)), "killed midway"
        assert survivor.wait(timeout=120) == 0, (tmp_path / "w2.log").read_text()
        assert not held_by_doomed(), "its claim went back to the queue"
    finally:
        for process in (doomed, survivor):
            if process.poll() is None:
                process.kill()
    counts = site.page_counts()
    assert set(counts) == expected_pages(site)
    # only the request the dead worker had in flight (concurrency 1) may have been fetched again
    assert sum(n - 1 for n in counts.values()) <= 1, counts
    assert_every_record_once(postgres_url, [tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"])


def test_a_rerun_of_a_finished_shared_job_starts_a_new_run(tmp_path: Path, site: SlowSite, redis_url: str,
                                                           postgres_url: str) -> None:
    site.delay = 0
    job = shared_job(tmp_path, site, postgres_url)
    assert worker(job, redis_url, 1, tmp_path).wait(timeout=120) == 0
    site.cites = 10
    assert worker(job, redis_url, 2, tmp_path).wait(timeout=120) == 0
    db = stored(postgres_url)
    assert len(db["snapshots"]) == 2, "a citation snapshot per publication per run"
    assert max(site.page_counts().values()) == 2


def test_a_captcha_seen_by_one_worker_stops_the_host_for_both(tmp_path: Path, site: SlowSite, redis_url: str,
                                                               postgres_url: str) -> None:
    site.fault(f"user={SCHOLARS[5]}", "captcha")
    job = shared_job(tmp_path, site, postgres_url)
    workers = [worker(job, redis_url, n, tmp_path) for n in (1, 2)]
    codes = [w.wait(timeout=120) for w in workers]
    logs = [(tmp_path / f"w{n}.log").read_text() for n in (1, 2)]
    assert 3 in codes and set(codes) <= {0, 3}, logs
    captcha = next(t for t, path, _ in site.log if SCHOLARS[5] in path)
    # the other worker may have had one request on its way when the CAPTCHA came; nothing later
    assert len([path for t, path, _ in site.log if t > captcha]) <= 1, site.log
    assert any("blocked" in log and "pending" in log for log in logs)
    finished_before = stored(postgres_url)["profiles"]
    assert len(finished_before) < len(targets())
    served = len(site.log)
    rerun = worker(job, redis_url, 3, tmp_path, "--force")  # a rerun within block_wait refuses
    assert rerun.wait(timeout=120) == 0, (tmp_path / "w3.log").read_text()
    assert_every_record_once(postgres_url, [tmp_path / f"w{n}.jsonl" for n in (1, 2, 3)])
    again = [path for _, path, _ in site.log[served:] if not path.startswith("/robots.txt")]
    assert not [p for p in again if any(f"user={k.split(':')[1]}&" in p for k in finished_before)], \
        "a finished target is not fetched again"


def test_a_database_lost_midway_stops_the_job_with_one_line(tmp_path: Path, site: SlowSite,
                                                            postgres_url: str) -> None:
    import psycopg

    job = write_job(tmp_path, targets(), {"scholar": site.url, "msr": site.url, "elamur": site.url},
                    store=postgres_url)
    crawl = start_cli("scrape", str(job), "--engine", "scrapy", log=tmp_path / "crawl.log")
    assert wait_until(lambda: len(site.page_counts()) >= 3, timeout=60)
    admin_url, name = postgres_url.rsplit("/", 1)
    with psycopg.connect(admin_url + "/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
    assert crawl.wait(timeout=60) == 1
    log = (tmp_path / "crawl.log").read_text()
    assert "pubharvest scrape: the store" in log and "failed:" in log and "Traceback" not in log, log


def test_two_workers_exit_within_a_second_of_the_last_target_each_writing_a_segment(
        tmp_path: Path, site: SlowSite, redis_url: str, postgres_url: str, capsys) -> None:
    import json
    import time

    import redis

    from pubharvest.cli import main

    site.fault(f"user={SCHOLARS[-1]}&hl=en&pagesize=100&cstart=100", "slow:0.8")  # one worker waits on the other
    job = shared_job(tmp_path, site, postgres_url)
    server = redis.Redis.from_url(redis_url)
    workers = [worker(job, redis_url, n, tmp_path) for n in (1, 2)]
    finished_key, last = f"pubharvest:{job_name(job)}:finished", 0.0
    exits: dict[int, float] = {}
    deadline = time.monotonic() + 120
    while len(exits) < 2 and time.monotonic() < deadline:
        if not last and server.hlen(finished_key) == len(targets()):
            last = time.monotonic()
        exits.update({n: time.monotonic() for n, w in enumerate(workers) if n not in exits and w.poll() is not None})
        time.sleep(0.005)
    logs = [(tmp_path / f"w{n}.log").read_text() for n in (1, 2)]
    assert [w.returncode for w in workers] == [0, 0], logs
    assert last and max(exits.values()) - last < 1.0, (max(exits.values()) - last, logs)

    segments = sorted(tmp_path.glob("out-*.warc.gz"))
    assert len(segments) == 2 and not (tmp_path / "out.warc.gz").exists(), segments
    assert main(["parse", "-f", "jsonl", str(tmp_path / "out.warc.gz")]) == 0
    archived = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    written = [r for n in (1, 2) for r in records(tmp_path / f"w{n}.jsonl")]
    assert sorted(json.dumps(r, sort_keys=True) for r in archived) == \
        sorted(json.dumps(r, sort_keys=True) for r in written), "the segments together give the job's records"
    assert main(["parse", "-f", "jsonl", str(tmp_path / "out-*.warc.gz")]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(targets())


def test_a_block_seen_by_another_worker_is_in_this_workers_summary(tmp_path: Path, site: SlowSite,
                                                                    redis_url: str, postgres_url: str) -> None:
    # A worker whose queue the other emptied after a CAPTCHA never asks about the host itself; its
    # unfinished targets are pending because of that block, so its exit is "blocked", not "failed".
    from pubharvest.scrapers.job import load_job
    from pubharvest.scrapers.workers import Coordinator, SharedBlocks

    job = load_job(shared_job(tmp_path, site, postgres_url))
    seen, other = (SharedBlocks(Coordinator.connect(redis_url, job)) for _ in range(2))
    assert other.known() == {}
    seen.block("127.0.0.1", "a CAPTCHA page")
    assert other.known() == {"127.0.0.1": "a CAPTCHA page"}
