"""One hostile response never poisons a job (httpx engine): each trigger of ``hostile.TRIGGERS`` is served
to one target of a job of four, and the three others must still be fetched and written, the bad one must
end with its named outcome, stderr must hold no traceback, and the same job run again must finish
(``hostile.check_trigger``; the Scrapy engine's module, ``test_hostile_scrapy.py``, runs the same). Also
here: decoded-size ceilings against multi-gigabyte bombs, CAPTCHA pages known by markup rather than by a
phrase, job names and contacts in any script, and Crawl-delay / Retry-After caps.
"""

from __future__ import annotations

import gzip
import json
import re
import resource
import zlib
from pathlib import Path

import pytest
from fakesite import MSR_PAGE, FakeSite
from hostile import (
    BAD,
    HTML,
    LEGACY_2013,
    PAGE,
    TARGETS,
    TRIGGERS,
    Trigger,
    check_bomb,
    check_mutants,
    check_trigger,
    div_rows_trigger,
    mutant_job,
    serve_bomb,
    serve_trigger,
    trigger_job,
)
from scrapejobs import profile_key, records, scrape, write_job


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def run_twice(site: FakeSite, tmp_path: Path, capsys, **settings) -> tuple[tuple[int, str], tuple[int, str]]:
    job = trigger_job(site, tmp_path, **settings)
    first = scrape(capsys, job)
    second = scrape(capsys, job)
    return first, second


@pytest.mark.parametrize("trigger", TRIGGERS, ids=[t.name for t in TRIGGERS])
def test_one_hostile_answer_is_that_targets_outcome_only(trigger: Trigger, site, tmp_path: Path, capsys) -> None:
    serve_trigger(site, trigger)
    first, again = run_twice(site, tmp_path, capsys)
    check_trigger(trigger, first, again, tmp_path / "out.jsonl")


@pytest.mark.parametrize("seed", range(4))
def test_random_mutations_of_real_answers_end_each_target_alone(seed: int, site, tmp_path: Path, capsys) -> None:
    job = mutant_job(site, tmp_path, seed)
    first = scrape(capsys, job.path)
    again = scrape(capsys, job.path)
    check_mutants(job, first, again, tmp_path / "out.jsonl")


# --- decoded-size ceilings ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("coding", ["br", "gzip, gzip", "deflate", "gzip"])
def test_a_many_gigabyte_bomb_ends_as_too_large_in_bounded_memory(coding: str, site, tmp_path: Path,
                                                                   capsys) -> None:
    serve_bomb(site, coding)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    code, err = scrape(capsys, trigger_job(site, tmp_path, max_bytes=2**20))
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    check_bomb(code, err, tmp_path / "out.jsonl")
    assert grown < 200 * 2**20, f"peak memory grew {grown / 2**20:.0f} MB for a bomb of gigabytes"


def test_every_coding_and_stack_decodes_within_the_cap() -> None:
    from pubharvest.scrapers.codings import TooLargeDecoded, decoded

    brotli = pytest.importorskip("brotli")
    text = PAGE * 3
    coded = {"identity": text, "gzip": gzip.compress(text), "deflate": zlib.compress(text),
             "br": brotli.compress(text), "gzip, gzip": gzip.compress(gzip.compress(text)),
             "br, gzip": gzip.compress(brotli.compress(text))}
    for coding, body in coded.items():
        chunks = [body[i:i + 1000] for i in range(0, len(body), 1000)]
        assert decoded(chunks, coding, len(text)) == text, coding
        with pytest.raises(TooLargeDecoded):
            decoded(chunks, coding, len(text) - 1)


def test_a_zstd_body_decodes_within_the_cap_or_is_a_bad_coding() -> None:
    # zstd is not asked for, but a server may send it anyway (the backport comes with Scrapy)
    from pubharvest.scrapers.codings import BadCoding, TooLargeDecoded, decoded

    zstd = pytest.importorskip("backports.zstd")
    text = PAGE * 3
    body = zstd.compress(text) + zstd.compress(b"<!-- a second frame -->")
    chunks = [body[i:i + 1000] for i in range(0, len(body), 1000)]
    assert decoded(chunks, "zstd", 2 * len(text)) == text + b"<!-- a second frame -->"
    with pytest.raises(TooLargeDecoded):
        decoded(chunks, "zstd", len(text) - 1)
    for bad in ([b"plain text"], chunks[:-1]):
        with pytest.raises(BadCoding, match="not zstd as its Content-Encoding says"):
            decoded(bad, "zstd", 2 * len(text))


# --- CAPTCHA pages by markup, not by a phrase ----------------------------------------------


def test_a_title_saying_not_a_robot_is_a_paper_not_a_captcha(site, tmp_path: Path, capsys) -> None:
    title = b"I am not a robot: unusual traffic from your computer network"
    scholar = PAGE.replace(f"Paper 1 of {BAD}".encode(), title)
    msr = MSR_PAGE.replace(b"<title>", b"<title>" + title + b" ", 1)
    assert title in scholar and title in msr
    site.answer("bad", 200, [HTML], scholar)
    site.answer("msr", 200, [HTML], msr)
    site.fault(f"user={BAD}", "answer:bad", "answer:bad")
    site.fault("/people/adaexample/", "answer:msr", "answer:msr")
    (code, err), _ = run_twice(site, tmp_path, capsys)
    assert code == 0 and "blocked" not in err, err
    by_key = {profile_key(r): r for r in records(tmp_path / "out.jsonl")}
    assert title.decode() in [p["title"] for p in by_key[f"scholar:{BAD}"]["publications"]]


def test_a_real_captcha_page_still_blocks(site, tmp_path: Path, capsys, read_corpus) -> None:
    page = read_corpus("scholar/captcha_gs_captcha_ccl_search_geomap_2020.html")
    site.answer("bad", 200, [HTML], page)
    site.fault(f"user={BAD}", "answer:bad")
    job = write_job(tmp_path, [TARGETS[1]], {"scholar": site.url})
    code, err = scrape(capsys, job)
    assert code == 3 and f"scholar:{BAD}: blocked: " in err, err


def test_a_pre_2014_page_with_div_rows_is_refused_by_name(site, tmp_path: Path, capsys, read_corpus) -> None:
    trigger = div_rows_trigger(read_corpus(LEGACY_2013))
    serve_trigger(site, trigger)
    first, again = run_twice(site, tmp_path, capsys)
    check_trigger(trigger, first, again, tmp_path / "out.jsonl")


def test_a_pre_2014_stats_table_of_divs_gives_rows_and_a_warning(read_corpus) -> None:
    from pubharvest.parsers import parse

    page = read_corpus(LEGACY_2013)
    stats = re.sub(rb'<table[^>]*id="stats".*?</table>',
                   lambda m: re.sub(rb"<(/?)t[rdh]\b", rb"<\1div", m.group(0)), page, flags=re.S)
    assert stats != page
    result = parse(stats)
    assert result.profile is not None
    assert len(result.publications) == 20 and result.profile.metrics.citations is None
    assert any(w.code == "profile_unreadable" and "table#stats" in w.message for w in result.warnings)


# --- names and contacts in any script -------------------------------------------------------


@pytest.mark.parametrize("name", ["physik-fakultät", "物理学科の週次"])
def test_a_job_named_and_reached_in_any_script_runs(name: str, site, tmp_path: Path, capsys) -> None:
    job = write_job(tmp_path, TARGETS, {"scholar": site.url, "msr": site.url, "elamur": site.url},
                    contact="mailto:josé@uni.example")
    named = job.rename(tmp_path / f"{name}.toml")
    code, err = scrape(capsys, named)
    assert code == 0, err
    assert (tmp_path / f"{name}.journal").exists()
    assert len(records(tmp_path / "out.jsonl")) == 4
    from pubharvest.scrapers.job import load_job

    agent = load_job(named).fetch.user_agent
    assert agent.isascii() and "jos%C3%A9@uni.example" in agent and "%" in agent.split("(job ")[1]
    code_again, err_again = scrape(capsys, named, "--new-run")
    assert code_again == 0, err_again


# --- Crawl-delay and Retry-After caps: on both engines in test_politeness.py ----------------


def test_a_negative_cap_is_refused_before_anything_is_fetched(site, tmp_path: Path, capsys) -> None:
    job = write_job(tmp_path, TARGETS, {"scholar": site.url}, max_crawl_delay=-1)
    code, err = scrape(capsys, job)
    assert code == 2 and "max_crawl_delay must not be negative" in err
    assert json.dumps(site.paths()) == "[]"
