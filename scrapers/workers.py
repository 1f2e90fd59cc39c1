"""Many workers on one job: a scrapy-redis queue and duplicate filter, claims, heartbeats, shared blocks.

Every key of a job lives under ``pubharvest:<job name>:`` in Redis:

- ``requests``: the queue (scrapy-redis serialisation); ``dupefilter``: fingerprints of every
  request ever queued in this run, so no page is queued, hence fetched, twice.
- ``claims:<worker>``: requests a worker has taken and not yet finished. Taking moves a request
  from the queue to its worker's claims in one ``LMOVE``; the claim is dropped in the same
  transaction that queues the request's successor (its next page, a retry, a redirect), or once
  the target's record is in the store. A worker killed midway leaves its claims behind.
- ``alive:<worker>``: a heartbeat that expires ``ttl`` seconds after the worker stops. Claims of a
  worker whose heartbeat expired go back to the queue; this is the one case where a page can be
  fetched twice (the request was in flight when its worker died).
- ``run``, ``finished`` (target -> outcome), ``blocked`` (host -> reason), ``holds`` (host ->
  the time a ``Retry-After`` asked to wait until): the job's state, shared.

A worker ends when the queue is empty and nobody holds a claim; an idle worker looks again every
``IDLE_POLL`` seconds, so it exits within that of the last target finishing. With ``warc`` set each
worker writes its own archive segment, ``NAME-WORKER.warc.gz``.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import secrets
import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import redis
from scrapy.exceptions import DontCloseSpider
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.queue import Base
from scrapy_redis.scheduler import Scheduler
from twisted.internet import task

from pubharvest.errors import JobError

from .archive import ArchiveWriter, segment_path
from .crawl import CLAIM, CrawlEngine, ProfileSpider
from .engine import Blocks, Sink, Summary, open_archive
from .job import Job, Target
from .journal import FINISHED, Status, as_status

DEFAULT_TTL = 10.0  # seconds without a heartbeat before a worker's claims are given to others
IDLE_POLL = 0.1  # seconds between an idle worker's looks at the shared queue


class Coordinator:
    """One worker's view of a shared job in Redis."""

    def __init__(self, server: redis.Redis, url: str, job: Job, worker: str | None = None,
                 ttl: float = DEFAULT_TTL) -> None:
        self.server, self.url, self.job, self.ttl = server, url, job, ttl
        # scrapy-redis %-formats its keys (twice, for the queue): a job name keeps no "%"
        self.prefix = f"pubharvest:{job.name}:".replace("%", "_")
        self.worker = worker or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self._heartbeat: task.LoopingCall | None = None

    @classmethod
    def connect(cls, url: str, job: Job, ttl: float = DEFAULT_TTL) -> Coordinator:
        """A coordinator on the Redis server at ``url``; raises ``JobError`` when it cannot be reached."""
        try:
            server = redis.Redis.from_url(url)
            server.ping()
        except (redis.RedisError, ValueError) as error:
            raise JobError(f"cannot reach Redis at {url}: {error}") from None
        return cls(server, url, job, ttl=ttl)

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    @property
    def claims(self) -> str:
        return self.key("claims", self.worker)

    # -- the run and its seeds ---------------------------------------------------------------

    def begin(self, new_run: bool = False) -> tuple[str, list[Target]]:
        """The run id and the targets to seed (none when the run is under way: this worker joins it).

        Call it holding ``seeding()``, and seed before letting go, so that only one worker seeds a run.
        """
        self.beat()
        run = _text_or_none(self.server.get(self.key("run")))
        finished = self.finished()
        if run is None or new_run or all(t.key in finished for t in self.job.targets):
            run = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)
            self.server.delete(self.key("requests"), self.key("dupefilter"), self.key("finished"),
                               self.key("blocked"), self.key("holds"),
                               *self.server.scan_iter(match=self.key("claims", "*")))
            self.server.set(self.key("run"), run)
            return run, list(self.job.targets)
        self.recover()
        if self.server.llen(self.key("requests")) or self.claimed():
            return run, []
        # A run left unfinished (a block, an interrupted job): its unfinished targets start again
        # from their first page. Their pages are in the duplicate filter, and only theirs could be
        # queued again (finished targets are not seeded), so the filter starts afresh.
        self.server.delete(self.key("blocked"), self.key("dupefilter"))
        return run, [t for t in self.job.targets if t.key not in finished]

    def seeding(self) -> Any:
        """The lock one worker holds while it decides on and queues a run's seeds."""
        return self.server.lock(self.key("seeding"), timeout=60, blocking_timeout=60)

    def seed(self, spider: Any, targets: Sequence[Target]) -> None:
        """Queue the first request of each target, through the run's duplicate filter."""
        queue = ClaimQueue(self.server, spider, self.key("requests"))
        seen = RFPDupeFilter(self.server, self.key("dupefilter"))
        for request in spider.first_requests(targets):
            if not seen.request_seen(request):
                queue.push(request)

    def finished(self) -> dict[str, Status]:
        return {_text(k): as_status(_text(v)) for k, v in self.server.hgetall(self.key("finished")).items()}

    def finish(self, target: str, outcome: Status) -> None:
        self.server.hset(self.key("finished"), target, outcome)

    # -- claims and heartbeats ---------------------------------------------------------------

    def beat(self) -> None:
        self.server.set(self.key("alive", self.worker), b"1", px=int(self.ttl * 1000))

    def release(self, claim: bytes) -> None:
        """Drop a claim whose outcome is safe (the record is stored)."""
        self.server.lrem(self.claims, 1, claim)  # type: ignore[arg-type]  # a claim is bytes: the encoded request

    def claimed(self) -> bool:
        """Whether any worker holds a claim."""
        return any(self.server.llen(k) for k in self.server.scan_iter(match=self.key("claims", "*")))

    def recover(self) -> int:
        """Put the claims of workers whose heartbeat expired back at the head of the queue; how many."""
        moved = 0
        for key in self.server.scan_iter(match=self.key("claims", "*")):
            worker = key.decode()[len(self.key("claims", "")):]
            if worker == self.worker or self.server.exists(self.key("alive", worker)):
                continue
            while self.server.lmove(key, self.key("requests"), "RIGHT", "RIGHT") is not None:
                moved += 1
        return moved

    # -- Scrapy signals ----------------------------------------------------------------------

    def on_opened(self, spider: Any) -> None:
        self._heartbeat = task.LoopingCall(self.beat)
        self._heartbeat.start(self.ttl / 4, now=True)

    def on_closed(self, spider: Any, reason: str) -> None:
        if self._heartbeat is not None and self._heartbeat.running:
            self._heartbeat.stop()
        self.server.delete(self.key("alive", self.worker))

    def on_idle(self, spider: Any) -> None:
        """Keep an idle worker while the job may still give it work, looking again in ``IDLE_POLL`` seconds;
        let it close when none is left."""
        if self.recover() or self.server.llen(self.key("requests")) or self.claimed():
            look_again_soon(spider)
            raise DontCloseSpider

    def scrapy_settings(self) -> dict[str, Any]:
        return {
            "SCHEDULER": f"{__name__}.ClaimScheduler",
            "SCHEDULER_QUEUE_CLASS": f"{__name__}.ClaimQueue",
            "SCHEDULER_QUEUE_KEY": self.key("requests"),
            "SCHEDULER_DUPEFILTER_KEY": self.key("dupefilter"),
            "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
            "SCHEDULER_PERSIST": True,
            "REDIS_URL": self.url,
        }



def look_again_soon(spider: Any) -> None:
    """Have Scrapy's engine look for requests (and ask ``on_idle`` again) in ``IDLE_POLL`` seconds.

    Without this a worker kept open by ``DontCloseSpider`` waits for the engine's 5 s heartbeat,
    so a worker whose last request another worker finished exited up to 5 s late. The engine's
    ``_slot.nextcall`` is the call its heartbeat makes; Scrapy has no public way to ask sooner.
    """
    slot = getattr(getattr(spider.crawler, "engine", None), "_slot", None)
    if slot is not None:
        slot.nextcall.schedule(IDLE_POLL)


def _text(value: bytes | str) -> str:
    """A Redis reply as text (replies are bytes; redis-py's types say either)."""
    return value.decode() if isinstance(value, bytes) else value


def _text_or_none(value: bytes | str | None) -> str | None:
    return None if value is None else _text(value)


class ClaimQueue(Base):  # type: ignore[misc]  # scrapy-redis has no type hints: its classes, and what they hold, are Any
    """The queue of requests shared by workers: seeds in order, each successor ahead of them; taking
    a request claims it for the taker."""

    @property
    def coordinator(self) -> Coordinator:
        return cast(Coordinator, self.spider.engine.coordinator)

    def __len__(self) -> int:
        return cast(int, self.server.llen(self.key))

    def push(self, request: Any) -> None:
        """Queue ``request``; if it succeeds a claimed request, drop that claim in the same transaction.

        A successor (a target's next page, a retry, a redirect) goes to the head of the queue, so
        that targets are finished one after another rather than all half-fetched at once.
        """
        parent = request.meta.pop(CLAIM, None)
        pipe = self.server.pipeline(transaction=True)
        if parent is None:
            pipe.lpush(self.key, self._encode_request(request))
        else:
            pipe.rpush(self.key, self._encode_request(request))
            pipe.lrem(self.coordinator.claims, 1, parent)
        pipe.execute()

    def pop(self, timeout: int = 0) -> Any:
        data = self.server.lmove(self.key, self.coordinator.claims, "RIGHT", "LEFT")
        if data is None:
            return None
        request = self._decode_request(data)
        request.meta[CLAIM] = data
        return request


class ClaimScheduler(Scheduler):  # type: ignore[misc]  # as ClaimQueue
    """scrapy-redis's scheduler, dropping the claim of a request whose successor was a duplicate."""

    def enqueue_request(self, request: Any) -> bool:
        if super().enqueue_request(request):
            return True
        parent = request.meta.pop(CLAIM, None)
        if parent is not None:
            self.spider.engine.coordinator.release(parent)
        return False


class SharedBlocks(Blocks):
    """Blocks and holds seen by any worker: one CAPTCHA stops the host for all of them, one
    ``Retry-After`` holds it for all of them."""

    def __init__(self, coordinator: Coordinator) -> None:
        super().__init__()
        self.coordinator = coordinator

    def reason(self, host: str) -> str | None:
        if host not in self.hosts:
            shared = self.coordinator.server.hget(self.coordinator.key("blocked"), host)
            if shared is not None:
                self.hosts[host] = _text(shared)
        return self.hosts.get(host)

    def known(self) -> dict[str, str]:
        """Every host any worker saw block the job: a worker whose queue another emptied after a
        block never asked about that host itself, yet its unfinished targets are pending for it."""
        shared = self.coordinator.server.hgetall(self.coordinator.key("blocked"))
        return {_text(host): _text(reason) for host, reason in shared.items()} | self.hosts

    def block(self, host: str, reason: str) -> bool:
        self.coordinator.server.hsetnx(self.coordinator.key("blocked"), host, reason)
        return super().block(host, reason)

    def hold(self, host: str, until: float) -> None:
        super().hold(host, until)
        self.coordinator.server.zadd(self.coordinator.key("holds"), {host: until}, gt=True)

    def held_until(self, host: str) -> float:
        shared = self.coordinator.server.zscore(self.coordinator.key("holds"), host)
        return max(super().held_until(host), shared or 0.0)


class SharedLedger:
    """The ledger of a shared run: outcomes in Redis; records also appended to this worker's output file."""

    def __init__(self, coordinator: Coordinator, run: str, output: Path | None) -> None:
        self.coordinator, self.run, self.output = coordinator, run, output

    @property
    def finished(self) -> dict[str, Status]:
        return self.coordinator.finished()

    def commit(self, target: str, outcome: Status, code: str | None, record: bytes | None) -> None:
        if record is not None and self.output is not None:
            self.output.parent.mkdir(parents=True, exist_ok=True)
            with open(self.output, "ab") as stream:
                stream.write(record + b"\n")
        if outcome in FINISHED:
            self.coordinator.finish(target, outcome)


def open_segment(job: Job, run: str, worker: str) -> ArchiveWriter | None:
    """This worker's own archive segment, ``NAME-WORKER.warc.gz`` beside the job's ``warc``
    (``pubharvest parse NAME.warc.gz`` reads the segments together)."""
    if not job.warc:
        return None
    return open_archive(dataclasses.replace(job, warc=segment_path(job.warc, worker)), run, engine="scrapy")


def join_job(job: Job, redis_url: str, sinks: Sequence[Sink] = (), on_event: Callable[..., None] | None = None,
             new_run: bool = False) -> Summary:
    """Seed ``job``'s shared queue if nobody has, then work on it until it is empty; this worker's summary."""
    ttl = float(os.environ.get("PUBHARVEST_WORKER_TTL") or DEFAULT_TTL)
    coordinator = Coordinator.connect(redis_url, job, ttl=ttl)
    try:
        with coordinator.seeding():
            run, seeds = coordinator.begin(new_run=new_run)
            engine = CrawlEngine(job, SharedLedger(coordinator, run, job.output), sinks, on_event, coordinator,
                                 open_segment(job, run, coordinator.worker))
            coordinator.seed(ProfileSpider(engine=engine, seeds=[]), seeds)
    except redis.exceptions.LockError:
        raise JobError(f"another worker of job {job.name!r} held the seeding lock for a minute; "
                       "is it stuck? try again") from None
    summary = engine.crawl([], blocks=SharedBlocks(coordinator))
    summary.skipped = len(coordinator.finished()) - sum(o.status in FINISHED for o in summary.outcomes.values())
    # The worker is done and its process exits next: spare that exit a collection over every object
    # Scrapy and Twisted made, which took 0.4 s of a two-worker job's end (the objects stay, unfreed).
    gc.freeze()
    return summary
