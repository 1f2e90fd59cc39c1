"""The job model: a TOML job file (or the one-off command-line form) as typed, validated settings.

>>> job = job_from_toml('contact = "mailto:me@example.org"\\noutput = "out.jsonl"\\n'
...                    '[[targets]]\\nsite = "scholar"\\nid = "qc6CJjYAAAAJ"')
>>> job.targets[0].key, job.fetch.robots
('scholar:qc6CJjYAAAAJ', 'obey')
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote

import msgspec

from pubharvest.errors import JobError

from . import sites
from .politeness import MAX_CRAWL_DELAY

_CONTACT = re.compile(r"@|https?://")
MAX_BYTES = 32 * 2**20  # per response, after decompression: Scholar's largest page is under 2 MB
BLOCK_WAIT = 6 * 3600.0  # seconds a rerun keeps away from a host that blocked the job (unless --force)
DEFAULT_STORE = "pubharvest.sqlite"  # where a job file's records go when it names no output and no store


class _Spec(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    pass


class SiteSpec(_Spec):
    base_url: str | None = None
    rate: float | None = None  # requests per second for this site's host, overriding the job's


class EnrichSpec(_Spec):
    """``[enrich]``: ask Crossref and OpenAlex about each record's papers as its target ends (docs/enrich.md)."""

    services: list[str] = msgspec.field(default_factory=lambda: ["crossref", "openalex"])
    crossref_url: str | None = None  # a mirror or test server (else PUBHARVEST_CROSSREF_URL, else Crossref's)
    openalex_url: str | None = None
    cache: str | None = None  # the store keeping the answers: default the job's store, else pubharvest.sqlite


class TargetSpec(_Spec):
    site: str | None = None
    id: str | None = None
    url: str | None = None


class JobSpec(_Spec):
    """The job file as written; ``Job`` is what it means."""

    name: str | None = None
    contact: str | None = None
    user_agent: str | None = None
    output: str | None = None
    store: str | None = None
    warc: str | None = None
    journal: str | None = None
    concurrency: int = 4
    per_host: int = 1
    rate: float = 0.5
    jitter: float = 0.5
    timeout: float = 30.0
    retries: int = 4
    backoff: float = 2.0
    max_backoff: float = 120.0
    max_retry_after: float = 600.0
    max_crawl_delay: float = MAX_CRAWL_DELAY
    max_bytes: int = MAX_BYTES
    block_wait: float = BLOCK_WAIT
    robots: Literal["obey", "ignore"] = "obey"
    details: bool = False  # fetch each publication's own page (Scholar: full authors, citations per year)
    coauthors: bool = False  # fetch the full co-author list (Scholar: beyond the sidebar's 20)
    parse_workers: int | None = None  # processes parsing pages (0: on the event loop); default parsepool's
    sites: dict[str, SiteSpec] = {}
    targets: list[TargetSpec] = []
    enrich: EnrichSpec | None = None


@dataclass(frozen=True)
class Target:
    """One thing to fetch: a profile on a site, by id or by URL."""

    site: str
    id: str | None = None
    url: str | None = None

    @property
    def key(self) -> str:
        """``site:id`` or ``site:url``: what the journal and the summary call this target."""
        return f"{self.site}:{self.id if self.id is not None else self.url}"


@dataclass(frozen=True)
class FetchSettings:
    """How to fetch: politeness, patience and identity (the defaults are ``JobSpec``'s)."""

    user_agent: str
    concurrency: int
    per_host: int
    rate: float  # requests per second per host; 0 means no limit
    site_rates: dict[str, float]
    jitter: float
    timeout: float  # seconds for a whole request: connecting, headers and the whole body
    retries: int
    backoff: float
    max_backoff: float
    max_retry_after: float
    robots: str
    max_crawl_delay: float = MAX_CRAWL_DELAY  # a robots.txt Crawl-delay beyond it leaves the host's targets pending
    max_bytes: int = MAX_BYTES  # a larger response (decompressed) fails its target as too_large
    block_wait: float = BLOCK_WAIT


@dataclass(frozen=True)
class Job:
    """A validated job: its targets, where results go, and how to fetch."""

    name: str
    targets: tuple[Target, ...]
    fetch: FetchSettings
    base_urls: dict[str, str]
    output: Path | None = None
    store: Path | str | None = None  # an SQLite file, or a database URL as written
    warc: Path | None = None
    journal: Path | None = None
    complete: sites.Completion = sites.Completion()  # the pages that complete a profile (off by default)
    contact: str | None = None
    enrich: EnrichSpec | None = None  # ``[enrich]``: off by default (the command line may add it)
    enrich_cache: Path | str | None = None  # the store its answers are kept in (with ``enrich``)
    parse_workers: int | None = None  # processes parsing pages; None: ``parsepool.default_workers()``

    def base_url(self, site: str) -> str:
        return self.base_urls.get(site) or sites.SITES[site].base_url

    def __post_init__(self) -> None:  # also on dataclasses.replace, so command-line overrides are checked
        check_distinct_files(self)


def check_distinct_files(job: Job) -> None:
    """``JobError`` when two of the job's files (output, warc, journal, an SQLite store) are one file,
    by name, relative path, symbolic link or hard link."""
    named = [(key, path) for key, path in (("output", job.output), ("warc", job.warc), ("journal", job.journal),
                                           ("store", job.store)) if isinstance(path, Path)]
    for index, (key, path) in enumerate(named):
        for other, other_path in named[:index]:
            if same_file(path, other_path):
                raise JobError(f"{other} and {key} name the same file ({other_path}): each needs a file of its own")


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same resolved path, or (both existing) the same inode."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def load_job(path: str | Path) -> Job:
    """The job in the TOML file at ``path``; raises ``JobError`` with one clear line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise JobError(f"{path}: cannot read the job file ({getattr(error, 'strerror', None) or error})") from None
    try:
        return job_from_toml(text, root=path.parent, default_name=path.stem)
    except JobError as error:
        raise JobError(f"{path}: {error.message}") from None


def job_from_toml(text: str, root: Path = Path("."), default_name: str = "job") -> Job:
    """The job described by TOML ``text``; relative paths are taken from ``root``."""
    try:
        spec = msgspec.convert(tomllib.loads(text), JobSpec)
    except tomllib.TOMLDecodeError as error:
        raise JobError(f"not valid TOML: {error}") from None
    except msgspec.ValidationError as error:
        raise JobError(f"bad job file: {error}") from None
    if not (spec.output or spec.store):
        spec.store = DEFAULT_STORE
    return job_from_spec(spec, root, default_name)


def job_from_spec(spec: JobSpec, root: Path = Path("."), default_name: str = "job") -> Job:
    """Validate ``spec`` and resolve it into a ``Job``."""
    name = spec.name or default_name
    _check_limits(spec)
    unknown = sorted(set(spec.sites) - set(sites.SITES))
    if unknown:
        raise JobError(f"unknown site {unknown[0]!r} in [sites] (known: {', '.join(sites.SITES)})")
    targets = tuple(_target(t, i) for i, t in enumerate(spec.targets))
    if not targets:
        raise JobError("the job has no [[targets]]")
    keys = [t.key for t in targets]
    repeated = next((i for i, key in enumerate(keys) if key in keys[:i]), None)
    if repeated is not None:
        raise JobError(f"targets[{repeated}] repeats targets[{keys.index(keys[repeated])}] ({keys[repeated]})")
    fetch = FetchSettings(
        user_agent=user_agent(spec, name), concurrency=spec.concurrency, per_host=spec.per_host, rate=spec.rate,
        site_rates={s: v.rate for s, v in spec.sites.items() if v.rate is not None}, jitter=spec.jitter,
        timeout=spec.timeout, retries=spec.retries, backoff=spec.backoff, max_backoff=spec.max_backoff,
        max_retry_after=spec.max_retry_after, max_crawl_delay=spec.max_crawl_delay, robots=spec.robots,
        max_bytes=spec.max_bytes,
        block_wait=spec.block_wait,
    )
    base_urls = {s: v.base_url.rstrip("/") for s, v in spec.sites.items() if v.base_url}
    for site, url in base_urls.items():
        if not re.match(r"https?://[^/]+", url):
            raise JobError(f"[sites.{site}] base_url must be an http(s) URL, not {url!r}")
    store = store_location(root, spec.store)
    enrich = spec.enrich
    return Job(name=name, targets=targets, fetch=fetch, base_urls=base_urls,
               output=_path(root, spec.output), store=store, warc=_path(root, spec.warc),
               journal=_path(root, spec.journal) or root / f"{name}.journal",
               complete=sites.Completion(details=spec.details, coauthors=spec.coauthors), contact=spec.contact,
               enrich=enrich, enrich_cache=store_location(root, enrich.cache) if enrich and enrich.cache else
               store or root / DEFAULT_STORE, parse_workers=spec.parse_workers)


def user_agent(spec: JobSpec, name: str) -> str:
    """The User-Agent: the job's own, or one built from its name and contact; either must name a contact."""
    if spec.user_agent:
        if not _CONTACT.search(spec.user_agent):
            raise JobError("user_agent must include a contact (an e-mail address or an http(s) URL)")
        return ascii_header(spec.user_agent)
    if not spec.contact or not _CONTACT.search(spec.contact):
        raise JobError("set contact (an e-mail address or URL the site can reach you at): "
                       "it goes into the User-Agent, so that a site can tell who runs the job")
    return ascii_header(f"pubharvest/{version()} (job {name}; +{spec.contact})")


def ascii_header(value: str) -> str:
    """``value`` as an HTTP header can carry it: each non-ASCII or control character percent-encoded
    as its UTF-8 bytes (a job named ``physik-fakultät``, a contact ``mailto:josé@uni.example``).

    >>> ascii_header("pubharvest/1 (job physik-fakultät; +mailto:josé@uni.example)")
    'pubharvest/1 (job physik-fakult%C3%A4t; +mailto:jos%C3%A9@uni.example)'
    """
    return "".join(c if " " <= c <= "~" else quote(c, safe="") for c in value)


def version() -> str:
    """The installed pubharvest's version (read from its metadata, not from the package above this one)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("pubharvest")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def _check_limits(spec: JobSpec) -> None:
    if spec.concurrency < 1 or spec.per_host < 1:
        raise JobError("concurrency and per_host must be at least 1")
    if spec.rate < 0 or spec.jitter < 0 or spec.timeout <= 0 or spec.retries < 0 or spec.backoff < 0:
        raise JobError("rate, jitter, retries and backoff must not be negative, and timeout must be positive")
    if spec.max_retry_after < 0 or spec.max_crawl_delay < 0:
        raise JobError("max_retry_after and max_crawl_delay must not be negative")
    if spec.max_bytes < 1 or spec.block_wait < 0:
        raise JobError("max_bytes must be positive and block_wait must not be negative")
    if spec.parse_workers is not None and spec.parse_workers < 0:
        raise JobError("parse_workers must not be negative (0 parses on the event loop)")


def _target(spec: TargetSpec, index: int) -> Target:
    where = f"targets[{index}]"
    if spec.url:
        site = spec.site or sites.site_of_url(spec.url)
        if site is None:
            raise JobError(f"{where}: no known site serves {spec.url!r}; add site = {one_of(sites.SITES)}")
        _check_site(site, where)
        return Target(site=site, url=spec.url)
    if not spec.site or not spec.id:
        raise JobError(f"{where}: give site and id, or url")
    _check_site(spec.site, where)
    try:
        sites.SITES[spec.site].check_id(spec.id)
    except JobError as error:
        raise JobError(f"{where}: {error.message}") from None
    return Target(site=spec.site, id=spec.id)


def _check_site(site: str, where: str) -> None:
    if site not in sites.SITES:
        raise JobError(f"{where}: unknown site {site!r} (known: {', '.join(sites.SITES)})")


def one_of(names: Iterable[str]) -> str:
    """Names quoted as a TOML value would be, the last two joined by "or".

    >>> one_of(["scholar", "msr", "elamur"]), one_of(["scholar"])
    ('"scholar", "msr" or "elamur"', '"scholar"')
    """
    quoted = [f'"{name}"' for name in names]
    return " or ".join(filter(None, [", ".join(quoted[:-1]), quoted[-1]]))


def store_location(root: Path, value: str | None) -> Path | str | None:
    """Where records are stored: a URL (``postgresql://...``) as written, else a path under ``root``.

    >>> store_location(Path("jobs"), "postgresql://db/pubharvest"), store_location(Path("jobs"), "s.sqlite")
    ('postgresql://db/pubharvest', PosixPath('jobs/s.sqlite'))
    """
    return value if value and "://" in value else _path(root, value)


def _path(root: Path, value: str | None) -> Path | None:
    return None if not value else (root / Path(value).expanduser())
