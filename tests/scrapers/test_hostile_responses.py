"""One hostile response never poisons a job (httpx engine): each trigger of ``TRIGGERS`` is served to
one target of a job of four, and the three others must still be fetched and written, the bad one must
end with its named outcome, stderr must hold no traceback, and the same job run again must finish.

``TRIGGERS`` is the table of bad answers, engine-neutral, for the Scrapy engine's own module to import
(``from test_hostile_responses import TRIGGERS, Trigger, serve_trigger``). Also here: decoded-size
ceilings against multi-gigabyte bombs, CAPTCHA pages known by markup rather than by a phrase, job
names and contacts in any script, and Crawl-delay / Retry-After caps.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import resource
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fakesite import ELAMUR_PAGE, MSR_PAGE, FakeSite, scholar_page
from scrapejobs import SCHOLAR_A, SCHOLAR_B, profile_key, records, scrape, write_job

BAD = SCHOLAR_B  # the Scholar user whose page is the hostile answer
GOOD = [f"scholar:{SCHOLAR_A}", "msr:adaexample", "elamur:olatunji-ruwase"]
TARGETS = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": BAD},
           {"site": "msr", "id": "adaexample"}, {"site": "elamur", "id": "olatunji-ruwase"}]
PAGE = scholar_page(BAD, 4, 0, 100).encode()  # the answer a hostile one stands in for
HTML = ("Content-Type", "text/html; charset=utf-8")


@dataclass(frozen=True)
class Trigger:
    """A bad answer to the target ``scholar:BAD``: ``status``, ``headers`` (bytes values sent byte for
    byte), ``body``; the outcome it must end with (``status`` and one of ``codes``, or ``done``)."""

    name: str
    answer: tuple[int, tuple[tuple[str, str | bytes], ...], bytes]
    outcome: str
    codes: frozenset[str] = field(default_factory=frozenset)
    line: str = ""  # what stderr must say besides the outcome line
    or_done: bool = False  # a page the parsers may also read whole (their charset rules decide)


def _redirect(location: str | bytes) -> tuple[int, tuple[tuple[str, str | bytes], ...], bytes]:
    return 302, (("Location", location),), b""


def _coded(coding: str) -> tuple[int, tuple[tuple[str, str | bytes], ...], bytes]:
    return 200, (HTML, ("Content-Encoding", coding)), PAGE  # says it is coded; it is not


def _nested_json(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _big_count(page: bytes) -> bytes:
    """The page with its first row cited 2^64 + 1 times (no store column holds it)."""
    return re.sub(rb'(gs_ibl">)0(</a>)', rb"\g<1>18446744073709551617\g<2>", page, count=1)


_NAMED = frozenset({"undecodable", "unrecognised", "layout_changed", "truncated", "binary", "empty"})
TRIGGERS: list[Trigger] = [
    Trigger("redirect to javascript:", _redirect("javascript:alert(1)"), "failed", frozenset({"redirect_refused"})),
    Trigger("redirect to data:", _redirect("data:text/html,<h1>hi</h1>"), "failed", frozenset({"redirect_refused"})),
    Trigger("redirect to an xn-- host that is no punycode", _redirect("http://xn--a.example/"), "failed",
            frozenset({"redirect_refused"})),
    Trigger("redirect to an empty label", _redirect("http://a..b/"), "failed", frozenset({"redirect_refused"})),
    Trigger("redirect to a 64-character label", _redirect(f"http://{'a' * 64}.example/"), "failed",
            frozenset({"redirect_refused"})),
    Trigger("redirect to no URL at all", _redirect(b"http://[::1/\xff"), "failed", frozenset({"redirect_refused"})),
    Trigger("gzip over a plain body", _coded("gzip"), "failed", frozenset({"bad_encoding"})),
    Trigger("br over a plain body", _coded("br"), "failed", frozenset({"bad_encoding"})),
    Trigger("deflate over a plain body", _coded("deflate"), "failed", frozenset({"bad_encoding"})),
    Trigger("gzip, gzip over a gzip body", (200, (HTML, ("Content-Encoding", "gzip, gzip")), gzip.compress(PAGE)),
            "failed", frozenset({"bad_encoding"})),
    Trigger("a coding nobody knows", _coded("x-rot13"), "failed", frozenset({"bad_encoding"})),
    Trigger("Retry-After: superscript two", (503, (("Retry-After", "²".encode()),), b"busy"), "pending",
            frozenset({"http_error"}), "Retry-After '²' ignored: neither a number of seconds nor an HTTP date"),
    Trigger("Retry-After: Arabic-Indic three", (503, (("Retry-After", "٣".encode()),), b"busy"), "pending",
            frozenset({"http_error"}), "ignored: neither a number of seconds nor an HTTP date"),
    Trigger("Retry-After: garbage", (429, (("Retry-After", "soon, maybe"),), b"busy"), "pending",
            frozenset({"http_error"}), "Retry-After 'soon, maybe' ignored"),
    Trigger("utf-7 declared, stray bytes", (200, (("Content-Type", "text/html; charset=utf-7"),),
                                            b'<html><head><meta charset="utf-7"></head><body>+AGE-\xff\xfe+ZeVnLIqe-'
                                            + PAGE[200:]), "failed", _NAMED, or_done=True),
    Trigger("a cut UTF-16 page", (200, (("Content-Type", "text/html; charset=utf-16"),),
                                  PAGE.decode().encode("utf-16")[:4097]), "failed", _NAMED, or_done=True),
    Trigger("JSON nested 100,000 deep", (200, (("Content-Type", "application/json"),), _nested_json(100_000)),
            "failed", _NAMED | {"too_deep", "bad_records"}),
    # the number reader takes no count past 64 bits: the cell is null with number_unreadable, the rest read
    Trigger("a count above 2^63", (200, (HTML,), _big_count(PAGE)), "done"),
    Trigger("Content-Type of an image over the page", (200, (("Content-Type", "image/png"),), PAGE), "done"),
    Trigger("Content-Length shorter than the body", (200, (HTML, ("Content-Length", "900")), PAGE), "failed",
            _NAMED),
]


def serve_trigger(site: FakeSite, trigger: Trigger, times: int = 20) -> None:
    """Make ``site`` answer the bad target's page with ``trigger``'s answer, ``times`` times."""
    status, headers, body = trigger.answer
    site.answer("bad", status, list(headers), body)
    site.fault(f"user={BAD}", *["answer:bad"] * times)


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def outcome_of(key: str, err: str, path: Path) -> tuple[str, str | None]:
    """``(status, code)`` of target ``key`` from a job's stderr and output (``done``: it was written)."""
    if path.exists() and key in [profile_key(r) for r in records(path)]:
        return "done", None
    found = re.search(rf"^{re.escape(key)}: (\w+): ", err, re.M)
    assert found, f"no outcome line for {key}:\n{err}"
    status = "pending" if re.search(r"\d+ pending", err) and found.group(1) in _PENDING else "failed"
    return status, found.group(1)


_PENDING = {"http_error", "timeout", "unreachable", "blocked"}


def assert_clean(err: str) -> None:
    assert "Traceback" not in err and "internal_error" not in err, err


def run_twice(site: FakeSite, tmp_path: Path, capsys, **settings) -> tuple[tuple[int, str], tuple[int, str]]:
    job = write_job(tmp_path, TARGETS, {"scholar": site.url, "msr": site.url, "elamur": site.url}, **settings)
    first = scrape(capsys, job)
    second = scrape(capsys, job)
    return first, second


@pytest.mark.parametrize("trigger", TRIGGERS, ids=[t.name for t in TRIGGERS])
def test_one_hostile_answer_is_that_targets_outcome_only(trigger: Trigger, site, tmp_path: Path, capsys) -> None:
    serve_trigger(site, trigger)
    (code, err), (code_again, err_again) = run_twice(site, tmp_path, capsys)
    assert_clean(err)
    assert_clean(err_again)
    written = [profile_key(r) for r in records(tmp_path / "out.jsonl")]
    for key in GOOD:
        assert key in written, f"{key} was not written:\n{err}"
    status, got = outcome_of(f"scholar:{BAD}", err, tmp_path / "out.jsonl")
    assert status == trigger.outcome or (trigger.or_done and status == "done"), err
    if status != "done":
        assert got in trigger.codes, err
    assert trigger.line in err
    assert code == (0 if status == "done" else 1), err
    assert code_again in (0, 1) and "run " in err_again.splitlines()[-1], err_again  # the rerun finishes too


def _mutants(page: bytes, seed: int, count: int) -> list[bytes]:
    """``count`` copies of ``page``, each with bytes flipped, cut or inserted at random places."""
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        data = bytearray(page)
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(data))
            kind = rng.choice(("flip", "cut", "insert", "insert"))
            if kind == "flip":
                data[at] ^= 1 << rng.randrange(8)
            elif kind == "cut":
                del data[at:at + rng.randint(1, 400)]
            else:
                data[at:at] = rng.choice((b"\x00", b"\xff\xfe", b"<", b"</table>", b"&#x110000;", b"\xed\xa0\x80",
                                          b'"', b"<!--", b"<tr class=\"gsc_a_tr\">", "٣".encode()))
        made.append(bytes(data))
    return made


def _counted(err: str, status: str = "") -> int:
    """How many targets the summary line of ``err`` counts (with ``status``, or all)."""
    summary = err.strip().splitlines()[-1].split(";")[0]
    counts = re.findall(r"(\d+) (done|partial|failed|pending)", summary)
    return sum(int(n) for n, s in counts if s == status or not status)


_WRONG_HEADERS = [(HTML,), (("Content-Type", "text/html; charset=utf-16"),), (("Content-Type", "application/json"),),
                  (("Content-Type", "text/html; charset=x-unknown"),), (HTML, ("Content-Encoding", "identity, br"))]


@pytest.mark.parametrize("seed", range(4))
def test_random_mutations_of_real_answers_end_each_target_alone(seed: int, site, tmp_path: Path, capsys) -> None:
    rng = random.Random(seed)
    pages = [PAGE, MSR_PAGE, ELAMUR_PAGE]
    bad = [f"Mutant{seed}{i:02d}xAAAAJ" for i in range(5)]
    for user, body in zip(bad, (m for page in pages for m in _mutants(page, seed, 2)), strict=False):
        site.answer(user, 200, list(rng.choice(_WRONG_HEADERS)), body)
        site.fault(f"user={user}", *[f"answer:{user}"] * 10)
    targets = [*TARGETS[:1], *TARGETS[2:], *({"site": "scholar", "id": user} for user in bad)]
    job = write_job(tmp_path, targets, {"scholar": site.url, "msr": site.url, "elamur": site.url})
    code, err = scrape(capsys, job)
    code_again, err_again = scrape(capsys, job)
    assert_clean(err)
    assert_clean(err_again)
    written = [profile_key(r) for r in records(tmp_path / "out.jsonl")]
    assert all(key in written for key in GOOD), err
    named = [user for user in bad if re.search(rf"^scholar:{user}: (?!warning:)\w+: ", err, re.M)]
    assert _counted(err) == len(targets), err  # each mutant got an outcome of its own: written, or a named line
    assert _counted(err, "done") == len(targets) - len(named), err
    assert code in (0, 1) and code_again in (0, 1)


# --- decoded-size ceilings ------------------------------------------------------------------


def _brotli_bomb(gigabytes: int) -> bytes:
    brotli = pytest.importorskip("brotli")
    packer = brotli.Compressor(quality=4, lgwin=24)
    zeros = bytes(2**24)
    return b"".join(packer.process(zeros) for _ in range(64 * gigabytes)) + packer.finish()


def _double_gzip_bomb(gigabytes: int) -> bytes:
    """``gzip, gzip``: the inner body is gzip members of 1 MB of zeros one after another, the outer one
    gzips those (a few KB decoding to ``gigabytes`` GB)."""
    member = gzip.compress(bytes(2**20))
    return gzip.compress(member * (1024 * gigabytes), 9)


@pytest.mark.slow
@pytest.mark.parametrize("coding", ["br", "gzip, gzip", "deflate", "gzip"])
def test_a_many_gigabyte_bomb_ends_as_too_large_in_bounded_memory(coding: str, site, tmp_path: Path,
                                                                   capsys) -> None:
    if coding == "br":
        body = _brotli_bomb(4)
    elif coding == "gzip, gzip":
        body = _double_gzip_bomb(8)
    else:
        packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | (16 if coding == "gzip" else 0))
        body = b"".join(packer.compress(bytes(2**24)) for _ in range(256)) + packer.flush()  # 4 GB
    assert len(body) < 5 * 2**20
    site.answer("bad", 200, [HTML, ("Content-Encoding", coding)], body)
    site.fault(f"user={BAD}", "answer:bad")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    job = write_job(tmp_path, TARGETS, {"scholar": site.url, "msr": site.url, "elamur": site.url}, max_bytes=2**20)
    code, err = scrape(capsys, job)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    assert_clean(err)
    assert f"scholar:{BAD}: too_large: " in err and "larger than max_bytes = 1048576 bytes" in err, err
    assert grown < 200 * 2**20, f"peak memory grew {grown / 2**20:.0f} MB for a bomb of gigabytes"
    assert all(key in [profile_key(r) for r in records(tmp_path / "out.jsonl")] for key in GOOD)
    assert code == 1


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
    page = read_corpus("scholar/legacy2013_profile_vspCNtYAAAAJ_full_web-scrapper_2016.html")
    divs = re.sub(rb"<(/?)t[rd]\b", rb"<\1div", page)  # every row and cell a <div>, the stats table too
    site.answer("bad", 200, [HTML], divs)
    site.fault(f"user={BAD}", "answer:bad")
    (code, err), _ = run_twice(site, tmp_path, capsys)
    assert_clean(err)
    assert f"scholar:{BAD}: layout_changed: " in err and code == 1, err


def test_a_pre_2014_stats_table_of_divs_gives_rows_and_a_warning(read_corpus) -> None:
    from pubharvest.parsers import parse

    page = read_corpus("scholar/legacy2013_profile_vspCNtYAAAAJ_full_web-scrapper_2016.html")
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


# --- Crawl-delay and Retry-After beyond their caps ------------------------------------------


def test_a_crawl_delay_of_a_year_leaves_that_host_pending(site, tmp_path: Path, capsys) -> None:
    with FakeSite() as slow:
        slow.robots = "User-agent: *\nCrawl-delay: 31536000\nAllow: /\n"
        job = write_job(tmp_path, TARGETS, {"scholar": slow.url, "msr": site.url, "elamur": site.url})
        code, err = scrape(capsys, job)
        assert not slow.paths("/citations"), "nothing but robots.txt was asked of the slow host"
    assert code == 3, err
    assert "asking to wait 31536000 s (Crawl-delay), more than max_crawl_delay = 60 s: not waited for" in err
    assert f"scholar:{SCHOLAR_A}: blocked: " in err and f"scholar:{BAD}: blocked: " in err
    written = [profile_key(r) for r in records(tmp_path / "out.jsonl")]
    assert written == ["msr:adaexample", "elamur:olatunji-ruwase"] or sorted(written) == sorted(GOOD[1:])


def test_a_crawl_delay_within_its_cap_is_honoured(site, tmp_path: Path, capsys) -> None:
    site.robots = "User-agent: *\nCrawl-delay: 0.3\nAllow: /\n"
    job = write_job(tmp_path, TARGETS[:2], {"scholar": site.url}, max_crawl_delay=1)
    code, err = scrape(capsys, job)
    assert code == 0, err
    times = [t for t, path, _ in site.log if path.startswith("/citations")]
    assert len(times) == 2 and times[1] - times[0] >= 0.3  # the host's interval became the Crawl-delay


def test_a_year_long_retry_after_date_is_not_waited_for(site, tmp_path: Path, capsys) -> None:
    site.answer("bad", 503, [("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")], b"busy")
    site.fault(f"user={BAD}", "answer:bad")
    job = write_job(tmp_path, TARGETS[1:2], {"scholar": site.url}, max_retry_after=60)
    code, err = scrape(capsys, job)
    assert code == 3 and "(Retry-After), more than max_retry_after = 60 s: not waited for" in err, err
    assert len(site.paths(f"user={BAD}")) == 1


def test_a_negative_cap_is_refused_before_anything_is_fetched(site, tmp_path: Path, capsys) -> None:
    job = write_job(tmp_path, TARGETS, {"scholar": site.url}, max_crawl_delay=-1)
    code, err = scrape(capsys, job)
    assert code == 2 and "max_crawl_delay must not be negative" in err
    assert json.dumps(site.paths()) == "[]"
