"""Fetching politely with one async httpx client: per-host pacing, robots.txt, retries, blocks.

- Pacing: per host, a "not before" clock (``politeness.Pace``, shared with the Scrapy engine):
  each request moves it one interval (1 / rate) plus a random jitter of up to ``jitter``
  intervals ahead, so two requests to a host are never closer than the interval; a
  ``Retry-After`` moves it too, and a robots.txt ``Crawl-delay`` lengthens the interval, so both
  slow the whole host, not only the request that got them. At most
  ``per_host`` requests are in flight per host and ``concurrency`` across all hosts. (A leaky
  bucket such as aiolimiter caps the average rate but lets a jittered request come closer than
  the interval to the next, and has no notion of "not before": it was tried and replaced.)
- Retries: ``tenacity``, exponential backoff with jitter on timeouts, connection errors, 429 and
  5xx; a ``Retry-After`` (seconds or an HTTP date) replaces the backoff for that wait.
- robots.txt: read once per host (``protego``) before its first page, judged by
  ``politeness.robots_rules`` (the rule both engines follow): 4xx means no rules, 5xx or no answer
  leaves the host's targets pending for this run (RFC 9309 says "assume disallowed").
- Limits: ``timeout`` bounds a whole request (connecting, headers and body), not each read, so a
  server dripping a byte a second times out; the body is decompressed as it streams in and
  counted, so a gzip bomb or an endless body stops at ``max_bytes`` (``too_large``, not retried).
- Where: every host is resolved before its first request; a name that does not exist is
  ``unreachable`` at once (not retried), and a private or loopback address is refused unless a
  ``base_url`` of the job names that host (``safety.AddressGuard``).
- Blocks: a CAPTCHA, "unusual traffic" or 403 answer marks the host blocked; every request
  waiting for that host then fails with ``HostBlocked`` before it is sent. So does a
  ``Retry-After`` longer than ``max_retry_after``: the host's targets are left for a later run.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from pubharvest.errors import (
    BadEncoding,
    FetchError,
    HostBlocked,
    HttpError,
    RedirectRefused,
    ResponseTooLarge,
    RobotsDisallowed,
    TimedOut,
    Unreachable,
)

from . import politeness, sites
from .archive import ArchiveWriter
from .codings import BadCoding, DecodedBody, TooLargeDecoded
from .engine import Blocks, Event, refused_message, stop_host, timeout_message, too_large_message
from .job import FetchSettings
from .safety import AddressGuard, redact_headers, redact_text, redact_url

_RETRYABLE_TRANSPORT = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


@dataclass
class Response:
    """A fetched page: the URL it came from (after redirects), status, body and its archive record."""

    url: str
    status: int
    body: bytes
    record_id: str | None
    location: str | None = None  # where a 3xx points (redirects are followed by the caller, host by host)
    content_type: str | None = None  # its Content-Type header, whose charset outranks the page's own


@dataclass
class Stats:
    requests: int = 0
    retries: int = 0
    fetch_seconds: float = 0.0


@dataclass
class Host:
    """What is known about one host during a job: its pace, its robots.txt, whether it blocked us."""

    name: str
    pace: politeness.Pace
    slots: asyncio.Semaphore
    robots: politeness.Robots | None = None
    robots_lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class _RetryLater(FetchError):
    """An attempt that may succeed later; carries the error to report when the retries run out."""

    def __init__(self, final: FetchError, retry_after: float | None = None) -> None:
        super().__init__(final.message)
        self.final, self.retry_after = final, retry_after


class Fetcher:
    """GETs pages for a job; one instance per job, used from one event loop."""

    def __init__(self, settings: FetchSettings, client: httpx.AsyncClient, archive: ArchiveWriter | None = None,
                 on_event: Event | None = None, site_hosts: dict[str, str] | None = None,
                 writer: Executor | None = None, blocks: Blocks | None = None,
                 guard: AddressGuard | None = None) -> None:
        self.settings, self.client, self.archive, self.writer = settings, client, archive, writer
        self.blocks = blocks or Blocks()  # shared with the engine, which stops a host on a block page too
        self.on_event = on_event or (lambda *a, **k: None)
        self.site_hosts = site_hosts or {}  # host -> site, for per-site rates
        self.guard = guard or AddressGuard([])
        self.hosts: dict[str, Host] = {}
        self.slots = asyncio.Semaphore(settings.concurrency)
        self.stats = Stats()
        self.exchanges: deque[tuple[Any, ...]] = deque()  # for the archive, not yet written by the writer thread

    def host(self, url: str) -> Host:
        name = sites.host_of(url)
        if name not in self.hosts:
            rate = self.settings.site_rates.get(self.site_hosts.get(name, ""), self.settings.rate)
            interval = 1.0 / rate if rate > 0 else 0.0
            pace = politeness.Pace(interval, self.settings.jitter)
            self.hosts[name] = Host(name, pace, asyncio.Semaphore(self.settings.per_host))
        return self.hosts[name]

    async def check_robots(self, url: str) -> None:
        """Raise ``RobotsDisallowed`` when robots.txt forbids ``url`` (unless the job ignores robots)."""
        if self.settings.robots == "ignore":
            return
        host = self.host(url)
        async with host.robots_lock:
            if host.robots is None:
                host.robots = await self._read_robots(host, sites.robots_url(url))
        if host.robots.error is not None:
            raise host.robots.error
        if not host.robots.allows(url, self.settings.user_agent):
            raise RobotsDisallowed(f"robots.txt of {host.name} disallows {redact_url(url)}")

    async def _read_robots(self, host: Host, url: str) -> politeness.Robots:
        """The host's robots.txt as ``politeness.robots_rules`` reads it (the rule both engines follow)."""
        answer: bytes | FetchError
        try:
            answer = (await self.get(url, check_robots=False)).body
        except FetchError as error:
            answer = error
        robots = politeness.robots_rules(host.name, answer, self.settings.user_agent, self.settings.max_crawl_delay)
        if robots.note:
            self.on_event("note", host=host.name, message=robots.note)
        if robots.refusal:  # a Crawl-delay of a year is not waited for: the host's targets are left for a later run
            self.block(host.name, robots.refusal)
            return politeness.Robots(error=HostBlocked(f"{host.name}: {self.blocks.reason(host.name)}"))
        if robots.delay:
            host.pace.slow_down(robots.delay)
        return robots

    async def get(self, url: str, check_robots: bool = True) -> Response:
        """The response for ``url``, retried as configured; raises a ``FetchError`` subclass."""
        if check_robots:
            await self.check_robots(url)
        retrying = AsyncRetrying(stop=stop_after_attempt(self.settings.retries + 1), wait=self._wait,
                                 retry=retry_if_exception(self._retryable), reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    if attempt.retry_state.attempt_number > 1:
                        self.stats.retries += 1
                    return await self._attempt(url)
        except _RetryLater as error:
            raise error.final from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _retryable(self, error: BaseException) -> bool:
        return isinstance(error, _RetryLater)

    def _wait(self, state: RetryCallState) -> float:
        assert state.outcome is not None  # asked after an attempt, which failed
        error = state.outcome.exception()
        backoff = politeness.backoff(state.attempt_number, self.settings.backoff, self.settings.max_backoff)
        wait = error.retry_after if isinstance(error, _RetryLater) and error.retry_after is not None else backoff
        self.on_event("retry", reason=str(error), wait=wait)
        return wait

    async def _attempt(self, url: str) -> Response:
        host = self.host(url)
        async with host.slots:
            spacing = await self._pace(host)
            async with self.slots:  # waiting for a host's pace holds no slot other hosts could use
                return await self._send(host, url, spacing)

    async def _send(self, host: Host, url: str, spacing: float) -> Response:
        if self.blocks.reason(host.name):
            raise HostBlocked(refused_message(host.name))
        await self.guard.check(url)  # a private address not asked for, or a name that does not exist: not sent
        self.stats.requests += 1
        shown = redact_url(url)
        started = time.perf_counter()
        self.on_event("request", url=shown)
        try:
            async with asyncio.timeout(self.settings.timeout):  # the whole request, not each read
                response, body = await self._read(host, url, spacing)
        except (TimeoutError, httpx.TimeoutException):
            self._archive(url, None)
            raise _RetryLater(TimedOut(timeout_message(shown, self.settings.timeout))) from None
        except _RETRYABLE_TRANSPORT as error:
            self._archive(url, None)
            if "location header" in str(error).lower():  # httpx's "Invalid URL in location header": not a glitch
                raise RedirectRefused(f"{shown} redirected to no URL ({redact_text(str(error))[:200]}): "
                                      "not followed") from None
            detail = redact_text(str(error)) or "no detail"
            raise _RetryLater(Unreachable(f"{type(error).__name__} fetching {shown}: {detail}")) from None
        except (ResponseTooLarge, BadEncoding):
            self._archive(url, None)
            raise
        except (httpx.InvalidURL, UnicodeError) as error:  # httpx reads a redirect's Location as it arrives
            self._archive(url, None)
            detail = redact_text(str(error))[:200]
            raise RedirectRefused(f"{shown} answered with a URL that cannot be one ({type(error).__name__}: "
                                  f"{detail}): not followed") from None
        finally:
            self.stats.fetch_seconds += time.perf_counter() - started
        record_id = self._archive(url, response, body)
        self.on_event("response", url=shown, status=response.status_code)
        return self._judge(host, url, response, body, record_id)

    async def _read(self, host: Host, url: str, spacing: float) -> tuple[httpx.Response, bytes]:
        """The response and its body, decoded as it streams in (``codings.DecodedBody``): ``ResponseTooLarge``
        once the decoded bytes pass ``max_bytes``, ``BadEncoding`` when they do not decode.

        The host's pace is booked from the moment the request's bytes are written, so that a busy
        event loop between booking and sending cannot bring two requests closer than the interval.
        """
        async def trace(event: str, info: dict[str, Any]) -> None:
            if spacing and event.endswith("send_request_headers.complete"):
                host.pace.book(spacing)

        cap, shown = self.settings.max_bytes, redact_url(url)
        async with self.client.stream("GET", url, extensions={"trace": trace}) as response:
            try:
                if response.is_stream_consumed:  # built whole (a test transport): httpx holds its decoded bytes
                    body = DecodedBody(None, cap)
                    body.feed(response.content)
                    return response, body.end()
                body = DecodedBody(response.headers.get("content-encoding"), cap)
                async for chunk in response.aiter_raw():  # raw: httpx would decode a whole chunk at once
                    body.feed(chunk)
                return response, body.end()
            except TooLargeDecoded:
                raise ResponseTooLarge(too_large_message(shown, cap)) from None
            except BadCoding as error:
                raise BadEncoding(f"{shown}: {error}") from None

    async def _pace(self, host: Host) -> float:
        """Wait until ``host`` may get the next request, book the time after it; returns the spacing booked."""
        return await host.pace.turn(lambda wait: self.on_event("wait", host=host.name, seconds=wait))

    def _judge(self, host: Host, url: str, response: httpx.Response, body: bytes, record_id: str | None) -> Response:
        status, shown = response.status_code, redact_url(url)
        location = redirect_location(response)
        reason = sites.block_reason(status, location or str(response.url), body)
        if reason:
            self.block(host.name, reason)
            raise HostBlocked(f"{host.name}: {reason}")
        if status == 429 or status >= 500:
            hold = politeness.hold_for(status, response.headers.get("retry-after"), self.settings.max_retry_after)
            if hold.note:
                self.on_event("note", host=host.name, message=f"{shown}: {hold.note}")
            if hold.refusal:
                self.block(host.name, hold.refusal)
                raise HostBlocked(f"{host.name}: {self.blocks.reason(host.name)}")
            if hold.seconds is not None:
                host.pace.hold(hold.seconds)
            raise _RetryLater(HttpError(f"HTTP {status} from {shown}", status), hold.seconds)
        if status >= 400:
            raise HttpError(f"HTTP {status} from {shown}", status)
        return Response(str(response.url), status, body, record_id, location,
                        response.headers.get("content-type"))

    def block(self, host: str, reason: str) -> None:
        """Stop every further request to ``host``."""
        stop_host(self.blocks, self.on_event, host, reason)

    def _archive(self, url: str, response: httpx.Response | None, body: bytes = b"") -> str | None:
        """Queue the exchange for the archive (on the writer thread when there is one); the response's record id.

        Credentials are not archived: the URL's user-info and the values of ``Authorization`` and cookies.
        """
        if self.archive is None:
            return None
        args: tuple[Any, ...]
        if response is None:
            args = ("GET", redact_url(url), redact_headers(self.client.headers.items()))
            record_id = None
        else:
            record_id = self.archive.make_id()
            args = ("GET", redact_url(url), redact_headers(response.request.headers.items()), response.status_code,
                    response.reason_phrase, redact_headers(response.headers.items()), body, record_id)
        if self.writer is None:
            self.archive.exchange(*args)
        else:
            self.exchanges.append(args)
            self.writer.submit(self.write_exchanges)
        return record_id

    def write_exchanges(self) -> None:
        """On the writer thread: archive every exchange queued so far, in order."""
        while self.exchanges:
            args = self.exchanges.popleft()
            if self.archive is not None:
                self.archive.exchange(*args)


def redirect_location(response: httpx.Response) -> str | None:
    """Where a 3xx points, as an absolute URL; ``RedirectRefused`` when its ``Location`` is no URL at all."""
    if not response.has_redirect_location:
        return None
    value = response.headers["location"]
    try:
        return str(response.url.join(value))
    except (httpx.InvalidURL, ValueError) as error:
        raise RedirectRefused(f"redirect to {redact_text(value)[:200]!r} refused: not a URL ({error})") from None

