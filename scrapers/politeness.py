"""How long a host asks a job to wait, and whether the job waits: one rule for every engine.

A host asks for a wait in two ways: ``Retry-After`` on a 429 or 5xx answer (RFC 9110: delay-seconds
or an HTTP date), and ``Crawl-delay`` in its robots.txt (seconds between requests). Both are read
by their shape, never by what Python's ``str.isdigit`` or a lenient date parser will take: ASCII
digits, or an HTTP date (IMF-fixdate, RFC 850 or asctime, in ASCII). Anything else (``²``, ``٣``,
``soon``, a negative or fractional number) is ignored, and the engine says so in one line.

A wait within its cap is honoured; one beyond it (``max_retry_after`` for ``Retry-After``,
``max_crawl_delay`` for ``Crawl-delay``, both job-file settings) is not waited for: the engine stops
the host for this run as it does after a block, its targets are left ``pending`` and the line that
says so is :func:`too_long`'s.

robots.txt is read once per host before its first page: a 4xx means no rules; a 5xx, no answer,
a body past ``max_bytes`` or one that does not decode leaves the host's targets ``pending`` (RFC 9309
says to assume "disallowed" then), nothing else is sent to it. Requests to a host are spaced by a
"not before" clock (:class:`Pace`): never closer than the interval (1 / rate, or the Crawl-delay).

The API, used by the httpx engine (``fetch.py``) and the Scrapy engine (``crawl.py``), so that both
follow one rule:

- :func:`retry_after` ``(value, now=None) -> Asked``: a ``Retry-After`` header's wait, by shape;
- :func:`crawl_delay` ``(value) -> Asked``: a robots.txt ``Crawl-delay`` (protego's float, or text);
- :func:`too_long` ``(asked, cap, setting, what) -> str | None``: the reason the host is left pending
  (its targets' line), or None when the wait is to be honoured;
- :class:`Asked`: ``seconds`` (None when nothing usable was asked) and ``note`` (the line saying
  a value was there but ignored, None otherwise);
- :func:`hold_for` ``(status, value, cap) -> Hold``: what a 429 or 5xx answer's ``Retry-After`` makes
  the engine do: hold the host, say a note, or stop the host (past the cap);
- :func:`robots_rules` ``(host, answer, user_agent, max_crawl_delay) -> Robots``: what a robots.txt
  answer (its body, or the error fetching it) makes of the host: rules, a Crawl-delay, or its end;
- :class:`Pace`: one host's clock, booked by each request;
- :func:`backoff` ``(retry, base, cap) -> float``: the wait before a retry when no Retry-After says one.

>>> retry_after("120"), retry_after("²").seconds, retry_after("²").note
(Asked(seconds=120.0, note=None), None, "Retry-After '²' ignored: neither a number of seconds nor an HTTP date")
>>> retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now=784111777.0).seconds
0.0
>>> too_long(retry_after("3600").seconds, 600, "max_retry_after", "Retry-After")
'asking to wait 3600 s (Retry-After), more than max_retry_after = 600 s: not waited for'
>>> too_long(5.0, 600, "max_retry_after", "Retry-After") is None
True
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timezone

from protego import Protego

from pubharvest.errors import FetchError, HttpError

__all__ = ["Asked", "retry_after", "crawl_delay", "too_long", "Hold", "hold_for", "Robots", "robots_rules", "Pace",
           "backoff", "MAX_CRAWL_DELAY"]

MAX_CRAWL_DELAY = 60.0  # seconds; the job file's default for max_crawl_delay
_SECONDS = re.compile(r"[0-9]+")  # RFC 9110 delay-seconds: 1*DIGIT, ASCII only
_WEEKDAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_HTTP_DATE = re.compile(  # IMF-fixdate, RFC 850 and asctime, the three forms RFC 9110 names
    rf"{_WEEKDAY}, [0-9]{{2}} [A-Z][a-z]{{2}} [0-9]{{4}} [0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}} GMT"
    r"|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, [0-9]{2}-[A-Z][a-z]{2}-[0-9]{2} [0-9:]{8} GMT"
    rf"|{_WEEKDAY} [A-Z][a-z]{{2}} [ 0-9][0-9] [0-9:]{{8}} [0-9]{{4}}"
)


@dataclass(frozen=True)
class Asked:
    """What a host asked for: ``seconds`` to wait (None: nothing usable), and a ``note`` when a value
    was given but ignored (the engine prints it once)."""

    seconds: float | None
    note: str | None = None


def retry_after(value: str | bytes | None, now: float | None = None) -> Asked:
    """The wait a ``Retry-After`` value asks for, read by its shape (a past date is 0 s)."""
    if value is None:
        return Asked(None)
    text = header_text(value) if isinstance(value, bytes) else value
    text = text.strip(" \t")
    if _SECONDS.fullmatch(text):
        return Asked(float(text))
    if _HTTP_DATE.fullmatch(text):
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, OverflowError):
            when = None
        if when is not None:
            if when.tzinfo is None:  # asctime has no zone; HTTP dates are GMT
                when = when.replace(tzinfo=timezone.utc)
            return Asked(max(0.0, when.timestamp() - (time.time() if now is None else now)))
    return Asked(None, f"Retry-After {_shown(text)} ignored: neither a number of seconds nor an HTTP date")


def header_text(value: bytes) -> str:
    """A header value's bytes as text, as httpx decodes them (so both engines quote it alike): UTF-8
    when they are, else Latin-1.

    >>> header_text("²".encode()), header_text(b"\\xb2")
    ('²', '²')
    """
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


def crawl_delay(value: float | str | None) -> Asked:
    """The seconds between requests a robots.txt ``Crawl-delay`` asks for (protego gives a float or None).

    >>> crawl_delay(2.5), crawl_delay(None).seconds, crawl_delay("abc").note
    (Asked(seconds=2.5, note=None), None, "Crawl-delay 'abc' ignored: not a number of seconds")
    """
    if value is None:
        return Asked(None)
    if isinstance(value, str):
        if not re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", value.strip()):
            return Asked(None, f"Crawl-delay {_shown(value)} ignored: not a number of seconds")
        value = float(value)
    if math.isnan(value) or value < 0:
        return Asked(None, f"Crawl-delay {value!r} ignored: not a number of seconds")
    return Asked(float(value))


def too_long(seconds: float | None, cap: float, setting: str, what: str) -> str | None:
    """Why a wait of ``seconds`` is not waited for (it is over ``cap``, the job's ``setting``), else None.

    The engine stops the host for this run with this reason; its targets end ``pending``.
    """
    if seconds is None or seconds <= cap:
        return None
    shown = "forever" if math.isinf(seconds) else f"{seconds:.0f} s"
    return f"asking to wait {shown} ({what}), more than {setting} = {cap:g} s: not waited for"


def _shown(text: str) -> str:
    """A header value as a line shows it: quoted, escaped, at most 40 characters."""
    return repr(text if len(text) <= 40 else text[:40] + "...")


@dataclass(frozen=True)
class Hold:
    """What an engine does with a 429 or 5xx answer's ``Retry-After``: hold the host ``seconds`` (None:
    its own backoff), print ``note`` once (a value of no known shape), or, when ``refusal`` is set (a
    wait past ``max_retry_after``), stop the host for this run with that reason."""

    seconds: float | None
    note: str | None = None
    refusal: str | None = None


def hold_for(status: int, value: str | bytes | None, cap: float, now: float | None = None) -> Hold:
    """The ``Hold`` of an answer of ``status`` whose ``Retry-After`` is ``value``.

    >>> hold_for(503, "3600", 600).refusal
    'HTTP 503 asking to wait 3600 s (Retry-After), more than max_retry_after = 600 s: not waited for'
    >>> hold_for(429, "2", 600)
    Hold(seconds=2.0, note=None, refusal=None)
    """
    asked = retry_after(value, now)
    refusal = too_long(asked.seconds, cap, "max_retry_after", "Retry-After")
    return Hold(asked.seconds, asked.note, f"HTTP {status} {refusal}" if refusal else None)


@dataclass(frozen=True)
class Robots:
    """What a host's robots.txt makes of it for this run.

    ``error``: every target of the host ends with it and nothing more is sent (rules unknown, or a
    block); else
    ``rules`` (None: no rules, everything allowed) and ``delay``, the Crawl-delay to space requests by;
    ``refusal``: a Crawl-delay past ``max_crawl_delay``, the reason the engine stops the host with.
    """

    rules: Protego | None = None
    error: FetchError | None = None
    delay: float | None = None
    refusal: str | None = None
    note: str | None = None

    def allows(self, url: str, user_agent: str) -> bool:
        return self.rules is None or self.rules.can_fetch(url, user_agent)


def robots_rules(host: str, answer: bytes | FetchError, user_agent: str, max_crawl_delay: float) -> Robots:
    """What robots.txt ``answer`` (its body, or the error its request ended with after retries) makes of ``host``.

    >>> robots_rules("h", HttpError("HTTP 404 from x", 404), "ua", 60).rules is None
    True
    >>> robots_rules("h", HttpError("HTTP 503 from x", 503), "ua", 60).error.message
    'robots.txt of h answered HTTP 503; not fetching from a host whose rules are unknown'
    >>> robots_rules("h", b"User-agent: *\\nCrawl-delay: 2", "ua", 60).delay
    2.0
    >>> robots_rules("h", b"User-agent: *\\nCrawl-delay: 86400", "ua", 60).refusal
    'robots.txt asking to wait 86400 s (Crawl-delay), more than max_crawl_delay = 60 s: not waited for'
    """
    if isinstance(answer, FetchError):
        return Robots(error=_rules_unknown(host, answer))
    rules = Protego.parse(answer.decode("utf-8", "replace"))
    asked = crawl_delay(rules.crawl_delay(user_agent))
    refusal = too_long(asked.seconds, max_crawl_delay, "max_crawl_delay", "Crawl-delay")
    if refusal:
        return Robots(rules, refusal=f"robots.txt {refusal}", note=asked.note)
    return Robots(rules, delay=asked.seconds or None, note=asked.note)


def _rules_unknown(host: str, error: FetchError) -> FetchError | None:
    """The error a host's targets end with when its robots.txt request ended with ``error``: None for
    a 4xx (no robots.txt, no rules), ``error`` itself for a block, else a rerun's business (pending)."""
    from pubharvest.errors import HostBlocked

    if isinstance(error, HttpError):
        if not error.transient:
            return None
        return HttpError(f"robots.txt of {host} answered HTTP {error.status}; "
                         "not fetching from a host whose rules are unknown", error.status)
    if isinstance(error, HostBlocked) or error.transient:
        return error
    unknown = type(error)(f"robots.txt of {host}: {error.message}; not fetching from a host whose rules are unknown")
    unknown.transient = True  # too large, not decodable: a rerun may find it mended, so the host is pending
    return unknown


class Pace:
    """One host's "not before" clock (``time.monotonic()``): each request books ``interval`` (plus a
    random jitter of up to ``jitter`` intervals) ahead, a Retry-After pushes it on, a Crawl-delay
    lengthens the interval; so two requests to a host are never closer than the interval.

    >>> pace = Pace(0.0); pace.slow_down(2.0); pace.interval
    2.0
    """

    def __init__(self, interval: float, jitter: float = 0.0) -> None:
        self.interval, self.jitter = interval, jitter
        self.not_before = 0.0
        self.lock = asyncio.Lock()

    def slow_down(self, interval: float) -> None:
        self.interval = max(self.interval, interval)

    def hold(self, seconds: float) -> None:
        """No request before ``seconds`` from now (a Retry-After)."""
        self.book(seconds)

    def book(self, spacing: float) -> None:
        self.not_before = max(self.not_before, time.monotonic() + spacing)

    async def turn(self, on_wait: Callable[[float], None] | None = None) -> float:
        """Wait until the host may get the next request, book the time after it; the spacing booked."""
        async with self.lock:
            wait = self.not_before - time.monotonic()
            while wait > 0:  # a Retry-After may push the clock on while we sleep
                if on_wait is not None:
                    on_wait(wait)
                await asyncio.sleep(wait)
                wait = self.not_before - time.monotonic()
            spacing = self.interval * (1 + random.uniform(0, self.jitter)) if self.interval else 0.0
            self.book(spacing)
            return spacing


def backoff(retry: int, base: float, cap: float) -> float:
    """Seconds to wait before retry number ``retry`` (1: the first) of a request: ``base`` doubled each
    retry plus a random jitter of up to ``base``, at most ``cap`` (a Retry-After replaces it).

    >>> 2.0 <= backoff(2, 1.0, 60) <= 3.0, backoff(10, 1.0, 60)
    (True, 60)
    """
    return min(cap, base * 2.0 ** (retry - 1) + random.uniform(0, base))
