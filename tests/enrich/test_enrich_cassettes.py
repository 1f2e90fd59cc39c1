"""An enrichment replayed from a cassette (pytest-recording / VCR.py): no server, no network.

The cassette in ``tests/cassettes/test_enrich_cassettes/`` was recorded against ``tests/helpers/fakesite.py``
on port 8766 serving the hand-written answers below (not the corpus's: those stay out of the
repository): a 429 with ``Retry-After: 1`` before the work, a 404 in plain text, an HTML page, and a
redirect from an old DOI to its versioned one. CI replays it (``--record-mode=none``, the default); to
record it again: ``pytest tests/enrich/test_enrich_cassettes.py --record-mode=rewrite``.
"""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from fakesite import FakeSite

from pubharvest.enrich import enrich, enrich_options
from pubharvest.parsers.records import PageResult, Publication, PublicationIds

BASE = "http://127.0.0.1:8766"


def work(doi: str) -> bytes:
    """A Crossref answer written by hand for these tests."""
    return json.dumps({"status": "ok", "message-type": "work", "message": {
        "DOI": doi, "title": ["A hand-made work for replaying"], "type": "journal-article",
        "author": [{"given": "Ada", "family": "Lovelace", "sequence": "first"}],
        "issued": {"date-parts": [[2020, 5]]}, "container-title": ["Journal of Replays"],
        "publisher": "Tests"}}).encode()


@pytest.fixture
def vcr_cassette_dir() -> str:
    return str(ROOT / "tests" / "cassettes" / "test_enrich_cassettes")


@pytest.fixture
def vcr_config() -> dict:
    return {"match_on": ["method", "scheme", "host", "port", "path", "query"],
            "before_record_request": lambda request: None if "/_fake/" in request.path else request}


@pytest.fixture
def crossref(record_mode: str):
    """The stand-in while recording; nothing at all while replaying."""
    if record_mode == "none":
        yield None
        return
    with FakeSite(8766) as site:
        json_type: list[tuple[str, str | bytes]] = [("Content-Type", "application/json")]
        site.answer("work", 200, json_type, work("10.5555/cassette-1"))
        site.answer("v2", 200, json_type, work("10.5555/old.v2"))
        site.answer("old", 301, [("Location", "/works/10.5555/old.v2")], b"")
        site.answer("html", 200, [("Content-Type", "text/html")], b"<html><body>Down for maintenance</body></html>")
        for pattern, name in (("/works/10[.]5555/cassette-1", "work"), ("/works/10[.]5555/old", "old"),
                              ("/works/10[.]5555/old[.]v2", "v2"), ("/works/10[.]5555/html", "html")):
            site.route(pattern, name)
        site.fault("/works/10.5555/cassette-1", "429:1")
        yield site


def paper(doi: str) -> Publication:
    return Publication(title="A hand-made work for replaying", authors=["A Lovelace"], year=2020,
                       ids=PublicationIds(doi=doi))


@pytest.mark.vcr
def test_an_enrichment_replayed(crossref) -> None:
    page = PageResult(site="scholar", page="rows", publications=[
        paper("10.5555/cassette-1"), paper("10.5555/gone"), paper("10.5555/html"), paper("10.5555/old")])
    options = enrich_options("crossref", "cassettes@example.org", environ={}, base_urls={"crossref": BASE})
    enrich([page], options)
    found, gone, html, old = page.publications
    assert (found.container, found.publisher, found.date, found.type) == (
        "Journal of Replays", "Tests", "2020-05", "article-journal")  # after the 429 and its Retry-After
    assert gone.provenance == [] and gone.container is None  # the 404
    assert html.provenance == [] and html.container is None
    assert old.ids.doi == "10.5555/old" and old.container == "Journal of Replays"
    assert sorted((w.code, w.message.split(": ", 1)[1][:40]) for w in page.warnings) == [
        ("enrich_differs", "crossref gives ids.doi 10.5555/old.v2, t"),
        ("enrich_failed", "crossref: the answer from http://127.0.0"),
    ]
