"""Pages parsed in worker processes (``parse_workers``): the same records as a parse on the event loop,
a CAPTCHA still stops its host before anything else is sent to it, and workers end with the job, even
one killed with SIGKILL."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import httpx
import pytest
from fakesite import CAPTCHA, FakeSite
from scrapejobs import SCHOLAR_A, SCHOLAR_B, lines_without_when, records, scrape, write_job
from scrapyjobs import start_cli
from test_resume import journal_done, wait_for

from pubharvest.errors import JobError
from pubharvest.scrapers import job_from_toml, parseworker
from pubharvest.scrapers.parsepool import POOL_MIN_BYTES, ParsePool, WorkerLost, default_workers


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def test_a_captcha_stops_its_host_before_the_pool_has_parsed_anything(site, tmp_path: Path, capsys) -> None:
    users = [f"Pool{i:04d}xAAAAJ" for i in range(12)]
    for user in users:
        site.scholar[user] = 100  # pages the workers take a while over, while the loop could send more
    # a 200 answer (only the parsers' refusal knows it is a CAPTCHA) large enough to be given to a worker
    captcha = CAPTCHA.replace("</body>", f"<!-- {'padding ' * 5000} --></body>").encode()
    assert len(captcha) >= POOL_MIN_BYTES
    site.answer("big-captcha", 200, [("Content-Type", "text/html; charset=utf-8")], captcha)
    site.fault(f"user={users[3]}", "answer:big-captcha")
    job = write_job(tmp_path, [{"site": "scholar", "id": u} for u in users], {"scholar": site.url},
                    concurrency=8, per_host=1, parse_workers=2)
    code, err = scrape(capsys, job)
    assert code == 3, err
    assert users[3] in site.log[-1][1], "the CAPTCHA was the last request the host saw"
    assert "the site answered with a CAPTCHA" in err
    assert f"{len(site.log)} requests" in err


def test_the_pool_gives_the_records_of_a_parse_on_the_event_loop(site, tmp_path: Path, capsys) -> None:
    site.scholar.update({SCHOLAR_A: 150, SCHOLAR_B: 3})
    targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B},
               {"site": "msr", "id": "adaexample"}, {"site": "elamur", "id": "olatunji-ruwase"}]
    bases = {"scholar": site.url, "msr": site.url, "elamur": site.url}
    outputs = {}
    for workers in (0, 2):
        folder = tmp_path / str(workers)
        folder.mkdir()
        code, err = scrape(capsys, write_job(folder, targets, bases, parse_workers=workers, concurrency=4,
                                             per_host=4))
        assert code == 0, err
        outputs[workers] = lines_without_when((folder / "out.jsonl").read_text(encoding="utf-8"))
    assert len(outputs[0]) == 4 and outputs[2] == outputs[0]


def test_a_page_that_does_not_parse_fails_its_target_alone(site, tmp_path: Path, capsys) -> None:
    site.change = "cut"  # every Scholar page stops in its first row: a named error from the worker
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "msr", "id": "adaexample"}],
                    {"scholar": site.url, "msr": site.url}, parse_workers=1)
    code, err = scrape(capsys, job)
    assert code == 1, err
    assert f"scholar:{SCHOLAR_A}: truncated: " in err and "1 done, 1 failed" in err, err
    assert "Traceback" not in err


def test_a_worker_that_dies_leaves_its_page_to_the_job_and_the_next_page_gets_another(site) -> None:
    page = site.url + f"/citations?user={SCHOLAR_A}&hl=en&pagesize=100"
    body = httpx.get(page).content

    async def run() -> tuple[BaseException | None, int, int]:
        pool = ParsePool(1)
        try:
            first = await pool.parse(body, page, None)
            dead = pool.started[0].process
            dead.kill()
            await dead.wait()
            try:
                await pool.parse(body, page, None)
                lost = None
            except WorkerLost as error:
                lost = error
            assert await pool.parse(body, page, None) == first
            return lost, len(pool.started), pool.started[0].process.pid - dead.pid
        finally:
            await pool.close()

    lost, started, other = asyncio.run(run())
    assert isinstance(lost, WorkerLost) and "ended before it answered" in str(lost)
    assert started == 1 and other != 0


def test_a_job_whose_workers_cannot_start_parses_in_its_own_process(site, tmp_path: Path, capsys,
                                                                   monkeypatch) -> None:
    monkeypatch.setattr(parseworker, "__name__", "pubharvest.scrapers.no_such_worker")  # each worker exits at once
    site.scholar[SCHOLAR_A] = 150
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url}, parse_workers=1)
    started = []
    real_start = ParsePool._start

    async def counted(pool: ParsePool):
        started.append(1)
        return await real_start(pool)

    monkeypatch.setattr(ParsePool, "_start", counted)
    code, err = scrape(capsys, job)
    assert code == 0, err
    [record] = records(tmp_path / "out.jsonl")
    assert len(record["publications"]) == 150
    assert len(started) == 1, "a worker that could not start is not started again for each page"


def test_workers_end_with_the_pool(site) -> None:
    page = site.url + f"/citations?user={SCHOLAR_A}&hl=en&pagesize=100"
    body = httpx.get(page).content

    async def run() -> list[int]:
        pool = ParsePool(2)
        await asyncio.gather(pool.parse(body, page, None), pool.parse(body, page, None))
        pids = [worker.process.pid for worker in pool.started]
        await pool.close()
        return pids

    pids = asyncio.run(run())
    assert len(pids) == 2
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.parametrize(("cores", "load", "workers"),
                         [(2, 0.3, 1), (2, 1.2, 0), (8, 2.5, 5), (8, 0.0, 7), (8, 9.0, 0), (1, 0.0, 0)])
def test_the_default_is_the_idle_cores_but_one(monkeypatch, cores: int, load: float, workers: int) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert default_workers() == workers


def test_parse_workers_must_not_be_negative() -> None:
    with pytest.raises(JobError, match="parse_workers must not be negative"):
        job_from_toml('contact = "a@b.org"\nparse_workers = -1\n[[targets]]\nsite = "msr"\nid = "ada"')


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def parse_workers_of(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children if b"parseworker" in Path(f"/proc/{c}/cmdline").read_bytes()]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_a_job_killed_with_sigkill_leaves_no_worker_behind(site, tmp_path: Path) -> None:
    users = [f"Kill{i:04d}xAAAAJ" for i in range(4)]
    for user in users[:3]:
        site.scholar[user] = 100  # pages of 61 kB: each goes to the worker
    site.fault(f"user={users[3]}", "hang")  # the job waits there, its worker started
    job = write_job(tmp_path, [{"site": "scholar", "id": u} for u in users], {"scholar": site.url},
                    parse_workers=1, timeout=60)
    process = start_cli("scrape", str(job))
    try:
        wait_for(lambda: journal_done(tmp_path / "job.journal") == 3)
        [worker] = parse_workers_of(process.pid)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        wait_for(lambda: not running(worker), 10)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
