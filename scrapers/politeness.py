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

The API, used by the httpx engine (``fetch.py``) and the Scrapy engine (``crawl.py``):

- :func:`retry_after` ``(value, now=None) -> Asked``: a ``Retry-After`` header's wait, by shape;
- :func:`crawl_delay` ``(value) -> Asked``: a robots.txt ``Crawl-delay`` (protego's float, or text);
- :func:`too_long` ``(asked, cap, setting, what) -> str | None``: the reason the host is left pending
  (its targets' line), or None when the wait is to be honoured;
- :class:`Asked`: ``seconds`` (None when nothing usable was asked) and ``note`` (the line saying
  a value was there but ignored, None otherwise).

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

import email.utils
import math
import re
import time
from dataclasses import dataclass
from datetime import timezone

__all__ = ["Asked", "retry_after", "crawl_delay", "too_long", "MAX_CRAWL_DELAY"]

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
    text = value.decode("latin-1") if isinstance(value, bytes) else value
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
