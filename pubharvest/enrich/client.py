"""Asking Crossref and OpenAlex: through the scraper's own ``Fetcher`` (per-host pacing, retries with
backoff, 429 and ``Retry-After``, timeouts, a ceiling on decoded bytes), with the answers cached.

An answer is a 200 with a JSON body, or a 404 ("no such work", kept as such). A redirect within the
service's host (Crossref's old DOI to its versioned one) is followed, at most ``MAX_REDIRECTS``
times. Everything else (a 5xx after its retries, a body that is no JSON, one past ``max_bytes``, a
redirect elsewhere) is ``EnrichFailed``: one line for that paper, and the run goes on.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

import httpx
import msgspec

from pubharvest.errors import FetchError, HttpError, PubharvestError
from pubharvest.scrapers.engine import Event
from pubharvest.scrapers.fetch import Fetcher
from pubharvest.scrapers.job import FetchSettings, ascii_header, version
from pubharvest.scrapers.safety import AddressGuard, redirect_refusal
from pubharvest.scrapers.sites import host_of

from .options import EnrichOptions

MAX_REDIRECTS = 3


class EnrichFailed(PubharvestError):
    """A service's answer for one paper could not be had or read; the paper keeps what its page says."""

    code = "enrich_failed"


@dataclass(frozen=True)
class Answer:
    """What a service answered to ``key``: 200 with ``body`` (JSON), or 404; ``url`` is where it
    answered (after redirects, without the contact); ``cached``: read from the store, not asked."""

    status: int
    body: bytes | None
    url: str
    date: str  # the day it answered (ISO)
    cached: bool = False

    def json(self) -> object:
        return msgspec.json.decode(self.body or b"null")


class Asker:
    """Asks the services for one run, from one event loop: ``await asker.ask("crossref", "/works/10.1/x")``."""

    def __init__(self, options: EnrichOptions, client: httpx.AsyncClient, resolve: bool = True,
                 on_event: Event | None = None) -> None:
        self.options = options
        hosts = {host_of(url): name for name, url in options.base_urls.items()}
        settings = FetchSettings(
            user_agent=user_agent(options.contact), concurrency=len(hosts), per_host=1, rate=0.0,
            site_rates=dict(options.rates), jitter=0.1, timeout=options.timeout, retries=options.retries,
            backoff=options.backoff, max_backoff=options.max_backoff, max_retry_after=options.max_retry_after,
            robots="ignore", max_bytes=options.max_bytes)
        guard = AddressGuard(list(options.base_urls.values()), resolve)
        self.fetcher = Fetcher(settings, client, on_event=on_event, site_hosts=hosts, guard=guard)

    @property
    def requests(self) -> int:
        """How many requests were sent (retries and redirects each count)."""
        return self.fetcher.stats.requests

    async def ask(self, service: str, key: str) -> Answer:
        """The answer of ``service`` to ``key`` (a path and query under its base URL)."""
        base = self.options.base_urls[service]
        cache = self.options.cache
        known = cache.get(service, key) if cache is not None else None
        if known is not None:
            return Answer(known.status, known.body, base + key, known.fetched_at[:10], cached=True)
        url = base + key
        for _ in range(MAX_REDIRECTS + 1):
            try:
                response = await self.fetcher.get(self._with_contact(url), check_robots=False)
            except HttpError as error:
                if error.status != 404:
                    raise EnrichFailed(f"{service}: {error.message}") from None
                return Answer(404, None, url, self._keep(service, key, 404, None))
            except FetchError as error:
                raise EnrichFailed(f"{service}: {error.message}") from None
            if response.location is None:
                return self._answer(service, key, url, response.body)
            refusal = redirect_refusal(response.location, {host_of(base)})
            if refusal:
                raise EnrichFailed(f"{service}: {refusal}")
            url = _without_contact(response.location)
        raise EnrichFailed(f"{service}: more than {MAX_REDIRECTS} redirects from {base + key}: not followed")

    def _answer(self, service: str, key: str, url: str, body: bytes) -> Answer:
        try:
            msgspec.json.decode(body)
        except msgspec.DecodeError:
            start = body[:60].decode("utf-8", "replace")
            raise EnrichFailed(f"{service}: the answer from {url} is not JSON (it starts {start!r})") from None
        return Answer(200, body, url, self._keep(service, key, 200, body))

    def _keep(self, service: str, key: str, status: int, body: bytes | None) -> str:
        """Keep an answer in the cache (when there is one); the day it came."""
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        if self.options.cache is not None:
            self.options.cache.put(service, key, status, body, now)
        return now[:10]

    def _with_contact(self, url: str) -> str:
        """``url`` with ``mailto=`` (the polite pools' key) in its query."""
        joiner = "&" if urlsplit(url).query else "?"
        return f"{url}{joiner}mailto={quote(self.options.contact, safe='@')}"


def user_agent(contact: str) -> str:
    return ascii_header(f"pubharvest/{version()} (enrich; mailto:{contact})")


def _without_contact(url: str) -> str:
    """A redirect's target as the answer's place: the ``mailto`` parameter taken out of its query."""
    parts = urlsplit(url)
    query = "&".join(p for p in parts.query.split("&") if p and not p.startswith("mailto="))
    return parts._replace(query=query).geturl()
