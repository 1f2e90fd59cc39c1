"""What each site needs from a scraper: the URL of a target, the next page, what a block looks like.

Pure functions over URLs, status codes and parsed pages, with no HTTP client in sight, so that
the asyncio runner here and Scrapy spiders later share them.

>>> from pubharvest.scrapers.job import Target
>>> SITES["scholar"].first_url(Target("scholar", id="abcdefAAAAJ"), "https://scholar.google.com")
'https://scholar.google.com/citations?user=abcdefAAAAJ&hl=en&pagesize=100'
>>> SITES["scholar"].next_url("https://scholar.google.com/citations?user=abcdefAAAAJ&hl=en&pagesize=100", 100, True)
'https://scholar.google.com/citations?user=abcdefAAAAJ&hl=en&pagesize=100&cstart=100'
>>> site_of_url("https://md.research.elamur.ai/free/en/authors/olatunji-ruwase/")
'elamur'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import msgspec

if TYPE_CHECKING:
    from pubharvest.parsers.records import PageResult

PAGE_SIZE = 100  # Scholar clamps pagesize to 20..100
MAX_PAGES = 200  # a runaway guard: 20,000 Scholar rows
MAX_REDIRECTS = 5


class _TargetLike(Protocol):
    site: str
    id: str | None
    url: str | None


@dataclass(frozen=True)
class Site:
    """One site's knowledge. Subclasses override what differs."""

    name: str
    base_url: str
    hosts: tuple[str, ...]
    id_pattern: str
    id_example: str

    def check_id(self, value: str) -> None:
        """Raise ``ValueError`` when ``value`` cannot be an id on this site."""
        if not re.fullmatch(self.id_pattern, value):
            raise ValueError(f"{value!r} is not a {self.name} id (like {self.id_example!r})")

    def first_url(self, target: _TargetLike, base_url: str) -> str:
        """The first URL to fetch for ``target``."""
        return target.url or self.profile_url(base_url.rstrip("/"), target.id or "")

    def profile_url(self, base: str, ident: str) -> str:
        raise NotImplementedError

    def next_url(self, url: str, rows: int, more: bool) -> str | None:
        """The page after ``url``, given the rows it held and whether it says more follow; None at the end."""
        return None

    def redirect_refusal(self, location: str) -> str | None:
        """Why a redirect to ``location`` means there is nothing to fetch (None: follow it)."""
        return None

    def merge(self, pages: list[PageResult]) -> PageResult:
        """The one record of a target from the results of its pages, in fetch order."""
        return pages[0]


class Scholar(Site):
    def profile_url(self, base: str, ident: str) -> str:
        return f"{base}/citations?user={quote(ident)}&hl=en&pagesize={PAGE_SIZE}"

    def first_url(self, target: _TargetLike, base_url: str) -> str:
        if target.url:  # a profile URL as given, asked for its largest page
            return _with_query(target.url, pagesize=str(PAGE_SIZE), cstart=None)
        return super().first_url(target, base_url)

    def next_url(self, url: str, rows: int, more: bool) -> str | None:
        if not more or rows == 0:
            return None
        query = dict(parse_qsl(urlsplit(url).query))
        start = int(query.get("cstart", "0") or 0) + int(query.get("pagesize", "20") or 20)
        if start >= PAGE_SIZE * MAX_PAGES:
            return None
        return _with_query(url, cstart=str(start))

    def redirect_refusal(self, location: str) -> str | None:
        if "accounts.google." in location or "/servicelogin" in location.lower():
            return "Google redirected to its sign-in page: the profile does not exist or is not public"
        return None

    def merge(self, pages: list[PageResult]) -> PageResult:
        from pubharvest.parsers.listings import distinct  # rows on two pages: the parsers' one rule

        first, warnings = pages[0], []
        for page in pages:
            warnings += [w for w in page.warnings if w.code != "partial" and w not in warnings]
        merged = msgspec.structs.replace(first, publications=[], warnings=warnings)
        merged.publications = distinct([pub for page in pages for pub in page.publications], merged)
        publications = merged.publications
        if is_partial(pages[-1]):
            merged.warn("partial", f"the record holds the first {len(publications)} rows of a longer list "
                                   f"({len(pages)} page(s) fetched): the next page could not be fetched")
        return merged


class Msr(Site):
    def profile_url(self, base: str, ident: str) -> str:
        return f"{base}/en-us/research/people/{quote(ident)}/publications/"


class Elamur(Site):
    def profile_url(self, base: str, ident: str) -> str:
        return f"{base}/free/en/authors/{quote(ident)}/"


SITES: dict[str, Site] = {
    "scholar": Scholar("scholar", "https://scholar.google.com", ("scholar.google.",),
                       r"[A-Za-z0-9_-]{8,20}", "qc6CJjYAAAAJ"),
    "msr": Msr("msr", "https://www.microsoft.com", ("microsoft.com",), r"[a-z0-9][a-z0-9._-]*", "adaexample"),
    "elamur": Elamur("elamur", "https://md.research.elamur.ai", ("research.elamur.ai",),
                     r"[a-z0-9][a-z0-9-]*", "olatunji-ruwase"),
}


def site_of_url(url: str) -> str | None:
    """The site whose host serves ``url``, else None."""
    host = urlsplit(url).hostname or ""
    return next((s.name for s in SITES.values() if any(h in host for h in s.hosts)), None)


def is_partial(result: PageResult) -> bool:
    """Whether a parsed page says more rows follow it (Scholar's "Show more" enabled)."""
    return any(w.code == "partial" for w in result.warnings)


def block_reason(status: int, url: str, body: bytes, ok_pages: bool = False) -> str | None:
    """Why a response is a block (stop all requests to its host), or None.

    A 200 CAPTCHA page is caught by the parsers (``blocked``); this catches what is never parsed:
    a 403, Google's ``/sorry/`` "unusual traffic" redirect target, and a CAPTCHA served with 429 or 503.
    ``ok_pages=True`` checks 200 pages too, for an engine that must judge a response before it is
    parsed (the Scrapy middleware, which stops the host before a retry or a callback runs).
    """
    if status == 403:
        return "the site answered 403 Forbidden"
    if "/sorry/" in urlsplit(url).path:
        return "the site sent its \"unusual traffic\" page"
    if (status != 200 or ok_pages) and body:
        from pubharvest.parsers import Blocked, refuse_block_pages
        from pubharvest.parsers.page import Document

        try:
            refuse_block_pages(Document.from_input(body))
        except Blocked as error:
            return f"HTTP {status}: {error.message}"
        except Exception:  # an undecodable error body is simply not a CAPTCHA page
            return None
    return None


def robots_url(url: str) -> str:
    """The robots.txt URL of the host serving ``url``."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", ""))


def host_of(url: str) -> str:
    """The host (with port) that rate limits, robots.txt and blocks apply to."""
    return urlsplit(url).netloc.lower()


def _with_query(url: str, **changes: str | None) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in changes]
    query += [(k, v) for k, v in changes.items() if v is not None]
    return urlunsplit(parts._replace(query=urlencode(query, safe=":")))
