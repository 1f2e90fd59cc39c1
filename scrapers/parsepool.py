"""Parsing a job's pages in worker processes, so that the event loop fetches and the writer thread
commits while pages are parsed on the machine's other cores (``parse_workers`` in the job file); a
page under ``POOL_MIN_BYTES`` is parsed in the job's process.

What stays on the event loop, in the same step as the response's arrival (no ``await`` between):
the page's refusal check, the first thing ``parsers.parse`` does (decode, then each site's CAPTCHA
and sign-in check and the 403 page, ``parsers.refuse_block_pages``). A block page therefore stops
its host before any further request to it goes out, exactly as when the whole parse ran there; the
worker then repeats those steps on the same bytes (the same verdict) and parses the page.

Each worker is a process of ``parseworker`` (its frames are described there), started when a page
first finds every started worker busy, and spoken to through its standard input and output. A
worker is not forked from the job's process, so it holds none of its files or locks; it ends when
its input ends: when the job closes the pool, or when the job's process dies, even by kill -9. A
worker that dies (killed, out of memory) leaves its page to be parsed in the job's process, as without
a pool (``WorkerLost``), and the next page starts another; one that dies before its first answer (it
could not start) leaves every page to the job's process.
"""

from __future__ import annotations

import asyncio
import math
import os
import pickle
import sys

import msgspec

from pubharvest import siteregistry
from pubharvest.parsers import refuse_block_pages
from pubharvest.parsers.page import Document
from pubharvest.parsers.records import PageResult

from . import parseworker
from .parseworker import ENCODER, ERROR, HEAD

_DECODE_RECORD = msgspec.msgpack.Decoder(PageResult)


# Pages smaller than this are parsed in the job's process: sending one to a worker and its record back,
# and the refusal check made twice, cost about as much CPU as its parse saves there (a 20-row Scholar page
# of 16 kB parses in 1.3 ms; a 100-row page of 61 kB in 4.2 ms, a real one of 170 kB in more).
POOL_MIN_BYTES = 32 * 1024


def default_workers() -> int:
    """How many processes parse pages when the job file does not say: the cores the job may run on that
    are idle (its cores less the load average of the last minute, to the nearest), but one, which the
    event loop and the writer thread share (their work per page is more than a worker's parse of it). None
    on a machine whose cores are busy: a worker then only adds the cost of sending each page there and
    back and of the second refusal check (a tenth of the job's CPU on 100-row pages, bench/README.md),
    for no core of its own.

    >>> default_workers() >= 0
    True
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    idle = cores - os.getloadavg()[0] if hasattr(os, "getloadavg") else cores
    return max(0, min(cores - 1, math.floor(idle - 0.5)))


def refuse_now(body: bytes, url: str, charset: str | None) -> None:
    """Raise what ``parsers.parse`` raises before it parses (``Blocked`` for a CAPTCHA or 403 page,
    ``NotFoundOrPrivate`` for a sign-in page, ``Empty``/``Binary``/``Undecodable``): its own first steps
    on the same bytes, so that the verdict is the worker's."""
    refuse_block_pages(Document.from_input(body, url, charset))


def workers_can_parse() -> bool:
    """Whether a fresh process knows every registered site: each site's parser module loaded so far was
    loaded from a file (a site registered at runtime, its module made in memory, is parsed in the job's
    process)."""
    for name in siteregistry.SITES:
        module = sys.modules.get(f"pubharvest.parsers.{name}")
        if module is not None and getattr(getattr(module, "__spec__", None), "origin", None) is None:
            return False
    return True


class WorkerLost(Exception):
    """The worker given a page ended before it answered."""


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self.send, self.receive = process.stdin, process.stdout
        self.answered = False

    async def ask(self, page: bytes) -> bytes:
        self.send.write(len(page).to_bytes(HEAD, "big") + page)
        await self.send.drain()
        size = int.from_bytes(await self.receive.readexactly(HEAD), "big")
        return await self.receive.readexactly(size)

    def end(self) -> None:
        """Let the worker go: its input ends, and it exits."""
        if not self.send.is_closing():
            self.send.close()

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()


class ParsePool:
    """Pages parsed in up to ``workers`` processes of one job (started on the job's event loop)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.started: list[_Worker] = []
        self.idle: list[_Worker] = []
        self.starting = 0
        self.changed = asyncio.Event()  # a worker became idle, or one was dropped

    async def parse(self, body: bytes, url: str, charset: str | None) -> PageResult:
        """The page's ``PageResult``, as ``parsers.parse`` gives it; raises its ``PubharvestError``."""
        if not self.workers:
            raise WorkerLost("no parse worker could start")
        worker = await self._worker()
        try:
            answer = await worker.ask(ENCODER.encode((body, url, charset)))
        except (OSError, EOFError, asyncio.IncompleteReadError):
            self._drop(worker)
            if not worker.answered:  # it could not start (a broken install): the job parses in its own process
                self.workers = 0
            raise WorkerLost(f"the process parsing {url} ended before it answered") from None
        except BaseException:  # cancelled mid-answer: the worker's next answer would be this page's
            self._drop(worker)
            raise
        worker.answered = True
        self.idle.append(worker)
        self.changed.set()
        if answer[:1] == ERROR:
            raise pickle.loads(answer[1:])  # our own worker's, through its own pipe
        return _DECODE_RECORD.decode(answer[1:])

    async def _worker(self) -> _Worker:
        """An idle worker; else a new one while there are fewer than ``workers``; else the next to be idle."""
        while True:
            if self.idle:
                return self.idle.pop()
            if len(self.started) + self.starting < self.workers:
                return await self._start()
            self.changed.clear()
            await self.changed.wait()

    async def _start(self) -> _Worker:
        self.starting += 1
        try:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # this process's modules
            pipe = asyncio.subprocess.PIPE
            process = await asyncio.create_subprocess_exec(sys.executable, "-m", parseworker.__name__, stdin=pipe,
                                                           stdout=pipe, env=env)
        finally:
            self.starting -= 1
        self.started.append(_Worker(process))
        return self.started[-1]

    def _drop(self, worker: _Worker) -> None:
        worker.kill()
        self.started.remove(worker)
        self.changed.set()

    async def close(self) -> None:
        """End every worker and wait for them."""
        for worker in self.started:
            worker.end()
        for worker in self.started:
            try:
                await asyncio.wait_for(worker.process.wait(), 5)
            except TimeoutError:  # busy with a page no one waits for any more
                worker.kill()
        self.started.clear()
        self.idle.clear()
