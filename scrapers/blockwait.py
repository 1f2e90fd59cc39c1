"""A block is remembered: the journal keeps the time each host blocked the job, and a rerun within
``block_wait`` refuses to go back to it (``--force`` overrides).

A block adds one line to the job's journal, ``{"run", "event": "blocked", "host", "reason", "at"}``
(``at`` in seconds since the epoch); the ledger reads past lines it does not know.

>>> left_words(5 * 3600 + 12 * 60), left_words(59)
('5 h 12 min', '1 min')
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


@dataclass
class BlockMemory:
    """An engine's event callback that also notes each ``blocked`` event in the journal."""

    journal: Path | None
    run: str
    forward: Callable[..., None]

    def __call__(self, event: str, **info: Any) -> None:
        if event == "blocked" and self.journal is not None:
            note_block(self.journal, self.run, info["host"], info["reason"])
        self.forward(event, **info)


def note_block(journal: Path, run: str, host: str, reason: str, at: float | None = None) -> None:
    """Append the block of ``host`` to ``journal`` (fsynced: it must outlive a kill)."""
    entry = {"run": run, "event": "blocked", "host": host, "reason": reason, "at": time.time() if at is None else at}
    journal.parent.mkdir(parents=True, exist_ok=True)
    with open(journal, "ab") as stream:
        stream.write(b"\n" + json.dumps(entry).encode() + b"\n")  # a blank line is skipped; a cut one is ended
        stream.flush()
        os.fsync(stream.fileno())


def recent_blocks(journal: Path | None, hosts: set[str], wait: float,
                  now: float | None = None) -> dict[str, tuple[str, float]]:
    """``host -> (reason, seconds left)`` for each of ``hosts`` that blocked the job less than ``wait`` seconds ago."""
    if journal is None or not journal.exists() or wait <= 0:
        return {}
    now = time.time() if now is None else now
    found: dict[str, tuple[str, float]] = {}
    for line in journal.read_bytes().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("event") == "blocked" and entry.get("host") in hosts:
            left = float(entry.get("at", 0)) + wait - now
            if left > 0:
                found[entry["host"]] = (entry.get("reason", ""), left)
            else:
                found.pop(entry["host"], None)
    return found


def left_words(seconds: float) -> str:
    """``seconds`` as hours and minutes, rounded up to the minute."""
    minutes = max(1, int(-(-seconds // 60)))
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"
