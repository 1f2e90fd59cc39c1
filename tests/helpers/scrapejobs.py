"""Helpers for scraper tests: job files aimed at local fake sites, and running them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubharvest.cli import main

SCHOLAR_A, SCHOLAR_B, SCHOLAR_C = "Aaaaaaaa12AAAAJ", "Bbbbbbbb12AAAAJ", "Cccccccc12AAAAJ"
# The two engines, for tests run under each: a Scrapy run is a process of its own, seconds of start-up.
ENGINES = ["httpx", pytest.param("scrapy", marks=pytest.mark.slow)]
# Fast and impatient: no pacing, short timeouts and backoffs, so that fault tests take seconds.
QUICK = {"rate": 0, "jitter": 0, "timeout": 1.0, "retries": 3, "backoff": 0.05, "max_backoff": 0.2,
         "concurrency": 1, "per_host": 1}


def write_job(folder: Path, targets: list[dict], bases: dict[str, str], **settings) -> Path:
    """A job file in ``folder`` writing out.jsonl, store.sqlite and out.warc.gz there."""
    values = {"contact": "mailto:tests@example.org", "output": "out.jsonl", "store": "store.sqlite",
              "warc": "out.warc.gz", **QUICK, **settings}
    lines = [f"{k} = {json.dumps(v)}" for k, v in values.items()]
    for site, url in bases.items():
        lines += [f"[sites.{site}]", f"base_url = {json.dumps(url)}"]
    for target in targets:
        lines += ["[[targets]]"] + [f"{k} = {json.dumps(v)}" for k, v in target.items()]
    path = folder / "job.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def scrape(capsys, job: Path, *args: str) -> tuple[int, str]:
    """Run ``pubharvest scrape JOB`` in-process: exit code and stderr."""
    code = main(["scrape", str(job), *args])
    return code, capsys.readouterr().err


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def profile_key(record: dict) -> str:
    ids = record["profile"]["ids"]
    return f"{record['site']}:{ids[record['site']]}"


def without_when(record: dict) -> dict:
    """``record`` without the job run and fetch time that a job adds to ``source``: what an
    offline parse of the same bytes gives, and the same for two runs."""
    source = {k: v for k, v in record.get("source", {}).items() if k not in ("run", "fetched_at")}
    return {**record, "source": source}


def lines_without_when(text: str) -> list[str]:
    """The JSON Lines of ``text``, each ``without_when``, sorted."""
    return sorted(json.dumps(without_when(json.loads(line))) for line in text.splitlines())


def run_engine(engine: str, capsys, job: Path, *args: str) -> tuple[int, str]:
    """``pubharvest scrape JOB`` under ``engine``: exit code and stderr (Scrapy in a subprocess: one reactor each)."""
    if engine == "httpx":
        return scrape(capsys, job, *args)
    pytest.importorskip("scrapy")
    from scrapyjobs import run_cli

    done = run_cli("scrape", str(job), "--engine", "scrapy", *args)
    return done.returncode, done.stderr
