"""What every engine shares, from a fetched page to a committed target; an engine holds only how it fetches.

The httpx runner (``runner.py``) and the Scrapy engine (``crawl.py``, and its Redis workers in
``workers.py``) both subclass :class:`Engine`, which owns:

- parsing a page: a block page (CAPTCHA, "unusual traffic", 403) stops its host, said once, and
  fails the target as ``HostBlocked`` (:meth:`Engine.parse_page`, :meth:`Engine.stop_host`);
- a target's end: its pages merged into one record and an outcome, or the outcome of its failure
  (:func:`target_end`);
- the commit order, archive -> sinks -> ledger, so that a crash between two steps redoes the
  target and loses nothing (:meth:`Engine.commit`);
- the WARC info record (:func:`open_archive`), and the :class:`Summary` with its exit code.

>>> Summary(run="r", outcomes={"scholar:x": Outcome("scholar:x", "done")}).exit_code
<ExitCode.OK: 0>
>>> Summary(run="r", outcomes={"msr:a": Outcome("msr:a", "pending", "unreachable")}).exit_code
<ExitCode.UNREACHABLE: 4>
>>> Summary(run="r", outcomes={"msr:a": Outcome("msr:a", "pending", "unreachable"),
...                            "elamur:b": Outcome("elamur:b", "pending", "http_error")}).exit_code
<ExitCode.FAILED: 1>
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Protocol

from pubharvest.errors import (
    Blocked,
    ExitCode,
    FetchError,
    HostBlocked,
    InternalError,
    OutOfRange,
    PubharvestError,
    RedirectRefused,
    TooDeep,
    Undecodable,
)
from pubharvest.parsers import parse
from pubharvest.parsers.page import header_charset
from pubharvest.parsers.records import PageResult, PageWarning, to_json
from pubharvest.parsers.warning_codes import untrusted

from . import sites
from .archive import ArchiveWriter, stamped
from .blockwait import BlockMemory
from .job import Job, Target
from .journal import Status
from .safety import redact_url

# (run id, target, merged record) -> a warning that makes the target partial (the store's ``shrunk``), or None;
# called before the ledger says the target is done
Sink = Callable[[str, Target, PageResult], PageWarning | None]
Event = Callable[..., None]


class LedgerLike(Protocol):
    """What an engine commits to: ``journal.Ledger``, or ``workers.SharedLedger`` for a shared run."""

    run: str

    @property
    def finished(self) -> dict[str, Status]: ...

    def commit(self, target: str, outcome: Status, code: str | None, record: bytes | None) -> None: ...


@dataclass
class Outcome:
    """How a target ended (its ``Status``), why, and how many pages it took."""

    target: str
    status: Status
    code: str | None = None
    message: str | None = None
    pages: int = 0


@dataclass
class Summary:
    """What a run did: each target's outcome, the hosts that blocked it, and its counts and times."""

    run: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    skipped: int = 0  # finished by an earlier attempt at this run
    blocked: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    requests: int = 0
    retries: int = 0
    pages: int = 0
    wall_seconds: float = 0.0
    fetch_seconds: float = 0.0
    parse_seconds: float = 0.0

    def counts(self) -> Counter[str]:
        return Counter(o.status for o in self.outcomes.values())

    @property
    def exit_code(self) -> ExitCode:
        codes = {o.code for o in self.outcomes.values() if o.status in ("failed", "pending")}
        if self.interrupted:
            return ExitCode.INTERRUPTED
        if self.blocked:
            return ExitCode.BLOCKED
        if codes == {"unreachable"} and not self.counts()["done"] + self.counts()["partial"]:
            return ExitCode.UNREACHABLE  # no host answered at all; a host that answered (a 503) is a 1
        return ExitCode.FAILED if codes else ExitCode.OK

    def line(self) -> str:
        """One line: what the run did."""
        counts = self.counts()
        parts = [f"{counts[s]} {s}" for s in ("done", "partial", "failed", "pending") if counts[s]]
        if self.skipped:
            parts.append(f"{self.skipped} already finished")
        return (f"run {self.run}: {', '.join(parts) or 'nothing to do'}; {self.pages} pages, "
                f"{self.requests} requests ({self.retries} retries) in {self.wall_seconds:.1f} s"
                + ("; interrupted" if self.interrupted else ""))


class Blocks:
    """Which hosts blocked this job, and why, and which asked it to wait (``Retry-After``, as a
    time.time() deadline); ``workers.SharedBlocks`` shares both through Redis."""

    def __init__(self) -> None:
        self.hosts: dict[str, str] = {}
        self.holds: dict[str, float] = {}

    def hold(self, host: str, until: float) -> None:
        self.holds[host] = max(self.holds.get(host, 0.0), until)

    def held_until(self, host: str) -> float:
        return self.holds.get(host, 0.0)

    def reason(self, host: str) -> str | None:
        return self.hosts.get(host)

    def known(self) -> dict[str, str]:
        """Every host that blocked the job, with its reason (for the run's summary)."""
        return dict(self.hosts)

    def block(self, host: str, reason: str) -> bool:
        """Record the block; True when it is news."""
        if host in self.hosts:
            return False
        self.hosts[host] = reason
        return True


def stop_host(blocks: Blocks, on_event: Event, host: str, reason: str) -> None:
    """No further request goes to ``host``; the ``blocked`` event is sent the first time only."""
    if blocks.block(host, reason):
        on_event("blocked", host=host, reason=reason)


def _ignore(*args: Any, **kwargs: Any) -> None:
    return None


def refused_message(host: str) -> str:
    """What a target whose request was not sent, because ``host`` blocked the job, reports (both engines)."""
    return f"request not sent: {host} had blocked the job"


def timeout_message(url: str, timeout: float) -> str:
    return f"no whole answer from {url} within timeout = {timeout:g} s"


def too_large_message(url: str, cap: int) -> str:
    return f"{url} is larger than max_bytes = {cap} bytes (decompressed): not read further"


@dataclass
class TargetEnd:
    """How a target ended, to be committed: its outcome, its record (None when it has none) and the
    ``WARC-Record-ID`` of its archived page responses, in order."""

    target: Target
    outcome: Outcome
    record: PageResult | None = None
    archived: Sequence[str] = ()


class Engine:
    """One job's run as every engine runs it: what it writes to (archive, sinks, ledger) and reports."""

    def __init__(self, job: Job, ledger: LedgerLike, sinks: Sequence[Sink] = (), on_event: Event | None = None,
                 archive: ArchiveWriter | None = None) -> None:
        self.job, self.ledger, self.sinks, self.archive = job, ledger, list(sinks), archive
        self.on_event: Event = BlockMemory(job.journal, ledger.run, on_event or _ignore)
        self.blocks = Blocks()
        self.summary = Summary(run=ledger.run)

    def stop_host(self, host: str, reason: str) -> None:
        stop_host(self.blocks, self.on_event, host, reason)

    def parse_page(self, body: bytes, url: str, content_type: str | bytes | None = None) -> PageResult:
        """The parsed page (read in the charset its ``Content-Type`` header names, when it names one); a block
        page stops its host and raises ``HostBlocked``."""
        url = redact_url(url)  # the record's URL is written to files: no credentials in it
        with self.page_verdict(url):
            result = parse(body, url=url, charset=header_charset(content_type))
        return self.parsed(result, url)

    @contextmanager
    def page_verdict(self, url: str) -> Iterator[None]:
        """Around the parse of the page at ``url``: ``Blocked`` stops its host (``HostBlocked``), and an
        exception no parser foresaw becomes this target's named error, not the job's end."""
        try:
            yield
        except Blocked as error:
            host = sites.host_of(url)
            self.stop_host(host, error.message)
            raise HostBlocked(f"{host}: {error.message}") from None
        except PubharvestError:
            raise
        except Exception as error:
            raise named_error(error, f"parsing {url}") from None

    def parsed(self, result: PageResult, url: str) -> PageResult:
        """A page's record once parsed: counted, told, stamped with the run and the time."""
        self.summary.pages += 1
        self.on_event("page", url=url)
        return stamped(result, self.ledger.run, now_utc())

    def commit(self, target: Target, outcome: Outcome, record: PageResult | None = None,
               archived: Sequence[str] = ()) -> None:
        """Make a target's end durable, and note its outcome (``commit_group`` of one)."""
        self.commit_group([TargetEnd(target, outcome, record, archived)])

    def commit_group(self, ends: Sequence[TargetEnd]) -> None:
        """Make the ends of targets durable, and note their outcomes.

        Archive (each target's pages, ``archived``), then sinks, then output and ledger: a crash
        between any two redoes the targets, and each step is idempotent or cut back on resume (see
        journal.py). Each step is done for every target of the group before the next begins, so that
        each file is synced once for the group: the archive, the store (one transaction, a savepoint
        per record: a sink's ``group()``), the output and the journal. A pending target without a
        record leaves nothing: a rerun fetches it again.
        """
        kept = [(end, end.record) for end in ends if end.record is not None]
        for end, record in kept:
            distrust(record, end.outcome)
        if self.archive is not None and kept:
            self.archive.targets_done(self.ledger.run, [(end.target.key, end.outcome.status, list(end.archived),
                                                         record.source.fetched_at if record.source else None)
                                                        for end, record in kept])
        with ExitStack() as group:
            for sink in self.sinks:
                if hasattr(sink, "group"):
                    group.enter_context(sink.group())
            lines = [self._sunk(end) for end in ends]
        entries = [(end.target.key, end.outcome.status, end.outcome.code, line) for end, line in zip(ends, lines,
                                                                                                    strict=True)
                   if end.record is not None or end.outcome.status == "failed"]
        commit_many = getattr(self.ledger, "commit_many", None)
        if commit_many is not None:
            commit_many(entries)
        else:  # a ledger of one commit at a time
            for entry in entries:
                self.ledger.commit(*entry)
        for end in ends:
            self.summary.outcomes[end.target.key] = end.outcome

    def _sunk(self, end: TargetEnd) -> bytes | None:
        """The target's record handed to the sinks, as its output line; None when it has none, or when a sink
        failed on it (then its outcome is made ``failed``, and the sinks' part of it undone where they can)."""
        if end.record is None:
            return None
        try:
            for sink in self.sinks:
                said = sink(self.ledger.run, end.target, end.record)
                if said is not None and end.outcome.status == "done":
                    end.outcome.status, end.outcome.code, end.outcome.message = "partial", said.code, said.message
            return to_json(end.record)
        except Exception as error:
            if is_write_failure(error):  # a full disk, a store gone: the job ends, as documented
                raise
            failed = named_error(error, f"storing {end.target.key}")
            end.outcome = Outcome(end.target.key, "failed", failed.code, failed.message, end.outcome.pages)
            end.record = None
            return None

    def leave_pending(self, keys: Iterable[str], code: str) -> None:
        """Targets the run stopped before: ``pending``, for a rerun to fetch."""
        for key in keys:
            self.summary.outcomes.setdefault(key, Outcome(key, "pending", code,
                                                          "the job stopped before this target finished"))


def distrust(record: PageResult, outcome: Outcome) -> None:
    """A ``done`` outcome made ``partial`` when the record carries a warning the catalogue marks
    untrusted (drifted markup: a part every row has was read on no row); the store keeps such a record
    as history only."""
    found = next((w for w in record.warnings if untrusted(w.code)), None)
    if found is not None and outcome.status == "done":
        outcome.status, outcome.code = "partial", found.code
        outcome.message = f"{found.message}; kept as history, the stored record stands"


def now_utc() -> str:
    """The time now as a record's ``source.fetched_at`` gives it (a page is parsed as it arrives)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def target_end(target: Target, pages: Sequence[PageResult],
               error: PubharvestError | None = None) -> tuple[PageResult | None, Outcome]:
    """A target's record (None when it has none) and outcome, from its pages and the error that stopped them.

    A page that cannot be fetched for good (a 404, a refused redirect) after earlier pages stands
    leaves a ``partial`` record of those pages; any other error leaves no record.
    """
    stopped = None
    if error is not None:
        if not (pages and isinstance(error, FetchError) and not error.transient):
            return None, failure_outcome(target, error)
        stopped = f"stopped after {len(pages)} page(s): {error.message}"
    record = sites.SITES[target.site].merge(list(pages))
    listed = [page for page in pages if page.page in sites.LISTING_KINDS] or list(pages)
    status: Status = "partial" if sites.is_partial(listed[-1]) or stopped else "done"
    if status == "partial" and not stopped:  # paging stopped by the site's own rule: the record's warning says why
        stopped = next((w.message for w in record.warnings if w.code == "partial"), None)
    return record, Outcome(target.key, status, "partial" if stopped else None, stopped, len(pages))


def named_error(error: BaseException, doing: str) -> PubharvestError:
    """The named outcome of an exception met on one target while ``doing`` something (parsing a page,
    storing a record): a known trigger gets its code, anything else is ``internal_error`` naming the type.

    >>> named_error(RecursionError("maximum recursion depth exceeded"), "parsing x").code
    'too_deep'
    >>> str(named_error(StopIteration(), "parsing x"))
    'StopIteration while parsing x (a bug in pubharvest: please report it with the page)'
    """
    if isinstance(error, PubharvestError):
        return error
    detail = f": {str(error).splitlines()[0][:200]}" if str(error).strip() else ""
    if isinstance(error, RecursionError):
        return TooDeep(f"{doing}: nested deeper than pubharvest follows")
    if isinstance(error, UnicodeError):
        return Undecodable(f"{doing}: {type(error).__name__}{detail}")
    if isinstance(error, OverflowError):
        return OutOfRange(f"{doing}: a number too large to store{detail}")
    if type(error).__name__ == "InvalidURL":  # httpx's, for a redirect or URL it cannot send
        return RedirectRefused(f"{doing}: not a URL that can be fetched{detail}")
    return InternalError(f"{type(error).__name__} while {doing}{detail} (a bug in pubharvest: please report it "
                         "with the page)")


def is_write_failure(error: BaseException) -> bool:
    """Whether ``error`` is a failed write (a full disk, a lost database), which ends the job rather than a target."""
    from pubharvest.errors import StoreError

    return isinstance(error, (OSError, StoreError)) or type(error).__name__ in ("OperationalError", "InterfaceError")


def failure_outcome(target: Target, error: PubharvestError) -> Outcome:
    """The outcome of a target that produced no record: ``pending`` when a rerun may succeed."""
    transient = isinstance(error, FetchError) and error.transient
    return Outcome(target.key, "pending" if transient else "failed", error.code, error.message)


def open_archive(job: Job, run: str, engine: str | None = None) -> ArchiveWriter | None:
    """The job's WARC archive, opened with its info record (None when the job keeps none)."""
    if not job.warc:
        return None
    info = {"software": "pubharvest", **({"engine": engine} if engine else {}), "job": job.name, "run": run,
            "http-header-user-agent": job.fetch.user_agent}
    return ArchiveWriter(job.warc, info)
