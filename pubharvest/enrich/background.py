"""Enrichment of a scrape job's records as each target ends: a sink (``scrapers.engine.Sink``) placed
before the job's store and output, so that what they keep is the enriched record. One asker (one
pace per service, one cache) serves the whole job from an event loop of its own, in a thread, so
that both engines (httpx's loop and Scrapy's reactor) can call it.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import AbstractAsyncContextManager
from typing import Any

from pubharvest.parsers.records import PageResult

from .client import Asker
from .options import EnrichOptions
from .run import enrich_with, open_asker


class Enricher:
    """``enricher.sink(run, target, record)`` enriches ``record`` in place; ``close()`` at the job's end."""

    def __init__(self, options: EnrichOptions) -> None:
        self.options = options
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="pubharvest-enrich", daemon=True)
        self.thread.start()
        self.opened: AbstractAsyncContextManager[Asker] = open_asker(options)
        self.asker: Asker = self._wait(self.opened.__aenter__())

    def sink(self, run: str, target: Any, record: PageResult) -> None:
        self._wait(enrich_with(self.asker, [record]))
        if self.options.cache is not None:
            self.options.cache.flush()  # a job may stop at any target: what it asked stays known

    def close(self) -> None:
        try:
            self._wait(self.opened.__aexit__(None, None, None))
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join()
            self.loop.close()
            if self.options.cache is not None:
                self.options.cache.close()

    def _wait(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()
