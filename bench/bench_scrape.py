"""A 500-page scraper job against a local server, limits off: pages per second, and the share of
the job's time spent outside fetching and parsing (goal: under 20%).

    python bench/bench_scrape.py [--users 5] [--pages 100] [--store]

The server (``tests/fakesite.py``, in its own process) plays Scholar: each of ``--users``
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


def start_server(users: list[str], pages: int) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fakesite.py"), "0",
                               *(f"{u}={pages * 100}" for u in users)], stdout=subprocess.PIPE, text=True)
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


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--users", type=int, default=5, help="Scholar profiles (default 5)")
    args.add_argument("--pages", type=int, default=100, help="pages of 100 rows per profile (default 100)")
    args.add_argument("--store", action="store_true", help="also upsert into an SQLite store")
    options = args.parse_args()
    users = [f"Bench{i:03d}xxAAAAJ" for i in range(options.users)]
    server, base = start_server(users, options.pages)
    try:
        run(base, users[:1], 1, options.store)  # warm up: imports, connections, the server's caches
        summary, archive = run(base, users, 1, options.store)
        wall, fetch, parse = summary.wall_seconds, summary.fetch_seconds, summary.parse_seconds
        outside = wall - fetch - parse
        print(f"sequential: {summary.pages} pages in {wall:.2f} s = {summary.pages / wall:.0f} pages/s; "
              f"archive {archive / 1e6:.1f} MB")
        print(f"  fetching {fetch:.2f} s ({fetch / wall:.0%}), parsing {parse:.2f} s ({parse / wall:.0%}), "
              f"outside both {outside:.2f} s ({outside / wall:.0%}; goal < 20%)")
        summary, _ = run(base, users, 4, options.store)
        print(f"4 in flight: {summary.pages} pages in {summary.wall_seconds:.2f} s = "
              f"{summary.pages / summary.wall_seconds:.0f} pages/s")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
