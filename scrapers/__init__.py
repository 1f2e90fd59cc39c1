"""pubharvest scrapers: jobs that fetch profile pages politely and hand them to the parsers.

A job in Python::

    import asyncio
    from pubharvest.scrapers import load_job, run_job

    summary = asyncio.run(run_job(load_job("faculty.toml")))
    print(summary.line())   # run 20261202T101500Z-4242: 40 done; 52 pages, 53 requests (1 retries) in 130.2 s

``pubharvest.scrapers.sites`` holds what each site needs (URLs, paging, blocks) and imports no HTTP client;
the names below are loaded on first use, so that importing ``pubharvest.scrapers.sites`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "pubharvest.errors": ("JobError", "FetchError", "HostBlocked", "HttpError", "RobotsDisallowed", "Unreachable"),
    "job": ("Job", "Target", "load_job", "job_from_toml"),
    "engine": ("Summary", "Outcome"),
    "runner": ("run_job",),
    "crawl": ("crawl_job",),  # the Scrapy engine: needs pip install 'pubharvest[scrapy]'
    "workers": ("join_job",),  # the Scrapy engine as one worker of many, through Redis
}
_WHERE = {name: module if "." in module else f"{__name__}.{module}"
          for module, names in _NAMES.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
