"""The journal of a job and its JSON Lines output: nothing lost, nothing doubled.

The journal is a JSON Lines file beside the job. A run starts with ``{"run", "event": "start",
"end"}``; each target that reaches an outcome adds ``{"run", "target", "outcome", "code",
"end"}``, written (and fsynced) only after the target's record is in the output, where ``end``
is the size of the output file once it holds that record. On opening, the output is cut back to
the last ``end`` the journal knows: a record whose journal line never made it (a kill between
the two writes) is removed and its target fetched again, so it is never there twice; a line
cut short by a crash is ignored. Only this job's own record is cut: before appending one, the
journal notes ``{"writing": length, "sha256", "at": end}``, and what follows the last ``end`` is
cut only when it is that record, whole or cut short; anything else (lines another job appended)
is refused with one line (``NotOurFile``), never cut.

One runner per job: opening the ledger takes an exclusive ``flock`` on ``JOURNAL.lock`` (beside the
journal; beside the output when there is no journal) before it reads or cuts anything, and holds it
until :meth:`Ledger.close`. The OS releases it when the process dies, even by ``kill -9``, so a
stale lock never blocks a rerun; a second runner of the same job meanwhile refuses with one line
(``JobError``, exit 2).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, cast, get_args

from pubharvest.errors import JobError, NotOurFile

# How a target ended: done; partial (done, but not every page could be fetched); failed (nothing a
# rerun would change); pending (a rerun fetches it again). All but pending finish it for its run.
Status = Literal["done", "partial", "failed", "pending"]
FINISHED: frozenset[Status] = frozenset({"done", "partial", "failed"})


def as_status(value: str) -> Status:
    """``value``, read back from where a run wrote it, as a ``Status``; raises ``JobError`` for any other.

    >>> as_status("done")
    'done'
    """
    if value not in get_args(Status):
        raise JobError(f"{value!r} is not a target outcome ({', '.join(get_args(Status))})")
    return cast(Status, value)


@dataclass
class Ledger:
    """The current run, the targets it has finished, and the output file records are appended to."""

    journal: Path | None
    output: Path | None
    run: str = ""
    finished: dict[str, Status] = field(default_factory=dict)
    _end: int = 0
    _lock: IO[bytes] | None = None
    _whole_lines: bool = False  # the journal ends with a whole line: this ledger's own last append

    @classmethod
    def open(cls, journal: Path | None, output: Path | None, targets: list[str], new_run: bool = False) -> Ledger:
        """Resume the journal's last run when it left targets unfinished, else start a new run.

        Raises ``JobError`` when another process runs the same job (see :func:`lock_job`).
        """
        ledger = cls(journal, output)
        ledger._lock = lock_job(journal or output)
        entries = _read_journal(journal)
        last_run = entries[-1]["run"] if entries else None
        finished = {e["target"]: e["outcome"] for e in entries
                    if e.get("run") == last_run and e.get("outcome") in FINISHED}
        ends = [e["end"] for e in entries if "end" in e]
        ledger._end = ends[-1] if ends else _size(output)
        ledger._cut_output(_last_intent(entries))
        if last_run and not new_run and not set(targets) <= set(finished):
            ledger.run, ledger.finished = last_run, finished
        else:
            ledger.run = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)
            ledger._append({"run": ledger.run, "event": "start", "time": _now(), "end": ledger._end})
        return ledger

    def commit(self, target: str, outcome: Status, code: str | None, record: bytes | None) -> None:
        """Append ``record`` (one JSON line) to the output, then note the target's outcome in the journal."""
        self.commit_many([(target, outcome, code, record)])

    def commit_many(self, ends: Sequence[tuple[str, Status, str | None, bytes | None]]) -> None:
        """``commit`` of each ``(target, outcome, code, record)``, with one fsync of each file for them all:
        the note of the lines to be written (their lengths and hashes), the lines, then every outcome."""
        ends_at: list[int] = []
        lines = [record + b"\n" for _, _, _, record in ends if record is not None] if self.output else []
        if lines and self.output is not None:
            data = b"".join(lines)
            self._append({"run": self.run, "target": ends[0][0], "writing": len(data),
                          "sha256": hashlib.sha256(data).hexdigest(), "at": self._end,
                          **({"lines": [[len(line), hashlib.sha256(line).hexdigest()] for line in lines]}
                             if len(lines) > 1 else {})})
            with open(self.output, "ab") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
        for _, _, _, record in ends:
            if record is not None and self.output is not None:
                self._end += len(record) + 1
            ends_at.append(self._end)
        outcomes: list[dict[str, object]] = [{"run": self.run, "target": target, "outcome": outcome, "code": code,
                                               "end": end}
                                              for (target, outcome, code, _), end in zip(ends, ends_at, strict=True)]
        self._append(*outcomes)
        for target, outcome, _, _ in ends:
            if outcome in FINISHED:
                self.finished[target] = outcome

    def close(self) -> None:
        """Let go of the job's lock (the OS does it too, when the process ends)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _cut_output(self, intent: dict[str, Any] | None) -> None:
        """Cut the output back to the journal's last length, when what follows is this job's own record
        whose journal line never made it (whole or half-written); anything else there is another
        writer's, and the job refuses (``NotOurFile``) rather than cut it."""
        if self.output is None:
            return
        self.output.parent.mkdir(parents=True, exist_ok=True)
        with open(self.output, "a+b") as stream:
            size = stream.seek(0, os.SEEK_END)
            if size <= self._end:
                return
            start = _intent_start(intent, self._end)
            stream.seek(start)
            tail = stream.read(min(size - start, _intended(intent) + 1))
            if not _own_tail(tail, intent, self._end - start):
                raise NotOurFile(f"{self.output}: the {size - self._end} bytes after byte {self._end} were not "
                                 "written by this job (another job or program appends to this file): refusing "
                                 "to cut them; give each job its own output file")
            stream.truncate(self._end)

    def _append(self, *entries: dict[str, object]) -> None:
        """Append ``entries`` to the journal in one write, and fsync it."""
        if self.journal is None or not entries:
            return
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        with open(self.journal, "ab") as stream:
            cut = not self._whole_lines and stream.tell() and not _ends_with_newline(self.journal)
            self._whole_lines = False
            stream.write((b"\n" if cut else b"")  # after a line cut short by a crash
                         + b"".join(json.dumps(entry).encode() + b"\n" for entry in entries))
            stream.flush()
            os.fsync(stream.fileno())
        self._whole_lines = True


def _last_intent(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last note of records being written, when no run started since (the outcomes of some or all of
    its records may have been noted after it; ``_own_tail`` checks what the output holds against it)."""
    for entry in reversed(entries):
        if "writing" in entry:
            return dict(entry)
        if entry.get("event") == "start":
            return None
    return None


def _intent_start(intent: dict[str, Any] | None, end: int) -> int:
    """Where the records of ``intent`` begin in the output, when that is at or before ``end`` (the journal's
    last length); else ``end``."""
    at = intent.get("at") if intent else None
    return at if isinstance(at, int) and 0 <= at <= end else end


def _intended(intent: dict[str, Any] | None) -> int:
    """How many bytes the journal last said a record would take (0 when it said none)."""
    length = intent.get("writing") if intent else None
    return length if isinstance(length, int) and length > 0 else 0


def _own_tail(tail: bytes, intent: dict[str, Any] | None, kept: int) -> bool:
    """Whether ``tail``, what the output holds from where the journal last said it was writing records
    (``intent``), is those records: each whole one the same hash, the last one there maybe cut short
    (shorter, no line end), and nothing after them; and ``kept``, the length of it whose outcomes the
    journal noted, falls between two of them.

    >>> line = b'{"a":1}\\n'
    >>> intent = {"writing": 16, "at": 0, "lines": [[8, hashlib.sha256(line).hexdigest()]] * 2}
    >>> _own_tail(line + b'{"a"', intent, 8), _own_tail(line + line, intent, 0), _own_tail(line + b"x\\n", intent, 8)
    (True, True, False)
    """
    if intent is None or not _intended(intent):
        return False
    at, boundaries = 0, {0}
    for length, digest in _intended_lines(intent):
        piece = tail[at:at + length]
        if len(piece) < length:  # cut short by the crash: nothing after it
            return b"\n" not in piece and kept in boundaries
        if hashlib.sha256(piece).hexdigest() != digest:
            return False
        at += length
        boundaries.add(at)
    return len(tail) == at and kept in boundaries


def _intended_lines(intent: dict[str, Any]) -> list[tuple[int, str]]:
    """The length and hash of each record line ``intent`` says was being written (one, in a journal that
    wrote a record at a time)."""
    lines = intent.get("lines")
    if isinstance(lines, list) and all(isinstance(line, list) and len(line) == 2 and isinstance(line[0], int)
                                       for line in lines):
        return [(int(length), str(digest)) for length, digest in lines]
    return [(_intended(intent), str(intent.get("sha256")))]


def lock_path(journal: Path) -> Path:
    """The lock file of the job whose journal (or output) is ``journal``.

    >>> lock_path(Path("runs/weekly.journal")).as_posix()
    'runs/weekly.journal.lock'
    """
    return journal.with_name(journal.name + ".lock")


def lock_job(journal: Path | None) -> IO[bytes] | None:
    """The open, exclusively locked lock file of the job; ``JobError`` when another process holds it."""
    if journal is None:
        return None
    path = lock_path(journal)
    path.parent.mkdir(parents=True, exist_ok=True)
    stream = open(path, "a+b")
    try:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        stream.seek(0)
        holder = stream.read().decode(errors="replace").strip() or "another process"
        stream.close()
        raise JobError(f"this job is already running ({holder} holds {path}); wait for it to finish, "
                       "or stop it, then run the job again") from None
    stream.truncate(0)
    stream.write(f"pid {os.getpid()} on {os.uname().nodename} since {_now()}".encode())
    stream.flush()
    return stream


def _read_journal(path: Path | None) -> list[dict[str, Any]]:  # JSON lines, as read
    if path is None or not path.exists():
        return []
    entries = []
    for line in path.read_bytes().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line cut short by a crash
        if isinstance(entry, dict) and "run" in entry:
            entries.append(entry)
    return entries


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as stream:
        stream.seek(-1, os.SEEK_END)
        return stream.read(1) == b"\n"


def _size(path: Path | None) -> int:
    return path.stat().st_size if path is not None and path.exists() else 0


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
