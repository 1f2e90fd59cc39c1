"""What a job shows while it runs: a bar on a terminal, nothing otherwise, each request with --verbose."""

from __future__ import annotations

import io
from typing import Any

from pubharvest.progress import Progress
from pubharvest.scrapers.engine import Outcome

EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("start", {"targets": 2, "skipped": 1}), ("request", {"url": "http://h/a"}),
    ("response", {"url": "http://h/a", "status": 200}), ("page", {"url": "http://h/a"}),
    ("wait", {"host": "h", "seconds": 5.0}), ("retry", {"reason": "HTTP 503", "wait": 1.0}),
    ("blocked", {"host": "h", "reason": "CAPTCHA"}), ("target", {"outcome": Outcome("scholar:x", "done")})]


def feed(progress: Progress) -> None:
    with progress:
        for event, info in EVENTS:
            progress(event, **info)


def test_without_a_terminal_nothing_is_printed() -> None:
    stream = io.StringIO()
    feed(Progress(stream=stream))
    assert stream.getvalue() == ""


def test_verbose_logs_each_request_and_response() -> None:
    stream = io.StringIO()
    feed(Progress(stream=stream, verbose=True))
    lines = stream.getvalue().splitlines()
    assert "GET http://h/a" in lines and "200 http://h/a" in lines and "scholar:x: done" in lines
    assert any(line.startswith("retry in 1.0 s: HTTP 503") for line in lines)


def test_the_bar_counts_targets_pages_errors_and_waits() -> None:
    progress = Progress(stream=io.StringIO(), bar=True)
    feed(progress)
    assert (progress.done, progress.pages, progress.errors) == (1, 1, 1) and "h" in progress.waiting
