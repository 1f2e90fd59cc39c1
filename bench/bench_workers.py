"""One Scrapy worker against two on a shared job: targets per second and the speed-up (goal: 1.7x).

    python bench/bench_workers.py --redis redis://127.0.0.1:6379/0 [--store postgresql://...]
                                  [--targets 80] [--delay 0.25]

The server (``tests/helpers/slowsite.py``, in a process of its own) plays Scholar and answers every page after
``--delay`` seconds, as a far-away site would; each of ``--targets`` profiles is one page. Each
worker is polite as the job file says: one request at a time to the host, so one worker is bound
by the delay and a second one should nearly halve the time. The time runs end to end: from
launching the workers (Scrapy's start-up included) to the last worker process exiting. The
store defaults to an SQLite file per run; pass a PostgreSQL URL to measure with the real thing.
Defaults come from PUBHARVEST_TEST_REDIS / PUBHARVEST_TEST_POSTGRES when set. Not a timed test:
it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "helpers")]

import redis  # noqa: E402
from slowsite import SlowSite  # noqa: E402


def job_file(folder: Path, base: str, users: list[str], store: str) -> tuple[Path, str]:
    """A job over ``users`` at ``base``, under a fresh name (so that its Redis keys are its own)."""
    name = "bench-" + secrets.token_hex(4)
    lines = [f'name = "{name}"', 'contact = "mailto:bench@example.org"', f'store = "{store}"',
             "rate = 0", "jitter = 0", "concurrency = 1", "per_host = 1", "timeout = 30",
             "[sites.scholar]", f'base_url = "{base}"']
    for user in users:
        lines += ["[[targets]]", 'site = "scholar"', f'id = "{user}"']
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, name


def run(workers: int, site: SlowSite, users: list[str], redis_url: str, store: str | None) -> float:
    """Seconds from launching ``workers`` workers until the last of them has exited, every target finished."""
    server = redis.Redis.from_url(redis_url)
    with tempfile.TemporaryDirectory() as folder:
        job, name = job_file(Path(folder), site.url, users, store or str(Path(folder) / "store.sqlite"))
        command = [sys.executable, "-m", "pubharvest.cli", "scrape", str(job), "--engine", "scrapy",
                   "--redis", redis_url]
        started = time.perf_counter()
        processes = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                     for _ in range(workers)]
        while any(p.poll() is None for p in processes):
            time.sleep(0.005)
        seconds = time.perf_counter() - started
        if server.hlen(f"pubharvest:{name}:finished") < len(users):
            errors = "".join(p.stderr.read() for p in processes if p.stderr)
            raise SystemExit("the workers stopped early:\n" + errors)
        server.delete(*server.keys(f"pubharvest:{name}:*"))
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default=os.environ.get("PUBHARVEST_TEST_REDIS"), help="Redis URL (required)")
    parser.add_argument("--store", default=os.environ.get("PUBHARVEST_TEST_POSTGRES"),
                        help="a postgresql:// URL (default: an SQLite file per run)")
    parser.add_argument("--targets", type=int, default=80)
    parser.add_argument("--delay", type=float, default=0.25, help="seconds the server waits before each page")
    args = parser.parse_args()
    if not args.redis:
        parser.error("give --redis URL (or set PUBHARVEST_TEST_REDIS)")
    with SlowSite(delay=args.delay) as site:
        site.scholar.update({f"Bench{i:04d}xAAAAJ": 20 for i in range(args.targets)})
        timings = {}
        for workers in (1, 2):
            users = [f"Bench{i:04d}xAAAAJ" for i in range(args.targets)]
            before = len(site.paths())
            timings[workers] = run(workers, site, users, args.redis, args.store)
            pages = [p for p in site.paths()[before:] if not p.startswith("/robots.txt")]
            print(f"{workers} worker(s): {args.targets} targets in {timings[workers]:.2f} s = "
                  f"{args.targets / timings[workers]:.1f} targets/s; {len(pages)} pages fetched "
                  f"({len(pages) - len(set(pages))} twice)")
    print(f"speed-up with two workers, end to end: {timings[1] / timings[2]:.2f}x (goal: 1.7x; "
          f"{args.delay:.2f} s per response, one request at a time per worker)")


if __name__ == "__main__":
    main()
