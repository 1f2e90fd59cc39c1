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
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Self, cast
from urllib.parse import urlsplit

import scrapy
from scrapy import signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import CrawlerProcess
from scrapy.exceptions import DownloadCancelledError, DownloadTimeoutError, DropItem, IgnoreRequest
from scrapy.http import Request, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.spidermiddlewares.httperror import HttpError as ScrapyHttpError
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.defer import CancelledError
from twisted.internet.error import ConnectError, DNSLookupError, TCPTimedOutError
from twisted.internet.error import TimeoutError as TwistedTimeout
from twisted.python.failure import Failure

from pubharvest.errors import (
    BadEncoding,
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

from . import politeness, sites
from .archive import ArchiveWriter
from .codings import BadCoding, DecodedBody, TooLargeDecoded, accepted
from .engine import (
    Blocks,
    Engine,
    Event,
    LedgerLike,
    Outcome,
    Sink,
    Summary,
    failure_outcome,
    named_error,
    open_archive,
    refused_message,
    target_end,
    timeout_message,
    too_large_message,
)
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
ROBOTS = "pubharvest_robots"  # request.meta: a robots.txt request, which RobotsGate lets through
ACCEPT_ENCODING = accepted()  # what HostGate decodes
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
        self.paces: dict[str, politeness.Pace] = {}  # each host's clock, as the httpx engine keeps it
        self.site_hosts = {sites.host_of(self.job.base_url(s)): s for s in sites.SITES}
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
        """The next page's request, or the target's ``Finished`` item; anything unforeseen is the
        target's named outcome (``engine.named_error``), never the crawl's end."""
        claim = response.meta.get(CLAIM)
        try:
            yield self.after_page(response, target, pages, archived, todo, claim)
        except Exception as unforeseen:
            yield self.end(target, pages, archived, named_error(unforeseen, f"fetching {target}"), claim)

    def after_page(self, response: Response, target: str, pages: list[bytes], archived: list[str],
                   todo: list[str] | None, claim: bytes | None) -> Request | Finished:
        site = sites.SITES[self.targets[target].site]
        try:  # a block page the gate did not know stops the host all the same
            result = self.engine.parse_page(response.body, response.url, response.headers.get("Content-Type"))
        except PubharvestError as error:
            if todo is not None and not isinstance(error, HostBlocked):  # a completing page: that part is missing
                missing = to_json(sites.missing_part(site.name, redact_url(response.url), error))
                return self.next_part(target, [*pages, missing], archived, todo, claim)
            return self.end(target, pages, archived, error, claim)
        previous = [from_json(pages[-1])] if pages else []
        pages = [*pages, to_json(result)]
        archived = [*archived, response.meta[ARCHIVED]] if ARCHIVED in response.meta else archived
        if todo is None:
            next_url = sites.next_page(site, response.url, [*previous, result])
            if next_url is not None:
                return self.page_request(next_url, target, pages, archived, claim)
            todo = site.completion_urls([from_json(page) for page in pages], self.job.complete,
                                        self.job.base_url(site.name)) if self.job.complete else []
        return self.next_part(target, pages, archived, todo, claim)

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
        try:
            record, outcome = target_end(self.targets[target], [from_json(page) for page in pages], error)
        except Exception as unforeseen:  # as the httpx runner's last resort: the target's outcome only
            record, outcome = None, failure_outcome(self.targets[target], named_error(unforeseen, f"merging {target}"))
        return Finished(target, outcome, record, claim, tuple(archived))

    def pace(self, host: str) -> politeness.Pace:
        """``host``'s clock: its interval from the job's rate (or its site's), lengthened by a Crawl-delay."""
        if host not in self.paces:
            fetch = self.job.fetch
            rate = fetch.site_rates.get(self.site_hosts.get(host, ""), fetch.rate)
            self.paces[host] = politeness.Pace(1.0 / rate if rate > 0 else 0.0, fetch.jitter)
        return self.paces[host]

    def archive_exchange(self, request: Request, response: Response | None) -> None:
        """Write a request and its response (or, when none came, the request alone) to the job's archive,
        credentials redacted, as the httpx engine does; the response's record id goes in ``request.meta``."""
        archive = self.engine.archive
        if archive is None:
            return
        sent = redact_headers(_headers(request.headers))
        if response is None:
            archive.exchange("GET", redact_url(request.url), sent)
            return
        request.meta[ARCHIVED] = archive.make_id()
        archive.exchange("GET", redact_url(request.url), sent, response.status, _reason(response.status),
                         redact_headers(_headers(response.headers)), response.body, request.meta[ARCHIVED])

    def judge(self, host: str, request: Request, response: Response) -> None:
        """Act on a response as the httpx engine's ``Fetcher._judge`` does: a block stops the host; a 429
        or 5xx holds it for its ``Retry-After`` (past ``max_retry_after``: stops it); a redirect that is
        not followed is refused here, before Scrapy builds a request of its ``Location``."""
        location = redirect_location(response)
        reason = sites.block_reason(response.status, location or response.url, response.body, ok_pages=True)
        if reason:
            self.stop_host(host, reason)
            raise HostStopped(f"{host}: {reason}")
        status = response.status
        if status == 429 or status >= 500:
            hold = politeness.hold_for(status, response.headers.get("Retry-After"), self.job.fetch.max_retry_after)
            if hold.note:
                self.on_event("note", host=host, message=f"{redact_url(response.url)}: {hold.note}")
            if hold.refusal:
                self.stop_host(host, hold.refusal)
                raise HostStopped(f"{host}: {self.blocks.reason(host)}")
            if hold.seconds is not None:
                self.blocks.hold(host, time.time() + hold.seconds)
        target = request.cb_kwargs.get("target")
        if location is not None and target in self.targets:
            self.refuse_redirect(target, location)

    def refuse_redirect(self, target: str, location: str) -> None:
        """Raise when a redirect of ``target`` to ``location`` is not followed (as ``Runner.fetch`` decides)."""
        site = sites.SITES[self.targets[target].site]
        refusal = site.redirect_refusal(location)
        if refusal:
            raise RedirectRefused(refusal)
        first = site.first_url(self.targets[target], self.job.base_url(site.name))
        allowed = site_hosts(site.name, self.job.base_url(site.name)) | {sites.host_of(first)}
        refusal = redirect_refusal(location, allowed)
        if refusal:
            raise Refused(RedirectRefusedError(refusal))

    def refuse_if_blocked(self, host: str) -> None:
        if self.blocks.reason(host):
            raise HostStopped(refused_message(host))

    def closed(self, reason: str) -> None:
        self.close_reason = reason


def fetch_error(failure: Failure, fetch: FetchSettings | None = None) -> FetchError:
    """The pubharvest error for a Scrapy failure, so that outcomes read as the httpx runner's do."""
    return error_of(failure.value, failed_request(failure).url, fetch)


def error_of(error: BaseException, url: str, fetch: FetchSettings | None = None) -> FetchError:
    """The pubharvest error for what fetching ``url`` raised in Scrapy."""
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
    if isinstance(error, IgnoreRequest) and "max redirections" in str(error):  # RedirectMiddleware's limit
        return NotFound(f"more than {sites.MAX_REDIRECTS} redirects from {shown}")
    if isinstance(error, (DownloadCancelledError, CancelledError)) or "DOWNLOAD_MAXSIZE" in str(error):
        return ResponseTooLarge(too_large_message(shown, fetch.max_bytes if fetch else 0))
    if isinstance(error, (DownloadTimeoutError, TCPTimedOutError, TwistedTimeout)) or "Timeout" in type(error).__name__:
        return TimedOut(timeout_message(shown, fetch.timeout if fetch else 0))
    if isinstance(error, (ConnectError, DNSLookupError)):
        return Unreachable(f"{type(error).__name__} fetching {shown}: {redact_text(str(error)) or 'no detail'}")
    if type(error).__name__ in _CONNECTION_LOST:  # the httpx engine's ReadError: no answer on that connection
        return Unreachable(f"{type(error).__name__} fetching {shown}: the connection was lost before an answer")
    return _Failed(f"{type(error).__name__} fetching {shown}: {redact_text(str(error))}")


# Scrapy's and Twisted's names for a connection that ended before the whole answer (some are private to Twisted)
_CONNECTION_LOST = {"DownloadFailedError", "ResponseFailed", "ResponseNeverReceived", "ConnectionLost",
                    "ConnectionDone"}


def failed_request(failure: Failure) -> Request:
    """The request an errback's failure is about (Scrapy sets it on the failure)."""
    request: Request = failure.request  # type: ignore[attr-defined]  # set by Scrapy, unknown to twisted's types
    return request


class _Failed(FetchError):
    """Anything else Scrapy reports (a dropped connection, a response cut short): a rerun may succeed."""


class HostGate(HTTP11DownloadHandler):
    """Scrapy's HTTP(S) handler, doing for each request what the httpx engine's ``Fetcher`` does.

    A request waits in its host's slot after the downloader middlewares have seen it, so only here
    can a request queued behind a CAPTCHA or a ``Retry-After`` be refused or held before it is
    sent, and only here is the host's pace kept to the moment of sending (``politeness.Pace``, the
    clock the httpx engine keeps: Scrapy's own download delay, randomised, let requests come closer
    than the interval). Every exchange is archived here, failed ones and refused redirects too; the
    body is decoded here within ``max_bytes`` (``codings.DecodedBody``, as by the httpx engine), and a
    block, a ``Retry-After`` or a redirect not to follow is acted on before any middleware sees it.
    """

    async def download_request(self, request: Request) -> Response:
        spider = cast(ProfileSpider, self.crawler.spider)
        host = sites.host_of(request.url)
        # Scrapy's slot lets a burst through when there is no delay (it counts a transfer only once
        # the scheduled download starts), so per_host is held here, where a request waiting behind
        # a CAPTCHA is then refused instead of sent
        slots = spider.host_slots.setdefault(host, asyncio.Semaphore(spider.job.fetch.per_host))
        await back_off(spider, host, request)
        async with slots:
            return await self.send(spider, host, request)

    async def send(self, spider: ProfileSpider, host: str, request: Request) -> Response:
        """The response to ``request``, unless its host blocked the job; it waits for the host's pace
        and any ``Retry-After``."""
        spider.refuse_if_blocked(host)
        wait = spider.blocks.held_until(host) - time.time()
        if wait > 0:  # a Retry-After holds every request to the host, not only the one that got it
            spider.on_event("wait", host=host, seconds=wait)
            await asyncio.sleep(wait)
        try:
            await spider.guard.check(request.url)  # a private address not asked for, a name that does not exist
        except FetchError as error:
            raise Refused(error) from None
        # booked as late as can be, right before the request goes: Scrapy tells nothing of when it is written
        await spider.pace(host).turn(lambda wait: spider.on_event("wait", host=host, seconds=wait))
        spider.refuse_if_blocked(host)
        spider.sent += 1
        spider.on_event("request", url=redact_url(request.url))
        try:
            response = decoded(await super().download_request(request), spider.job.fetch.max_bytes)
        except Exception:  # a timeout, a reset, a body past max_bytes or not decodable: the request is archived alone
            spider.archive_exchange(request, None)
            raise
        spider.archive_exchange(request, response)
        spider.on_event("response", url=redact_url(response.url), status=response.status)
        spider.judge(host, request, response)
        return response


async def back_off(spider: ProfileSpider, host: str, request: Request) -> None:
    """Before a retry (Scrapy's ``RetryMiddleware`` counts them in ``retry_times``), wait as the httpx engine
    does: the host's ``Retry-After`` when one holds it (``send`` waits for that), else ``politeness.backoff``."""
    retry = request.meta.get("retry_times", 0)
    if not retry or spider.blocks.held_until(host) > time.time():
        return
    fetch = spider.job.fetch
    wait = politeness.backoff(retry, fetch.backoff, fetch.max_backoff)
    spider.on_event("retry", reason=f"retrying {redact_url(request.url)}", wait=wait)
    await asyncio.sleep(wait)


def decoded(response: Response, cap: int) -> Response:
    """``response`` with its body decoded as its ``Content-Encoding`` says, within ``cap`` decoded bytes
    (``codings.DecodedBody``, the ceiling the httpx engine keeps), and that header dropped; ``Refused``
    with ``too_large`` past the cap, ``bad_encoding`` when the body is not what the header says."""
    coding = b", ".join(response.headers.getlist("Content-Encoding")).decode("latin-1")
    if not coding:
        return response
    shown = redact_url(response.url)
    try:
        body = DecodedBody(coding, cap)
        body.feed(response.body)
        plain = body.end()
    except TooLargeDecoded:
        raise Refused(ResponseTooLarge(too_large_message(shown, cap))) from None
    except BadCoding as error:
        raise Refused(BadEncoding(f"{shown}: {error}")) from None
    headers = response.headers.copy()
    del headers["Content-Encoding"]
    return response.replace(body=plain, headers=headers)


def redirect_location(response: Response) -> str | None:
    """Where a 3xx points, as an absolute URL; ``Refused`` (``redirect_refused``) when its ``Location`` is
    no URL at all (as the httpx engine's ``fetch.redirect_location``)."""
    value = response.headers.get("Location")
    if not 300 <= response.status < 400 or value is None:
        return None
    text = value.decode("latin-1")
    try:
        location = response.urljoin(text)
        _ = urlsplit(location).port  # a bad port or IPv6 literal raises only when asked
    except ValueError as error:
        raise Refused(RedirectRefusedError(f"redirect to {redact_text(text)[:200]!r} refused: not a URL ({error})")
                      ) from None
    return location


class CrawlerPart:
    """A component Scrapy builds from the crawler (a middleware, a pipeline), with the job's spider at hand."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> Self:
        return cls(crawler)

    @property
    def spider(self) -> ProfileSpider:
        return cast(ProfileSpider, self.crawler.spider)


class RobotsGate(CrawlerPart):
    """robots.txt, read once per host before its first page and judged by ``politeness.robots_rules``,
    the rule the httpx engine follows: a 4xx means no rules; a 5xx (after retries), no answer, or a
    body past ``max_bytes`` leaves the host's targets pending with nothing else sent; a Crawl-delay
    lengthens the host's interval, one past ``max_crawl_delay`` stops the host for this run.

    In place of Scrapy's ``RobotsTxtMiddleware``, which lets every request through when robots.txt
    fails and ignores Crawl-delay. The robots.txt request goes through the downloader like a page:
    paced, retried, archived, judged for blocks; it is not redirected (the httpx engine does not
    follow one either: a redirect means no rules).
    """

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self.hosts: dict[str, politeness.Robots] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    async def process_request(self, request: Request) -> None:
        """None: the request goes on; ``Refused`` when the host's rules forbid it or are unknown."""
        if self.spider.job.fetch.robots == "ignore" or request.meta.get(ROBOTS):
            return None
        host = sites.host_of(request.url)
        # a lock per host, fair (first come, first served): requests go on in the order they came, the
        # job's order as in the httpx runner, and none overtakes those waiting for robots.txt
        async with self.locks.setdefault(host, asyncio.Lock()):
            if host not in self.hosts:
                self.hosts[host] = await self.read(host, sites.robots_url(request.url))
        robots = self.hosts[host]
        if robots.error is not None:
            raise Refused(robots.error)
        if not robots.allows(request.url, self.spider.job.fetch.user_agent):
            raise Refused(RobotsDisallowed(f"robots.txt of {host} disallows {redact_url(request.url)}"))
        return None

    async def read(self, host: str, url: str) -> politeness.Robots:
        spider, fetch = self.spider, self.spider.job.fetch
        answer: bytes | FetchError
        try:
            response = await self.crawler.engine.download_async(
                Request(url, meta={ROBOTS: True, "dont_redirect": True}, priority=1000, callback=NO_CALLBACK))
            status = response.status
            answer = response.body if status < 400 else HttpError(f"HTTP {status} from {redact_url(url)}", status)
        except Exception as error:  # the request's end after retries: a timeout, a block, too large
            answer = error_of(error, url, fetch)
        robots = politeness.robots_rules(host, answer, fetch.user_agent, fetch.max_crawl_delay)
        if robots.note:
            spider.on_event("note", host=host, message=robots.note)
        if robots.refusal:  # a Crawl-delay of a year is not waited for: the host's targets are left for a later run
            spider.stop_host(host, robots.refusal)
            return politeness.Robots(error=HostBlocked(f"{host}: {spider.blocks.reason(host)}"))
        if robots.delay:
            spider.pace(host).slow_down(robots.delay)
        return robots


class BlockMiddleware(CrawlerPart):
    """Refuses a redirect that is not to be followed before it is sent (the gate refuses it when the
    3xx arrives; this catches any other way Scrapy redirects), and sends a ``base_url``'s credentials."""

    def process_request(self, request: Request) -> Request | Response | None:
        """None: the request goes on (Scrapy's protocol would take a response or another request instead)."""
        target = request.cb_kwargs.get("target")
        if request.meta.get("redirect_urls") and target in self.spider.targets:
            self.spider.refuse_redirect(target, request.url)
        auth = self.spider.credentials.get(sites.host_of(request.url))
        if auth and b"Authorization" not in request.headers:
            request.headers["Authorization"] = auth
        return None


def _headers(headers: Any) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), b", ".join(v).decode("latin-1")) for k, v in headers.items()]


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


class RecordPipeline(CrawlerPart):
    """Hands each ``Finished`` item to the job's sinks and ledger, then releases its queue claim."""

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
        settings = {
            "USER_AGENT": fetch.user_agent,
            "ROBOTSTXT_OBEY": False,  # RobotsGate reads robots.txt as the httpx engine does
            # pacing is HostGate's (politeness.Pace): Scrapy's own delay, randomised, came closer than the interval
            "DOWNLOAD_DELAY": 0,
            "AUTOTHROTTLE_ENABLED": False,
            "CONCURRENT_REQUESTS": fetch.concurrency,
            "CONCURRENT_REQUESTS_PER_DOMAIN": fetch.per_host,
            "DOWNLOAD_TIMEOUT": fetch.timeout,  # Scrapy's covers the whole download, headers and body
            "DOWNLOAD_MAXSIZE": fetch.max_bytes,  # on the wire; HostGate caps the decoded bytes
            "DOWNLOAD_WARNSIZE": 0,
            "RETRY_ENABLED": True,
            "RETRY_TIMES": fetch.retries,
            "RETRY_HTTP_CODES": RETRY_CODES,
            "REDIRECT_MAX_TIMES": sites.MAX_REDIRECTS,
            "METAREFRESH_ENABLED": False,  # the httpx engine follows HTTP redirects only
            "COOKIES_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "ERROR",
            "LOG_INSTALL_ROOT_HANDLER": False,
            # each target is its own chain of pages, so in one process nothing is a duplicate: two
            # targets naming one profile are both fetched, as by the httpx runner (workers share
            # scrapy-redis's filter instead, see workers.py)
            "DUPEFILTER_CLASS": "scrapy.dupefilters.BaseDupeFilter",
            # targets in the job's order, as the httpx runner starts them (Scrapy's default queue is last in, first out)
            "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
            "DOWNLOADER_MIDDLEWARES": {
                f"{__name__}.RobotsGate": 100,
                f"{__name__}.BlockMiddleware": 580,
                # HostGate decodes within max_bytes: Scrapy's own decompression would see no Content-Encoding
                "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware": None,
            },
            "DOWNLOAD_HANDLERS": {"http": f"{__name__}.HostGate", "https": f"{__name__}.HostGate"},
            "DEFAULT_REQUEST_HEADERS": {"Accept-Encoding": ACCEPT_ENCODING},
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
