"""What an enrichment run asks of whom, and how politely: the services, the contact, the API base
URLs, per-host rates and the limits every request keeps (docs/enrich.md).

>>> options = enrich_options("crossref,openalex", "mailto:me@example.org", environ={})
>>> options.services, options.contact, options.base_urls["crossref"]
(('crossref', 'openalex'), 'me@example.org', 'https://api.crossref.org')
>>> enrich_options("crossref,scopus", "me@example.org", environ={})
Traceback (most recent call last):
...
pubharvest.errors.JobError: --enrich: unknown service 'scopus' (known: crossref, openalex)
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pubharvest.errors import JobError

if TYPE_CHECKING:
    from .cache import AnswerCache

SERVICES = ("crossref", "openalex")
DEFAULT_URLS = {"crossref": "https://api.crossref.org", "openalex": "https://api.openalex.org"}
URL_VARIABLES = {"crossref": "PUBHARVEST_CROSSREF_URL", "openalex": "PUBHARVEST_OPENALEX_URL"}
# Requests per second to each service's host: Crossref's answers say 5 a second, one at a time
# (x-rate-limit-limit, x-concurrency-limit); OpenAlex asks for at most 10 a second.
DEFAULT_RATES = {"crossref": 5.0, "openalex": 10.0}
MAX_BYTES = 8 * 2**20  # per answer, decoded: a work with a long reference list is under 1 MB
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


@dataclass(frozen=True)
class EnrichOptions:
    """One run's settings; ``cache`` keeps the answers (None: every answer is asked for)."""

    services: tuple[str, ...]
    contact: str  # an e-mail address: Crossref's and OpenAlex's polite pools key on it
    base_urls: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_URLS))
    rates: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_RATES))
    timeout: float = 30.0  # seconds for a whole request
    retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 60.0
    max_retry_after: float = 600.0
    max_bytes: int = MAX_BYTES
    rows: int = 5  # candidates a query asks for
    concurrency: int = 8  # papers under way at once
    cache: AnswerCache | None = None


def enrich_options(services: str, contact: str | None, environ: Mapping[str, str] | None = None,
                   base_urls: Mapping[str, str] | None = None, **settings: object) -> EnrichOptions:
    """The options of ``--enrich SERVICES`` with ``contact`` (else ``PUBHARVEST_CONTACT``); the base URLs
    from ``base_urls`` (a job file's), else ``PUBHARVEST_CROSSREF_URL`` / ``PUBHARVEST_OPENALEX_URL``, else
    the services' own. ``JobError`` with one line when something is wrong."""
    environ = os.environ if environ is None else environ
    names = tuple(dict.fromkeys(name.strip().lower() for name in services.split(",") if name.strip()))
    unknown = next((name for name in names if name not in SERVICES), None)
    if unknown is not None or not names:
        raise JobError(f"--enrich: unknown service {unknown!r} (known: {', '.join(SERVICES)})")
    return EnrichOptions(services=names, contact=contact_email(contact or environ.get("PUBHARVEST_CONTACT")),
                         base_urls=service_urls(environ, base_urls or {}), **settings)  # type: ignore[arg-type]


def contact_email(contact: str | None) -> str:
    """The e-mail address of ``contact`` (``mailto:`` taken off); ``JobError`` when it is none.

    >>> contact_email("mailto:ada@uni.example")
    'ada@uni.example'
    """
    address = (contact or "").strip().removeprefix("mailto:")
    if not _EMAIL.fullmatch(address):
        raise JobError("--enrich needs a contact e-mail (--contact, a job's contact, or PUBHARVEST_CONTACT): Crossref "
                       "and OpenAlex ask for one, so that they can tell who sends the requests")
    return address


def service_urls(environ: Mapping[str, str], given: Mapping[str, str]) -> dict[str, str]:
    """Each service's base URL, without a trailing slash; ``JobError`` for one that is no http(s) URL."""
    urls = {}
    for name in SERVICES:
        url = (given.get(name) or environ.get(URL_VARIABLES[name]) or DEFAULT_URLS[name]).rstrip("/")
        if not re.match(r"https?://[^/]+", url):
            raise JobError(f"the {name} base URL must be an http(s) URL, not {url!r}")
        urls[name] = url
    return urls
