"""A 500-page scraper job against a local server, limits off: pages per second, and the share of
the job's time spent outside fetching and parsing (goal: <= 10%), and the speed-up of 4
requests in flight (goal: >= 1.6x against a server answering in 50 ms, ``--delay 0.05``).

    python bench/bench_scrape.py [--users 5] [--pages 100] [--store] [--delay 0.05]
    python bench/bench_scrape.py --hostile [--bomb-mb 2048]

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


def start_server(users: list[str], pages: int, delay: float = 0.0) -> tuple[subprocess.Popen, str]:
    rows = [f"{u}={pages * 100}" for u in users]
    argv = ([sys.executable, "-c", _SLOW_SERVER, str(ROOT / "tests" / "helpers"), str(delay), *rows] if delay else
            [sys.executable, str(ROOT / "tests" / "helpers" / "fakesite.py"), "0", *rows])
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def job_text(base: str, users: list[str], concurrency: int, store: bool) -> str:
    lines = ['contact = "mailto:bench@example.org"', 'output = "out.jsonl"', 'warc = "out.warc.gz"',
             "rate = 0", "jitter = 0", "robots = \"ignore\"", f"concurrency = {concurrency}",
             f"per_host = {concurrency}", "[sites.scholar]", f'base_url = "{base}"']
    if store:
        lines.insert(1, 'store = "store.sqlite"')
    for user in users:
        lines += ["[[targets]]", 'site = "scholar"', f'id = "{user}"']
    return "\n".join(lines)


def run(base: str, users: list[str], concurrency: int, store: bool):
    from pubharvest.store import Store

    with tempfile.TemporaryDirectory() as folder:
        job = job_from_toml(job_text(base, users, concurrency, store), root=Path(folder))
        sinks = []
        if store:
            db = Store(job.store)
            sinks.append(lambda run, target, record: db.save(run, target.id, record))
        summary = asyncio.run(run_job(job, sinks))
        archive = (Path(folder) / "out.warc.gz").stat().st_size
    return summary, archive


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
    options = args.parse_args()
    if options.hostile:
        return hostile(options.bomb_mb)
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
