"""What a running job shows: a progress bar on a terminal (targets, pages, errors, host waits),
nothing otherwise (the command ends with its account and summary line); ``--verbose`` logs each
request, response, retry and target."""

from __future__ import annotations

import sys
import time
from typing import IO, TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.progress import Progress as Bar
    from rich.progress import TaskID


class Progress:
    """A callable for the runner's events; use as a context manager around the job."""

    def __init__(self, stream: IO[str] | None = None, verbose: bool = False, bar: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.verbose = verbose
        self.bar = self.stream.isatty() if bar is None else bar
        self.pages = self.errors = self.done = 0
        self.waiting: dict[str, float] = {}
        self.notes: set[str] = set()
        self._progress: Bar | None = None
        self._task = cast("TaskID", 0)  # the bar's task, once there is a bar

    def __enter__(self) -> Progress:
        if self.bar:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bar

            self._progress = Bar(TextColumn("targets"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[info]}"), TimeElapsedColumn(),
                                 console=Console(file=self.stream), transient=True)
            self._progress.start()
            self._task = self._progress.add_task("job", total=None, info="")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __call__(self, event: str, **info: Any) -> None:
        handler = getattr(self, f"_on_{event}", None)
        if handler is not None:
            handler(**info)
        self._refresh()

    def _on_start(self, targets: int, skipped: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, total=targets)
        if skipped and (self.verbose or self.bar):
            self._log(f"resuming: {skipped} target(s) already finished are skipped")

    def _on_request(self, url: str) -> None:
        if self.verbose:
            self._log(f"GET {url}")

    def _on_page(self, url: str) -> None:
        self.pages += 1

    def _on_response(self, url: str, status: int) -> None:
        if self.verbose:
            self._log(f"{status} {url}")

    def _on_retry(self, reason: str, wait: float) -> None:
        self.errors += 1
        if self.verbose:
            self._log(f"retry in {wait:.1f} s: {reason}")

    def _on_wait(self, host: str, seconds: float) -> None:
        self.waiting[host] = time.monotonic() + seconds

    def _on_note(self, host: str, message: str) -> None:
        if message not in self.notes:  # a value the job ignored (a Retry-After of no known shape): said once
            self.notes.add(message)
            self._log(f"{host}: note: {message}")

    def _on_blocked(self, host: str, reason: str) -> None:
        if self.verbose or self.bar:  # otherwise the account at the end says it
            self._log(f"{host}: blocked ({reason}); no more requests go to this host")

    def _on_target(self, outcome: Any) -> None:
        self.done += 1
        if self._progress is not None:
            self._progress.advance(self._task)
        if self.verbose:
            detail = f": {outcome.code}: {outcome.message}" if outcome.code else ""
            self._log(f"{outcome.target}: {outcome.status}{detail}")

    def _refresh(self) -> None:
        if self._progress is None:
            return
        now = time.monotonic()
        waits = ", ".join(f"{h} {t - now:.0f}s" for h, t in self.waiting.items() if t > now)
        info = f"pages {self.pages} · errors {self.errors}" + (f" · waiting {waits}" if waits else "")
        self._progress.update(self._task, info=info)

    def _log(self, line: str) -> None:
        from pubharvest.scrapers.safety import redact_text

        line = redact_text(line)  # the engines redact URLs already; a message quoting one is caught here
        if self._progress is not None:
            self._progress.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=self.stream)
