"""``--enrich`` on the commands: off by default (not one connection is opened without it), a clear
usage line without a contact, ``merge`` and ``parse`` against the stand-ins (env base URLs, the
answers kept in a store so that a second run asks nothing), and a scrape job's ``[enrich]``."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import jsonschema
import pytest
from conftest import FIXTURES
from enrichapi import CONTACT, stand_ins
from fakesite import FakeSite
from scrapejobs import SCHOLAR_A, records, write_job

from pubharvest.cli import main
from pubharvest.merge import merged_json_schema
from pubharvest.parsers.records import Ids, PageResult, Profile, Publication, PublicationIds, to_builtins

ACM = "front-matter__commonmeta-py__crossref_works_doi_3_incl_acm_proceedings.yaml"
ACM_OPENALEX = "front-matter__commonmeta-py__openalex_works_doi_acm_proceedings.yaml"
ACM_DOI = "10.1145/3448016.3452841"


class Connected(AssertionError):
    pass


@pytest.fixture
def no_connections(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every attempt to open a connection, or to look a host name up, is noted and refused."""
    tried: list[object] = []
    real_lookup = socket.getaddrinfo

    def refuse(self: socket.socket, address: object) -> None:
        tried.append(address)
        raise Connected(f"a connection to {address} was opened")

    def lookup(host: object, *args: object, **kwargs: object) -> object:
        if host in (None, "localhost", "127.0.0.1"):  # the event loop's own self-pipe needs none; be exact
            return real_lookup(host, *args, **kwargs)  # type: ignore[arg-type]
        tried.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "looked up in a test that allows no connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    monkeypatch.setenv("PUBHARVEST_CONTACT", CONTACT)  # nothing may be asked even with a contact at hand
    return tried


def record_file(folder: Path) -> Path:
    """A record file of one Scholar profile page listing the VQF paper with the DOI its link gives."""
    page = PageResult(site="scholar", page="profile", profile=Profile(name="Prashant Pandey", ids=Ids(scholar="pp")),
                      publications=[Publication(
                          title="Vector quotient filters: Overcoming the time/space trade-off in filter design",
                          authors=["P Pandey", "A Conway"], year=2021, ids=PublicationIds(doi=ACM_DOI))])
    path = folder / "records.json"
    path.write_text(json.dumps([to_builtins(page)]), encoding="utf-8")
    return path


def test_without_enrich_no_connection_is_opened(no_connections: list[object], tmp_path: Path, capsys) -> None:
    page = FIXTURES / "scholar" / "handwritten_ja_profile.html"
    assert main(["parse", str(page), "-o", str(tmp_path / "out.json")]) == 0
    assert main(["merge", str(page), str(record_file(tmp_path)), "-o", str(tmp_path / "merged.json")]) == 0
    bib = tmp_path / "papers.bib"
    bib.write_text("", encoding="utf-8")
    assert main(["sync", "bib", str(bib), str(record_file(tmp_path)), "--add-missing"]) == 0
    assert main(["store", "add", str(page), "--store", str(tmp_path / "history.sqlite")]) == 0
    assert no_connections == []
    # the guard itself works: with --enrich the same run tries to connect, and the paper gets a warning
    code = main(["parse", str(page), "--enrich", "crossref", "--enrich-cache", str(tmp_path / "s.sqlite"),
                 "-o", str(tmp_path / "enriched.json")])
    assert no_connections and code == 0
    assert "warning: enrich_failed: " in capsys.readouterr().err


def test_enrich_without_a_contact_is_a_usage_error(no_connections: list[object], monkeypatch, tmp_path: Path,
                                                   capsys) -> None:
    monkeypatch.delenv("PUBHARVEST_CONTACT")
    out = tmp_path / "out.json"
    code = main(["merge", str(record_file(tmp_path)), "--enrich", "crossref,openalex", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("pubharvest merge: --enrich needs a contact e-mail") and err.count("\n") == 1
    assert no_connections == [] and not out.exists()
    assert main(["parse", str(record_file(tmp_path)), "--enrich", "scopus", "--contact", CONTACT]) == 2
    assert "unknown service 'scopus'" in capsys.readouterr().err


def test_merge_enriched_from_the_stand_ins_then_from_the_store(corpus: Path, tmp_path: Path, monkeypatch,
                                                              capsys) -> None:
    with stand_ins(corpus) as api:
        api.serve_file("crossref", "/works/10[.]1145/3448016[.]3452841", ACM, 2)
        api.serve_file("openalex", "/works/https://doi[.]org/10[.]1145/3448016[.]3452841", ACM_OPENALEX)
        monkeypatch.setenv("PUBHARVEST_CROSSREF_URL", api.crossref.url)
        monkeypatch.setenv("PUBHARVEST_OPENALEX_URL", api.openalex.url)
        store = tmp_path / "answers.sqlite"
        argv = ["merge", str(record_file(tmp_path)), "--enrich", "crossref,openalex", "--contact", CONTACT,
                "--enrich-cache", str(store)]
        assert main([*argv, "-o", str(tmp_path / "first.json")]) == 0, capsys.readouterr().err
        asked = api.requests()
        assert main([*argv, "-o", str(tmp_path / "second.json")]) == 0
        assert api.requests() == asked and len(asked) == 2  # the second run asked nothing
    first = json.loads((tmp_path / "first.json").read_text(encoding="utf-8"))
    assert (tmp_path / "second.json").read_text(encoding="utf-8") == (tmp_path / "first.json").read_text(
        encoding="utf-8")
    jsonschema.validate(first, merged_json_schema())
    paper, person = first["papers"][0], first["profiles"][0]
    assert paper["ids"]["doi"] == ACM_DOI and paper["ids"]["openalex"] == "W3174427814"
    assert paper["publisher"] == "ACM" and paper["pages"] == "1386-1399"
    assert {(p["field"], p["source"]) for p in paper["provenance"]} >= {("ids.doi", "crossref"),
                                                                        ("ids.openalex", "openalex")}
    assert person["ids"]["orcid"] == "0000-0001-5576-0320"  # the person merge knows, from OpenAlex's authorship


def test_parse_enriched_asks_with_the_contact(corpus: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    with stand_ins(corpus) as api:
        monkeypatch.setenv("PUBHARVEST_CROSSREF_URL", api.crossref.url)
        monkeypatch.setenv("PUBHARVEST_OPENALEX_URL", api.openalex.url)
        monkeypatch.setenv("PUBHARVEST_CONTACT", CONTACT)
        page = FIXTURES / "scholar" / "handwritten_ja_profile.html"
        code = main(["parse", str(page), "--enrich", "crossref", "--enrich-cache", str(tmp_path / "s.sqlite")])
        out = capsys.readouterr().out
        asked = api.crossref.log
    assert code == 0 and json.loads(out)[0]["publications"][0]["ids"]["doi"] is None  # the stand-in knew none
    titled = [path for _, path, _ in asked if "query.bibliographic=BERT-style" in path]
    assert len(titled) == 1 and f"mailto={CONTACT}" in titled[0]
    assert all(f"mailto:{CONTACT}" in agent for _, _, agent in asked)


def test_store_add_enriched_keeps_the_answers_in_its_store(corpus: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    import sqlite3

    with stand_ins(corpus) as api:
        monkeypatch.setenv("PUBHARVEST_CROSSREF_URL", api.crossref.url)
        monkeypatch.setenv("PUBHARVEST_OPENALEX_URL", api.openalex.url)
        page = FIXTURES / "scholar" / "handwritten_ja_profile.html"
        store = tmp_path / "history.sqlite"
        argv = ["store", "add", str(page), "--store", str(store), "--enrich", "crossref", "--contact", CONTACT]
        assert main(argv) == 0, capsys.readouterr().err
        asked = len(api.crossref.log)
        page_copy = tmp_path / "again.html"
        page_copy.write_bytes(page.read_bytes() + b"\n")  # other bytes: a new capture, its papers asked of the store
        assert main([*argv[:2], str(page_copy), *argv[3:]]) == 0, capsys.readouterr().err
        assert len(api.crossref.log) == asked > 0, "the second capture was answered from the store"
    with sqlite3.connect(store) as db:
        answers = db.execute("SELECT count(*) FROM enrich_answers").fetchone()[0]
        runs = db.execute("SELECT count(*) FROM profile_runs").fetchone()[0]
    db.close()
    assert answers == asked and runs == 2


# A hand-made Crossref search answer: the first row of every fake Scholar profile ("Paper 1 of USER", H Yamada,
# 2022: tests/helpers/fakesite.py) as a journal article with a DOI
FOUND = {"status": "ok", "message-type": "work-list", "message": {"items": [{
    "DOI": "10.5555/paper-1", "title": [f"Paper 1 of {SCHOLAR_A}"], "type": "journal-article",
    "author": [{"given": "Hanako", "family": "Yamada", "sequence": "first"}], "issued": {"date-parts": [[2022, 3]]},
    "container-title": ["Journal of Tests"], "score": 12.5}]}}


def test_a_scrape_job_enriches_each_record_before_it_is_kept(tmp_path: Path, capsys) -> None:
    with FakeSite() as site, FakeSite() as api:
        site.scholar[SCHOLAR_A] = 3
        api.answer("found", 200, [("Content-Type", "application/json")], json.dumps(FOUND).encode())
        api.route("/works", "found")
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
        with job.open("a", encoding="utf-8") as file:
            file.write(f'[enrich]\nservices = ["crossref"]\ncrossref_url = "{api.url}"\n')
        code = main(["scrape", str(job)])
        err = capsys.readouterr().err
        asked = api.paths()
    assert code == 0, err
    papers = records(tmp_path / "out.jsonl")[0]["publications"]
    assert [p["ids"]["doi"] for p in papers] == ["10.5555/paper-1", None, None]
    assert papers[0]["container"] == "Journal of Tests"
    assert papers[0]["date"] == "2022"  # the page's own date stays; Crossref's 2022-03 is not put over it
    refused = papers[1]["provenance"]
    assert [(p["source"], p["method"], p["accepted"]) for p in refused] == [("crossref", "query", False)]
    # "Paper 2 of ..." is 0.96 alike "Paper 1 of ...": the numbers tell them apart
    assert refused[0]["reason"].startswith("the titles' numbers differ (2 12 on the page, 1 12 in the work)")
    assert len(asked) == 3 and all("mailto=tests%40example.org" in p or "mailto=tests@example.org" in p
                                   for p in asked)
    import sqlite3

    kept = sqlite3.connect(tmp_path / "store.sqlite").execute("SELECT COUNT(*) FROM enrich_answers").fetchone()[0]
    assert kept == 3  # the job's store keeps the answers


def test_a_job_that_asks_for_enrichment_needs_a_contact_email(no_connections: list[object], monkeypatch,
                                                             tmp_path: Path, capsys) -> None:
    monkeypatch.delenv("PUBHARVEST_CONTACT")
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": "http://127.0.0.1:9"},
                    contact="https://uni.example/bots")  # enough for a User-Agent, not for the services
    assert main(["scrape", str(job), "--enrich", "crossref"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pubharvest scrape: --enrich needs a contact e-mail") and err.count("\n") == 1
    with job.open("a", encoding="utf-8") as file:
        file.write('[enrich]\nservices = ["openalex"]\n')
    assert main(["scrape", str(job)]) == 2
    assert capsys.readouterr().err.startswith("pubharvest scrape: [enrich]: --enrich needs a contact e-mail")
    assert no_connections == [] and not (tmp_path / "out.jsonl").exists()
