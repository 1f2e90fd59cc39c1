"""``pubharvest.frames()``, the ``--table`` CSVs and ``--format parquet``.

Counts and sums are checked against the fixtures' expected records (checked by hand against the
pages), against figures typed from a real corpus page, and the Parquet files are read back with
pandas and with DuckDB.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections.abc import Hashable
from importlib.metadata import version
from pathlib import Path

import duckdb
import msgspec
import pandas as pd
import pyarrow.parquet
import pytest
from conftest import FIXTURES, ROOT
from test_fixtures import PAIRS
from test_merge import SEEDS
from test_report import three_run_store

from pubharvest import MissingDependency, PubharvestError, frames, parse
from pubharvest.cli import main
from pubharvest.dataframes import write_parquet
from pubharvest.merge import merge
from pubharvest.parsers.records import PageResult, Publication, YearCitations
from pubharvest.store import Store
from pubharvest.tables import CLI_TABLES, MERGED_TABLES, TABLES, selected

CORPUS_PROFILE = "scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html"
JA_PROFILE = FIXTURES / "scholar" / "handwritten_ja_profile.html"
SEEDS_MERGED = FIXTURES / "merge" / "seeds_merged.json"
PAGE_TABLES = ["profiles", "publications", "citations_by_year", "coauthors"]


def parsed_pairs() -> list[tuple[Path, dict]]:
    """Every fixture page that parses, with its expected record (a dict, fields left out at defaults)."""
    pairs = [(page, json.loads(expected.read_text(encoding="utf-8"))) for page, expected in PAIRS]
    return [(page, want) for page, want in pairs if "error" not in want]


def fixture_results() -> list[tuple[str, PageResult]]:
    return [(str(page), parse(page.read_bytes(), url=want.get("url"))) for page, want in parsed_pairs()]


def listed(frame: pd.DataFrame, column: Hashable) -> list:
    """A column's values as Python objects: NA as None, arrays (from Parquet) as lists."""
    return [None if _missing(v) else (list(v) if hasattr(v, "__len__") and not isinstance(v, str) else v)
            for v in frame[column].astype(object)]


def query(sql: str) -> list[tuple]:
    """The rows DuckDB gives for ``sql``."""
    relation = duckdb.sql(sql)
    assert relation is not None
    return relation.fetchall()


def _missing(value) -> bool:
    return not hasattr(value, "__len__") and pd.isna(value)


# --- counts and sums against the hand-checked records -----------------------------------------------------

def test_frames_of_the_fixtures_count_and_sum_as_their_expected_records() -> None:
    wants = [want for _, want in parsed_pairs()]
    profiles = [w["profile"] for w in wants if w.get("profile")]
    pubs = [p for w in wants for p in w.get("publications", [])]
    tables = frames(fixture_results())
    assert sorted(tables) == sorted(PAGE_TABLES)
    assert len(tables["profiles"]) == len(profiles)
    assert len(tables["publications"]) == len(pubs)
    assert tables["publications"]["citations"].sum() == sum(p.get("citations") or 0 for p in pubs)
    assert tables["publications"]["citations"].isna().sum() == sum(p.get("citations") is None for p in pubs)
    assert tables["publications"]["authors"].map(len).sum() == sum(len(p.get("authors", [])) for p in pubs)
    assert tables["publications"]["year"].count() == sum(p.get("year") is not None for p in pubs)
    for metric in ("citations", "h_index", "i10_index", "works", "library_works"):
        want = [p.get("metrics", {}).get(metric) for p in profiles]
        assert tables["profiles"][metric].sum() == sum(v or 0 for v in want), metric
        assert tables["profiles"][metric].count() == sum(v is not None for v in want), metric
    years = tables["citations_by_year"]
    for scope, owners in (("profile", profiles), ("publication", pubs)):
        bars = [bar for owner in owners for bar in owner.get("citations_by_year", [])]
        rows = years[years["scope"] == scope]
        assert (len(rows), rows["citations"].sum()) == (len(bars), sum(b["citations"] for b in bars)), scope
    assert (years["scope"] == "publication").any()  # the paper pages' own histograms
    coauthors = [c for p in profiles for c in p.get("coauthors", [])]
    assert len(tables["coauthors"]) == len(coauthors)
    assert tables["coauthors"]["papers"].sum() == sum(c.get("papers") or 0 for c in coauthors)


def test_the_tables_have_nullable_integers_booleans_categories_and_lists() -> None:
    tables = frames(fixture_results())
    pubs, profiles = tables["publications"], tables["profiles"]
    for column in ("year", "citations", "position"):
        assert str(pubs[column].dtype) == "Int64", column
    for column in ("citations", "h_index", "i10_index", "since_year", "publications", "public_access_available"):
        assert str(profiles[column].dtype) == "Int64", column
    for column in ("authors_truncated", "venue_truncated"):
        assert str(pubs[column].dtype) == "boolean", column
    for frame in tables.values():
        assert isinstance(frame["site"].dtype, pd.CategoricalDtype)
        assert list(frame["site"].cat.categories[:3]) == ["scholar", "msr", "elamur"]
    assert isinstance(pubs["type"].dtype, pd.CategoricalDtype)
    assert isinstance(tables["citations_by_year"]["scope"].dtype, pd.CategoricalDtype)
    assert all(isinstance(v, list) for column in ("authors", "flags", "scholar_clusters", "facet_years")
               for v in pubs[column])
    assert str(pubs["doi"].dtype) == "string"


def test_the_japanese_profile_row_by_row() -> None:
    """Figures typed from fixtures/scholar/handwritten_ja_profile.html."""
    tables = frames(parse(JA_PROFILE.read_bytes()))
    row = tables["profiles"].iloc[0]
    assert (row["site"], row["profile_id"], row["profile_name"], row["page"]) == (
        "scholar", "Yamada12AAAAJ", "山田 花子", "profile")
    assert [row[m] for m in ("citations", "citations_since", "since_year", "h_index", "h_index_since", "i10_index",
                             "i10_index_since")] == [1234, 567, 2021, 15, 11, 20, 12]
    assert pd.isna(row["works"]) and row["publications"] == 4 and row["coauthors"] == 2
    pubs = tables["publications"]
    assert set(pubs["profile_id"]) == {"Yamada12AAAAJ"} and set(pubs["profile_name"]) == {"山田 花子"}
    assert list(pubs["position"]) == [1, 2, 3, 4]
    coauthors = tables["coauthors"]
    assert list(coauthors["name"]) == ["田中 一郎", "Jane Smith"]
    assert list(coauthors["affiliation"]) == ["京都大学", "Example Lab"]


def test_a_real_corpus_profile(read_corpus) -> None:
    """Figures typed from the page: the citations box (56, 30 since 2021; h 4, 2; i10 2, 1), 12 rows
    whose counts add up to 56, and an axis of 2012-2025 whose 12 bars add up to 55."""
    tables = frames([parse(read_corpus(CORPUS_PROFILE))])
    row = tables["profiles"].iloc[0]
    assert (row["profile_id"], row["scholar_id"], row["profile_name"]) == (
        "LZ5D_p4AAAAJ", "LZ5D_p4AAAAJ", "Doaa Elmatary")
    assert [row[m] for m in ("citations", "citations_since", "h_index", "h_index_since", "i10_index",
                             "i10_index_since")] == [56, 30, 4, 2, 2, 1]
    pubs = tables["publications"]
    assert (len(pubs), pubs["citations"].sum()) == (12, 56)
    assert list(pubs["citations"][:7]) == [25, 15, 6, 4, 3, 2, 1]
    assert set(pubs["page_url"]) == {"https://scholar.google.com/citations?user=LZ5D_p4AAAAJ&hl=ar"}
    years = tables["citations_by_year"]
    assert list(years["year"]) == list(range(2012, 2026))
    assert (years["citations"].sum(), (years["citations"] == 0).sum()) == (55, 2)
    assert set(years["profile_id"]) == {"LZ5D_p4AAAAJ"} and years["publication_id"].isna().all()


def test_frames_of_every_corpus_page_count_as_its_records(corpus: Path) -> None:
    results = []
    for page in sorted(corpus.rglob("*")):
        try:
            results.append(parse(page.read_bytes()))
        except (PubharvestError, IsADirectoryError):
            continue
    assert len(results) >= 8  # the Scholar profiles and fragment, the MSR and Elamur pages the corpus has
    tables = frames(results)
    pubs = [pub for r in results for pub in r.publications]
    assert len(tables["publications"]) == len(pubs)
    assert tables["publications"]["citations"].sum() == sum(p.citations or 0 for p in pubs)
    with_profile = [r.profile for r in results if r.profile]
    assert len(tables["profiles"]) == len(with_profile)
    assert tables["profiles"]["citations"].sum() == sum(p.metrics.citations or 0 for p in with_profile)
    assert len(tables["coauthors"]) == sum(len(p.coauthors) for p in with_profile)
    years = tables["citations_by_year"]
    assert years[years["scope"] == "profile"]["citations"].sum() == sum(
        b.citations for p in with_profile for b in p.citations_by_year)
    assert years[years["scope"] == "publication"]["citations"].sum() == sum(
        b.citations for p in pubs for b in p.citations_by_year)


def test_a_publications_own_histogram_when_the_record_has_one() -> None:
    """``Publication.citations_by_year`` is read when the record model has it (a subclass stands in)."""

    class WithYears(Publication, kw_only=True):
        citations_by_year: list[YearCitations] = []  # noqa: RUF012 (a Struct: msgspec copies it)

    pub = WithYears(title="T", ids=msgspec.convert({"msr": "t-1"}, type=type(Publication().ids)),
                    citations_by_year=[YearCitations(year=2020, citations=3), YearCitations(year=2021, citations=4)])
    years = frames(PageResult(site="msr", page="publication", publications=[pub, Publication(title="U")]))
    table = years["citations_by_year"]
    assert list(table["scope"]) == ["publication", "publication"]
    assert (list(table["position"]), list(table["publication_id"]), list(table["title"])) == ([1, 1], ["t-1"] * 2,
                                                                                              ["T", "T"])
    assert (list(table["year"]), list(table["citations"])) == ([2020, 2021], [3, 4])


# --- merged input ---------------------------------------------------------------------------------------

def test_frames_of_a_merge_as_json_give_papers_and_their_sources() -> None:
    """The merge of the three seeds, read as the JSON `pubharvest merge` writes (checked by hand)."""
    merged = json.loads(SEEDS_MERGED.read_text(encoding="utf-8"))
    tables = frames([merged])
    papers, sources = tables["papers"], tables["paper_sources"]
    assert (len(papers), len(sources)) == (len(merged["papers"]), sum(len(p["sources"]) for p in merged["papers"]))
    assert list(papers["key"]) == [p["key"] for p in merged["papers"]]
    assert list(papers["sources"]) == [len(p["sources"]) for p in merged["papers"]]
    for site in ("scholar", "msr", "elamur"):
        want = [max((s["citations"] for s in p["sources"] if s["site"] == site and s.get("citations") is not None),
                    default=None) for p in merged["papers"]]
        assert listed(papers, f"citations_{site}") == want, site
    assert listed(sources, "citations") == [s.get("citations") for p in merged["papers"] for s in p["sources"]]
    assert list(sources["key"]) == [p["key"] for p in merged["papers"] for _ in p["sources"]]
    zero = papers[papers["key"] == "ren2021zero"].iloc[0]
    assert list(zero["sites"]) == ["scholar", "msr", "elamur"]  # tests/merge/test_merge.py: SHARED, from the pages
    assert (zero["citations_scholar"], zero["citations_elamur"], zero["citations_max"]) == (405, 309, 405)
    assert pd.isna(zero["citations_msr"])
    assert all(len(frame) == 0 for name, frame in tables.items() if name in PAGE_TABLES)


def test_frames_take_pairs_records_and_a_store(tmp_path: Path) -> None:
    pairs = fixture_results()
    as_json = [json.loads(msgspec.json.encode(result)) for _, result in pairs]
    by_pairs, by_json = frames(pairs), frames(as_json)
    for name in PAGE_TABLES:
        pd.testing.assert_frame_equal(by_pairs[name], by_json[name])
    from pubharvest.store import Store

    store = Store(three_run_store(tmp_path / "store.sqlite"), readonly=True)
    try:
        stored = frames(store)
    finally:
        store.close()
    assert (len(stored["profiles"]), len(stored["publications"])) == (1, 30)
    assert list(stored["profiles"]["h_index"]) == [22]  # the last of the three runs: 10 + 12


def test_frames_of_a_warc_and_its_parquet(capsys, tmp_path: Path) -> None:
    """A job's archive of the Japanese profile: ``archive_results`` pairs, and ``parse X.warc.gz -f parquet``."""
    from pubharvest.scrapers.archive import ArchiveWriter, archive_results

    archive = tmp_path / "job.warc.gz"
    writer = ArchiveWriter(archive, {"software": "pubharvest", "job": "test"})
    response = writer.make_id()
    writer.exchange("GET", "https://scholar.google.com/citations?user=Yamada12AAAAJ&hl=ja", [], 200, "OK",
                    [("Content-Type", "text/html; charset=utf-8")], JA_PROFILE.read_bytes(), response)
    writer.target_done("run7", "scholar:Yamada12AAAAJ", "done", [response], "2026-01-02T03:04:05Z")
    writer.close()
    tables = frames(archive_results(archive))
    assert (list(tables["profiles"]["run"]), list(tables["profiles"]["fetched_at"])) == (
        ["run7"], ["2026-01-02T03:04:05Z"])
    assert len(tables["publications"]) == 4 and set(tables["publications"]["profile_id"]) == {"Yamada12AAAAJ"}
    assert run(capsys, "parse", str(archive), "-f", "parquet", "-o", str(tmp_path / "out"))[0] == 0
    assert query(f"SELECT profile_id, run, citations FROM read_parquet('{tmp_path / 'out' / 'profiles.parquet'}')") == [
        ("Yamada12AAAAJ", "run7", 1234)]


@pytest.mark.parametrize("bad", [42, ["not a record"], [{"site": "nowhere", "page": "profile"}]])
def test_what_is_not_records_is_one_error(bad) -> None:
    with pytest.raises(PubharvestError) as caught:
        frames(bad)
    assert caught.value.code == "bad_records" and "\n" not in caught.value.message


def test_without_pandas_frames_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(MissingDependency) as caught:
        frames([])
    assert (caught.value.code, caught.value.message) == (
        "missing_dependency", "pubharvest.frames needs pandas: pip install 'pubharvest[pandas]'")


def test_pubharvest_and_its_command_line_import_no_pandas() -> None:
    code = "import sys, pubharvest, pubharvest.cli; pubharvest.frames; print('pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# --- Parquet ---------------------------------------------------------------------------------------------

def test_parquet_files_read_back_equal_the_frames_in_pandas_and_duckdb(tmp_path: Path) -> None:
    pages = fixture_results()
    tables = frames([*pages, merge(pages)])
    written = write_parquet(tmp_path / "out", tables)
    assert sorted(p.name for p in written) == sorted(f"{name}.parquet" for name in tables)
    for path in written:
        want = tables[path.stem]
        back = pd.read_parquet(path)
        assert list(back.dtypes.astype(str)) == list(want.dtypes.astype(str)), path.stem
        rows = query(f"SELECT * FROM read_parquet('{path}')")
        assert [d[0] for d in query(f"DESCRIBE SELECT * FROM read_parquet('{path}')")] == list(want)
        for i, column in enumerate(want):
            expected = listed(want, column)
            assert listed(back, column) == expected, (path.stem, column)
            assert [row[i] for row in rows] == expected, (path.stem, column)


def test_an_empty_table_keeps_its_column_types_in_parquet(tmp_path: Path) -> None:
    write_parquet(tmp_path, frames([]))
    described = query(f"DESCRIBE SELECT * FROM read_parquet('{tmp_path / 'publications.parquet'}')")
    types = {row[0]: row[1] for row in described}
    assert (types["year"], types["authors"], types["authors_truncated"], types["title"]) == (
        "BIGINT", "VARCHAR[]", "BOOLEAN", "VARCHAR")


# --- the command line ------------------------------------------------------------------------------------

def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0 and capsys.readouterr().out == f"pubharvest {version('pubharvest')}\n"


def test_csv_tables_have_their_columns_and_the_profile_on_every_row(capsys) -> None:
    code, out, _ = run(capsys, "parse", str(JA_PROFILE), "--format", "csv", "--table", "coauthors")
    assert code == 0 and out.splitlines()[0] == (
        "site,profile_id,profile_name,position,name,affiliation,email_domain,scholar_id,scholar_org,orcid,openalex,"
        "wikidata,msr_id,elamur_id,papers,url")
    assert [(r["profile_id"], r["name"], r["affiliation"]) for r in csv_rows(out)] == [
        ("Yamada12AAAAJ", "田中 一郎", "京都大学"), ("Yamada12AAAAJ", "Jane Smith", "Example Lab")]
    code, out, _ = run(capsys, "parse", str(JA_PROFILE), "--format", "csv", "--table", "citations")
    assert code == 0 and out.splitlines()[0] == (
        "site,profile_id,profile_name,scope,position,publication_id,title,year,citations")
    code, out, _ = run(capsys, "parse", str(JA_PROFILE), "-f", "csv", "--table", "profiles")
    (row,) = csv_rows(out)
    assert (row["profile_id"], row["citations"], row["h_index"], row["interests"]) == (
        "Yamada12AAAAJ", "1234", "15", "自然言語処理; Machine Learning")


def test_the_publications_csv_gains_the_profile_id_and_page_url(capsys) -> None:
    code, out, _ = run(capsys, "parse", str(JA_PROFILE), "--format", "csv")
    rows = csv_rows(out)
    assert code == 0 and len(rows) == 4
    assert {(r["profile_name"], r["profile_id"], r["page_url"]) for r in rows} == {
        ("山田 花子", "Yamada12AAAAJ", "https://scholar.google.com/citations?user=Yamada12AAAAJ&hl=ja")}
    assert run(capsys, "parse", str(JA_PROFILE), "--format", "csv", "--table", "publications")[1] == out


def test_merge_csv_tables(capsys) -> None:
    seeds = [str(ROOT / name) for name in SEEDS]
    code, papers, _ = run(capsys, "merge", *seeds, "--format", "csv")
    assert code == 0 and papers == run(capsys, "merge", *seeds, "--format", "csv", "--table", "papers")[1]
    code, out, _ = run(capsys, "merge", *seeds, "--format", "csv", "--table", "paper_sources")
    merged = json.loads(SEEDS_MERGED.read_text(encoding="utf-8"))
    assert [(r["key"], r["site"]) for r in csv_rows(out)] == [
        (p["key"], s["site"]) for p in merged["papers"] for s in p["sources"]]
    code, out, _ = run(capsys, "merge", *seeds, "--format", "csv", "--table", "profiles")
    assert sorted(r["site"] for r in csv_rows(out)) == ["elamur", "msr", "scholar"]


def test_parquet_of_parse_merge_and_store_export(capsys, tmp_path: Path) -> None:
    pages = [str(page) for page, _ in parsed_pairs()]
    assert run(capsys, "parse", *pages, "--format", "parquet", "-o", str(tmp_path / "parse"))[0] == 0
    results = fixture_results()
    tables = frames(results)
    for name in PAGE_TABLES:
        count = query(f"SELECT count(*) FROM read_parquet('{tmp_path / 'parse' / name}.parquet')")
        assert count == [(len(tables[name]),)], name
    assert run(capsys, "merge", *pages, "-f", "parquet", "-o", str(tmp_path / "merge"))[0] == 0
    assert sorted(p.name for p in (tmp_path / "merge").iterdir()) == sorted(
        f"{n}.parquet" for n in [*PAGE_TABLES, "papers", "paper_sources"])
    papers = pd.read_parquet(tmp_path / "merge" / "papers.parquet")
    assert len(papers) == len(merge(results).papers)
    store = str(three_run_store(tmp_path / "store.sqlite"))
    assert run(capsys, "store", "export", "--store", store, "-f", "parquet", "-o", str(tmp_path / "store"))[0] == 0
    assert len(pd.read_parquet(tmp_path / "store" / "publications.parquet")) == 30


# --- one description per table: the CSV of each is its Parquet file's columns -----------------------------

def csv_header_and_rows(path: Path) -> tuple[list[str], int]:
    """A CSV file's header row and how many rows follow it, read with the csv module."""
    with path.open(encoding="utf-8", newline="") as stream:
        header, *rows = csv.reader(stream)
    return header, len(rows)


def parquet_columns_and_rows(path: Path) -> tuple[list[str], int]:
    """A Parquet file's column names and row count, read with pyarrow."""
    metadata = pyarrow.parquet.read_metadata(path)
    return metadata.schema.to_arrow_schema().names, metadata.num_rows


def csv_of(capsys, target: Path, *argv: str) -> Path:
    """``target``, the CSV file ``pubharvest ARGV... --format csv -o TARGET`` wrote (it must succeed)."""
    assert run(capsys, *argv, "--format", "csv", "-o", str(target))[0] == 0, argv
    return target


def fixture_store(path: Path) -> Path:
    """A store of every fixture page, saved by one run (each under its path when it names no id)."""
    store = Store(path)
    for name, result in fixture_results():
        store.save("run1", name, result)
    store.close()
    return path


def test_every_tables_csv_header_is_its_parquet_files_columns(capsys, tmp_path: Path) -> None:
    """For ``parse``, ``merge`` and ``store export`` of the fixture pages, every table's CSV (``--table``,
    and the default CSV) has the header and the row count of that table's Parquet file."""
    pages = [str(page) for page, _ in parsed_pairs()]
    store = str(fixture_store(tmp_path / "store.sqlite"))
    commands = {"parse": ["parse", *pages], "merge": ["merge", *pages], "store": ["store", "export", "--store", store]}
    defaults = {"parse": "publications", "merge": "papers", "store": "publications"}
    checked = set()
    for command, argv in commands.items():
        folder = tmp_path / f"{command}-parquet"
        assert run(capsys, *argv, "--format", "parquet", "-o", str(folder))[0] == 0, command
        tables = {table: name for table, name in CLI_TABLES.items()
                  if command == "merge" or name not in MERGED_TABLES}
        for table, name in [*tables.items(), (None, defaults[command])]:
            written = csv_of(capsys, tmp_path / f"{command}-{table}.csv", *argv, *(["--table", table] if table else []))
            header, rows = csv_header_and_rows(written)
            assert (header, rows) == parquet_columns_and_rows(folder / f"{name}.parquet"), (command, table)
            assert rows > 0, (command, table)  # real rows, not a header alone
            checked.add(name)
    history = tmp_path / "history-parquet"
    assert run(capsys, *commands["store"], "--citations", "-f", "parquet", "-o", str(history))[0] == 0
    header, rows = csv_header_and_rows(csv_of(capsys, tmp_path / "history.csv", *commands["store"], "--citations"))
    assert (header, rows) == parquet_columns_and_rows(history / "citation_history.parquet") and rows > 0
    checked.add("citation_history")
    metrics_folder = tmp_path / "metrics-parquet"
    assert run(capsys, "metrics", *pages, "--at", "2026", "-f", "parquet", "-o", str(metrics_folder))[0] == 0
    for table, name in {"metrics": "metrics", "gaps": "metric_gaps", "years": "metric_years"}.items():
        written = csv_of(capsys, tmp_path / f"metrics-{table}.csv", "metrics", *pages, "--at", "2026",
                         "--table", table)
        header, rows = csv_header_and_rows(written)
        assert (header, rows) == parquet_columns_and_rows(metrics_folder / f"{name}.parquet"), table
        assert rows > 0, table
        checked.add(name)
    assert checked == {*TABLES, "citation_history"}  # a table added later is checked here too


def test_the_default_csvs_are_the_publications_and_papers_tables(capsys) -> None:
    """``--format csv`` gives the whole table, as Parquet and ``frames()`` do: its columns in their order."""
    code, out, _ = run(capsys, "parse", str(JA_PROFILE), "--format", "csv")
    assert code == 0 and out.splitlines()[0] == (
        "site,profile_id,profile_name,page,page_url,position,title,title_truncated,authors,authors_truncated,venue,"
        "venue_truncated,"
        "year,date,type,citations,scholar_id,arxiv,doi,isbn,report_number,patent_number,msr_id,elamur_id,openalex,"
        "scholar_clusters,url,publisher,summary,facet_years,facet_research_areas,facet_types,flags")
    code, out, _ = run(capsys, "merge", str(JA_PROFILE), "--format", "csv")
    assert code == 0 and out.splitlines()[0] == (
        "key,title,title_truncated,authors,authors_truncated,venue,venue_truncated,year,date,type,citations_max,"
        "citations_latest,"
        "citations_scholar,citations_msr,citations_elamur,sites,sources,matched_by,scholar_id,arxiv,doi,isbn,"
        "report_number,patent_number,msr_id,elamur_id,openalex,scholar_clusters,url,publisher")


@pytest.mark.parametrize("command,table", [("parse", "publications"), ("merge", "papers")])
def test_the_historic_columns_are_a_selection_of_the_table(capsys, tmp_path: Path, command: str, table: str) -> None:
    """``--columns historic``: the CSV's old columns, each cell what the whole table's CSV has in that column."""
    argv = [command, *(str(ROOT / name) for name in SEEDS), "--table", table]
    everything = csv_rows(run(capsys, *argv, "--format", "csv")[1])
    code, out, _ = run(capsys, *argv, "--format", "csv", "--columns", "historic")
    historic = csv_rows(out)
    assert code == 0 and len(historic) == len(everything) > 0
    assert list(historic[0]) == [column.name for column in selected(CLI_TABLES[table], "historic")]
    assert historic == [{name: row[name] for name in historic[0]} for row in everything]


def test_store_citation_history_carries_the_title_and_the_profile(capsys, tmp_path: Path) -> None:
    """The store of three runs: paper 0 of "Synthetic Person" (U) counted 0, then 5, then 12."""
    store = str(three_run_store(tmp_path / "store.sqlite"))
    code, out, _ = run(capsys, "store", "export", "--store", store, "--citations")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 90
    first = [r for r in rows if r["publication_id"] == "U:0"]
    assert [(r["run_id"], r["citations"], r["profile_id"], r["profile_name"]) for r in first] == [
        ("run1", 0, "U", "Synthetic Person"), ("run2", 5, "U", "Synthetic Person"),
        ("run3", 12, "U", "Synthetic Person")]
    assert first[0]["title"].startswith("Paper number 0 on a long and winding subject")
    code, out, _ = run(capsys, "store", "export", "--store", store, "--citations", "--format", "csv")
    assert out.splitlines()[0] == "site,publication_id,run_id,taken_at,citations,title,profile_id,profile_name"
    assert len(csv_rows(out)) == 90
    assert run(capsys, "store", "export", "--store", store, "--citations", "-f", "parquet", "-o", str(tmp_path))[0] == 0
    history = query(f"SELECT run_id, sum(citations) FROM read_parquet('{tmp_path / 'citation_history.parquet'}') "
                    "GROUP BY run_id ORDER BY run_id")
    assert [run_id for run_id, _ in history] == ["run1", "run2", "run3"]
    assert history[1][1] - history[0][1] == 30 * 5 and history[2][1] - history[0][1] == 30 * 12


@pytest.mark.parametrize("argv,message", [
    (["parse", "x", "--format", "parquet"], "--format parquet writes one file per table into a folder: give -o FOLDER"),
    (["parse", "x", "--format", "csv", "--table", "authors"],
     "unknown table 'authors' (one of profiles, publications, citations, coauthors)"),
    (["parse", "x", "--format", "csv", "--table", "papers"],
     "unknown table 'papers' (one of profiles, publications, citations, coauthors)"),
    (["merge", "x", "--format", "csv", "--table", "authors"],
     "unknown table 'authors' (one of profiles, publications, citations, coauthors, papers, paper_sources)"),
    (["parse", "x", "--table", "profiles"], "--table goes with --format csv (parquet writes every table)"),
    (["parse", "x", "--columns", "historic"], "--columns goes with --format csv"),
    (["merge", "x", "-f", "csv", "--columns", "old"], "unknown column set 'old' (one of all, historic)"),
    (["store", "export", "--citations", "-f", "csv", "--table", "profiles"],
     "--citations is a table of its own: leave out --table"),
])
def test_bad_uses_of_tables_are_one_line_and_exit_2(capsys, argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (2, "", f"pubharvest {argv[0]}: {message}\n")


def test_parquet_into_a_file_is_refused(capsys, tmp_path: Path) -> None:
    target = tmp_path / "file.parquet"
    target.write_text("keep")
    code, _, err = run(capsys, "parse", str(JA_PROFILE), "-f", "parquet", "-o", str(target))
    assert code == 2 and err.count("\n") == 1 and "a folder" in err and target.read_text() == "keep"


def test_parquet_without_pyarrow_is_one_line(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    code, _, err = run(capsys, "parse", str(JA_PROFILE), "-f", "parquet", "-o", str(tmp_path / "out"))
    assert (code, err) == (2, "pubharvest parse: missing_dependency: Parquet needs pyarrow: "
                              "pip install 'pubharvest[pandas]'\n")
    assert not (tmp_path / "out").exists()


def test_the_pandas_extra_is_declared() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert {d.split(">")[0] for d in extras["pandas"]} == {"pandas", "pyarrow"}
    assert {"pandas", "pyarrow", "duckdb"} <= {d.split(">")[0] for d in extras["test"]}
