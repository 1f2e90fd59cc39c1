"""Site knowledge (``scrapers.sites``): URLs, paging, robots.txt rules, blocks, merging pages, all
derived from the parsers' registry. No network here (the toy site is served by a mock transport):
``sites`` is what both engines share."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import types
from typing import Any

import httpx
import pytest
from fakesite import scholar_page
from protego import Protego

import pubharvest.parsers as parsers
from pubharvest.errors import JobError
from pubharvest.parsers.site import SiteInfo
from pubharvest.scrapers import sites
from pubharvest.scrapers.job import Target, job_from_toml
from pubharvest.scrapers.runner import run_job

USER = "Aaaaaaaa12AAAAJ"
# Scholar's robots.txt rules for profiles (Feb 2026): profiles allowed, their pages by cstart not.
SCHOLAR_ROBOTS = "User-agent: *\nDisallow: /citations?\nAllow: /citations?user=\nDisallow: /citations?*cstart=\n"


def test_site_knowledge_imports_no_http_client() -> None:
    code = ("import sys, pubharvest.scrapers.sites; "
            "assert 'httpx' not in sys.modules and 'pubharvest.scrapers.fetch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_first_urls() -> None:
    scholar, msr, elamur = (sites.SITES[s] for s in ("scholar", "msr", "elamur"))
    assert scholar.first_url(Target("scholar", id=USER), "https://scholar.google.com") == \
        f"https://scholar.google.com/citations?user={USER}&hl=en&pagesize=100"
    given = Target("scholar", url=f"https://scholar.google.de/citations?user={USER}&cstart=20")
    assert scholar.first_url(given, "") == f"https://scholar.google.de/citations?user={USER}&pagesize=100"
    assert msr.first_url(Target("msr", id="adaexample"), "http://mirror:8000/") == \
        "http://mirror:8000/en-us/research/people/adaexample/publications/"
    assert elamur.first_url(Target("elamur", id="olatunji-ruwase"), elamur.base_url) == \
        "https://md.research.elamur.ai/free/en/authors/olatunji-ruwase/"


def test_scholar_pages_on_while_show_more_is_enabled() -> None:
    scholar = sites.SITES["scholar"]
    first = f"https://scholar.google.com/citations?user={USER}&hl=en&pagesize=100"
    assert scholar.next_url(first, 100, True) == first + "&cstart=100"
    assert scholar.next_url(first + "&cstart=100", 100, True) == first + "&cstart=200"
    assert scholar.next_url(first, 100, False) is None
    assert scholar.next_url(first, 0, True) is None  # a page of no rows never loops


def test_scholar_robots_rules_allow_the_profile_but_not_its_next_pages() -> None:
    rules = Protego.parse(SCHOLAR_ROBOTS)
    first = sites.SITES["scholar"].first_url(Target("scholar", id=USER), "https://scholar.google.com")
    assert rules.can_fetch(first, "pubharvest/0.1")
    following = sites.SITES["scholar"].next_url(first, 100, True)
    assert following is not None and not rules.can_fetch(following, "pubharvest/0.1")


def test_merge_joins_pages_once_each_and_says_when_pages_are_missing() -> None:
    url = f"https://scholar.google.com/citations?user={USER}"
    pages = [parsers.parse(scholar_page(USER, 250, start, 100), url=url) for start in (0, 100, 200)]
    pages.append(parsers.parse(scholar_page(USER, 250, 200, 100), url=url))  # the same page twice
    merged = sites.SITES["scholar"].merge(pages)
    assert len(merged.publications) == 250 and merged.warnings == []
    partial = sites.SITES["scholar"].merge(pages[:2])
    assert len(partial.publications) == 200
    assert [w.code for w in partial.warnings] == ["partial"]
    assert "first 200 rows" in partial.warnings[0].message


def test_blocks_are_told_by_status_redirect_and_markup(read_corpus) -> None:
    captcha = read_corpus("scholar/captcha_gs_captcha_ccl_search_geomap_2020.html")
    forbidden = read_corpus("scholar/blocked_403_forbidden_output_cite_geomap_2020.html")
    url = f"https://scholar.google.com/citations?user={USER}"
    assert sites.block_reason(403, url, forbidden)
    assert sites.block_reason(302, "https://www.google.com/sorry/index?continue=x", b"")
    reason = sites.block_reason(429, url, captcha)
    assert reason is not None and "CAPTCHA" in reason
    assert sites.block_reason(429, url, b"Too many requests") is None  # a plain 429 is retried, not a block
    assert sites.block_reason(200, url, scholar_page(USER, 4, 0, 100).encode()) is None


def test_site_of_url() -> None:
    assert sites.site_of_url("https://scholar.google.co.uk/citations?user=x") == "scholar"
    assert sites.site_of_url("https://www.microsoft.com/en-us/research/people/x/") == "msr"
    assert sites.site_of_url("https://example.org/") is None


def toy_parser() -> types.ModuleType:
    """A fourth site as a parser module declares it: ``SITE``, ``sniff`` and ``parse``, nothing for the scrapers."""
    from pubharvest.parsers.page import Document
    from pubharvest.parsers.records import PageResult, Profile

    def parse(doc: Document) -> PageResult:
        name = doc.text.split("<h1>")[1].split("</h1>")[0]
        site: Any = "toy"  # a registered name, whether or not the record model's type lists it
        return PageResult(site=site, page="profile", profile=Profile(name=name))

    toy = types.ModuleType("pubharvest.parsers.toy")
    vars(toy).update(
        SITE=SiteInfo(name="toy", title="Toy Research", base_url="https://toy.example.org", hosts=("toy.example.org",),
                      id_pattern=r"[a-z]+", id_example="ada", profile_path="/people/{id}/", page_kinds=("profile",)),
        sniff=lambda doc: "profile" if "toy-profile" in doc.text else None,
        parse=parse,
    )
    return toy


def test_a_site_only_in_the_parsers_registry_gets_a_working_scraper(monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "pubharvest.parsers.toy", toy_parser())
    monkeypatch.setattr(parsers, "SITES", (*parsers.SITES, "toy"))
    toy = sites.SITES["toy"]
    assert list(sites.SITES) == ["scholar", "msr", "elamur", "toy"] and type(toy) is sites.Site
    assert toy.first_url(Target("toy", id="ada"), toy.base_url) == "https://toy.example.org/people/ada/"
    assert sites.site_of_url("https://www.toy.example.org/people/ada/") == "toy"
    with pytest.raises(JobError, match=r"known: scholar, msr, elamur, toy\)"):
        job_from_toml('contact = "a@b.org"\n[[targets]]\nsite = "nope"\nid = "x"')
    with pytest.raises(JobError, match=r'add site = "scholar", "msr", "elamur" or "toy"'):
        job_from_toml('contact = "a@b.org"\n[[targets]]\nurl = "https://example.org/x"')
    with pytest.raises(JobError, match=r"'Ada' is not a toy id \(like 'ada'\)"):
        job_from_toml('contact = "a@b.org"\n[[targets]]\nsite = "toy"\nid = "Ada"')

    def serve(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/people/ada/":
            return httpx.Response(200, text="<html><body class=toy-profile><h1>Ada Toy</h1></body></html>")
        return httpx.Response(404)

    job = job_from_toml('contact = "a@b.org"\noutput = "out.jsonl"\nrate = 0\n[[targets]]\nsite = "toy"\nid = "ada"',
                        root=tmp_path)
    summary = asyncio.run(run_job(job, transport=httpx.MockTransport(serve)))
    assert summary.exit_code == 0 and summary.counts()["done"] == 1
    [record] = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert (record["site"], record["profile"]["name"]) == ("toy", "Ada Toy")
