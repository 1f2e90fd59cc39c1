"""A fourth site is its module and one registry line: a toy site registered at runtime is parsed,
stored, merged and exported by the faces, none of which names it."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import sys
import types
from pathlib import Path
from typing import TypeVar

import msgspec
import pytest
from conftest import ROOT

import pubharvest
import pubharvest.parsers as parsers
from pubharvest.merge import MergeResult, merge
from pubharvest.output import BibtexWriter, CslJsonWriter
from pubharvest.parsers.page import Document
from pubharvest.parsers.records import Ids, PageResult, Profile, Publication, PublicationIds
from pubharvest.parsers.site import SiteInfo
from pubharvest.store import Store
from pubharvest.tables import csv_writer

TOY = SiteInfo(name="toy", title="Toy Research", base_url="https://toy.example.org", hosts=("toy.example.org",),
               id_pattern=r"[a-z]+", id_example="ada", profile_path="/people/{id}/", page_kinds=("publication_list",))
# A toy page: its person, then a paper a line (id | title | year | citations). The paper is one of
# the Scholar seed's, written as another site would write it.
PAGE = b"""TOY RESEARCH publications
person: ada | Ada Example
paper: zoff | ZeRO-Offload: Democratizing Billion-Scale Model Training | 2021 | 12
"""
SCHOLAR_SEED = "fixtures/scholar/003_9ea93ed9343d2054.txt"
_Ids = TypeVar("_Ids", Ids, PublicationIds)


def own_ids(ids_type: type[_Ids], value: str) -> _Ids:
    """The toy's own id where a site without a field of its own keeps it: ``ids.other``."""
    return ids_type(other={TOY.name: value})


def sniff(doc: Document) -> str | None:
    return "publication_list" if doc.text.startswith("TOY RESEARCH") else None


def parse(doc: Document) -> PageResult:
    lines = dict(line.split(": ", 1) for line in doc.text.splitlines()[1:])
    person, name = lines["person"].split(" | ")
    ident, title, year, citations = lines["paper"].split(" | ")
    paper = Publication(title=title, year=int(year), citations=int(citations), ids=own_ids(PublicationIds, ident),
                        url=f"{TOY.base_url}/papers/{ident}")
    # until PageResult.site is a plain str checked against the registry
    return PageResult(site=TOY.name, page="publication_list", url=TOY.profile_url(person),
                      profile=Profile(name=name, ids=own_ids(Ids, person)), publications=[paper])


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> PageResult:
    """The toy site registered (its module and one registry line); its page parsed."""
    module = types.ModuleType(f"{parsers.__name__}.{TOY.name}")
    module.__dict__.update(SITE=TOY, sniff=sniff, parse=parse)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(parsers, "SITES", (*parsers.SITES, TOY.name))
    return pubharvest.parse(PAGE)


def merged_with_seed(toy: PageResult) -> MergeResult:
    return merge([(SCHOLAR_SEED, parsers.parse((ROOT / SCHOLAR_SEED).read_bytes())), ("toy.txt", toy)])


def written(writer_type: type, result: object) -> str:
    stream = io.StringIO()
    writer = writer_type(stream)
    writer.write(result)
    writer.close()
    return stream.getvalue()


def test_the_registry_picks_the_toy_parser(toy: PageResult) -> None:
    assert (toy.site, toy.source.parser if toy.source else None) == ("toy", "toy.publication_list")
    assert parsers.site_titles().endswith(", Toy Research")


def test_the_store_files_toy_records_under_its_site(toy: PageResult, tmp_path: Path) -> None:
    store = Store(tmp_path / "store.sqlite")
    store.save("run1", "ada", toy)
    store.close()
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        assert db.execute("SELECT site, profile_id, name FROM profiles").fetchall() == [("toy", "ada", "Ada Example")]
        assert [site for (site,) in db.execute("SELECT site FROM publications")] == ["toy"]


def test_the_store_reads_toy_records_back(toy: PageResult) -> None:
    store = Store(":memory:")
    store.save("run1", "ada", toy)
    assert [(r.site, [p.title for p in r.publications]) for r in store.profiles()] == [
        ("toy", ["ZeRO-Offload: Democratizing Billion-Scale Model Training"])]


def test_a_toy_paper_merges_with_the_same_paper_on_scholar(toy: PageResult) -> None:
    merged = merged_with_seed(toy)
    (paper,) = [p for p in merged.papers if "toy" in {s.site for s in p.sources}]
    assert [(s.site, s.citations) for s in paper.sources] == [("scholar", 405), ("toy", 12)]
    assert [m.reason for m in paper.matched_by] == ["title_year"]


def test_csv_gives_the_toy_its_columns(toy: PageResult) -> None:
    (row,) = csv.DictReader(io.StringIO(written(csv_writer("publications"), toy)))
    assert (row["site"], row["profile_name"], row["citations"]) == ("toy", "Ada Example", "12")
    assert "toy_id" in row
    (historic,) = csv.DictReader(io.StringIO(written(csv_writer("publications", "historic"), toy)))
    assert historic["toy_id"] == "zoff"
    for column_set in ("all", "historic"):
        rows = list(csv.DictReader(io.StringIO(written(csv_writer("papers", column_set), merged_with_seed(toy)))))
        (offload,) = [r for r in rows if r["citations_toy"]]
        assert (offload["citations_scholar"], offload["citations_toy"], offload["sites"]) == (
            "405", "12", "scholar; toy")


def test_bibtex_and_csl_json_export_toy_papers(toy: PageResult) -> None:
    url = f"{TOY.base_url}/papers/zoff"
    assert f"url = {{{url}}}" in written(BibtexWriter, toy)
    (item,) = json.loads(written(CslJsonWriter, toy))
    assert (item["URL"], item["title"]) == (url, "ZeRO-Offload: Democratizing Billion-Scale Model Training")
    keys = {item["id"] for item in json.loads(written(CslJsonWriter, merged_with_seed(toy)))}
    assert "ren2021zero" in keys


def test_the_toys_own_ids_key_the_store_join_papers_and_fill_its_csv_column(toy: PageResult) -> None:
    store = Store(":memory:")
    store.save("run1", "fallback", toy)
    assert [row["publication_id"] for row in store.citation_history()] == ["zoff"]
    assert store.connection.execute("SELECT profile_id FROM profiles").fetchall() == [("ada",)]
    (row,) = csv.DictReader(io.StringIO(written(csv_writer("publications"), toy)))
    assert row["toy_id"] == "zoff"
    retitled = msgspec.structs.replace(toy, publications=[
        msgspec.structs.replace(toy.publications[0], title="Another title entirely")])
    (paper,) = merge([("a", toy), ("b", retitled)]).papers
    assert [(m.reason, m.value) for m in paper.matched_by] == [("toy", "zoff")]
