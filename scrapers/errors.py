"""Every error a scraper job raises, as one hierarchy.

``JobError`` is what the command line turns into one line on stderr and a distinct exit code;
``FetchError`` and its subclasses say why a page could not be fetched.
"""

from __future__ import annotations


class JobError(Exception):
    """A job that cannot run at all: a bad job file, an unknown site, an unwritable path."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FetchError(Exception):
    """A page that could not be fetched. ``code`` names the outcome; ``transient`` whether a rerun may succeed."""

    code = "fetch_failed"
    transient = True

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unreachable(FetchError):
    """Connection errors or timeouts on every attempt."""

    code = "unreachable"


class HttpError(FetchError):
    """An HTTP status that is not a page: 404 (permanent), or 429/5xx still failing after the retries."""

    code = "http_error"

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status
        self.transient = status == 429 or status >= 500


class HostBlocked(FetchError):
    """The host answered with a CAPTCHA, "unusual traffic" or 403 page: no more requests go to it."""

    code = "blocked"


class NotFound(FetchError):
    """The site redirected to a sign-in page, or said the profile does not exist."""

    code = "not_found_or_private"
    transient = False


class RobotsDisallowed(FetchError):
    """robots.txt disallows the URL for this job's User-Agent."""

    code = "robots_disallowed"
    transient = False
