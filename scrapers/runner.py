"""Running a job: every target's pages fetched, parsed, merged, and committed once, whole.

>>> Summary(run="r", outcomes={"scholar:x": Outcome("scholar:x", "done")}).exit_code
0
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx

from pubharvest.parsers import ParseError, parse
from pubharvest.parsers.records import PageResult, to_json

from . import sites
from .archive import ArchiveWriter
from pubharvest.errors import FetchError, HostBlocked, NotFound
from .fetch import Fetcher, Response
from .job import Job, Target
from .journal import Ledger

EXIT_OK, EXIT_FAILED, EXIT_BLOCKED, EXIT_UNREACHABLE, EXIT_INTERRUPTED = 0, 1, 3, 4, 130

# (run id, target, merged record) -> None; called before the journal says the target is done
Sink = Callable[[str, Target, PageResult], None]


@dataclass
class Outcome:
    """How a target ended: ``done``, ``partial`` (done, but not every page could be fetched),
    ``failed`` (nothing a rerun would change) or ``pending`` (a rerun fetches it again)."""

    target: str
    status: str
    code: str | None = None
    message: str | None = None
    pages: int = 0


@dataclass
class Summary:
    run: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    skipped: int = 0  # finished by an earlier attempt at this run
    blocked: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    requests: int = 0
    retries: int = 0
    pages: int = 0
    wall_seconds: float = 0.0
    fetch_seconds: float = 0.0
    parse_seconds: float = 0.0

    def counts(self) -> Counter:
        return Counter(o.status for o in self.outcomes.values())

    @property
    def exit_code(self) -> int:
        codes = {o.code for o in self.outcomes.values() if o.status in ("failed", "pending")}
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.blocked:
            return EXIT_BLOCKED
        if "unreachable" in codes and not self.counts()["done"] + self.counts()["partial"]:
            return EXIT_UNREACHABLE
        return EXIT_FAILED if codes else EXIT_OK

    def line(self) -> str:
        """One line: what the run did."""
        counts = self.counts()
        parts = [f"{counts[s]} {s}" for s in ("done", "partial", "failed", "pending") if counts[s]]
        if self.skipped:
            parts.append(f"{self.skipped} already finished")
        return (f"run {self.run}: {', '.join(parts) or 'nothing to do'}; {self.pages} pages, "
                f"{self.requests} requests ({self.retries} retries) in {self.wall_seconds:.1f} s"
                + ("; interrupted" if self.interrupted else ""))


class Runner:
    """One job's run: the fetcher, the archive, the ledger, and the outcome of each target."""

    def __init__(self, job: Job, ledger: Ledger, client: httpx.AsyncClient, sinks: Sequence[Sink] = (),
                 on_event: Callable[..., None] | None = None) -> None:
        self.job, self.ledger, self.sinks = job, ledger, list(sinks)
        self.on_event = on_event or (lambda *a, **k: None)
        self.archive = ArchiveWriter(job.warc, {"software": "pubharvest", "job": job.name, "run": ledger.run,
                                                "http-header-user-agent": job.fetch.user_agent}) if job.warc else None
        hosts = {sites.host_of(job.base_url(s)): s for s in sites.SITES}
        # One writer thread, in submission order: archive records, then each target's commit.
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pubharvest-writer")
        self.fetcher = Fetcher(job.fetch, client, self.archive, self.on_event, hosts, self.writer)
        self.summary = Summary(run=ledger.run)

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
            for t in todo:
                self.summary.outcomes.setdefault(t.key, Outcome(t.key, "pending", "interrupted",
                                                                "the job stopped before this target finished"))
            if self.archive is not None:
                self.archive.close()
            stats = self.fetcher.stats
            self.summary.blocked = self.fetcher.blocked_hosts()
            self.summary.requests, self.summary.retries = stats.requests, stats.retries
            self.summary.fetch_seconds = stats.fetch_seconds
            self.summary.wall_seconds = time.perf_counter() - started
        return self.summary

    async def target(self, target: Target) -> None:
        try:
            pages, responses, stopped = await self.pages(target)
        except (FetchError, ParseError) as error:
            await self.commit(target, failure_outcome(target, error))
            return
        status = "partial" if sites.is_partial(pages[-1]) else "done"
        outcome = Outcome(target.key, status, "partial" if stopped else None, stopped, len(pages))
        record = sites.SITES[target.site].merge(pages)
        await self.commit(target, outcome, record, [r.record_id for r in responses])

    async def commit(self, target: Target, outcome: Outcome, record: PageResult | None = None,
                     response_ids: Sequence[str | None] = ()) -> None:
        """Write a target's outcome on the writer thread (after its archived pages) and wait until it is durable."""
        await asyncio.wrap_future(self.writer.submit(self._commit, target, outcome, record, response_ids))
        self.on_event("target", outcome=outcome)

    def _commit(self, target: Target, outcome: Outcome, record: PageResult | None,
                response_ids: Sequence[str | None]) -> None:
        # Archive, then sinks, then output and journal: a crash between any two redoes the target,
        # and each of these steps is idempotent or cut back on resume (see journal.py).
        if record is not None:
            if self.archive is not None:
                self.archive.target_done(self.ledger.run, target.key, outcome.status, list(response_ids))
            for sink in self.sinks:
                sink(self.ledger.run, target, record)
            self.ledger.commit(target.key, outcome.status, outcome.code, to_json(record))
        elif outcome.status == "failed":
            self.ledger.commit(target.key, "failed", outcome.code, None)
        self.summary.outcomes[target.key] = outcome

    async def pages(self, target: Target) -> tuple[list[PageResult], list[Response], str | None]:
        """The parsed pages of ``target`` in order, their responses, and why paging stopped early (or None)."""
        site = sites.SITES[target.site]
        url: str | None = site.first_url(target, self.job.base_url(target.site))
        pages: list[PageResult] = []
        responses: list[Response] = []
        while url is not None:
            try:
                response = await self.fetch(site, url)
            except FetchError as error:
                if not pages or error.transient:
                    raise
                return pages, responses, f"stopped after {len(pages)} page(s): {error.message}"
            pages.append(self.parse(response))
            responses.append(response)
            self.summary.pages += 1
            self.on_event("page", url=response.url)
            url = site.next_url(response.url, len(pages[-1].publications), sites.is_partial(pages[-1]))
        return pages, responses, None

    async def fetch(self, site: sites.Site, url: str) -> Response:
        """The response for ``url``, following redirects one hop at a time (each hop paced and checked)."""
        for _ in range(sites.MAX_REDIRECTS + 1):
            response = await self.fetcher.get(url)
            if response.location is None:
                return response
            refusal = site.redirect_refusal(response.location)
            if refusal:
                raise NotFound(refusal)
            url = response.location
        raise NotFound(f"more than {sites.MAX_REDIRECTS} redirects from {url}")

    def parse(self, response: Response) -> PageResult:
        started = time.perf_counter()
        try:
            return parse(response.body, url=response.url)
        except ParseError as error:
            if error.code == "blocked":
                self.fetcher.block(sites.host_of(response.url), error.message)
                raise HostBlocked(f"{sites.host_of(response.url)}: {error.message}") from None
            raise
        finally:
            self.summary.parse_seconds += time.perf_counter() - started


def failure_outcome(target: Target, error: FetchError | ParseError) -> Outcome:
    """The outcome of a target that produced no record."""
    transient = isinstance(error, FetchError) and error.transient
    return Outcome(target.key, "pending" if transient else "failed", error.code, error.message)


async def run_job(job: Job, sinks: Sequence[Sink] = (), on_event: Callable[..., None] | None = None,
                  new_run: bool = False, transport: httpx.AsyncBaseTransport | None = None) -> Summary:
    """Run (or resume) ``job``: returns its summary; records go to the job's output, its store sinks, its archive."""
    ledger = Ledger.open(job.journal, job.output, [t.key for t in job.targets], new_run=new_run)
    limits = httpx.Limits(max_connections=job.fetch.concurrency, max_keepalive_connections=job.fetch.concurrency)
    async with httpx.AsyncClient(headers={"User-Agent": job.fetch.user_agent}, timeout=job.fetch.timeout,
                                 limits=limits, follow_redirects=False, transport=transport) as client:
        runner = Runner(job, ledger, client, sinks, on_event)
        return await runner.run()
