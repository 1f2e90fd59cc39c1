"""The httpx engine: every target's pages fetched with one async client, then handed to the shared
engine core (``engine.py``), which parses, merges and commits them.

Fetching (pacing, robots.txt, retries, blocks before a request is sent) is ``fetch.Fetcher``;
this module runs the targets concurrently on one event loop, follows redirects one hop at a
time, and writes each target's end on one writer thread, after its archived pages. The targets
that end while the writer is busy are committed together (``Engine.commit_group``: one fsync of
each file for the group), and at most ``IN_FLIGHT_PER_CONNECTION`` targets per connection are
between their first request and their commit, so that a writer behind the fetching holds back the
fetching instead of the job's memory growing with its targets.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import httpx

from pubharvest.errors import HostBlocked, NotFound, PubharvestError, RedirectRefused
from pubharvest.parsers import parse
from pubharvest.parsers.page import header_charset
from pubharvest.parsers.records import PageResult

from . import sites
from .engine import (
    Engine,
    Outcome,
    Sink,
    Summary,
    TargetEnd,
    failure_outcome,
    named_error,
    open_archive,
    target_end,
)
from .fetch import Fetcher, Response
from .job import Job, Target
from .journal import Ledger
from .parsepool import POOL_MIN_BYTES, ParsePool, WorkerLost, default_workers, refuse_now, workers_can_parse
from .safety import AddressGuard, redact_url, redirect_refusal, site_hosts

__all__ = ["Runner", "run_job"]

# Targets between their first request and their commit, per connection: enough for the writer to commit
# several at once, few enough that their pages, held until then, do not add up.
IN_FLIGHT_PER_CONNECTION = 8


class Runner(Engine):
    """One job's run under httpx: the fetcher and its writer thread; the rest is the shared ``Engine``."""

    def __init__(self, job: Job, ledger: Ledger, client: httpx.AsyncClient, sinks: Sequence[Sink] = (),
                 on_event: Callable[..., None] | None = None, resolve: bool = True) -> None:
        super().__init__(job, ledger, sinks, on_event, open_archive(job, ledger.run))
        hosts = {sites.host_of(job.base_url(s)): s for s in sites.SITES}
        # One writer thread, in submission order: archive records, then each target's commit.
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pubharvest-writer")
        guard = AddressGuard([job.base_url(s) for s in sites.SITES], resolve)
        self.fetcher = Fetcher(job.fetch, client, self.archive, self.on_event, hosts, self.writer, self.blocks, guard)
        self.room = asyncio.Semaphore(IN_FLIGHT_PER_CONNECTION * job.fetch.concurrency)
        self.queued: deque[tuple[TargetEnd, Future[None]]] = deque()  # ends not yet committed, in order
        workers = default_workers() if job.parse_workers is None else job.parse_workers
        self.pool = ParsePool(workers) if workers and workers_can_parse() else None

    async def run(self) -> Summary:
        """Fetch every unfinished target; on cancellation (Ctrl-C) stop and mark the rest pending."""
        started = time.perf_counter()
        todo = [t for t in self.job.targets if t.key not in self.ledger.finished]
        self.summary.skipped = len(self.job.targets) - len(todo)
        self.on_event("start", targets=len(todo), skipped=self.summary.skipped)
        tasks = [asyncio.create_task(self.target(t)) for t in todo]
        try:
            await asyncio.gather(*tasks)
        except BaseException as error:  # Ctrl-C cancels us; a failed write (disk full) fails a task
            self.summary.interrupted = isinstance(error, asyncio.CancelledError)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if not self.summary.interrupted:
                raise
        finally:
            self.writer.shutdown(wait=True)  # commits under way when interrupted still complete
            if self.pool is not None:
                await self.pool.close()
            self.leave_pending((t.key for t in todo), "interrupted")
            if self.archive is not None:
                self.archive.close()
            stats = self.fetcher.stats
            self.summary.blocked = self.blocks.known()
            self.summary.requests, self.summary.retries = stats.requests, stats.retries
            self.summary.fetch_seconds = stats.fetch_seconds
            self.summary.wall_seconds = time.perf_counter() - started
        return self.summary

    async def target(self, target: Target) -> None:
        async with self.room:
            try:
                pages, responses, error = await self.pages(target)
                record, outcome = target_end(target, pages, error)
            except Exception as unforeseen:  # the last resort: one target's bug is its outcome, never the job's end
                record, responses = None, []
                outcome = failure_outcome(target, named_error(unforeseen, f"fetching {target.key}"))
            archived = [r.record_id for r in responses if r.record_id is not None]
            await self.settle(target, outcome, record, archived)

    async def settle(self, target: Target, outcome: Outcome, record: PageResult | None,
                     archived: Sequence[str]) -> None:
        """Commit a target's end on the writer thread (after its archived pages) and wait until it is durable."""
        end = TargetEnd(target, outcome, record, archived)
        done: Future[None] = Future()
        self.queued.append((end, done))
        self.writer.submit(self.commit_queued)
        await asyncio.wrap_future(done)
        self.on_event("target", outcome=end.outcome)

    def commit_queued(self) -> None:
        """On the writer thread: commit as one group every end queued so far, after writing every archive
        exchange queued so far (those of the ends taken were queued before them)."""
        group = [self.queued.popleft() for _ in range(len(self.queued))]
        self.fetcher.write_exchanges()
        if not group:  # an earlier call took them
            return
        failed: BaseException | None = None
        try:
            self.commit_group([end for end, _ in group])
        except BaseException as error:
            failed = error
        for _, done in group:
            if done.set_running_or_notify_cancel():  # False: its task was cancelled (Ctrl-C) meanwhile
                done.set_exception(failed) if failed is not None else done.set_result(None)

    async def pages(self, target: Target) -> tuple[list[PageResult], list[Response], PubharvestError | None]:
        """The parsed pages of ``target`` in order, their responses, and the error that stopped them (or None)."""
        site = sites.SITES[target.site]
        url: str | None = site.first_url(target, self.job.base_url(target.site))
        pages: list[PageResult] = []
        responses: list[Response] = []
        while url is not None:
            try:
                response = await self.fetch(site, url)
                pages.append(await self.parse(response))
            except PubharvestError as error:
                return pages, responses, error
            responses.append(response)
            url = sites.next_page(site, response.url, pages)
        for url in site.completion_urls(pages, self.job.complete, self.job.base_url(target.site)):
            try:
                response = await self.fetch(site, url)
                pages.append(await self.parse(response))
            except HostBlocked as error:
                return pages, responses, error
            except PubharvestError as error:  # robots.txt, a 404, a page that does not parse: that part is missing
                pages.append(sites.missing_part(site.name, redact_url(url), error))
                continue
            responses.append(response)
        return pages, responses, None

    async def fetch(self, site: sites.Site, url: str) -> Response:
        """The response for ``url``, following redirects one hop at a time (each hop paced and checked):
        only http(s), only to the hosts of the target's site."""
        allowed = site_hosts(site.name, self.job.base_url(site.name)) | {sites.host_of(url)}
        for _ in range(sites.MAX_REDIRECTS + 1):
            try:
                response = await self.fetcher.get(url)
            except PubharvestError:
                raise
            except Exception as error:  # a URL httpx cannot send, a name the resolver cannot encode
                raise named_error(error, f"fetching {redact_url(url)}") from None
            if response.location is None:
                return response
            refusal = site.redirect_refusal(response.location)
            if refusal:
                raise NotFound(refusal)
            refusal = redirect_refusal(response.location, allowed)
            if refusal:
                raise RedirectRefused(refusal)
            url = response.location
        raise NotFound(f"more than {sites.MAX_REDIRECTS} redirects from {redact_url(url)}")

    async def parse(self, response: Response) -> PageResult:
        """The page's record, parsed in the pool when there is one; its refusal check (a block page stops its
        host) is made here first, as the response arrives, before any other request can go out."""
        started = time.perf_counter()
        try:
            if self.pool is None or len(response.body) < POOL_MIN_BYTES:
                return self.parse_page(response.body, response.url, response.content_type)
            url, charset = redact_url(response.url), header_charset(response.content_type)
            with self.page_verdict(url):
                refuse_now(response.body, url, charset)
                try:
                    result = await self.pool.parse(response.body, url, charset)
                except WorkerLost:  # parsed here, as without a pool
                    result = parse(response.body, url=url, charset=charset)
            return self.parsed(result, url)
        finally:
            self.summary.parse_seconds += time.perf_counter() - started


async def run_job(job: Job, sinks: Sequence[Sink] = (), on_event: Callable[..., None] | None = None,
                  new_run: bool = False, transport: httpx.AsyncBaseTransport | None = None) -> Summary:
    """Run (or resume) ``job``: returns its summary; records go to the job's output, its store sinks, its archive."""
    limits = httpx.Limits(max_connections=job.fetch.concurrency, max_keepalive_connections=job.fetch.concurrency)
    with Ledger.open(job.journal, job.output, [t.key for t in job.targets], new_run=new_run) as ledger:  # locks the job
        async with httpx.AsyncClient(headers={"User-Agent": job.fetch.user_agent}, timeout=job.fetch.timeout,
                                     limits=limits, follow_redirects=False, transport=transport) as client:
            runner = Runner(job, ledger, client, sinks, on_event, resolve=transport is None)
            return await runner.run()
