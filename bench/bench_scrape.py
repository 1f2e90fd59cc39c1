"""A 500-page scraper job against a local server, limits off: pages per second, and the share of
the job's time spent outside fetching and parsing (goal: <= 10%), and the speed-up of 4
requests in flight (goal: >= 1.6x against a server answering in 50 ms, ``--delay 0.05``).

    python bench/bench_scrape.py [--users 5] [--pages 100] [--store] [--delay 0.05]
    python bench/bench_scrape.py --hostile [--bomb-mb 2048]
    python bench/bench_scrape.py --targets 1000 [--rows 100] [--repeat 3] [--before OTHER_VENV/bin/python]

``--targets N`` runs a job of N Scholar profiles (one page of ``--rows`` rows each) with a store and
a WARC archive, 4 requests in flight (``--parse-workers N``: the job's ``parse_workers``), beside its
floor: a bare ``httpx.AsyncClient`` loop fetching the same N URLs with the same 4 connections, each in
a process of its own, interleaved, ``--repeat`` times; it prints the job's wall time as a ratio to the
floor's (goal: 3x), min and median, the CPU time of each (the job's with its parse workers), and the
job's peak memory per target (its peak at N targets less its peak at N/4, over the 3N/4 targets
between: goal flat, a few KB, not a target's page held). ``--before PYTHON`` also runs the job, in the
same rounds, under another interpreter that has another checkout installed (the code before a change,
with that checkout's own copy of this file).

``--hostile`` runs a job against a hostile server instead, under each engine in a process of its
own, and prints that process's peak memory (goal: under 500 MB): a gzip bomb (``--bomb-mb`` MB
once decompressed), a 2 GB body, a body dripping one byte every 0.5 s (``timeout = 5``), and one
ordinary page; ``max_bytes`` is left at its default (32 MB).

The server (``tests/helpers/fakesite.py``, in its own process) plays Scholar: each of ``--users``
profiles has ``--pages`` pages of 100 rows, fetched by ``cstart``. The job writes JSON Lines and
a WARC archive (and the SQLite store with ``--store``) like a real one. The share is measured
sequentially (one request at a time), where fetch and parse times add up without overlap:
outside = wall - time waiting for responses - time parsing; it holds pacing-free scheduling,
archiving, merging, encoding and writing. Then the same job runs with 4 requests in flight for
the throughput figure. Not a timed test: it prints numbers and asserts nothing about them.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pubharvest.scrapers import job_from_toml, run_job  # noqa: E402

# tests/helpers/slowsite.py's server, answering each page after a delay, in a process of its own
_SLOW_SERVER = """
import sys, threading
sys.path.insert(0, sys.argv[1])
from slowsite import SlowSite
with SlowSite(float(sys.argv[2])) as site:
    site.scholar.update({k: int(v) for k, v in (a.split("=") for a in sys.argv[3:])})
    print(site.url, flush=True)
    threading.Event().wait()
"""
GOAL_OUTSIDE, GOAL_SPEED_UP = 0.10, 1.6
GOAL_FLOOR_RATIO, GOAL_KB_PER_TARGET = 3.0, 10.0
IN_FLIGHT = 4


def start_server(users: list[str], pages: int, delay: float = 0.0, rows_per_page: int = 100,
                 ) -> tuple[subprocess.Popen, str]:
    rows = [f"{u}={pages * rows_per_page}" for u in users]
    argv = ([sys.executable, "-c", _SLOW_SERVER, str(ROOT / "tests" / "helpers"), str(delay), *rows] if delay else
            [sys.executable, str(ROOT / "tests" / "helpers" / "fakesite.py"), "0", *rows])
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def job_text(base: str, users: list[str], concurrency: int, store: bool, parse_workers: int | None = None) -> str:
    lines = ['contact = "mailto:bench@example.org"', 'output = "out.jsonl"', 'warc = "out.warc.gz"',
             "rate = 0", "jitter = 0", "robots = \"ignore\"", f"concurrency = {concurrency}",
             f"per_host = {concurrency}", "[sites.scholar]", f'base_url = "{base}"']
    if parse_workers is not None:
        lines.insert(0, f"parse_workers = {parse_workers}")
    if store:
        lines.insert(1, 'store = "store.sqlite"')
    for user in users:
        lines += ["[[targets]]", 'site = "scholar"', f'id = "{user}"']
    return "\n".join(lines)


def store_sink(path: Path):
    """What ``pubharvest scrape`` saves with (a checkout before ``StoreSink``: a plain save)."""
    from pubharvest.store import Store

    store = Store(path)
    try:
        from pubharvest.cli.scrape import StoreSink
    except ImportError:
        return lambda run, target, record: store.save(run, target.id, record)
    return StoreSink(store)


def run(base: str, users: list[str], concurrency: int, store: bool, parse_workers: int | None = None):
    with tempfile.TemporaryDirectory() as folder:
        job = job_from_toml(job_text(base, users, concurrency, store, parse_workers), root=Path(folder))
        sinks = []
        if store:
            sinks.append(store_sink(job.store))
        summary = asyncio.run(run_job(job, sinks))
        archive = (Path(folder) / "out.warc.gz").stat().st_size
    return summary, archive


def floor_child(base: str, users: list[str]) -> None:
    """The floor: the same URLs fetched by a bare ``httpx.AsyncClient`` loop, bodies read whole."""
    import httpx

    from pubharvest.parsers import site_info

    urls = [site_info("scholar").profile_url(user, base) for user in users]

    async def fetch_all() -> int:
        limits = httpx.Limits(max_connections=IN_FLIGHT, max_keepalive_connections=IN_FLIGHT)
        async with httpx.AsyncClient(limits=limits) as client:
            queue = iter(urls)

            async def worker() -> int:
                read = 0
                for url in queue:
                    read += len((await client.get(url)).content)
                return read

            return sum(await asyncio.gather(*(worker() for _ in range(IN_FLIGHT))))

    asyncio.run(fetch_all())


def job_child(base: str, users: list[str], parse_workers: int | None = None) -> None:
    """The job: ``users`` as targets, 4 in flight, with a store and a WARC archive."""
    summary, _ = run(base, users, IN_FLIGHT, True, parse_workers)
    assert summary.counts()["done"] == len(users), summary.line()


def timed_child(kind: str, base: str, users: int, python: str = sys.executable,
                parse_workers: int | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (with the processes it started and waited for: the parse workers) and peak
    memory (MB) of one child process running ``kind`` (job or floor), under ``python`` with its own checkout's
    copy of this file (``--before``: the code before a change, whole)."""
    import os
    import time

    script = bench_file(python)  # found before the clock starts: for --before it starts an interpreter
    workers = [] if parse_workers is None else ["--parse-workers", str(parse_workers)]
    started = time.perf_counter()
    child = subprocess.Popen([python, script, "--child", kind, "--base", base, "--targets", str(users), *workers])
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"the {kind} child failed with exit {child.returncode}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


@functools.cache
def bench_file(python: str) -> str:
    """This file in the checkout ``python`` has installed (this file itself under this interpreter): run from
    here, a child would put this checkout first on its path and import this code, not the one before."""
    if python == sys.executable:
        return __file__
    where = subprocess.run([python, "-c", "import pubharvest.scrapers as s; print(s.__file__)"], check=True,
                           capture_output=True, text=True).stdout.strip()
    return str(Path(where).parent.parent / "bench" / "bench_scrape.py")


def against_floor(targets: int, rows: int, repeat: int, before: str | None, parse_workers: int | None) -> None:
    import os
    import statistics

    users = [f"Bench{i:05d}xAAAAJ" for i in range(targets)]
    server, base = start_server(users, 1, 0.0, rows)
    try:
        timed_child("job", base, 20)  # warm up: the bytecode caches, the server's threads
        ratios, jobs, floors, olds, old_ratios, cpus, floor_cpus, old_cpus = [], [], [], [], [], [], [], []
        for _ in range(repeat):
            floor, floor_cpu, _ = timed_child("floor", base, targets)
            job, cpu, _ = timed_child("job", base, targets, parse_workers=parse_workers)
            ratios.append(job / floor)
            jobs.append(job)
            floors.append(floor)
            cpus.append(cpu)
            floor_cpus.append(floor_cpu)
            if before:
                old, old_cpu, _ = timed_child("job", base, targets, before)
                olds.append(old)
                old_ratios.append(old / floor)
                old_cpus.append(old_cpu)
        _, _, small_peak = timed_child("job", base, targets // 4, parse_workers=parse_workers)
        _, _, peak = timed_child("job", base, targets, parse_workers=parse_workers)
        if before:
            _, _, old_small_peak = timed_child("job", base, targets // 4, before)
            _, _, old_peak = timed_child("job", base, targets, before)
    finally:
        server.terminate()
        server.wait()
    per_target = (peak - small_peak) * 1024 / (targets - targets // 4)
    workers = "the default parse_workers" if parse_workers is None else f"parse_workers = {parse_workers}"
    print(f"{targets} targets of one {rows}-row Scholar page, store and WARC, {IN_FLIGHT} in flight, {workers} "
          f"(each a whole process; {repeat} runs, interleaved; load average {os.getloadavg()[0]:.1f})")
    print(f"  floor (bare httpx loop): min {min(floors):.2f} s, median {statistics.median(floors):.2f} s; "
          f"CPU median {statistics.median(floor_cpus):.2f} s")
    print(f"  job: min {min(jobs):.2f} s, median {statistics.median(jobs):.2f} s = "
          f"{targets / statistics.median(jobs):.0f} pages/s; CPU (with its parse workers) median "
          f"{statistics.median(cpus):.2f} s = {statistics.median(cpus) / statistics.median(floor_cpus):.1f}x "
          "the floor's")
    print(f"  job / floor: min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x "
          f"(goal <= {GOAL_FLOOR_RATIO:g}x)  {'ok' if statistics.median(ratios) <= GOAL_FLOOR_RATIO else 'MISSED'}")
    print(f"  peak memory: {small_peak:.0f} MB at {targets // 4} targets, {peak:.0f} MB at {targets}: "
          f"{per_target:+.1f} KB a target (goal <= {GOAL_KB_PER_TARGET:g} KB)  "
          f"{'ok' if per_target <= GOAL_KB_PER_TARGET else 'MISSED'}")
    if before:
        old_per_target = (old_peak - old_small_peak) * 1024 / (targets - targets // 4)
        print(f"  before ({before}): min {min(olds):.2f} s, median {statistics.median(olds):.2f} s = "
              f"{targets / statistics.median(olds):.0f} pages/s; / floor: min {min(old_ratios):.2f}x, median "
              f"{statistics.median(old_ratios):.2f}x; CPU median {statistics.median(old_cpus):.2f} s; "
              f"{old_per_target:+.1f} KB a target")


def hostile(bomb_mb: int) -> None:
    import os
    import time

    sys.path.insert(0, str(ROOT / "tests" / "helpers"))
    from fakesite import FakeSite, gzip_bomb

    started = time.perf_counter()
    gzip_bomb(bomb_mb)
    print(f"gzip bomb: {len(gzip_bomb(bomb_mb)) / 1e6:.1f} MB -> {bomb_mb} MB "
          f"(built in {time.perf_counter() - started:.1f} s)")
    for engine in ("httpx", "scrapy"):
        with FakeSite() as site, tempfile.TemporaryDirectory() as folder:
            site.fault("/authors/olatunji-ruwase/", f"gzipbomb:{bomb_mb}")
            site.fault("/people/adaexample/", "huge:2048")
            site.fault("/authors/dripping/", "drip:0.5")
            job = Path(folder) / "job.toml"
            targets = [("elamur", "olatunji-ruwase"), ("msr", "adaexample"), ("elamur", "dripping"),
                       ("scholar", "Bench000xxAAAAJ")]
            lines = ['contact = "mailto:bench@example.org"', 'output = "out.jsonl"', 'warc = "out.warc.gz"',
                     "rate = 0", "timeout = 5", "retries = 0", "concurrency = 4", "per_host = 4"]
            lines += [f'[sites.{name}]\nbase_url = "{site.url}"' for name in ("scholar", "msr", "elamur")]
            lines += [f'[[targets]]\nsite = "{name}"\nid = "{key}"' for name, key in targets]
            job.write_text("\n".join(lines) + "\n", encoding="utf-8")
            started = time.perf_counter()
            with open(Path(folder) / "stderr", "w+") as err:
                job_process = subprocess.Popen([sys.executable, "-m", "pubharvest.cli", "scrape", str(job),
                                                "--engine", engine], stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
                _, status, usage = os.wait4(job_process.pid, 0)  # this child's own peak, not the largest so far
                job_process.returncode = os.waitstatus_to_exitcode(status)
                err.seek(0)
                told = err.read().splitlines()
            print(f"{engine}: exit {job_process.returncode} in {time.perf_counter() - started:.1f} s, "
                  f"peak memory {usage.ru_maxrss / 1024:.0f} MB (goal < 500 MB)")
            for line in told:
                print(f"  {line}")


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--users", type=int, default=5, help="Scholar profiles (default 5)")
    args.add_argument("--pages", type=int, default=100, help="pages of 100 rows per profile (default 100)")
    args.add_argument("--store", action="store_true", help="also upsert into an SQLite store")
    args.add_argument("--delay", type=float, default=0.0,
                      help="seconds the server takes to answer each page (0.05 for the goal)")
    args.add_argument("--hostile", action="store_true", help="peak memory of a job against a hostile server")
    args.add_argument("--bomb-mb", type=int, default=2048, help="the gzip bomb's decompressed size (default 2048)")
    args.add_argument("--targets", type=int, help="a job of this many one-page targets beside a bare httpx loop")
    args.add_argument("--rows", type=int, default=100, help="with --targets: rows of each target's page")
    args.add_argument("--repeat", type=int, default=3, help="with --targets: runs of each, interleaved")
    args.add_argument("--before", metavar="PYTHON", help="with --targets: also run the job under this interpreter")
    args.add_argument("--parse-workers", type=int, help="with --targets: the job's parse_workers (default: "
                                                        "the job's own default)")
    args.add_argument("--child", choices=("job", "floor"), help=argparse.SUPPRESS)
    args.add_argument("--base", help=argparse.SUPPRESS)
    options = args.parse_args()
    if options.hostile:
        return hostile(options.bomb_mb)
    if options.child:
        users = [f"Bench{i:05d}xAAAAJ" for i in range(options.targets)]
        if options.child == "floor":
            return floor_child(options.base, users)
        return job_child(options.base, users, options.parse_workers)
    if options.targets:
        return against_floor(options.targets, options.rows, options.repeat, options.before, options.parse_workers)
    users = [f"Bench{i:03d}xxAAAAJ" for i in range(options.users)]
    server, base = start_server(users, options.pages, options.delay)
    try:
        run(base, users[:1], 1, options.store)  # warm up: imports, connections, the server's caches
        summary, archive = run(base, users, 1, options.store)
        wall, fetch, parse = summary.wall_seconds, summary.fetch_seconds, summary.parse_seconds
        outside = wall - fetch - parse
        sequential = summary.pages / wall
        print(f"server answering in {options.delay * 1000:.0f} ms; store: {'yes' if options.store else 'no'}")
        print(f"sequential: {summary.pages} pages in {wall:.2f} s = {sequential:.0f} pages/s; "
              f"archive {archive / 1e6:.1f} MB")
        print(f"  fetching {fetch:.2f} s ({fetch / wall:.0%}), parsing {parse:.2f} s ({parse / wall:.0%}), "
              f"outside both {outside:.2f} s ({outside / wall:.0%}; goal <= {GOAL_OUTSIDE:.0%})  "
              f"{'ok' if outside / wall <= GOAL_OUTSIDE else 'MISSED'}")
        summary, _ = run(base, users, 4, options.store)
        speed_up = summary.pages / summary.wall_seconds / sequential
        print(f"4 in flight: {summary.pages} pages in {summary.wall_seconds:.2f} s = "
              f"{summary.pages / summary.wall_seconds:.0f} pages/s = {speed_up:.2f}x sequential "
              f"(goal >= {GOAL_SPEED_UP}x)  {'ok' if speed_up >= GOAL_SPEED_UP else 'MISSED'}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
