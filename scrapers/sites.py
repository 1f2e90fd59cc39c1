"""What each site needs from a scraper: the URL of a target, the next page, what a block looks like.

A site's identity (name, base URL, hosts, id pattern, profile URL) is the one its parser module
declares (``SITE = SiteInfo(...)``, read through ``pubharvest.parsers.site_info``); a site whose
scraping differs (Scholar pages, refuses its sign-in redirect and merges its pages) overrides
``Site`` in ``_BEHAVIOURS``. A site registered in ``pubharvest.parsers.SITES`` and named nowhere
here is scraped from its registry entry alone: its profile URL, one page.

Pure functions over URLs, status codes and parsed pages, with no HTTP client in sight, so that
both engines (httpx and Scrapy) share them; the parser modules are imported on first use.

>>> from pubharvest.scrapers.job import Target
>>> SITES["scholar"].first_url(Target("scholar", id="abcdefAAAAJ"), "https://scholar.google.com")
'https://scholar.google.com/citations?user=abcdefAAAAJ&hl=en&pagesize=100'
>>> SITES["scholar"].next_url("https://scholar.google.com/citations?user=abcdefAAAAJ&hl=en&pagesize=100", 100, True)
'https://scholar.google.com/citations?user=abcdefAAAAJ&hl=en&pagesize=100&cstart=100'
>>> site_of_url("https://md.research.elamur.ai/free/en/authors/olatunji-ruwase/")
'elamur'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

from pubharvest.errors import Blocked, JobError, ParseError, PubharvestError
from pubharvest.parsers.warning_codes import Warn, lacks_part

if TYPE_CHECKING:
    from pubharvest.parsers.records import PageResult, Publication
    from pubharvest.parsers.site import SiteInfo

PAGE_SIZE = 100  # Scholar clamps pagesize to 20..100
MAX_PAGES = 200  # a runaway guard: 20,000 Scholar rows
MAX_REDIRECTS = 5


class _TargetLike(Protocol):  # job.Target, which imports this module
    @property
    def site(self) -> str: ...

    @property
    def id(self) -> str | None: ...

    @property
    def url(self) -> str | None: ...


@dataclass(frozen=True)
class Completion:
    """Which pages complete a profile after its listing (job-file switches, off by default)."""

    details: bool = False  # each publication's own page
    coauthors: bool = False  # the full co-author list

    def __bool__(self) -> bool:
        return self.details or self.coauthors


@dataclass(frozen=True)
class Site:
    """One site as a scraper sees it: its identity from the registry, and the default behaviour
    (the profile URL, one page, redirects followed); subclasses override what differs."""

    info: SiteInfo

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def base_url(self) -> str:
        return self.info.base_url

    @property
    def hosts(self) -> tuple[str, ...]:
        return self.info.hosts

    def check_id(self, value: str) -> None:
        """Raise ``JobError`` when ``value`` cannot be an id on this site."""
        try:
            self.info.check_id(value)
        except ValueError as error:
            raise JobError(str(error)) from None

    def first_url(self, target: _TargetLike, base_url: str) -> str:
        """The first URL to fetch for ``target``: the URL it gives, else its profile on ``base_url``."""
        return target.url or self.info.profile_url(target.id or "", base_url)

    def next_url(self, url: str, rows: int, more: bool) -> str | None:
        """The page after ``url``, given the rows it held and whether it says more follow; None at the end."""
        return None

    def redirect_refusal(self, location: str) -> str | None:
        """Why a redirect to ``location`` means there is nothing to fetch (None: follow it)."""
        return None

    def completion_urls(self, pages: list[PageResult], complete: Completion, base_url: str) -> list[str]:
        """The pages to fetch on ``base_url``, once the listing ``pages`` are in, to complete the record
        (none by default)."""
        return []

    def merge(self, pages: list[PageResult]) -> PageResult:
        """The one record of a target from the results of its pages, in fetch order."""
        return pages[0]


class Scholar(Site):
    """Scholar lists a profile's rows 100 at a time ("Show more"), and sends a missing or private
    profile to Google's sign-in page."""

    def first_url(self, target: _TargetLike, base_url: str) -> str:
        if target.url and _is_search(target.url):  # one page of results, as asked
            return target.url
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

    def completion_urls(self, pages: list[PageResult], complete: Completion, base_url: str) -> list[str]:
        """Each listed publication's own page (``details``) and the full co-author list (``coauthors``),
        on ``base_url`` (the listing links them on the host its canonical URL names); each URL with the
        path and query the listing links, for robots.txt to judge as it stands.

        >>> from pubharvest.parsers.records import PageResult, Profile, Ids, Publication
        >>> page = PageResult(site="scholar", page="profile", profile=Profile(ids=Ids(scholar="abcdefAAAAJ")),
        ...     publications=[Publication(url="https://scholar.google.com/citations?view_op=view_citation&x=1")])
        >>> SITES["scholar"].completion_urls([page], Completion(details=True, coauthors=True), "http://mirror:8")
        ['http://mirror:8/citations?view_op=view_citation&x=1', 'http://mirror:8/citations?view_op=list_colleagues&hl=en&json=&user=abcdefAAAAJ']
        """
        listed = [page for page in pages if page.page in LISTING_KINDS]
        paths = [_path_and_query(pub.url) for page in listed for pub in page.publications
                 if complete.details and pub.url]
        user = next((page.profile.ids.scholar for page in listed if page.profile and page.profile.ids.scholar), None)
        if complete.coauthors and user:
            paths.append(f"/citations?view_op=list_colleagues&hl=en&json=&user={user}")
        return [base_url.rstrip("/") + path for path in dict.fromkeys(paths)]

    def merge(self, pages: list[PageResult]) -> PageResult:
        listed = [page for page in pages if page.page in LISTING_KINDS]
        merged = self.merge_listing(listed or pages[:1])
        complete_record(merged, [page for page in pages if page.page not in LISTING_KINDS])
        return merged

    def merge_listing(self, pages: list[PageResult]) -> PageResult:
        from pubharvest.parsers.listings import distinct  # rows on two pages: the parsers' one rule

        repeat = next((i for i in range(1, len(pages)) if is_partial(pages[i - 1]) and repeats(pages[i - 1], pages[i])),
                      None)
        pages = pages if repeat is None else pages[:repeat]
        warnings = []
        for page in pages:
            warnings += [w for w in page.warnings if w.code != "partial" and w not in warnings]
        merged = msgspec.structs.replace(pages[0], publications=[], warnings=warnings)
        merged.publications = distinct([pub for page in pages for pub in page.publications], merged)
        if repeat is not None:
            merged.warn(Warn.partial,
                        f"paging stopped: page {repeat + 1} repeats the rows of page {repeat} (same ids), "
                        "so the server ignores cstart or always offers \"Show more\"; the record holds "
                        f"the {len(merged.publications)} rows of the first {repeat} page(s)")
        elif is_partial(pages[-1]):
            merged.warn(Warn.partial, f"the record holds the first {len(merged.publications)} rows of a longer list "
                                      f"({len(pages)} page(s) fetched): the next page could not be fetched")
        return merged



LISTING_KINDS = ("profile", "rows", "publication_list")  # the pages that list a profile's publications
# what a paper's own page gives that its listing row cuts or lacks
_DETAIL_FIELDS = ("date", "type", "publisher", "summary", "citations_by_year", "container", "volume", "issue", "pages",
                  "patent_office", "versions")


def complete_record(record: PageResult, extra: list[PageResult]) -> None:
    """``record`` completed by the pages fetched after its listing: each publication by its own page
    (matched by id), the co-authors by the full list; a part that could not be had is a warning."""
    by_id = {pub.ids.scholar: pub for pub in record.publications if pub.ids.scholar}
    for page in extra:
        record.warnings += [w for w in page.warnings if lacks_part(w.code) and w not in record.warnings]
        if page.page == "coauthors" and page.profile and record.profile:
            record.profile.coauthors = page.profile.coauthors
            record.warnings = [w for w in record.warnings if w.code != "coauthors_partial"]
        for detail in page.publications:
            listed = by_id.get(detail.ids.scholar or "")
            if listed is not None:
                _take_details(listed, detail)


def _take_details(listed: Publication, detail: Publication) -> None:
    for name in _DETAIL_FIELDS:
        if value := getattr(detail, name):
            setattr(listed, name, value)
    if detail.authors:  # a value and its "cut" flag go together
        listed.authors, listed.authors_truncated = detail.authors, detail.authors_truncated
    if detail.venue:
        listed.venue, listed.venue_truncated = detail.venue, detail.venue_truncated
    if detail.title and (not listed.title or len(detail.title) > len(listed.title)):
        listed.title = detail.title  # the profile cuts long titles
    listed.ids.scholar_clusters += [c for c in detail.ids.scholar_clusters if c not in listed.ids.scholar_clusters]
    listed.links += [link for link in detail.links if link not in listed.links]
    if detail.ids.patent_number and not listed.ids.patent_number:
        listed.ids.patent_number = detail.ids.patent_number


def missing_part(site: str, url: str, error: PubharvestError) -> PageResult:
    """What a completing page that could not be had leaves: no records, and a warning naming the part
    the record lacks (``details_missing`` or ``coauthors_missing``) and why."""
    from pubharvest.parsers.records import PageResult

    if "list_colleagues" in url:
        result = PageResult(site=site, page="coauthors", url=url)
        result.warn(Warn.coauthors_missing, f"the full co-author list could not be had: {error.code}: {error.message}")
    else:
        result = PageResult(site=site, page="publication", url=url)
        result.warn(Warn.details_missing, f"a paper's own page (its full authors and citations per year) could not be "
                                          f"had: {error.code}: {error.message}")
    return result


_BEHAVIOURS: dict[str, type[Site]] = {"scholar": Scholar}  # sites whose scraping differs from the default


class _Registry(Mapping[str, Site]):
    """Every site of ``pubharvest.parsers.SITES``, in its order, as a ``Site`` (built on first use)."""

    def __init__(self) -> None:
        self._built: dict[str, Site] = {}

    @staticmethod
    def _names() -> tuple[str, ...]:
        from pubharvest import parsers

        return parsers.SITES

    def __getitem__(self, name: str) -> Site:
        if name not in self._names():
            raise KeyError(name)
        if name not in self._built:
            from pubharvest.parsers import site_info

            self._built[name] = _BEHAVIOURS.get(name, Site)(site_info(name))
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


SITES: Mapping[str, Site] = _Registry()


def site_of_url(url: str) -> str | None:
    """The site whose host serves ``url``, else None."""
    return next((s.name for s in SITES.values() if s.info.serves(url)), None)


def next_page(site: Site, url: str, pages: list[PageResult]) -> str | None:
    """The URL after ``url``, whose parsed page is ``pages[-1]``; None at the end, or when that page
    repeats the rows of the page before it (a server that ignores the offset: ``Site.merge`` says so).
    """
    if len(pages) > 1 and repeats(pages[-2], pages[-1]):
        return None
    return site.next_url(url, len(pages[-1].publications), is_partial(pages[-1]))


def row_ids(result: PageResult) -> list[str]:
    """What tells a page's rows apart: each publication's site id, else its title."""
    return [pub.ids.scholar or pub.ids.msr or pub.ids.elamur or pub.title or "" for pub in result.publications]


def repeats(previous: PageResult, page: PageResult) -> bool:
    """Whether ``page`` holds only rows that ``previous`` held (the same ids): paging goes no further."""
    ids = row_ids(page)
    return bool(ids) and set(ids) <= set(row_ids(previous))


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
        from pubharvest.parsers import refuse_block_pages
        from pubharvest.parsers.page import Document

        try:
            refuse_block_pages(Document.from_input(body))
        except Blocked as error:  # worded as the parsers word a 200 block page, so both engines say the same
            return error.message if status == 200 else f"HTTP {status}: {error.message}"
        except (ParseError, ValueError, RecursionError):  # an empty, binary or undecodable body is not a CAPTCHA page
            return None
    return None


def robots_url(url: str) -> str:
    """The robots.txt URL of the host serving ``url``."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", ""))


def host_of(url: str) -> str:
    """The host (with port) that rate limits, robots.txt and blocks apply to; never the URL's user-info.

    >>> host_of("https://me:pw@Mirror.example.org:8443/x")
    'mirror.example.org:8443'
    """
    return urlsplit(url).netloc.rpartition("@")[2].lower()


def _is_search(url: str) -> bool:
    """Whether ``url`` is a Scholar search (``/scholar?``) or author search (``view_op=search_authors``)."""
    parts = urlsplit(url)
    return parts.path.rstrip("/").endswith("/scholar") or "view_op=search_authors" in parts.query


def _path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _with_query(url: str, **changes: str | None) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in changes]
    query += [(k, v) for k, v in changes.items() if v is not None]
    return urlunsplit(parts._replace(query=urlencode(query, safe=":")))
