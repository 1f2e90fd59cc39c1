"""Random histories of one real profile: whatever the sequence of complete, partial, drifted and blocked
runs, a paper is gone only between two complete listings, new only after a complete one, no change comes
from a drifted or blocked run, and every count reported is the one its run stored."""

from __future__ import annotations

import msgspec
import pytest
from histories import LZ
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubharvest.changes import changes
from pubharvest.parsers import parse
from pubharvest.parsers.records import PageResult, PageWarning
from pubharvest.store import Store

STANDINGS = ("complete", "partial", "drifted", "blocked")
run_strategy = st.tuples(st.sampled_from(STANDINGS), st.sets(st.integers(0, 11), min_size=1),
                         st.lists(st.integers(0, 60), min_size=12, max_size=12))


def saved_run(store: Store, base: PageResult, number: int, run: tuple[str, set[int], list[int]]) -> dict[str, int]:
    """Save ``run`` (its standing, the rows it lists, each row's count); the counts it stored, by paper id."""
    standing, rows, counts = run
    at = f"2026-{1 + number // 28:02d}-{1 + number % 28:02d}T09:00:00Z"
    if standing == "blocked":
        store.save_failure(f"r{number}", "scholar", "LZ5D_p4AAAAJ", "failed", "blocked", "CAPTCHA", taken_at=at)
        return {}
    pubs = [msgspec.structs.replace(base.publications[i], citations=counts[i]) for i in sorted(rows)]
    warnings = {"complete": [], "partial": [PageWarning(code="partial", message="first page only")],
                "drifted": [PageWarning(code="column_unreadable", message="no counts")]}[standing]
    store.save(f"r{number}", "", msgspec.structs.replace(base, publications=pubs, warnings=warnings), taken_at=at)
    return {pub.ids.scholar or "": pub.citations or 0 for pub in pubs}


@pytest.fixture(scope="module")
def base(read_corpus) -> PageResult:
    return parse(read_corpus(LZ))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=st.lists(run_strategy, min_size=2, max_size=5), since=st.integers(0, 4))
def test_no_gone_paper_unless_both_runs_are_complete(base: PageResult, runs, since: int) -> None:
    store = Store(":memory:")
    stored = [saved_run(store, base, number, run) for number, run in enumerate(runs)]
    for report in (changes(store), changes(store, since=f"r{min(since, len(runs) - 1)}")):
        for change in report.changes:
            assert change.from_run.standing in ("complete", "partial", "shrunk")
            assert change.to_run.standing in ("complete", "partial", "shrunk")
            before = stored[int(change.from_run.id[1:])]
            after = stored[int(change.to_run.id[1:])]
            pub_id = change.paper.id if change.paper else ""
            if change.kind == "gone_paper":
                assert change.from_run.standing == change.to_run.standing == "complete"
                assert pub_id in before and pub_id not in after and change.before == before[pub_id]
            elif change.kind == "new_paper":
                assert change.from_run.standing == "complete"
                assert pub_id not in before and change.after == after[pub_id]
            elif change.kind == "citations":
                assert (change.before, change.after) == (before[pub_id], after[pub_id])
                assert change.before != change.after
            else:
                pytest.fail(f"no {change.kind} in these histories")
        for compared in report.compared:
            before, after = stored[int(compared.from_run.id[1:])], stored[int(compared.to_run.id[1:])]
            told = {(c.kind, c.paper.id) for c in report.changes if c.paper} | {
                ("not_seen", n.paper.id) for n in report.not_seen}
            for pub_id in before.keys() - after.keys():
                assert len({kind for kind, told_id in told if told_id == pub_id} & {"gone_paper", "not_seen"}) == 1
            for pub_id in after.keys() - before.keys():
                assert len({kind for kind, told_id in told if told_id == pub_id} & {"new_paper", "not_seen"}) == 1
        for skipped in report.runs_skipped:
            assert skipped.run.standing in ("drifted", "blocked")
    store.close()
