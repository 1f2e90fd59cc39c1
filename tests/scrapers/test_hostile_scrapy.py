"""One hostile response never poisons a job, under the Scrapy engine: the same triggers and random
mutations as the httpx engine's module (``test_hostile_responses.py``), from the shared ``hostile``
helper, each inside a job of several targets; every other target's record must be fetched and written,
the bad one must end with its named outcome, and the same job run again must finish.

Scrapy runs in a subprocess (its reactor starts once per process): these tests need the ``scrapy``
extra and skip without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("scrapy")

import hostile
from fakesite import FakeSite
from scrapejobs import run_engine
from scrapyjobs import run_cli_peak

pytestmark = pytest.mark.slow  # a Scrapy process per run


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


@pytest.mark.parametrize("trigger", hostile.TRIGGERS, ids=[t.name for t in hostile.TRIGGERS])
def test_one_hostile_answer_is_that_targets_outcome_only(trigger: hostile.Trigger, site, tmp_path: Path,
                                                         capsys) -> None:
    hostile.serve_trigger(site, trigger)
    job = hostile.trigger_job(site, tmp_path)
    first = run_engine("scrapy", capsys, job)
    again = run_engine("scrapy", capsys, job)
    hostile.check_trigger(trigger, first, again, tmp_path / "out.jsonl")


def test_a_pre_2014_page_with_div_rows_is_refused_by_name(site, tmp_path: Path, capsys, read_corpus) -> None:
    trigger = hostile.div_rows_trigger(read_corpus(hostile.LEGACY_2013))
    hostile.serve_trigger(site, trigger)
    job = hostile.trigger_job(site, tmp_path)
    first = run_engine("scrapy", capsys, job)
    again = run_engine("scrapy", capsys, job)
    hostile.check_trigger(trigger, first, again, tmp_path / "out.jsonl")


@pytest.mark.parametrize("seed", range(4))
def test_random_mutations_of_real_answers_end_each_target_alone(seed: int, site, tmp_path: Path, capsys) -> None:
    job = hostile.mutant_job(site, tmp_path, seed)
    first = run_engine("scrapy", capsys, job.path)
    again = run_engine("scrapy", capsys, job.path)
    hostile.check_mutants(job, first, again, tmp_path / "out.jsonl")


@pytest.mark.parametrize("coding", ["br", "gzip, gzip", "deflate"])
def test_a_many_gigabyte_bomb_ends_as_too_large_in_bounded_memory(coding: str, site, tmp_path: Path,
                                                                   capsys) -> None:
    hostile.serve_bomb(site, coding)
    job = hostile.trigger_job(site, tmp_path, max_bytes=2**20)
    code, err, peak = run_cli_peak("scrape", str(job), "--engine", "scrapy")
    hostile.check_bomb(code, err, tmp_path / "out.jsonl")
    assert peak < 250 * 2**20, f"a Scrapy run peaked at {peak / 2**20:.0f} MB for a bomb of gigabytes"
