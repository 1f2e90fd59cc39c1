"""The Scrapy engine: a job's targets fetched by one Scrapy spider, site knowledge from ``sites``.

``pubharvest scrape JOB.toml --engine scrapy`` runs :func:`crawl_job`: one process, one
``CrawlerProcess``, the same records, outcomes and exit codes as the httpx runner, because both
hand pages to the same engine core (``engine.py``): parsing, a block page stopping its host, the
merge of a target's pages, the commit order and the WARC info record. With a Redis URL
(``workers.join_job``) the spider becomes one worker of many: scrapy-redis holds the queue and the
duplicate filter, and every worker writes into the job's store.

Each target is a chain of requests: the first URL from ``Site.first_url``, each next one from
``Site.next_url``; the parsed pages ride along in ``cb_kwargs`` (as JSON, so that a request can sit
in Redis), and the last page yields one :class:`Finished` item (``engine.target_end``). The item
pipeline hands it to ``CrawlEngine.settle``, which commits it as the httpx runner does.

Needs the ``scrapy`` extra: ``pip install 'pubharvest[scrapy]'``.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import scrapy
from scrapy import signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import CrawlerProcess
from scrapy.exceptions import DownloadCancelledError, DownloadTimeoutError, DropItem, IgnoreRequest
from scrapy.http import Request, Response
from scrapy.spidermiddlewares.httperror import HttpError as ScrapyHttpError
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.defer import CancelledError
from twisted.internet.error import ConnectError, DNSLookupError, TCPTimedOutError
from twisted.internet.error import TimeoutError as TwistedTimeout
from twisted.python.failure import Failure

from pubharvest.errors import (
    FetchError,
    HostBlocked,
    HttpError,
    NotFound,
    PubharvestError,
    ResponseTooLarge,
    RobotsDisallowed,
    TimedOut,
    Unreachable,
)
from pubharvest.errors import RedirectRefused as RedirectRefusedError
from pubharvest.parsers.records import PageResult, from_json, to_json

from . import sites
from .archive import ArchiveWriter
from .engine import (
    Blocks,
    Engine,
    Event,
    LedgerLike,
    Outcome,
    Sink,
    Summary,
    open_archive,
    refused_message,
    target_end,
    timeout_message,
    too_large_message,
)
from .fetch import retry_after_seconds
from .job import FetchSettings, Job, Target
from .journal import Ledger
from .safety import (
    AddressGuard,
    redact_headers,
    redact_text,
    redact_url,
    redirect_refusal,
    site_hosts,
    split_credentials,
)

CLAIM = "pubharvest_claim"  # request.meta: the Redis queue entry a worker holds for this request
ARCHIVED = "pubharvest_archived"  # request.meta: the WARC-Record-ID of the request's response
BLOCKED = "pubharvest_blocked"  # request.meta: HostGate's verdict on the response (a reason, or None)
RETRY_CODES = [429, 500, 502, 503, 504, 522, 524, 408]


@dataclass
class Finished:
    """The item a target ends with: its outcome, and its merged record unless it has none."""

    target: str
    outcome: Outcome
    record: PageResult | None = None
    claim: bytes | None = None
    archived: tuple[str, ...] = ()  # WARC-Record-IDs of the record's pages, in order


class HostStopped(IgnoreRequest):
    """A request not sent, or a response not used, because its host blocked the job."""


class RedirectRefused(IgnoreRequest):
    """A redirect that means there is nothing to fetch (Scholar's sign-in page)."""


class Refused(IgnoreRequest):
    """A request not sent or a response not used, for the pubharvest error it carries (never retried)."""

    def __init__(self, error: FetchError) -> None:
        super().__init__(error.message)
        self.error = error


class ProfileSpider(scrapy.Spider):
    """Every target of a job, each a chain of page requests; yields one ``Finished`` per target."""

    name = "pubharvest"

    def __init__(self, engine: CrawlEngine, seeds: Sequence[Target], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.engine, self.job, self.seeds = engine, engine.job, list(seeds)
        self.targets = {t.key: t for t in engine.job.targets}
        self.blocks = engine.blocks
        self.on_event = engine.on_event
        self.stop_host = engine.stop_host
        self.close_reason: str | None = None
        self.host_slots: dict[str, asyncio.Semaphore] = {}  # per_host, held by HostGate while a request is out
        self.sent = 0  # requests that reached a server, as the server counts them (robots.txt and retries too)
        self.guard = AddressGuard([self.job.base_url(s) for s in sites.SITES])
        # Twisted takes no user-info in a URL: it goes as the Authorization header httpx would send
        self.credentials = {sites.host_of(url): auth for url, auth in
                            (split_credentials(self.job.base_url(s)) for s in sites.SITES) if auth}

    async def start(self) -> AsyncIterator[Request]:
        for request in self.first_requests(self.seeds):
            yield request

    def first_requests(self, targets: Sequence[Target]) -> list[Request]:
        """The first page request of each target."""
        return [self.page_request(sites.SITES[t.site].first_url(t, self.job.base_url(t.site)), t.key, [], [])
                for t in targets]

    def page_request(self, url: str, target: str, pages: list[bytes], archived: list[str],
                     claim: bytes | None = None, todo: list[str] | None = None) -> Request:
        """A page of ``target``'s listing, or (``todo`` not None) one of the pages that complete it,
        ``todo`` being those that follow."""
        return Request(split_credentials(url)[0], callback=self.parse_page, errback=self.failed,
                       cb_kwargs={"target": target, "pages": pages, "archived": archived, "todo": todo},
                       meta={CLAIM: claim} if claim else {})

    def parse_page(self, response: Response, target: str, pages: list[bytes],
                   archived: list[str], todo: list[str] | None = None) -> Iterator[Request | Finished]:
        """The next page's request, or the target's ``Finished`` item."""
        claim = response.meta.get(CLAIM)
        site = sites.SITES[self.targets[target].site]
        try:  # a block page the middleware did not know stops the host all the same
            result = self.engine.parse_page(response.body, response.url, response.headers.get("Content-Type"))
        except PubharvestError as error:
            if todo is not None and not isinstance(error, HostBlocked):  # a completing page: that part is missing
                missing = to_json(sites.missing_part(site.name, redact_url(response.url), error))
                yield self.next_part(target, [*pages, missing], archived, todo, claim)
            else:
                yield self.end(target, pages, archived, error, claim)
            return
        previous = [from_json(pages[-1])] if pages else []
        pages = [*pages, to_json(result)]
        archived = [*archived, response.meta[ARCHIVED]] if ARCHIVED in response.meta else archived
        if todo is None:
            next_url = sites.next_page(site, response.url, [*previous, result])
            if next_url is not None:
                yield self.page_request(next_url, target, pages, archived, claim)
                return
            todo = site.completion_urls([from_json(page) for page in pages], self.job.complete,
                                        self.job.base_url(site.name)) if self.job.complete else []
        yield self.next_part(target, pages, archived, todo, claim)

    def next_part(self, target: str, pages: list[bytes], archived: list[str], todo: list[str],
                  claim: bytes | None) -> Request | Finished:
        """The request of the next page that completes the record, or the target's end when none is left."""
        if todo:
            return self.page_request(todo[0], target, pages, archived, claim, todo=todo[1:])
        return self.end(target, pages, archived, None, claim)

    def failed(self, failure: Failure) -> Iterator[Request | Finished]:
        request = failed_request(failure)
        kwargs = request.cb_kwargs
        error = fetch_error(failure, self.job.fetch)
        todo = kwargs.get("todo")
        if todo is not None and not isinstance(error, HostBlocked):  # robots.txt, a 404: that part is missing
            site = self.targets[kwargs["target"]].site
            missing = to_json(sites.missing_part(site, redact_url(request.url), error))
            yield self.next_part(kwargs["target"], [*kwargs["pages"], missing], kwargs["archived"], todo,
                                 request.meta.get(CLAIM))
            return
        yield self.end(kwargs["target"], kwargs["pages"], kwargs["archived"], error, request.meta.get(CLAIM))

    def end(self, target: str, pages: list[bytes], archived: list[str], error: PubharvestError | None,
            claim: bytes | None) -> Finished:
        """A target's ``Finished`` item, from its pages and the error that stopped them (None: the last page)."""
        record, outcome = target_end(self.targets[target], [from_json(page) for page in pages], error)
        return Finished(target, outcome, record, claim, tuple(archived))

    def refuse_if_blocked(self, host: str) -> None:
        if self.blocks.reason(host):
            raise HostStopped(refused_message(host))

    def respect_retry_after(self, request: Request, response: Response) -> None:
        """Hold the host for a ``Retry-After``; one longer than the job's patience is not retried."""
        header = response.headers.get("Retry-After")
        wait = retry_after_seconds(header.decode("latin-1") if header else None)
        if wait is None:
            return
        if wait > self.job.fetch.max_retry_after:
            request.meta["dont_retry"] = True
        else:
            self.blocks.hold(sites.host_of(response.url), time.time() + wait)

    def closed(self, reason: str) -> None:
        self.close_reason = reason


def fetch_error(failure: Failure, fetch: FetchSettings | None = None) -> FetchError:
    """The pubharvest error for a Scrapy failure, so that outcomes read as the httpx runner's do."""
    error, url = failure.value, failed_request(failure).url
    shown = redact_url(url)
    if isinstance(error, Refused):
        return error.error
    if isinstance(error, HostStopped):
        return HostBlocked(str(error))
    if isinstance(error, RedirectRefused):
        return NotFound(str(error))
    if isinstance(error, ScrapyHttpError):
        status = error.response.status
        return HttpError(f"HTTP {status} from {redact_url(error.response.url)}", status)
    if isinstance(error, IgnoreRequest) and "robots.txt" in str(error):  # Scrapy's "Forbidden by robots.txt"
        return RobotsDisallowed(f"robots.txt of {sites.host_of(url)} disallows {shown}")
    if isinstance(error, (DownloadCancelledError, CancelledError)) or "DOWNLOAD_MAXSIZE" in str(error):
        return ResponseTooLarge(too_large_message(shown, fetch.max_bytes if fetch else 0))
    if isinstance(error, (DownloadTimeoutError, TCPTimedOutError, TwistedTimeout)) or "Timeout" in type(error).__name__:
        return TimedOut(timeout_message(shown, fetch.timeout if fetch else 0))
    if isinstance(error, (ConnectError, DNSLookupError)):
        return Unreachable(f"{type(error).__name__} fetching {shown}: {redact_text(str(error)) or 'no detail'}")
    return _Failed(f"{type(error).__name__} fetching {shown}: {redact_text(str(error))}")



def failed_request(failure: Failure) -> Request:
    """The request an errback's failure is about (Scrapy sets it on the failure)."""
    request: Request = failure.request  # type: ignore[attr-defined]  # set by Scrapy, unknown to twisted's types
    return request


class _Failed(FetchError):
    """Anything else Scrapy reports (a dropped connection, a response cut short): a rerun may succeed."""


class HostGate(HTTP11DownloadHandler):
    """Scrapy's HTTP(S) handler, judging hosts inside the download slot.

    A request waits in its host's slot after the downloader middlewares have seen it, so only here
    can a request queued behind a CAPTCHA or a ``Retry-After`` be refused or held before it is
    sent, as the httpx runner does. The verdict on a response is left in ``request.meta`` for
    ``BlockMiddleware`` to act on.
    """

    async def download_request(self, request: Request) -> Response:
        spider = cast(ProfileSpider, self.crawler.spider)
        host = sites.host_of(request.url)
        # Scrapy's slot lets a burst through when there is no delay (it counts a transfer only once
        # the scheduled download starts), so per_host is held here, where a request waiting behind
        # a CAPTCHA is then refused instead of sent
        slots = spider.host_slots.setdefault(host, asyncio.Semaphore(spider.job.fetch.per_host))
        async with slots:
            return await self.send(spider, host, request)

    async def send(self, spider: ProfileSpider, host: str, request: Request) -> Response:
        """The response to ``request``, unless its host blocked the job or asked it to wait (it waits)."""
        spider.refuse_if_blocked(host)
        wait = spider.blocks.held_until(host) - time.time()
        if wait > 0:  # a Retry-After holds every request to the host, not only the one that got it
            spider.on_event("wait", host=host, seconds=wait)
            await asyncio.sleep(wait)
            spider.refuse_if_blocked(host)
        try:
            await spider.guard.check(request.url)  # a private address not asked for, a name that does not exist
        except FetchError as error:
            raise Refused(error) from None
        spider.sent += 1
        spider.on_event("request", url=redact_url(request.url))
        response = await super().download_request(request)
        body = _plain_body(response, spider.job.fetch.max_bytes)
        if body is not None:
            request.meta[BLOCKED] = sites.block_reason(response.status, response.url, body, ok_pages=True)
            if request.meta[BLOCKED]:
                spider.stop_host(host, request.meta[BLOCKED])
        if response.status in RETRY_CODES:
            spider.respect_retry_after(request, response)
        return response


def _plain_body(response: Response, cap: int) -> bytes | None:
    """The body as the site meant it, or None when its encoding is not one undone here or it is over ``cap``
    bytes decompressed (never decompressed further: Scrapy's compression middleware then refuses it).

    Requests ask for gzip or deflate only (``Accept-Encoding`` below), which zlib reads (a zlib or gzip header).
    """
    encoding = (response.headers.get("Content-Encoding") or b"identity").strip().lower()
    if encoding == b"identity":
        return response.body
    if encoding not in (b"gzip", b"x-gzip", b"deflate"):
        return None
    try:
        body = zlib.decompressobj(wbits=zlib.MAX_WBITS | 32).decompress(response.body, cap + 1)
    except zlib.error:
        return None
    return body if len(body) <= cap else None


class BlockMiddleware:
    """Turns a block page into a stopped host, instead of retrying into a CAPTCHA.

    Installed at 580: its ``process_response`` runs after decompression (590) and before retries
    (550), so a CAPTCHA served with 429 or 503 is never retried. It archives every response, acts
    on ``HostGate``'s verdict (judging itself when the gate could not read the body), and does not
    follow a redirect to Google's sign-in page.
    """

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> BlockMiddleware:
        return cls(crawler)

    @property
    def spider(self) -> ProfileSpider:
        return cast(ProfileSpider, self.crawler.spider)

    def process_request(self, request: Request) -> Request | Response | None:
        """None: the request goes on (Scrapy's protocol would take a response or another request instead)."""
        target = request.cb_kwargs.get("target")
        if request.meta.get("redirect_urls") and target in self.spider.targets:
            self.refuse_redirect(target, request.url)
        auth = self.spider.credentials.get(sites.host_of(request.url))
        if auth and b"Authorization" not in request.headers:
            request.headers["Authorization"] = auth
        return None

    def refuse_redirect(self, target: str, location: str) -> None:
        """Raise when a redirect of ``target`` to ``location`` is not followed (as ``Runner.fetch`` decides)."""
        site = sites.SITES[self.spider.targets[target].site]
        refusal = site.redirect_refusal(location)
        if refusal:
            raise RedirectRefused(refusal)
        first = site.first_url(self.spider.targets[target], self.spider.job.base_url(site.name))
        allowed = site_hosts(site.name, self.spider.job.base_url(site.name)) | {sites.host_of(first)}
        refusal = redirect_refusal(location, allowed)
        if refusal:
            raise Refused(RedirectRefusedError(refusal))

    def process_response(self, request: Request, response: Response) -> Response:
        self.spider.on_event("response", url=redact_url(response.url), status=response.status)
        archive = self.spider.engine.archive
        if archive is not None:
            request.meta[ARCHIVED] = archive.make_id()
            archive.exchange("GET", redact_url(request.url), redact_headers(_headers(request.headers)),
                             response.status, _reason(response.status), redact_headers(_headers(response.headers)),
                             response.body, request.meta[ARCHIVED])
        target = request.cb_kwargs.get("target")
        if 300 <= response.status < 400 and "Location" in response.headers and target in self.spider.targets:
            # a redirect Scrapy did not follow (to another scheme): refused with one line, as by the httpx runner
            location = response.headers.get("Location") or b""
            self.refuse_redirect(target, response.urljoin(location.decode("latin-1")))
        if BLOCKED in request.meta:
            reason = request.meta.pop(BLOCKED)
        else:
            reason = sites.block_reason(response.status, response.url, response.body, ok_pages=True)
        if reason:
            host = sites.host_of(response.url)
            self.spider.stop_host(host, reason)
            raise HostStopped(f"{host}: {reason}")
        return response


def _headers(headers: Any) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), b", ".join(v).decode("latin-1")) for k, v in headers.items()]


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


class RecordPipeline:
    """Hands each ``Finished`` item to the job's sinks and ledger, then releases its queue claim."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> RecordPipeline:
        return cls(crawler)

    def process_item(self, item: Finished) -> Finished:
        engine = self.crawler.spider.engine
        try:
            engine.settle(item)
        except Exception as error:  # a failed write (disk full, database gone) ends the crawl, as in the httpx runner
            if engine.write_error is None:
                engine.write_error = error
                deferred_from_coro(self.crawler.stop_async())
            raise DropItem(f"{item.target}: not written: {error}") from None
        return item


class CrawlEngine(Engine):
    """A crawl's engine core (``engine.Engine``) and, with Redis, the shared queue it works on."""

    def __init__(self, job: Job, ledger: LedgerLike, sinks: Sequence[Sink], on_event: Event | None = None,
                 coordinator: Any = None, archive: ArchiveWriter | None = None) -> None:
        super().__init__(job, ledger, sinks, on_event, archive)
        self.coordinator = coordinator
        self.write_error: Exception | None = None

    def settle(self, item: Finished) -> None:
        """Commit a target's end (``Engine.commit``), say so, and release its queue claim."""
        target = next(t for t in self.job.targets if t.key == item.target)
        self.commit(target, item.outcome, item.record, item.archived)
        self.on_event("target", outcome=item.outcome)
        if self.coordinator is not None and item.claim is not None:
            self.coordinator.release(item.claim)

    def settings(self) -> dict[str, Any]:
        """Scrapy settings for this job: polite defaults from the job's fetch settings."""
        fetch = self.job.fetch
        delay = 1.0 / fetch.rate if fetch.rate > 0 else 0.0
        settings = {
            "USER_AGENT": fetch.user_agent,
            "ROBOTSTXT_OBEY": fetch.robots == "obey",
            "ROBOTSTXT_USER_AGENT": fetch.user_agent,
            "DOWNLOAD_DELAY": delay,
            "RANDOMIZE_DOWNLOAD_DELAY": fetch.jitter > 0,
            "AUTOTHROTTLE_ENABLED": delay > 0,  # rate = 0 is the job's explicit "no limit"
            "AUTOTHROTTLE_START_DELAY": delay,
            "AUTOTHROTTLE_MAX_DELAY": max(fetch.max_backoff, delay),
            "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0,
            "CONCURRENT_REQUESTS": fetch.concurrency,
            "CONCURRENT_REQUESTS_PER_DOMAIN": fetch.per_host,
            "DOWNLOAD_TIMEOUT": fetch.timeout,  # Scrapy's covers the whole download, headers and body
            "DOWNLOAD_MAXSIZE": fetch.max_bytes,  # checked on the wire and again while decompressing
            "DOWNLOAD_WARNSIZE": 0,
            "RETRY_ENABLED": True,
            "RETRY_TIMES": fetch.retries,
            "RETRY_HTTP_CODES": RETRY_CODES,
            "REDIRECT_MAX_TIMES": sites.MAX_REDIRECTS,
            "COOKIES_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "ERROR",
            "LOG_INSTALL_ROOT_HANDLER": False,
            # each target is its own chain of pages, so in one process nothing is a duplicate: two
            # targets naming one profile are both fetched, as by the httpx runner (workers share
            # scrapy-redis's filter instead, see workers.py)
            "DUPEFILTER_CLASS": "scrapy.dupefilters.BaseDupeFilter",
            "DOWNLOADER_MIDDLEWARES": {f"{__name__}.BlockMiddleware": 580},
            "DOWNLOAD_HANDLERS": {"http": f"{__name__}.HostGate", "https": f"{__name__}.HostGate"},
            "DEFAULT_REQUEST_HEADERS": {"Accept-Encoding": "gzip, deflate"},  # what HostGate can read
            "ITEM_PIPELINES": {f"{__name__}.RecordPipeline": 300},
        }
        if self.coordinator is not None:
            settings.update(self.coordinator.scrapy_settings())
        return settings

    def crawl(self, seeds: Sequence[Target], blocks: Blocks | None = None) -> Summary:
        """Run the spider over ``seeds`` in this process until the crawl ends (or Ctrl-C stops it);
        ``blocks`` replaces the engine's own (workers share theirs through Redis)."""
        started = time.perf_counter()
        if blocks is not None:
            self.blocks = blocks
        process = CrawlerProcess(self.settings())
        crawler = process.create_crawler(ProfileSpider)
        if self.coordinator is not None:
            crawler.signals.connect(self.coordinator.on_idle, signal=signals.spider_idle)
            crawler.signals.connect(self.coordinator.on_opened, signal=signals.spider_opened)
            crawler.signals.connect(self.coordinator.on_closed, signal=signals.spider_closed)
        unfinished = len(self.unsettled())
        self.on_event("start", targets=unfinished, skipped=len(self.job.targets) - unfinished)
        process.crawl(crawler, engine=self, seeds=seeds)
        try:
            process.start()
        finally:
            if self.archive is not None:
                self.archive.close()
        if self.write_error is not None:
            raise self.write_error
        return self.summarise(crawler, started)

    def summarise(self, crawler: Any, started: float) -> Summary:
        summary, spider = self.summary, crawler.spider
        stats = crawler.stats.get_stats()
        summary.requests = spider.sent  # Scrapy's own count includes requests the gate refused before sending
        summary.retries = stats.get("retry/count", 0)
        summary.blocked = self.blocks.known()
        summary.interrupted = spider.close_reason == "shutdown"
        summary.wall_seconds = time.perf_counter() - started
        self.leave_pending(self.unsettled(), "interrupted" if summary.interrupted else "unfinished")
        return summary

    def unsettled(self) -> list[str]:
        """Targets of the job that no worker has finished, and that this one did not settle."""
        finished = self.ledger.finished if self.coordinator is None else self.coordinator.finished()
        return [t.key for t in self.job.targets if t.key not in finished and t.key not in self.summary.outcomes]


def crawl_job(job: Job, sinks: Sequence[Sink] = (), on_event: Event | None = None, new_run: bool = False) -> Summary:
    """Run (or resume) ``job`` under Scrapy in this process (``workers.join_job`` runs it as one worker of many)."""
    with Ledger.open(job.journal, job.output, [t.key for t in job.targets], new_run=new_run) as ledger:  # locks the job
        engine = CrawlEngine(job, ledger, sinks, on_event, archive=open_archive(job, ledger.run, engine="scrapy"))
        todo = [t for t in job.targets if t.key not in ledger.finished]
        summary = engine.crawl(todo)
    summary.skipped = len(job.targets) - len(todo)
    return summary
