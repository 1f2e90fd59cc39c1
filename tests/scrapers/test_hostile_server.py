"""Jobs against hostile or odd servers, on both engines: limits (size, whole-request time), redirects,
private addresses, credentials, repeating pages, remembered blocks, names that do not resolve, and
the engines telling the same story line by line."""

from __future__ import annotations

import asyncio
import gzip
import re
import sqlite3
import time
from pathlib import Path

import pytest
from fakesite import FakeSite
from scrapejobs import ENGINES, SCHOLAR_A, SCHOLAR_B, SCHOLAR_C, records, write_job
from scrapejobs import run_engine as run

from pubharvest.cli import main


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def assert_one_line_each(err: str) -> None:
    assert "Traceback" not in err and "Error:" not in err.replace("Error: ", ""), err


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gzip_bomb_and_a_huge_body_stop_at_max_bytes(engine, site, tmp_path: Path, capsys) -> None:
    site.fault("/authors/olatunji-ruwase/", "gzipbomb:64")
    site.fault("/people/adaexample/", "huge:64")
    targets = [{"site": "elamur", "id": "olatunji-ruwase"}, {"site": "msr", "id": "adaexample"},
               {"site": "scholar", "id": SCHOLAR_A}]
    job = write_job(tmp_path, targets, {"elamur": site.url, "msr": site.url, "scholar": site.url},
                    max_bytes=2**20)
    code, err = run(engine, capsys, job)
    assert code == 1, err
    assert "elamur:olatunji-ruwase: too_large: " in err and "msr:adaexample: too_large: " in err, err
    assert "larger than max_bytes = 1048576 bytes (decompressed)" in err
    assert "1 done, 2 failed" in err
    assert len(site.paths("/authors/")) == len(site.paths("/people/")) == 1, "too_large is not retried"
    assert [r["site"] for r in records(tmp_path / "out.jsonl")] == ["scholar"]


@pytest.mark.slow  # each attempt waits out its timeout
@pytest.mark.parametrize("engine", ENGINES)
def test_a_slow_drip_times_out_for_the_whole_request(engine, site, tmp_path: Path, capsys) -> None:
    site.fault("/authors/olatunji-ruwase/", "drip:0.2", "drip:0.2")  # 1000 bytes, a byte every 0.2 s
    job = write_job(tmp_path, [{"site": "elamur", "id": "olatunji-ruwase"}], {"elamur": site.url},
                    timeout=1.0, retries=1)
    started = time.monotonic()
    code, err = run(engine, capsys, job)
    assert time.monotonic() - started < 20, "each attempt ends after timeout = 1 s, not per read"
    assert code == 1, err
    assert "elamur:olatunji-ruwase: timeout: no whole answer from " in err and "within timeout = 1 s" in err, err
    assert "1 pending" in err


@pytest.mark.parametrize("engine", ENGINES)
def test_redirects_leave_neither_the_scheme_nor_the_site(engine, site, tmp_path: Path, capsys) -> None:
    with FakeSite() as elsewhere:
        site.fault("/authors/olatunji-ruwase/", "redirect:file:///etc/passwd")
        site.fault("/people/adaexample/", "redirect:ftp://127.0.0.1/x")
        site.fault(f"user={SCHOLAR_A}", f"redirect:{elsewhere.url}/citations?user={SCHOLAR_A}")
        site.fault("/authors/old-slug/", "redirect:/free/en/authors/olatunji-ruwase/")  # the same host: followed
        targets = [{"site": "elamur", "id": "olatunji-ruwase"}, {"site": "msr", "id": "adaexample"},
                   {"site": "scholar", "id": SCHOLAR_A}, {"site": "elamur", "id": "old-slug"}]
        job = write_job(tmp_path, targets, {"elamur": site.url, "msr": site.url, "scholar": site.url})
        code, err = run(engine, capsys, job)
        code_again, err_again = run(engine, capsys, job)  # the next run finishes as well
        assert not elsewhere.log, "nothing was sent to the other host"
    assert code == 1 and code_again == 0, err
    assert_one_line_each(err)
    assert re.search(r"elamur:olatunji-ruwase: redirect_refused: redirect to file:/+etc/passwd refused: only http", err)
    assert "msr:adaexample: redirect_refused: redirect to ftp://127.0.0.1/x refused: only http" in err
    assert f"scholar:{SCHOLAR_A}: redirect_refused: redirect to {elsewhere.url}" in err
    assert "is not a host of the target's site" in err and "1 done, 3 failed" in err
    assert "Traceback" not in err_again


def test_a_private_address_is_refused_unless_a_base_url_names_it() -> None:
    from pubharvest.errors import RedirectRefused, Unreachable
    from pubharvest.scrapers.safety import AddressGuard

    async def check(guard: AddressGuard, url: str) -> str:
        try:
            await guard.check(url)
        except (RedirectRefused, Unreachable) as error:
            return error.code
        return "ok"

    public = AddressGuard(["https://scholar.google.com"])
    assert asyncio.run(check(public, "http://127.0.0.1:8080/citations")) == "redirect_refused"
    assert asyncio.run(check(public, "http://localhost:8080/citations")) == "redirect_refused"  # resolved, then checked
    assert asyncio.run(check(public, "http://[::1]:8080/x")) == "redirect_refused"
    assert asyncio.run(check(public, "http://10.0.0.7/x")) == "redirect_refused"
    assert asyncio.run(check(public, "http://no-such-host.invalid/x")) == "unreachable"
    local = AddressGuard(["http://127.0.0.1:8080"])
    assert asyncio.run(check(local, "http://127.0.0.1:8080/citations")) == "ok"
    assert asyncio.run(check(local, "http://127.0.0.1:9090/citations")) == "redirect_refused"  # another host


@pytest.mark.parametrize("engine", ENGINES)
def test_credentials_reach_no_file_log_or_summary(engine, site, tmp_path: Path, capsys) -> None:
    import base64

    secret, encoded = "s3cretPW", base64.b64encode(b"harvester:s3cretPW").decode()
    base = site.url.replace("://", "://harvester:s3cretPW@")
    site.fault(f"user={SCHOLAR_B}", "500", "500")
    site.fault("/authors/", "404")
    targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B},
               {"site": "elamur", "id": "olatunji-ruwase"}]
    job = write_job(tmp_path, targets, {"scholar": base, "elamur": base}, retries=1)
    code, err = run(engine, capsys, job, "--verbose")
    assert code == 1, err
    assert "GET http://" in err and "HTTP 404 from http://" in err, err  # httpx shows ***@ where the user-info was
    archive = gzip.decompress((tmp_path / "out.warc.gz").read_bytes())
    files = {"stderr": err.encode(), "warc": archive, "out.jsonl": (tmp_path / "out.jsonl").read_bytes(),
             "journal": (tmp_path / "job.journal").read_bytes(), "store": (tmp_path / "store.sqlite").read_bytes()}
    for name, data in files.items():
        assert secret.encode() not in data and encoded.encode() not in data, name
    assert b"WARC-Target-URI: http://127.0.0.1" in archive or b"WARC-Target-URI: http://***@127.0.0.1" in archive
    if engine == "httpx":  # httpx turns the URL's user-info into a header: its name stays, its value goes
        assert b"authorization: [redacted]" in archive.lower()


@pytest.mark.parametrize("engine", ENGINES)
def test_paging_stops_when_a_page_repeats_the_one_before(engine, site, tmp_path: Path, capsys) -> None:
    site.scholar[SCHOLAR_A] = 150
    site.ignore_cstart = True  # every page is the first, "Show more" always enabled
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
    code, err = run(engine, capsys, job)
    assert code == 0, err
    assert len(site.paths(f"user={SCHOLAR_A}")) == 2, "the second page repeated the first: no third"
    assert f"scholar:{SCHOLAR_A}: partial: paging stopped: page 2 repeats the rows of page 1 (same ids)" in err
    [record] = records(tmp_path / "out.jsonl")
    assert len(record["publications"]) == 100
    assert [w["code"] for w in record["warnings"]] == ["partial"] and "repeats" in record["warnings"][0]["message"]


@pytest.mark.slow  # the one-off form keeps the default pace
@pytest.mark.parametrize(("name", "target"), [("scholar", SCHOLAR_A), ("msr", "adaexample"),
                                              ("elamur", "olatunji-ruwase")])
def test_the_one_off_form_writes_to_a_file_or_a_store(name, target, site, tmp_path: Path, capsys) -> None:
    common = ["scrape", "--site", name, "--id", target, "--base-url", site.url, "--contact", "mailto:t@example.org"]
    assert main([*common, "-o", str(tmp_path / "e.jsonl")]) == 0, capsys.readouterr().err
    [record] = records(tmp_path / "e.jsonl")
    assert record["site"] == name
    assert main([*common, "--store", str(tmp_path / "e.sqlite")]) == 0, capsys.readouterr().err
    with sqlite3.connect(tmp_path / "e.sqlite") as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        assert any(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_rerun_within_block_wait_refuses_with_the_time_left(engine, site, tmp_path: Path, capsys) -> None:
    site.fault(f"user={SCHOLAR_A}", "captcha")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
    assert run(engine, capsys, job)[0] == 3
    served = len(site.log)
    code, err = run(engine, capsys, job)
    assert code == 3 and len(site.log) == served, "the rerun sent nothing to the host that blocked it"
    assert re.search(r"blocked this job less than block_wait = 6 h ago .*; wait (6 h 0|5 h 59) min more, or run again "
                     r"with --force$", err.strip()), err
    code, err = run(engine, capsys, job, "--force")
    assert code == 0, err
    assert len(site.paths(f"user={SCHOLAR_A}")) == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_a_name_that_does_not_resolve_is_not_retried(engine, tmp_path: Path, capsys) -> None:
    job = write_job(tmp_path, [{"site": "elamur", "id": "olatunji-ruwase"}], {"elamur": "http://no-such-host.invalid"},
                    retries=4, backoff=1.0, max_backoff=8.0)
    started = time.monotonic()
    code, err = run(engine, capsys, job)
    assert code == 4, err
    assert "no-such-host.invalid does not resolve" in err and "(0 retries)" in err, err
    assert time.monotonic() - started < (8 if engine == "scrapy" else 3)


@pytest.mark.slow
def test_both_engines_tell_a_fault_script_line_by_line(tmp_path: Path, capsys) -> None:
    """The same faults, the same account: outcomes, blocks, counts of requests as the server saw them."""
    pytest.importorskip("scrapy")
    told, served = {}, {}
    for engine in ("httpx", "scrapy"):
        with FakeSite(port=0) as scholar, FakeSite() as other:
            scholar.scholar[SCHOLAR_A] = 150
            scholar.fault(f"user={SCHOLAR_A}&hl=en&pagesize=100&cstart=100", "captcha")
            other.fault("/authors/no-such-author/", "404")
            other.fault("/people/adaexample/", "500", "ok")
            targets = [{"site": "scholar", "id": u} for u in (SCHOLAR_A, SCHOLAR_B, SCHOLAR_C)]
            targets += [{"site": "elamur", "id": "no-such-author"}, {"site": "msr", "id": "adaexample"},
                        {"site": "elamur", "id": "olatunji-ruwase"}]
            (tmp_path / engine).mkdir()
            job = write_job(tmp_path / engine, targets, {"scholar": scholar.url, "msr": other.url,
                                                         "elamur": other.url}, per_host=1, concurrency=2)
            code, err = run(engine, capsys, job)
            assert code == 3, err
            assert scholar.log[-1][1].endswith("cstart=100"), "nothing went to the host after its CAPTCHA"
            served[engine] = len(scholar.log) + len(other.log)
            hosts = {scholar.url.split("//")[1]: "SCHOLAR", other.url.split("//")[1]: "OTHER"}
            job_path = f"{tmp_path / engine}/job.toml"
            err = err.replace(f"{job_path} --engine scrapy", "JOB").replace(job_path, "JOB")
            for host, name in hosts.items():
                err = err.replace(host, name)
            err = re.sub(r"run \S+: ", "run R: ", re.sub(r"in \d+\.\d s", "in T s", err))
            told[engine] = err.strip().splitlines()
            assert f"{served[engine]} requests" in told[engine][-1], (served, told)
    assert told["scrapy"] == told["httpx"]


@pytest.mark.parametrize("engine", ENGINES)
def test_nothing_is_sent_after_a_captcha_with_per_host_1(engine, site, tmp_path: Path, capsys) -> None:
    users = [f"Capt{i:04d}xAAAAJ" for i in range(6)]
    site.fault(f"user={users[1]}", "captcha")
    job = write_job(tmp_path, [{"site": "scholar", "id": u} for u in users], {"scholar": site.url},
                    concurrency=8, per_host=1)  # no pacing: Scrapy's own slot let a burst through
    code, err = run(engine, capsys, job)
    assert code == 3, err
    assert users[1] in site.log[-1][1], "the CAPTCHA was the last request the host saw"
    assert f"1 done, 5 pending; 1 pages, {len(site.log)} requests" in err


def archived(path: Path) -> list[tuple[str, str, int | None]]:
    """The request and response records of a WARC: (type, URI, status), in order."""
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as stream:
        return [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"),
                 int(r.http_headers.get_statuscode()) if r.rec_type == "response" else None)
                for r in ArchiveIterator(stream) if r.rec_type in ("request", "response")]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_archive_keeps_failed_exchanges_and_refused_redirects(engine, site, tmp_path: Path, capsys) -> None:
    site.fault(f"user={SCHOLAR_A}", *["reset"] * 4)  # no answer to any attempt (Twisted retries one itself, unseen)
    site.fault("/people/adaexample/", "redirect:ftp://127.0.0.1/x")
    site.fault("/authors/olatunji-ruwase/", "gzipbomb:64")
    targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "msr", "id": "adaexample"},
               {"site": "elamur", "id": "olatunji-ruwase"}, {"site": "scholar", "id": SCHOLAR_B}]
    job = write_job(tmp_path, targets, {"scholar": site.url, "msr": site.url, "elamur": site.url},
                    retries=1, max_bytes=2**20)
    code, err = run(engine, capsys, job)
    assert code == 1 and "1 done, 2 failed, 1 pending" in err, err
    assert f"scholar:{SCHOLAR_A}: unreachable: " in err and "msr:adaexample: redirect_refused: " in err, err
    got = archived(tmp_path / "out.warc.gz")

    def kinds(part: str) -> list[tuple[str, int | None]]:
        return sorted(((kind, status) for kind, uri, status in got if part in uri), key=str)

    assert kinds(f"user={SCHOLAR_A}") == [("request", None)] * 2, got  # each attempt, with no response
    assert kinds("/people/adaexample/") == [("request", None), ("response", 302)], got  # the refused redirect
    assert kinds("/authors/olatunji-ruwase/") == [("request", None)], got  # too large: not kept
    assert kinds(f"user={SCHOLAR_B}") == [("request", None), ("response", 200)], got
    assert len([uri for _, uri, _ in got if uri.endswith("/robots.txt")]) == 2  # one exchange per host
