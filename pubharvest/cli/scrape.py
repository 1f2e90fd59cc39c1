"""``pubharvest scrape``: a job file (or one target) in, a job run, one clear account out."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import signal
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus

from pubharvest.parsers import site_info
from pubharvest.parsers.records import PageResult, PageWarning, to_json
from pubharvest.scrapers.blockwait import left_words, recent_blocks
from pubharvest.scrapers.engine import Sink, Summary
from pubharvest.scrapers.job import (
    DEFAULT_STORE,
    Job,
    JobSpec,
    SiteSpec,
    Target,
    TargetSpec,
    job_from_spec,
    load_job,
    store_location,
)
from pubharvest.scrapers.runner import run_job
from pubharvest.scrapers.sites import host_of

from ..errors import ExitCode, JobError, NotOurFile, PubharvestError

if TYPE_CHECKING:
    from ..enrich import EnrichOptions
from ..progress import Progress
from ..store import Store, is_database_url, without_password
from .options import SITE_NAMES, add_enrich_options
from .reading import warning_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Run a job file, or one target with --site and --id (or --url). A rerun of a job "
                          "resumes its unfinished run. Exit 0 when every target finished, 1 when some failed, "
                          "2 for a bad job or usage, 3 when a site blocked the job, 4 when no host could be "
                          "reached, 130 when interrupted.")
    parser.add_argument("job", nargs="?", metavar="JOB.toml")
    parser.add_argument("--site", help=f"one-off form: the site of the target ({SITE_NAMES})")
    parser.add_argument("--id", dest="target_id", help="one-off form: the profile id on that site")
    parser.add_argument("--url", dest="target_url", help="one-off form: the profile URL")
    parser.add_argument("--search", metavar="QUERY", help="one-off form, with --site scholar: fetch one page of "
                                                          "search results for QUERY (if robots.txt allows)")
    parser.add_argument("--author", metavar="NAME", help="one-off form, with --site scholar: fetch one page of "
                                                         "the author search for NAME (if robots.txt allows)")
    parser.add_argument("--contact", help="one-off form: an e-mail or URL for the User-Agent "
                                          "(default: $PUBHARVEST_CONTACT)")
    parser.add_argument("--base-url", help="one-off form: fetch from this mirror or test server")
    parser.add_argument("--robots", choices=("obey", "ignore"), help="one-off form: robots.txt policy (default: obey)")
    parser.add_argument("-o", "--output", metavar="FILE", help="JSON Lines output (one-off default: stdout)")
    parser.add_argument("--store", metavar="DB",
                        help="also upsert records into this store: an SQLite file or a postgresql:// URL")
    parser.add_argument("--warc", metavar="FILE", help="archive every request and response here")
    parser.add_argument("--new-run", action="store_true",
                        help="start a new run even if the last one left targets unfinished")
    parser.add_argument("--force", action="store_true",
                        help="go back to a host that blocked the job less than block_wait ago")
    parser.add_argument("--verbose", "-v", action="store_true", help="log each request and response")
    parser.add_argument("--engine", choices=("httpx", "scrapy"), default="httpx",
                        help="httpx: the built-in async fetcher (default); scrapy: the job as Scrapy spiders "
                             "(needs pip install 'pubharvest[scrapy]')")
    add_enrich_options(parser, job=True)
    parser.add_argument("--redis", metavar="URL",
                        help="with --engine scrapy: share the job's queue through this Redis server, so that "
                             "workers on several machines split it (see docs/workers.md)")


def run(args: argparse.Namespace) -> int:
    """Run the job of ``args`` (a job file or the one-off form) and report how it went."""
    store: Store | None = None
    try:
        job = job_of(args)
        enriching = enrich_options_of(job, args.enrich)
        if args.redis and args.engine != "scrapy":
            raise JobError("--redis needs --engine scrapy")
        if not getattr(args, "force", False):
            refuse_recent_blocks(job)
        store = Store(job.store) if job.store else None
        warned: list[str] = []
        with enricher_of(enriching, job) as enricher:  # first: the store and the output keep the enriched records
            sinks = [*enricher, *_sinks(job, store), _warnings_sink(warned)]
            with Progress(verbose=args.verbose) as progress, _terminated_as_interrupted() as terminated:
                summary = _run(job, sinks, progress, args)
        if store is not None:
            store_failures(store, job, summary)
    except PubharvestError as error:
        # a bad job, or a store that cannot be opened, is bad input; a store that fails mid-job is not
        print(f"pubharvest scrape: {error.message}", file=sys.stderr)
        if isinstance(error, RecentBlock):
            return ExitCode.BLOCKED
        if isinstance(error, NotOurFile):
            return ExitCode.NOT_OUR_FILE
        return ExitCode.USAGE if store is None or isinstance(error, JobError) else ExitCode.FAILED
    except OSError as error:
        print(f"pubharvest scrape: cannot write: {error.strerror or error} ({error.filename or ''})", file=sys.stderr)
        return ExitCode.FAILED
    except sqlite3.Error as error:
        print(f"pubharvest scrape: {job.store}: the store cannot be used: {error}", file=sys.stderr)
        return ExitCode.FAILED
    except KeyboardInterrupt:  # a second Ctrl-C: stop at once; what was committed stays committed
        print("pubharvest scrape: interrupted again: stopped at once; finished targets are kept, "
              f"run `{_rerun_command(args)}` again to resume", file=sys.stderr)
        return ExitCode.INTERRUPTED
    finally:
        if store is not None:
            store.close()
    for line in [*warned, *account(summary, _rerun_command(args))]:
        print(line, file=sys.stderr)
    return ExitCode.TERMINATED if summary.interrupted and terminated else summary.exit_code


@contextmanager
def _terminated_as_interrupted() -> Iterator[list[bool]]:
    """SIGTERM (a service manager, ``kill``, a CI timeout) stops the job as Ctrl-C does: the targets
    under way are left pending, what was committed stays, the summary is printed. Yields a list
    that holds True once SIGTERM came, for the exit status. (Scrapy installs its own handlers for
    both signals while it crawls, with the same graceful stop.)"""
    terminated: list[bool] = []

    def on_term(signum: int, frame: object) -> None:
        terminated.append(True)
        signal.raise_signal(signal.SIGINT)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield terminated
    finally:
        signal.signal(signal.SIGTERM, previous)


class RecentBlock(JobError):
    """A host of the job blocked it less than ``block_wait`` ago."""


def refuse_recent_blocks(job: Job) -> None:
    """Raise ``RecentBlock`` when a host of the job's targets blocked it less than ``block_wait`` ago."""
    hosts = {host_of(job.base_url(t.site)) for t in job.targets} | {host_of(t.url) for t in job.targets if t.url}
    recent = recent_blocks(job.journal, hosts, job.fetch.block_wait)
    if recent:
        host, (reason, left) = max(recent.items(), key=lambda item: item[1][1])
        raise RecentBlock(f"{host} blocked this job less than block_wait = {job.fetch.block_wait / 3600:g} h ago "
                          f"({reason}); wait {left_words(left)} more, or run again with --force")


def _sinks(job: Job, store: Store | None) -> list[Sink]:
    """Where each target's record goes besides the job's output file: the store, else stdout when nothing else."""
    sinks: list[Sink] = []
    if store is not None:
        sinks.append(StoreSink(store))
    if job.output is None and store is None:
        sinks.append(_stdout_sink)
    return sinks


class StoreSink:
    """A sink that saves each record in the store; the records of targets committed together share one
    transaction (``group``, which the engine enters around them: one commit, one set of fsyncs)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.group = store.group

    def __call__(self, run: str, target: Target, record: PageResult) -> PageWarning | None:
        return self.store.save(run, target.id or target.url or "", record)


def store_failures(store: Store, job: Job, summary: Summary) -> None:
    """Keep in the store the targets of a profile this run tried and got no record of (blocked, refused,
    failed; not those it left pending by an interruption), so that the profile's history names the run."""
    targets = {t.key: t for t in job.targets}
    for key, outcome in summary.outcomes.items():
        target = targets.get(key)
        if target is None or (outcome.status == "pending" and outcome.code == "interrupted"):
            continue
        if outcome.status in ("failed", "pending"):
            store.save_failure(summary.run, target.site, target.id or target.url or key, outcome.status,
                               outcome.code or outcome.status, outcome.message or "")


def _run(job: Job, sinks: list[Sink], progress: Progress, args: argparse.Namespace) -> Summary:
    """The job's summary, from the engine ``args`` chose."""
    if args.engine != "scrapy":
        return asyncio.run(run_job(job, sinks, progress, new_run=args.new_run))
    try:
        if args.redis:
            from pubharvest.scrapers.workers import join_job
        else:
            from pubharvest.scrapers.crawl import crawl_job
    except ImportError as error:
        raise JobError(f"--engine scrapy needs the scrapy extra ({error.name} is missing): "
                       "pip install 'pubharvest[scrapy]'") from None
    if not args.redis:
        return crawl_job(job, sinks, progress, new_run=args.new_run)
    summary = join_job(job, args.redis, sinks, progress, new_run=args.new_run)
    _note_shared_limits(job)
    return summary


def _note_shared_limits(job: Job) -> None:
    """Say what a worker sharing a queue does not do that the job file asks for."""
    if job.store and not is_database_url(job.store):
        print(f"pubharvest scrape: note: {job.store} is a local SQLite file; workers on other machines "
              "need a postgresql:// store to write into one database", file=sys.stderr)


def enrich_options_of(job: Job, services: str | None) -> EnrichOptions | None:
    """What the job asks of Crossref and OpenAlex (``[enrich]``, or ``--enrich``, which names the services),
    or None; ``JobError`` (exit 2, before anything runs) without a contact e-mail."""
    if job.enrich is None and not services:
        return None
    from ..enrich import enrich_options

    spec = job.enrich
    urls = {name: url for name, url in (("crossref", spec.crossref_url), ("openalex", spec.openalex_url)) if url} \
        if spec else {}
    try:
        return enrich_options(services or ",".join(spec.services if spec else ()), job.contact, base_urls=urls)
    except JobError as error:
        if services:
            raise
        raise JobError(f"[enrich]: {error.message}") from None


@contextmanager
def enricher_of(options: EnrichOptions | None, job: Job) -> Iterator[list[Sink]]:
    """The sink that enriches each record as its target ends, its answers kept in the job's store; none
    without ``options``."""
    if options is None:
        yield []
        return
    from ..enrich import AnswerCache
    from ..enrich.background import Enricher

    cache = job.enrich_cache or job.store or DEFAULT_STORE
    if isinstance(cache, str) and "://" not in cache:
        cache = Path(cache)
    enricher = Enricher(dataclasses.replace(options, cache=AnswerCache.of_store(cache)))
    try:
        yield [enricher.sink]
    finally:
        enricher.close()


def job_of(args: argparse.Namespace) -> Job:
    """The job to run: the job file with any -o/--store/--warc/--enrich-cache overrides, or the one-off target."""
    job = _job_of(args)
    if args.enrich_cache:
        job = dataclasses.replace(job, enrich_cache=store_location(Path("."), args.enrich_cache))
    return job


def _job_of(args: argparse.Namespace) -> Job:
    overrides: dict[str, Any] = {k: Path(v) for k, v in (("output", args.output), ("warc", args.warc)) if v}
    if args.store:
        overrides["store"] = store_location(Path("."), args.store)
    if args.job:
        one_off = [flag for flag, value in (("--site", args.site), ("--id", args.target_id), ("--url", args.target_url),
                                            ("--search", args.search), ("--author", args.author),
                                            ("--contact", args.contact), ("--base-url", args.base_url),
                                            ("--robots", args.robots)) if value]
        if one_off:
            raise JobError(f"{one_off[0]} belongs to the one-off form; with a job file, set it in the file")
        return dataclasses.replace(load_job(args.job), **overrides)
    target_url = args.target_url or _search_url(args)
    if not (target_url or (args.site and args.target_id)):
        raise JobError("give a job file, or --site SITE --id ID, or --url URL")
    site = args.site or ""
    spec = JobSpec(name="one-off", contact=args.contact or os.environ.get("PUBHARVEST_CONTACT"),
                   robots=args.robots or "obey",
                   sites={site: SiteSpec(base_url=args.base_url)} if args.base_url and site else {},
                   targets=[TargetSpec(site=args.site, id=args.target_id, url=target_url)])
    job = job_from_spec(spec)
    return dataclasses.replace(job, **{"journal": None, "output": None, "store": None, **overrides})


# The one-off searches: Scholar only, one results page each (robots.txt decides, as for any page).
_SEARCH_PATHS = {"search": "/scholar?hl=en&q={}", "author": "/citations?hl=en&view_op=search_authors&mauthors={}"}


def _search_url(args: argparse.Namespace) -> str | None:
    """The URL of ``--search QUERY`` or ``--author NAME`` on Scholar (or ``--base-url``), or None."""
    asked = [(flag, value) for flag, value in (("search", args.search), ("author", args.author)) if value]
    if not asked:
        return None
    if len(asked) > 1 or args.target_id or args.target_url:
        raise JobError("give one of --id, --url, --search and --author")
    if args.site != "scholar":
        raise JobError(f"--{asked[0][0]} searches Google Scholar: give --site scholar")
    flag, value = asked[0]
    base = (args.base_url or site_info("scholar").base_url).rstrip("/")
    return base + _SEARCH_PATHS[flag].format(quote_plus(value))


def account(summary: Summary, rerun: str) -> list[str]:
    """The lines that end a job: each target without a record, each block and how to resume, the summary."""
    # the same order whichever engine finished first
    outcomes = sorted(summary.outcomes.values(), key=lambda o: o.target)
    lines = [f"{o.target}: {o.code}: {o.message}" for o in outcomes if o.status in ("failed", "pending")]
    lines += [f"{o.target}: {o.code or 'partial'}: {o.message}"
              for o in outcomes if o.status == "partial" and o.message]
    pending = sum(o.status == "pending" for o in outcomes)
    for host, reason in sorted(summary.blocked.items()):
        lines.append(f"{host}: blocked: {reason}. No further request was sent to it; its remaining targets are "
                     f"pending. Wait (hours, not minutes), then run `{rerun}` again: finished targets are skipped.")
    if summary.exit_code == ExitCode.UNREACHABLE:
        lines.append("no host could be reached: check each site's base_url and the network, then run "
                     f"`{rerun}` again")
    elif pending and not summary.blocked:
        lines.append(f"{pending} target(s) pending: run `{rerun}` again to fetch them; finished targets are skipped.")
    lines.append(summary.line())
    return lines


def _warnings_sink(lines: list[str]) -> Sink:
    """A sink that notes each record's warnings as ``parse`` prints them, for the end of the job."""
    def note(run: str, target: Target, record: PageResult) -> None:
        lines.extend(warning_lines(target.key, record))
    return note


def _stdout_sink(run: str, target: Target, record: PageResult) -> None:
    sys.stdout.write(to_json(record).decode() + "\n")
    sys.stdout.flush()


def _rerun_command(args: argparse.Namespace) -> str:
    redis = f" --redis {without_password(args.redis)}" if args.redis else ""
    engine = "" if args.engine == "httpx" else f" --engine {args.engine}{redis}"
    return f"pubharvest scrape {args.job}{engine}" if args.job else "the same command"
