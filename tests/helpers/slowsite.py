"""The fake site answering every page after a fixed delay, as a far-away server would: for the
worker tests and ``bench/bench_workers.py``."""

from __future__ import annotations

from collections import Counter

from fakesite import FakeSite


class SlowSite(FakeSite):
    """The fake site, answering every page after ``delay`` seconds (as a far-away server would)."""

    def __init__(self, delay: float = 0.0, port: int = 0) -> None:
        super().__init__(port)
        self.delay = delay

    def page_counts(self) -> Counter:
        """How many times each page (robots.txt aside) was requested."""
        return Counter(p for p in self.paths() if not p.startswith("/robots.txt"))
