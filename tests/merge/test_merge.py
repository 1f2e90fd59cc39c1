"""``pubharvest merge``: one record per paper and per person across sites."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import bibtexparser
import jsonschema
import msgspec
import pandas as pd
import pytest
import rispy
from conftest import FIXTURES, ROOT

import pubharvest.parsers as parsers
from pubharvest.cli import main
from pubharvest.errors import ExitCode
from pubharvest.merge import MergeResult, Paper, merge, merged_json_schema
from pubharvest.parsers.records import (
    CitedBy,
    Coauthor,
    Ids,
    OpenAccess,
    PageResult,
    Profile,
    Publication,
    PublicationIds,
    YearCitations,
    to_builtins,
    to_json,
)

# Relative names, as the expected file records them in ``sources[].input``.
SEEDS = ["fixtures/scholar/003_9ea93ed9343d2054.txt", "fixtures/msr/001_0be51d225ce2b3fb.txt",
         "fixtures/elamur/000_e63c2e80f8ecde3e.txt"]
EXPECTED = FIXTURES / "merge" / "seeds_merged.json"


def merged_seeds() -> MergeResult:
    return merge((name, parsers.parse((ROOT / name).read_bytes())) for name in SEEDS)


def by_title(result: MergeResult) -> dict[str, Paper]:
    return {paper.title or "": paper for paper in result.papers}


def test_seeds_merge_to_the_records_checked_by_hand() -> None:
    # Fields the expected file leaves out are expected at their defaults (null, [] or false).
    want = msgspec.json.decode(EXPECTED.read_bytes(), type=MergeResult)
    assert to_builtins(merged_seeds()) == to_builtins(want)


def test_merged_records_match_their_json_schema() -> None:
    jsonschema.validate(to_builtins(merged_seeds()), merged_json_schema())


# Every paper at least two seeds share, with each source's citation count (MSR gives none).
SHARED: dict[str, dict[str, int | None]] = {
    "ZeRO-Offload: Democratizing Billion-Scale Model Training": {"scholar": 405, "msr": None, "elamur": 309},
    "ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning":
        {"scholar": 348, "msr": None, "elamur": 254},
    "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models": {"scholar": 1325, "msr": None},
    "ZeRO++: Extremely Efficient Collective Communication for Giant Model Training": {"scholar": 40, "msr": None},
    "DeepSpeed Inference: Enabling Efficient Inference of Transformer Models at Unprecedented Scale":
        {"scholar": 307, "msr": None},
    "BLOOM: A 176B-Parameter Open-Access Multilingual Language Model": {"scholar": 1750, "elamur": 1606},
    "Optimizing CNNs on Multicores for Scalability, Performance and Goodput": {"scholar": 37, "msr": None},
}


def test_seeds_give_each_shared_paper_once_with_every_sources_citations() -> None:
    result = merged_seeds()
    papers = by_title(result)
    assert len(papers) == len(result.papers) == 20 + 20 + 3 - sum(len(s) - 1 for s in SHARED.values())
    for title, citations in SHARED.items():
        assert {s.site: s.citations for s in papers[title].sources} == citations, title
    # no paper is two papers of one site: each source page lists a paper once
    assert all(len({s.site for s in p.sources}) == len(p.sources) for p in result.papers)
    others = [p for p in result.papers if p.title not in SHARED]
    assert all(len(p.sources) == 1 for p in others)


def test_zero_family_stays_apart_and_fullest_values_are_chosen() -> None:
    papers = by_title(merged_seeds())
    zeros = [t for t in papers if t.casefold().startswith("zero")]
    assert len(zeros) == 4 and len({papers[t].key for t in zeros}) == 4
    offload = papers["ZeRO-Offload: Democratizing Billion-Scale Model Training"]
    assert (offload.authors[2], len(offload.authors), offload.authors_truncated) == ("Reza Yazdani Aminabadi", 8, False)
    assert offload.ids.arxiv == "2101.06840" and offload.key == "ren2021zero"
    infinity = papers["ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning"]
    assert (infinity.venue, infinity.venue_truncated) == ("SC 2021", False)  # not Scholar's cut venue
    inference = papers["DeepSpeed Inference: Enabling Efficient Inference of Transformer Models at Unprecedented Scale"]
    assert (inference.sources[0].title or "").startswith("Deepspeed-inference")
    assert (inference.type, inference.ids.report_number) == ("report", "MSR-TR-2022-21")


def test_profiles_of_one_person_merge_by_name_and_coauthors() -> None:
    (profile,) = merged_seeds().profiles
    assert [s.site for s in profile.sources] == ["msr", "elamur"]
    assert profile.matched_by[0].reason == "name_coauthors"
    assert profile.ids.orcid == "0000-0002-5508-0728"


# --- matching rules ------------------------------------------------------------------------------


def page(site: str, *pubs: Publication, profile: Profile | None = None) -> PageResult:
    # until PageResult.site is a plain str checked against the registry
    return PageResult(site=site,
                      page="publication_list", publications=list(pubs), profile=profile)


def pub(title: str, year: int | None = 2021, **fields) -> Publication:
    return Publication(title=title, year=year, authors=["A Author"], **fields)


def merged_titles(*pages: PageResult) -> list[list[str | None]]:
    return [[s.title for s in p.sources] for p in merge((None, p) for p in pages).papers]


def test_identifiers_match_before_titles() -> None:
    a = pub("Deep nets", ids=PublicationIds(doi="10.1/ABC"))
    b = pub("Deep networks, the journal version", year=2023, ids=PublicationIds(doi="10.1/abc"))
    (paper,) = merge([(None, page("scholar", a)), (None, page("msr", b))]).papers
    assert [(m.reason, m.value) for m in paper.matched_by] == [("doi", "10.1/abc")]


def test_an_isbn_only_confirms_a_title_since_proceedings_share_theirs() -> None:
    isbn = PublicationIds(isbn="978-1-4673-8815-3")
    same = merge([(None, page("msr", pub("SERF", ids=isbn))),
                  (None, page("scholar", pub("SERF: efficient scheduling", ids=PublicationIds(isbn="9781467388153"))))])
    assert [[m.reason for m in p.matched_by] for p in same.papers] == [["isbn"]]
    assert len(merged_titles(page("msr", pub("SERF", ids=isbn)), page("scholar", pub("Other", ids=isbn)))) == 2


def test_the_same_scholar_row_on_two_saves_of_a_profile_is_one_paper(read_corpus) -> None:
    pages = [(name, parsers.parse(read_corpus(f"scholar/profile_8daWuo4AAAAJ_{name}_2019.html")))
             for name in ("en_pagesize2_bborrel", "fr_bborrel")]
    result = merge(pages)
    (profile,) = result.profiles
    assert [(m.reason, m.value) for m in profile.matched_by] == [("scholar", "8daWuo4AAAAJ")]
    shared = [p for p in result.papers if len(p.sources) == 2]
    assert shared and all(p.matched_by[0].reason == "scholar" for p in shared)
    assert all((p.matched_by[0].value or "").startswith("8daWuo4AAAAJ:") for p in shared)


def test_scholar_merged_rows_do_not_chain_different_works(read_corpus) -> None:
    """Scholar's merged rows share cluster ids and ``duplicate_of`` across different works
    (distinct letters to Besso): the merge does not join on them."""
    rows = parsers.parse(read_corpus("scholar/fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html"))
    assert len(merge([(None, rows)]).papers) == len(rows.publications)


def test_a_paper_on_two_scholar_profiles_merges_despite_their_own_ids() -> None:
    a = pub("Sparse widgets", ids=PublicationIds(scholar="AAAAAAAAAAAJ:u5HHmVD_uO8C"))
    b = pub("Sparse widgets", ids=PublicationIds(scholar="BBBBBBBBBBBJ:d1gkVwhDpl0C"))
    assert len(merged_titles(page("scholar", a), page("scholar", b))) == 1


@pytest.mark.parametrize("a,b,apart", [
    (pub("Sparse widgets"), pub("SPARSE  Widgets", year=2022), False),           # a year apart
    (pub("Sparse widgets"), pub("Sparse widgets", year=2023), True),             # two years apart
    (pub("Sparse widgets for fast inference and training on GPUs…"),
     pub("Sparse widgets for fast inference and training on GPUs at scale"), False),  # cut title
    (pub("Attention is all you need"), pub("Attention is all you need in speech separation"), True),
    (pub("Sparse widgets", ids=PublicationIds(arxiv="2101.00001")),
     pub("Sparse widgets", ids=PublicationIds(arxiv="2101.00002")), True),      # different arXiv ids
])
def test_title_matching(a: Publication, b: Publication, apart: bool) -> None:
    groups = merged_titles(page("scholar", a), page("elamur", b))
    assert len(groups) == (2 if apart else 1)


def test_one_page_listing_two_papers_of_one_title_keeps_them_apart() -> None:
    assert len(merged_titles(page("msr", pub("Overview"), pub("Overview")))) == 2


def test_cut_values_lose_to_whole_ones() -> None:
    a = pub("Sparse widgets", venue="Proceedings of the international", venue_truncated=True,
            authors_truncated=True)
    b = Publication(title="Sparse Widgets", year=2021, venue="ICML 2021", authors=["Ada Example", "Ben Sample"])
    (paper,) = merge([(None, page("scholar", a)), (None, page("msr", b))]).papers
    assert (paper.title, paper.venue, paper.authors, paper.authors_truncated) == (
        "Sparse Widgets", "ICML 2021", ["Ada Example", "Ben Sample"], False)


def test_title_casing_prefers_mixed_case_to_capitals_and_to_lower_case() -> None:
    titles = ["ZERO-OFFLOAD: DEMOCRATIZING TRAINING", "Zero-offload: Democratizing training",
              "ZeRO-Offload: Democratizing Training"]
    (paper,) = merge((None, page(site, pub(t)))
                     for site, t in zip(("msr", "scholar", "elamur"), titles, strict=True)).papers
    assert paper.title == titles[2]


def person(name: str, coauthors: list[str], **ids) -> Profile:
    return Profile(name=name, ids=Ids(**ids), coauthors=[Coauthor(name=c) for c in coauthors])


@pytest.mark.parametrize("a,b,together", [
    (person("Ada Example", [], orcid="0000-0001"), person("A. Example", [], orcid="0000-0001"), True),
    (person("Ada Example", ["Ben Sample", "Carla Placeholder"]),
     person("A Example", ["B Sample", "C Placeholder"]), True),
    (person("Ada Example", ["Ben Sample"]), person("Ada Example", ["Zed Other", "Yan Else"]), False),
    (person("Ada Example", ["Ben Sample", "Carla Placeholder"], orcid="0000-0001"),
     person("Ada Example", ["Ben Sample", "Carla Placeholder"], orcid="0000-0002"), False),
])
def test_profiles_merge_on_ids_or_name_and_coauthors(a: Profile, b: Profile, together: bool) -> None:
    profiles = merge([(None, page("msr", profile=a)), (None, page("elamur", profile=b))]).profiles
    assert len(profiles) == (1 if together else 2)


# --- the command -------------------------------------------------------------------------------


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_merge_reads_parse_output_like_the_pages(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    code, records, _ = run(capsys, "parse", "-f", "jsonl", *SEEDS)
    (tmp_path / "seeds.jsonl").write_text(records, encoding="utf-8")
    code_json, array, _ = run(capsys, "parse", *SEEDS[:2])
    (tmp_path / "two.json").write_text(array, encoding="utf-8")
    (tmp_path / "seeds.jsonl.gz").write_bytes(gzip.compress(records.encode()))
    from_pages = json.loads(run(capsys, "merge", *SEEDS)[1])
    from_jsonl = json.loads(run(capsys, "merge", str(tmp_path / "seeds.jsonl.gz"))[1])
    from_mixed = json.loads(run(capsys, "merge", str(tmp_path / "two.json"), SEEDS[2])[1])

    def without_inputs(merged: dict) -> dict:
        for record in merged["papers"] + merged["profiles"]:
            for source in record["sources"]:
                source.pop("input")
        return merged

    assert (code, code_json) == (0, 0)
    assert without_inputs(from_jsonl) == without_inputs(from_pages) == without_inputs(from_mixed)


@pytest.mark.parametrize("fmt", ["bibtex", "csl-json", "ris", "orcid", "csv", "jsonl"])
def test_merge_writes_every_format(capsys, fmt: str, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "merge", "-f", fmt, *SEEDS)
    assert (code, [line for line in err.splitlines() if ": warning: " not in line]) == (0, [])  # warnings print
    if fmt == "ris":
        records = rispy.loads(out)
        assert len(records) == 34 and "ren2021zero" in {record["id"] for record in records}
    elif fmt == "orcid":  # the seeds' papers that no id names are left out, each with its line
        left_out = [line for line in err.splitlines() if line.startswith("pubharvest: warning: orcid: ")]
        assert len(json.loads(out)) + len(left_out) == 34 and left_out
    elif fmt == "bibtex":
        library = bibtexparser.parse_string(out)
        assert library.failed_blocks == [] and len(library.entries) == 34
        assert {"ren2021zero", "rajbhandari2021zero", "rajbhandari2020zero", "wang2024zero"} <= {
            e.key for e in library.entries}
    elif fmt == "csl-json":
        assert len(json.loads(out)) == 34
    elif fmt == "csv":
        frame = pd.read_csv(io.StringIO(out))
        assert len(frame) == 34 and pd.api.types.is_numeric_dtype(frame["citations_scholar"])
        assert pd.api.types.is_bool_dtype(frame["authors_truncated"])
        row = frame.set_index("key").loc["ren2021zero"]
        assert (row["citations_scholar"], row["citations_elamur"]) == (405, 309)
    else:
        assert len(out.splitlines()) == 34


def test_merge_bad_inputs_are_one_line_each_and_a_refused_record_file_exits_6(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('[{"site": "msr", "page": "profile", "frobs": 1}]', encoding="utf-8")
    empty = tmp_path / "empty.json"
    empty.write_text("[]", encoding="utf-8")
    merged = tmp_path / "merged.json"
    merged.write_text('{"profiles": [], "papers": []}', encoding="utf-8")
    code, out, err = run(capsys, "merge", str(bad), str(empty), str(tmp_path / "missing.txt"),
                         str(merged), str(ROOT / SEEDS[2]))
    assert code == ExitCode.BAD_RECORDS and len(json.loads(out)["papers"]) == 3
    lines = err.splitlines()
    assert len(lines) == 3
    assert lines[0] == f"{bad}: bad_records: record 1: object contains unknown field frobs"
    assert lines[1] == f"{tmp_path / 'missing.txt'}: unreadable: No such file or directory"
    assert lines[2] == f"{merged}: unrecognised: the output of `pubharvest merge`: merge reads pages and page results"


@pytest.mark.parametrize("command", ["merge", "parse"])
def test_an_output_that_cannot_be_written_is_one_line(capsys, tmp_path: Path, command: str) -> None:
    target = tmp_path / "no such folder" / "out.json"
    code, out, err = run(capsys, command, str(ROOT / SEEDS[2]), "-o", str(target))
    assert (code, out) == (1, "")
    assert err == f"{target}: unwritable: No such file or directory\n"


def test_schema_merged_prints_the_merged_schema(capsys) -> None:
    code, out, _ = run(capsys, "schema", "--merged")
    assert code == 0 and {"Paper", "SourceRecord", "Match"} <= set(json.loads(out)["$defs"])


def stamped_page(site: str, cites: int, when: str, url: str = "https://example.org/ada") -> PageResult:
    from pubharvest.parsers.records import Source

    return PageResult(site=site, page="profile", url=url, profile=Profile(name="Ada Example", url=url),
                      publications=[pub("Deep nets", citations=cites, ids=PublicationIds(doi="10.1/x"))],
                      source=Source(sha256="0", parser=f"{site}.profile", run=when, fetched_at=when))


def test_merge_keeps_the_latest_record_per_source_and_gives_the_latest_count_beside_the_max() -> None:
    """An append-only job output holds every week's record of a profile: merge keeps the latest
    (by fetch time, not by input order) and says its count beside the highest."""
    weeks = [stamped_page("scholar", 50, "2024-05-08T00:00:00Z"), stamped_page("scholar", 40, "2024-05-01T00:00:00Z"),
             stamped_page("msr", 60, "2024-04-01T00:00:00Z", "https://msr.example/ada")]
    result = merge((None, page) for page in weeks)
    [paper] = result.papers
    assert [(s.site, s.citations, s.fetched_at) for s in paper.sources] == [
        ("scholar", 50, "2024-05-08T00:00:00Z"), ("msr", 60, "2024-04-01T00:00:00Z")]
    assert (paper.citations_max, paper.citations_latest) == (60, 50)
    assert [len(p.sources) for p in result.profiles] == [1, 1]
    assert result.profiles[0].sources[0].run == "2024-05-08T00:00:00Z"


def test_arxivs_own_doi_joins_the_preprint_by_its_arxiv_id() -> None:
    # A record that names the preprint by arXiv's DOI (as Crossref, OpenAlex or DataCite give it) and a Scholar
    # row that names it by the arXiv id of its venue are one paper, whatever their titles.
    doi = PageResult(site="msr", page="publication", publications=[Publication(
        title="ZeRO-Offload", year=2021, ids=PublicationIds(doi="10.48550/arxiv.2101.06840"))])
    row = PageResult(site="scholar", page="rows", publications=[Publication(
        title="Democratizing billion-scale model training", year=2021, venue="arXiv preprint arXiv:2101.06840",
        ids=PublicationIds(arxiv="2101.06840"))])
    [paper] = merge([("a", doi), ("b", row)]).papers
    assert [m.reason for m in paper.matched_by] == ["arxiv"]
    assert (paper.ids.doi, paper.ids.arxiv) == ("10.48550/arxiv.2101.06840", "2101.06840")


def test_what_enrich_added_is_kept_on_the_merged_paper_and_each_source(capsys, tmp_path: Path) -> None:
    # Two records of one paper (one DOI), each enriched on another day: OpenAlex counted 3 citing works on
    # 2 January and 5 on 1 March; only the Scholar record got an open-access answer.
    doi = PublicationIds(doi="10.1145/3448016.3452841")
    oa = OpenAccess(is_oa=True, status="green", url="https://arxiv.org/pdf/2104.00001")
    january = CitedBy(source="openalex", citations=3, by_year=[YearCitations(year=2025, citations=3)],
                      date="2026-01-02")
    march = CitedBy(source="openalex", citations=5, by_year=[YearCitations(year=2025, citations=3),
                                                             YearCitations(year=2026, citations=2)], date="2026-03-01")
    scholar = PageResult(site="scholar", page="rows", publications=[Publication(
        title="VQF", year=2021, ids=doi, open_access=oa, cited_by=[january])])
    msr = PageResult(site="msr", page="publication", publications=[Publication(
        title="VQF", year=2021, ids=doi, cited_by=[march])])
    for name, page in (("scholar.json", scholar), ("msr.json", msr)):
        (tmp_path / name).write_bytes(to_json(page))
    assert main(["merge", str(tmp_path / "scholar.json"), str(tmp_path / "msr.json")]) == 0
    [paper] = json.loads(capsys.readouterr().out)["papers"]
    assert paper["open_access"] == {"is_oa": True, "status": "green", "url": "https://arxiv.org/pdf/2104.00001"}
    assert [(c["source"], c["citations"], c["date"]) for c in paper["cited_by"]] == [("openalex", 5, "2026-03-01")]
    assert [(s["site"], s["open_access"] is not None, [c["citations"] for c in s["cited_by"]])
            for s in paper["sources"]] == [("scholar", True, [3]), ("msr", False, [5])]
    jsonschema.validate({"papers": [paper]}, merged_json_schema())
