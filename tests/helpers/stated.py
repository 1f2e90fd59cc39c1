"""The tally of stated figures checked against the rows (``pubharvest.metrics.explain``), printed by pytest
at the end of the run (``conftest.pytest_terminal_summary``) when a test recorded any.

>>> tally = Counter({("complete", "h_index", "agree"): 2, ("partial", "h_index", "explained"): 4,
...                  ("partial", "i10_index", "agree"): 1})
>>> tally_line(tally, pages=7)
'stated figures: 7 profile pages; complete listings: h 2 agree; partial listings: h 4 differ, each explained \
by named rows; i10 1 agree; 0 unexplained'
"""

from __future__ import annotations

from collections import Counter

from pubharvest.metrics import Check

TALLY: Counter[tuple[str, str, str]] = Counter()
PAGES: set[str] = set()
NAMES = {"h_index": "h", "i10_index": "i10", "citations": "citations"}


def record(page: str, listing: str, check: Check) -> str:
    """Count ``check`` of ``page`` (its listing ``complete`` or ``partial``); its outcome: ``agree``,
    ``explained`` (differs, a reason accounts for it) or ``unexplained``."""
    outcome = "agree" if check.agree else "explained" if check.explained else "unexplained"
    TALLY[(listing, check.name, outcome)] += 1
    PAGES.add(page)
    return outcome


def tally_line(tally: Counter[tuple[str, str, str]], pages: int) -> str | None:
    """The closing line: per kind of listing and figure, how many agree, differ explained, differ unexplained."""
    if not tally:
        return None
    parts = []
    for listing in ("complete", "partial"):
        figures = []
        for name, short in NAMES.items():
            counts = {outcome: tally[(listing, name, outcome)] for outcome in ("agree", "explained", "unexplained")}
            said = [f"{counts['agree']} agree"] if counts["agree"] else []
            if counts["explained"]:
                said.append(f"{counts['explained']} differ, each explained by named rows")
            if counts["unexplained"]:
                said.append(f"{counts['unexplained']} differ UNEXPLAINED")
            if said:
                figures.append(f"{short} {', '.join(said)}")
        if figures:
            parts.append(f"{listing} listings: {'; '.join(figures)}")
    unexplained = sum(n for (_, _, outcome), n in tally.items() if outcome == "unexplained")
    return f"stated figures: {pages} profile pages; {'; '.join(parts)}; {unexplained} unexplained"
