"""Hostile answers for scraper jobs, engine-neutral: the bad answers a hostile server gives (``TRIGGERS``),
random mutations of real answers, and the checks that one bad answer is its own target's outcome only.
The httpx engine's module (``test_hostile_responses.py``) and the Scrapy engine's
(``test_hostile_scrapy.py``) both run them.

A job has four targets (``TARGETS``): three good ones (``GOOD``) and ``scholar:BAD``, whose page the
fake site answers with a trigger (``serve_trigger``). ``check_trigger`` asserts that the good ones are
fetched and written, the bad one ends with its named outcome, stderr holds no traceback, and the same job
run again finishes.
"""

from __future__ import annotations

import gzip
import random
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fakesite import ELAMUR_PAGE, MSR_PAGE, FakeSite, scholar_page
from scrapejobs import SCHOLAR_A, SCHOLAR_B, profile_key, records, write_job

BAD = SCHOLAR_B  # the Scholar user whose page is the hostile answer
GOOD = [f"scholar:{SCHOLAR_A}", "msr:adaexample", "elamur:olatunji-ruwase"]
TARGETS = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": BAD},
           {"site": "msr", "id": "adaexample"}, {"site": "elamur", "id": "olatunji-ruwase"}]
PAGE = scholar_page(BAD, 4, 0, 100).encode()  # the answer a hostile one stands in for
HTML = ("Content-Type", "text/html; charset=utf-8")
Answer = tuple[int, tuple[tuple[str, str | bytes], ...], bytes]


@dataclass(frozen=True)
class Trigger:
    """A bad answer to the target ``scholar:BAD``: ``status``, ``headers`` (bytes values sent byte for
    byte), ``body``; the outcome it must end with (``status`` and one of ``codes``, or ``done``)."""

    name: str
    answer: Answer
    outcome: str
    codes: frozenset[str] = field(default_factory=frozenset)
    line: str = ""  # what stderr must say besides the outcome line
    or_done: bool = False  # a page the parsers may also read whole (their charset rules decide)


def _redirect(location: str | bytes) -> Answer:
    return 302, (("Location", location),), b""


def _coded(coding: str) -> Answer:
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


LEGACY_2013 = "scholar/legacy2013_profile_vspCNtYAAAAJ_full_web-scrapper_2016.html"  # in PUBHARVEST_CORPUS


def div_rows_trigger(page: bytes) -> Trigger:
    """A real pre-2014 profile ``page`` with every row and cell a ``<div>``, the stats table too (a
    ``StopIteration`` once): refused by name."""
    divs = re.sub(rb"<(/?)t[rd]\b", rb"<\1div", page)
    return Trigger("a pre-2014 page with rows as <div>", (200, (HTML,), divs), "failed", frozenset({"layout_changed"}))


def serve_trigger(site: FakeSite, trigger: Trigger, times: int = 20) -> None:
    """Make ``site`` answer the bad target's page with ``trigger``'s answer, ``times`` times."""
    status, headers, body = trigger.answer
    site.answer("bad", status, list(headers), body)
    site.fault(f"user={BAD}", *["answer:bad"] * times)


def trigger_job(site: FakeSite, folder: Path, **settings: object) -> Path:
    """The job of ``TARGETS``, every site on ``site``."""
    return write_job(folder, TARGETS, {"scholar": site.url, "msr": site.url, "elamur": site.url}, **settings)


_PENDING = {"http_error", "timeout", "unreachable", "blocked"}


def outcome_of(key: str, err: str, path: Path) -> tuple[str, str | None]:
    """``(status, code)`` of target ``key`` from a job's stderr and output (``done``: it was written)."""
    if path.exists() and key in [profile_key(r) for r in records(path)]:
        return "done", None
    found = re.search(rf"^{re.escape(key)}: (\w+): ", err, re.M)
    assert found, f"no outcome line for {key}:\n{err}"
    status = "pending" if re.search(r"\d+ pending", err) and found.group(1) in _PENDING else "failed"
    return status, found.group(1)


def assert_clean(err: str) -> None:
    assert "Traceback" not in err and "internal_error" not in err, err


def check_trigger(trigger: Trigger, first: tuple[int, str], again: tuple[int, str], output: Path) -> None:
    """A job whose ``scholar:BAD`` got ``trigger`` (``first``: exit code and stderr), and its rerun (``again``):
    the good targets written, the bad one's named outcome, no traceback, and the rerun finishing."""
    (code, err), (code_again, err_again) = first, again
    assert_clean(err)
    assert_clean(err_again)
    written = [profile_key(r) for r in records(output)]
    for key in GOOD:
        assert key in written, f"{key} was not written:\n{err}"
    status, got = outcome_of(f"scholar:{BAD}", err, output)
    assert status == trigger.outcome or (trigger.or_done and status == "done"), err
    if status != "done":
        assert got in trigger.codes, err
    assert trigger.line in err
    assert code == (0 if status == "done" else 1), err
    assert code_again in (0, 1) and "run " in err_again.splitlines()[-1], err_again  # the rerun finishes too


def bomb(coding: str) -> bytes:
    """A body of a few MB that decodes, as ``coding`` says, to gigabytes: 4 GB of zeros in brotli, deflate or
    gzip; for ``gzip, gzip``, gzip members of 1 MB of zeros one after another (8 GB), gzipped again."""
    if coding == "br":
        brotli = pytest.importorskip("brotli")
        packer = brotli.Compressor(quality=4, lgwin=24)
        return b"".join(packer.process(bytes(2**24)) for _ in range(256)) + packer.finish()
    if coding == "gzip, gzip":
        return gzip.compress(gzip.compress(bytes(2**20)) * 8192, 9)
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | (16 if coding == "gzip" else 0))
    return b"".join(packer.compress(bytes(2**24)) for _ in range(256)) + packer.flush()


def serve_bomb(site: FakeSite, coding: str) -> None:
    """Make ``site`` answer the bad target's page once with a ``bomb`` in ``coding``."""
    body = bomb(coding)
    assert len(body) < 5 * 2**20
    site.answer("bad", 200, [HTML, ("Content-Encoding", coding)], body)
    site.fault(f"user={BAD}", "answer:bad")


def check_bomb(code: int, err: str, output: Path) -> None:
    """A job of ``max_bytes = 2**20`` whose bad target got a bomb: ``too_large`` for it, the others written."""
    assert_clean(err)
    assert f"scholar:{BAD}: too_large: " in err and "larger than max_bytes = 1048576 bytes" in err, err
    assert all(key in [profile_key(r) for r in records(output)] for key in GOOD)
    assert code == 1


def mutants(page: bytes, seed: int, count: int) -> list[bytes]:
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


_WRONG_HEADERS = [(HTML,), (("Content-Type", "text/html; charset=utf-16"),), (("Content-Type", "application/json"),),
                  (("Content-Type", "text/html; charset=x-unknown"),), (HTML, ("Content-Encoding", "identity, br"))]


@dataclass(frozen=True)
class MutantJob:
    """A job of the good targets and five Scholar users answered with mutants of real pages."""

    path: Path
    targets: list[dict[str, str]]
    bad: list[str]


def mutant_job(site: FakeSite, folder: Path, seed: int) -> MutantJob:
    """Serve two mutants of each real answer (Scholar, MSR, Elamur) under wrong or odd headers to five
    Scholar users, and write the job of them and the good targets."""
    rng = random.Random(seed)
    pages = [PAGE, MSR_PAGE, ELAMUR_PAGE]
    bad = [f"Mutant{seed}{i:02d}xAAAAJ" for i in range(5)]
    for user, body in zip(bad, (m for page in pages for m in mutants(page, seed, 2)), strict=False):
        site.answer(user, 200, list(rng.choice(_WRONG_HEADERS)), body)
        site.fault(f"user={user}", *[f"answer:{user}"] * 10)
    targets = [*TARGETS[:1], *TARGETS[2:], *({"site": "scholar", "id": user} for user in bad)]
    job = write_job(folder, targets, {"scholar": site.url, "msr": site.url, "elamur": site.url})
    return MutantJob(job, targets, bad)


def counted(err: str, status: str = "") -> int:
    """How many targets the summary line of ``err`` counts (with ``status``, or all)."""
    summary = err.strip().splitlines()[-1].split(";")[0]
    counts = re.findall(r"(\d+) (done|partial|failed|pending)", summary)
    return sum(int(n) for n, s in counts if s == status or not status)


def check_mutants(job: MutantJob, first: tuple[int, str], again: tuple[int, str], output: Path) -> None:
    """Each mutant got an outcome of its own (written, or a named line), the good targets were written,
    and neither run nor rerun showed a traceback."""
    (code, err), (code_again, err_again) = first, again
    assert_clean(err)
    assert_clean(err_again)
    written = [profile_key(r) for r in records(output)]
    assert all(key in written for key in GOOD), err
    named = [user for user in job.bad if re.search(rf"^scholar:{user}: (?!warning:)\w+: ", err, re.M)]
    assert counted(err) == len(job.targets), err
    assert counted(err, "done") == len(job.targets) - len(named), err
    assert code in (0, 1) and code_again in (0, 1)
