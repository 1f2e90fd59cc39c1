"""Every error pubharvest raises, as one tree. Each has a ``code`` (the outcome's name, as printed in
``path: code: message`` lines and stored in ledgers) and a one-line ``message``.

This module imports nothing of pubharvest (only the standard library's ``enum``), so that every
layer (parsers, scrapers, the command line) can raise from it without importing any other layer.
It also declares ``ExitCode``, the command's exit statuses, which an engine's summary reports.

Exception hierarchy::

    PubharvestError                      code "error"
    ├── ParseError                       a page (or a record file) that is not what it should be
    │   ├── Empty                        "empty": zero bytes or only whitespace
    │   ├── Binary                       "binary": an image, a PDF, a zip ...
    │   ├── Truncated                    "truncated": the input stops before the page does
    │   ├── Blocked                      "blocked": a CAPTCHA, "unusual traffic" or 403 page
    │   │   └── HostBlocked              a fetched block page: no more requests go to that host
    │   ├── NotFoundOrPrivate            "not_found_or_private": a sign-in page, no such profile
    │   │   └── NotFound                 the same, met while fetching
    │   ├── Unrecognised                 "unrecognised": no site or kind of page pubharvest knows
    │   ├── LayoutChanged                "layout_changed": a known site without its known structure
    │   ├── BadRecords                   "bad_records": JSON that claims to be records but is not
    │   ├── TooLarge                     "too_large": an input past the size ceiling (after decompression)
    │   ├── Undecodable                  "undecodable": bytes that are not text in the charset found or declared
    │   ├── TooDeep                      "too_deep": nesting deeper than a reader follows (JSON 100,000 deep)
    │   └── Unreadable                   "unreadable": a file or folder that cannot be read (permissions, ...)
    ├── NoPages                          "no_pages": inputs that hold nothing to read (an empty folder, notes)
    ├── FetchError                       "fetch_failed": a page that could not be fetched
    │   ├── Unreachable                  "unreachable": connection errors throughout, or a name that does not resolve
    │   │   └── TimedOut                 "timeout": no whole answer (headers and body) within ``timeout``
    │   ├── ResponseTooLarge             "too_large": a body over ``max_bytes`` once decompressed (also a TooLarge)
    │   ├── RedirectRefused              "redirect_refused": off the site's hosts, not http(s), private, or no URL
    │   ├── BadEncoding                  "bad_encoding": a body that does not decode as its Content-Encoding says
    │   ├── HttpError                    "http_error": 404, or 429/5xx after the retries
    │   └── RobotsDisallowed             "robots_disallowed"
    ├── JobError                         "job_error": a job that cannot run at all
    │   └── NotOurFile                   "not_our_file": a file of the job that another writer grew or owns
    ├── MissingDependency                "missing_dependency": an optional extra is not installed
    ├── OutOfRange                       "out_of_range": a value no store column holds (a count past 2^63, NUL in text)
    ├── InternalError                    "internal_error": an exception pubharvest did not foresee (a bug)
    ├── StoreError                       "store_error": a store that cannot be opened
    │   ├── BadPoint                     "bad_point": a --since/--until that names no run of the store, and no time
    │   └── UnknownPerson                "unknown_person": a --person that names no profile of the store
    ├── BadTarget                        "bad_target": a sync target's path that is not what it reads
    └── TargetChanged                    "target_changed": a file a sync planned changed before it was written

``HostBlocked`` and ``NotFound`` are also ``FetchError``, so a scraper catches one family:

>>> try:
...     raise HostBlocked("CAPTCHA page from scholar.google.com")
... except FetchError as e:
...     print(e.code, isinstance(e, Blocked), isinstance(e, PubharvestError), e.transient)
blocked True True True
>>> str(Truncated("the file stops inside the publication table"))
'truncated: the file stops inside the publication table'
"""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "PubharvestError",
    "ParseError", "Empty", "Binary", "Truncated", "Blocked", "NotFoundOrPrivate", "Unrecognised",
    "LayoutChanged", "BadRecords", "TooLarge", "TooDeep", "Undecodable", "Unreadable", "MAX_INPUT_BYTES",
    "FetchError", "Unreachable", "TimedOut", "ResponseTooLarge", "RedirectRefused", "BadEncoding", "HttpError",
    "HostBlocked", "NotFound", "RobotsDisallowed",
    "NoPages", "JobError", "NotOurFile", "StoreError", "BadPoint", "UnknownPerson", "MissingDependency", "OutOfRange",
    "InternalError",
    "BadTarget", "TargetChanged", "PARSE_CODES", "ExitCode",
]


class PubharvestError(Exception):
    """The root: ``code`` names the outcome; ``message`` says why, on one line."""

    code: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ParseError(PubharvestError):
    """A page that is not what it should be. Printed as ``code: message``."""

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Empty(ParseError):
    """The input has no content at all (zero bytes or only whitespace)."""

    code = "empty"


class Binary(ParseError):
    """The input is not text (an image, a PDF, a zip, ...)."""

    code = "binary"


class Truncated(ParseError):
    """The input stops before the page does (a download or save cut short)."""

    code = "truncated"


class Blocked(ParseError):
    """The site answered with a CAPTCHA, an "unusual traffic" or a 403 page instead of content."""

    code = "blocked"


class NotFoundOrPrivate(ParseError):
    """The site redirected to a sign-in page or said the profile does not exist."""

    code = "not_found_or_private"


class Unrecognised(ParseError):
    """The input is not a page of any site (or kind of page) pubharvest knows."""

    code = "unrecognised"


class LayoutChanged(ParseError):
    """The page is of a known site but lacks the structure its parser relies on."""

    code = "layout_changed"


class BadRecords(ParseError):
    """JSON that claims to be pubharvest records (it has ``site`` and ``page``) but is not valid."""

    code = "bad_records"


# The default size ceiling of one input, after decompression: 256 MiB. Past it, ``TooLarge``.
MAX_INPUT_BYTES = 256 * 2**20


class TooLarge(ParseError):
    """The input (after decompression) is larger than the size ceiling: refused before parsing."""

    code = "too_large"


class Undecodable(ParseError):
    """Bytes that are not text in the charset the page declares or the one found (a cut UTF-16 page)."""

    code = "undecodable"


class TooDeep(ParseError):
    """The input nests deeper than a reader follows (a JSON body nested 100,000 deep)."""

    code = "too_deep"


class Unreadable(ParseError):
    """A file or folder that cannot be read: no permission, gone, not a file. ``message`` is the OS's reason."""

    code = "unreadable"


class NoPages(PubharvestError):
    """The inputs named hold nothing to read (an empty folder, a folder of notes) and none failed."""

    code = "no_pages"


class FetchError(PubharvestError):
    """A page that could not be fetched; ``transient`` says whether a rerun may succeed."""

    code = "fetch_failed"
    transient = True


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


class HostBlocked(FetchError, Blocked):
    """The host answered with a CAPTCHA, "unusual traffic" or 403 page: no more requests go to it."""

    code = "blocked"

    def __str__(self) -> str:
        return self.message


class NotFound(FetchError, NotFoundOrPrivate):
    """The site redirected to a sign-in page, or said the profile does not exist."""

    code = "not_found_or_private"
    transient = False

    def __str__(self) -> str:
        return self.message


class RobotsDisallowed(FetchError):
    """robots.txt disallows the URL for this job's User-Agent."""

    code = "robots_disallowed"
    transient = False


class TimedOut(Unreachable):
    """No whole answer (headers and body) within the job's ``timeout``, on every attempt."""

    code = "timeout"


class ResponseTooLarge(FetchError, TooLarge):
    """A response larger than the job's ``max_bytes`` once decompressed: not read past the cap."""

    code = "too_large"
    transient = False

    def __str__(self) -> str:
        return self.message


class RedirectRefused(FetchError):
    """A redirect to another scheme, to a host outside the target's site, or to a private address."""

    code = "redirect_refused"
    transient = False


class BadEncoding(FetchError):
    """A body that does not decode as its ``Content-Encoding`` says, or in a coding pubharvest cannot decode."""

    code = "bad_encoding"
    transient = False


class JobError(PubharvestError):
    """A job that cannot run at all: a bad job file, an unknown site, an unwritable path."""

    code = "job_error"


class NotOurFile(JobError):
    """A file the job writes holds what another writer put there (an output another job appends to, an
    archive path naming a file that is not this job's archive): refused, never cut or truncated."""

    code = "not_our_file"


class MissingDependency(PubharvestError):
    """A call that needs an optional extra (pandas and pyarrow for ``frames`` and Parquet) without it;
    the message says what to install."""

    code = "missing_dependency"


class OutOfRange(PubharvestError):
    """A value that no store column can hold (an integer above 2^63 - 1, a NUL character in PostgreSQL
    text): the target's record is not stored; the job goes on with the other targets."""

    code = "out_of_range"


class InternalError(PubharvestError):
    """An exception pubharvest did not foresee, met on one target (a bug): the message names its type;
    the job goes on with the other targets."""

    code = "internal_error"


class StoreError(PubharvestError):
    """A store that cannot be opened: an unsupported URL, an unreachable server, a missing driver."""

    code = "store_error"


class BadPoint(StoreError):
    """``pubharvest changes --since``/``--until`` naming no run of the store, and no date or time either."""

    code = "bad_point"


class UnknownPerson(StoreError):
    """``pubharvest changes --person`` naming no profile of the store (by id, site:id or name)."""

    code = "unknown_person"


class BadTarget(PubharvestError):
    """What ``pubharvest sync`` is pointed at is not what the target reads (a folder where a ``.bib``
    file goes, a binary file, a ``.bib`` that does not parse): nothing is written."""

    code = "bad_target"


class TargetChanged(PubharvestError):
    """A file of a sync target whose bytes changed between planning and writing (an editor saved it):
    refused, never overwritten; a rerun plans from what is there now."""

    code = "target_changed"


PARSE_CODES: tuple[str, ...] = tuple(
    cls.code for cls in (Empty, Binary, Truncated, Blocked, NotFoundOrPrivate, Unrecognised, LayoutChanged)
)


class ExitCode(IntEnum):
    """The exit statuses of the ``pubharvest`` command, declared once (the CLI and the engines use these).

    >>> int(ExitCode.BLOCKED), ExitCode(4).name
    (3, 'UNREACHABLE')
    """

    OK = 0  # everything asked for was done
    FAILED = 1  # something failed (an input, a target, a write); the rest was done
    USAGE = 2  # bad input before anything ran: arguments, a job file, a store that cannot be opened
    BLOCKED = 3  # a site blocked the job (a CAPTCHA, 403, a long Retry-After); rerun later to resume
    UNREACHABLE = 4  # no host could be reached and no target got a record
    NOT_OUR_FILE = 5  # a file of the job holds another writer's data: refused, nothing cut; nothing ran
    BAD_RECORDS = 6  # a file of records was refused whole (bad_records, too_deep); the other inputs were read
    BAD_TARGET = 7  # sync: the target's path is not what the target reads; nothing was written
    TARGET_CHANGED = 8  # sync: a target file changed while the sync ran; it was not overwritten
    INTERRUPTED = 130  # stopped by Ctrl-C; what was committed stays, a rerun resumes
    TERMINATED = 143  # stopped by SIGTERM (128 + 15), as gracefully as by Ctrl-C
