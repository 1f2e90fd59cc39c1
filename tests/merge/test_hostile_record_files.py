"""Hostile record files given to ``merge`` and ``report``, and hostile records given to ``frames()``.

Each kind in ``KINDS`` is a real record (parsed from a fixture) made wrong in one way: wrong types at
every level, counts below 0 or past 2^63, years and dates out of bounds, bad DOIs and ORCID iDs, a
string where a list is, null where a value is required, deep nesting, huge strings and names, lone
surrogates, BOMs, a bad line of JSON Lines, truncated JSON, a key given twice, NaN and Infinity. Each
must be refused with exactly one line, ``PATH: bad_records: WHERE, FIELD: why`` (``too_deep`` for
nesting), exit status 6, and the file ``-o`` names left as it was: never a traceback, never a wrong
record accepted. Files that are no record files at all (empty, binary, CSV, HTML, text) are refused
by their own codes (exit 1). The expected lines were written by hand from the mutation each case makes.

The hypothesis tests mutate real record files at random (values anywhere in the tree replaced, keys
dropped or added, bytes flipped, cut or inserted): a file is either accepted, and then every record
is valid against the JSON Schema (checked by ``jsonschema``, a validator of its own), or refused with
one line. ``frames()`` reads records given as dicts by the same rule, with the same lines.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from conftest import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubharvest import frames, parsers
from pubharvest.cli import main
from pubharvest.errors import BadRecords, ExitCode, ParseError
from pubharvest.parsers.records import PageResult, to_builtins
from pubharvest.recordfiles import _as_written, _compiled_test, _result_check, page_results, record_of

SCHEMA = parsers.json_schema()
MAX = 2**63 - 1
DATE = "^[0-9]{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?$"
PAGES = ["scholar/handwritten_ja_profile.html", "msr/010_people_publications.html", "elamur/000_multiline.md",
         "scholar/handwritten_view_citation_patent.html"]
RECORDS = [to_builtins(parsers.parse((FIXTURES / page).read_bytes())) for page in PAGES]
JA = RECORDS[0]  # 山田 花子: metrics, ids, a citations-per-year chart, co-authors, four papers


def test_the_base_record_has_every_part_the_kinds_change() -> None:
    assert JA["profile"]["metrics"]["citations"] == 1234 and JA["profile"]["metrics"]["h_index"] == 15
    assert JA["profile"]["citations_by_year"] and JA["profile"]["coauthors"] and len(JA["publications"]) == 4
    assert {"doi", "scholar"} <= JA["publications"][0]["ids"].keys() and JA["warnings"]
    jsonschema.validate(JA, SCHEMA)


def changed(path: str, value: Any, record: dict | None = None) -> dict:
    """A copy of ``record`` (the Japanese profile) with ``value`` at ``path`` (``profile.metrics.citations``,
    ``publications[0].year``); ``DROP`` removes the key there."""
    made = copy.deepcopy(record or JA)
    *parents, last = re.findall(r"[^.\[\]]+", path)
    holder = made
    for part in parents:
        holder = holder[int(part)] if part.isdigit() else holder[part]
    if value is DROP:
        del holder[last]
    else:
        holder[int(last) if last.isdigit() else last] = value
    return made


DROP = object()


def document(*records: Any, ascii_only: bool = False) -> bytes:
    """The records as one JSON array; a lone surrogate written as an escape (``ascii_only``), else as the three
    bytes no UTF-8 text holds."""
    return json.dumps(list(records), ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


def lines(*records: Any, ascii_only: bool = False) -> bytes:
    return b"\n".join(json.dumps(record, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
                      for record in records) + b"\n"


def column_of(data: bytes, marker: bytes) -> int:
    return data.index(marker) + 1


NAN = document(JA).replace(b'"citations": 1234', b'"citations": NaN', 1)
INFINITY = document(JA).replace(b'"h_index": 15', b'"h_index": Infinity', 1)
NOT_UTF8 = document(JA).replace("山田".encode(), b"\xed\xa0\x80", 1)  # a surrogate encoded: no UTF-8
NOT_UTF8_COLUMN = column_of(NOT_UTF8, b"\xed")
HUGE_NAME = "k" * 1_000_000


# name: (the file, the line expected after "PATH: ", whether frames() gives the same line for its dicts)
KINDS: dict[str, tuple[bytes, str, bool]] = {
    # wrong types at every level
    "site a number": (document(changed("site", 5)), "bad_records: record 1, site: expected str, got int", True),
    "site no site": (document(changed("site", "nowhere")),
                     "bad_records: record 1: 'nowhere' is not a site pubharvest knows (scholar, msr, elamur)", True),
    "page no kind": (document(changed("page", "frontpage")),
                     "bad_records: record 1, page: invalid enum value 'frontpage'", True),
    "profile a list": (document(changed("profile", [1, 2])),
                       "bad_records: record 1, profile: expected object | null, got array", True),
    "metrics a list": (document(changed("profile.metrics", [1234])),
                       "bad_records: record 1, profile.metrics: expected object, got array", True),
    "name a number": (document(changed("profile.name", 7)),
                      "bad_records: record 1, profile.name: expected str | null, got int", True),
    "record 2 a number": (document(JA, 5), "bad_records: record 2: expected object, got int", False),
    "ids a list": (document(changed("publications[0].ids", ["a"])),
                   "bad_records: record 1, publications[0].ids: expected object, got array", True),
    "url a number": (document(changed("url", 5)), "bad_records: record 1, url: expected str | null, got int", True),
    "count a string": (document(changed("publications[0].citations", "1,234")),
                       "bad_records: record 1, publications[0].citations: expected int | null, got str", True),
    "count a decimal": (document(changed("publications[0].citations", 12.5)),
                        "bad_records: record 1, publications[0].citations: expected int | null, got float", True),
    "count a boolean": (document(changed("publications[0].citations", True)),
                        "bad_records: record 1, publications[0].citations: expected int | null, got bool", True),
    "year a string": (document(changed("publications[0].year", "2007")),
                      "bad_records: record 1, publications[0].year: expected int | null, got str", True),
    "date a number": (document(changed("publications[0].date", 2007)),
                      "bad_records: record 1, publications[0].date: expected str | null, got int", True),
    "co-authors strings": (document(changed("profile.coauthors", ["Ichiro Tanaka"])),
                           "bad_records: record 1, profile.coauthors[0]: expected object, got str", True),
    "warnings an object": (document(changed("warnings", {"code": "partial"})),
                           "bad_records: record 1, warnings: expected array, got object", True),
    # a string where a list is, null where a value is required, a required field missing, one unknown
    "authors a string": (document(changed("publications[0].authors", "H Yamada, I Tanaka")),
                         "bad_records: record 1, publications[0].authors: expected array, got str", True),
    "flags a string": (document(changed("publications[0].flags", "merged_citations")),
                       "bad_records: record 1, publications[0].flags: expected array, got str", True),
    "publications null": (document(changed("publications", None)),
                          "bad_records: record 1, publications: expected array, got null", True),
    "site null": (document(changed("site", None)), "bad_records: record 1, site: expected str, got null", True),
    "page missing in record 2": (document(JA, changed("page", DROP)),
                                 "bad_records: record 2: object missing required field page", True),
    "an unknown field": (document(changed("frobs", 1)), "bad_records: record 1: object contains unknown field frobs",
                         True),
    "an unknown field deep": (document(changed("publications[0].ids.frob", 1)),
                              "bad_records: record 1, publications[0].ids: object contains unknown field frob", True),
    # counts, years, dates, ids out of what the schema states
    "a negative count": (document(changed("profile.metrics.citations", -5)),
                         "bad_records: record 1, profile.metrics.citations: -5 is below the schema's minimum, 0", True),
    "a negative count on line 2": (lines(JA, changed("publications[1].citations", -1)),
                                   "bad_records: line 2, publications[1].citations: -1 is below the schema's minimum, "
                                   "0", False),
    "a count of 2^63": (document(changed("profile.metrics.h_index", 2**63)),
                        f"bad_records: record 1, profile.metrics.h_index: {2**63} is above the schema's maximum, {MAX}",
                        True),
    "a count of 2^64 + 1": (document(changed("publications[3].citations", 2**64 + 1)),
                            f"bad_records: record 1, publications[3].citations: {2**64 + 1} is above the schema's "
                            f"maximum, {MAX}", True),
    "a count of 10,000 digits": (document(JA).replace(b'"h_index": 15', b'"h_index": ' + b"9" * 10_000, 1),
                                 "bad_records: record 1, profile.metrics.h_index: a whole number of 10,000 digits, "
                                 f"past the schema's maximum, {MAX}", False),
    "a year past 2099": (document(changed("publications[0].year", 20070)),
                         "bad_records: record 1, publications[0].year: 20070 is above the schema's maximum, 2099",
                         True),
    "a year before 1500": (document(changed("publications[0].year", 1499)),
                           "bad_records: record 1, publications[0].year: 1499 is below the schema's minimum, 1500",
                           True),
    "a negative year": (document(changed("publications[2].year", -2007)),
                        "bad_records: record 1, publications[2].year: -2007 is below the schema's minimum, 1500", True),
    "a chart year of 3000": (document(changed("profile.citations_by_year[0].year", 3000)),
                             "bad_records: record 1, profile.citations_by_year[0].year: 3000 is above the schema's "
                             "maximum, 2099", True),
    "a month 13": (document(changed("publications[0].date", "2007-13-01")),
                   f"bad_records: record 1, publications[0].date: '2007-13-01' is not of the shape the schema states "
                   f"({DATE})", True),
    "the 30th of February": (document(changed("publications[0].date", "2021-02-30")),
                             "bad_records: record 1, publications[0].date: '2021-02-30' is no day of the calendar",
                             True),
    "a date in 999": (document(changed("profile.updated", "0999-01-01")),
                      "bad_records: record 1, profile.updated: '0999-01-01' is before 1500, the first year of the "
                      "schema", True),
    "a DOI that is none": (document(changed("publications[0].ids.doi", "doi:not a doi")),
                           "bad_records: record 1, publications[0].ids.doi: 'doi:not a doi' is not of the shape the "
                           "schema states (^10[.][0-9]{4,9}/\\S+$)", True),
    "an ORCID of 17 characters": (document(changed("profile.ids.orcid", "0000-0002-1825-00977")),
                                  "bad_records: record 1, profile.ids.orcid: '0000-0002-1825-00977' is not of the "
                                  "shape the schema states (^[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$)", True),
    "a warning code not in the catalogue": (document(changed("warnings", [{"code": "no_such", "message": "x"}])),
                                            "bad_records: record 1, warnings[0].code: 'no_such' is no warning code "
                                            "of the schema", True),
    # sizes and nesting
    "a huge DOI": (document(changed("publications[0].ids.doi", "y" * 1_000_000)),
                   "bad_records: record 1, publications[0].ids.doi: '" + "y" * 60 + "…' is not of the shape the "
                   "schema states (^10[.][0-9]{4,9}/\\S+$)", True),
    "a huge unknown name": (document(changed(f"publications[0].{HUGE_NAME}", 1)),
                            "bad_records: record 1, publications[0]: object contains unknown field " + "k" * 60 + "…",
                            True),
    "nested 100,000 deep": (document(JA).replace(b'"title": "', b'"title": ' + b"[" * 100_000 + b"]" * 100_000
                                                 + b', "x": "', 1),
                            "too_deep: the file: JSON nested deeper than records go", False),
    # encodings
    "a lone surrogate in a name": (document(JA).replace(b'"title": ', b'"ti\\ud800tle": ', 1),
                                   "bad_records: record 1, publications[0]: object contains unknown field ti\ufffdtle",
                                   False),
    "bytes that are no UTF-8": (NOT_UTF8, "bad_records: not JSON: a byte that is not UTF-8 at line 1, column "
                                          f"{NOT_UTF8_COLUMN}", False),
    "a BOM, then a bad record": (b"\xef\xbb\xbf" + document(changed("profile.metrics.citations", -5)),
                                 "bad_records: record 1, profile.metrics.citations: -5 is below the schema's "
                                 "minimum, 0", False),
    "UTF-16 with a BOM, a bad record": (json.dumps([changed("publications[0].year", 1499)]).encode("utf-16"),
                                        "bad_records: record 1, publications[0].year: 1499 is below the schema's "
                                        "minimum, 1500", False),
    "a BOM before line 2": (lines(JA, JA).replace(b"\n{", b"\n\xef\xbb\xbf{", 1),
                            "bad_records: line 2: not JSON: invalid character at column 1", False),
    # not JSON, or JSON that says two things
    "JSON Lines with a bad line": (lines(JA) + b'{"site": "scholar", oops}\n' + lines(JA),
                                   "bad_records: line 2: not JSON: object keys must be strings at column 21", False),
    "truncated JSON": (document(JA)[:2000], "bad_records: not JSON: the file stops inside a value (cut short)", False),
    "a key given twice": (document(JA).replace(b'{"site": "scholar"', b'{"site": "msr", "site": "scholar"', 1),
                          "bad_records: record 1: the key 'site' is given twice in one object", False),
    "a key given twice deep in record 2": (document(JA, JA).replace(b'"doi": ', b'"doi": "10.1234/x", "doi": ', 5)
                                           .replace(b'"doi": "10.1234/x", "doi": ', b'"doi": ', 4),
                                           "bad_records: record 2, publications[0].ids: the key 'doi' is given twice "
                                           "in one object", False),
    "NaN": (NAN, f"bad_records: not JSON: invalid character at line 1, column {column_of(NAN, b'NaN')}", False),
    "Infinity": (INFINITY, f"bad_records: not JSON: invalid character at line 1, column "
                           f"{column_of(INFINITY, b'Infinity')}", False),
}
# Files that are no record files: refused by their own codes, as any input is.
NOT_RECORDS: dict[str, tuple[bytes, str]] = {
    "an empty file": (b"", "empty: the input is empty"),
    "a binary file": (bytes(range(256)) * 4, "binary: the input is binary data, not a saved page"),
    "a CSV file": (b"site,page,title\nscholar,profile,Deep learning\n",
                   "unrecognised: a text file that is not a page of any site pubharvest knows"),
    "an HTML file": (b"<html><body><p>my records</p></body></html>",
                     "unrecognised: an HTML page of no site pubharvest knows (Google Scholar, Microsoft Research, "
                     "Elamur Research)"),
    "a JSON array of numbers": (b"[1, 2, 3]", "unrecognised: a text file that is not a page of any site pubharvest "
                                              "knows"),
}


def test_there_are_35_kinds_and_more() -> None:
    assert len(KINDS) >= 35 and len({data for data, _, _ in KINDS.values()}) == len(KINDS)


def run(capsys, command: str, path: Path, out: Path) -> tuple[int, list[str]]:
    out.write_text("what -o held\n", encoding="utf-8")
    code = main([command, str(path), "-o", str(out)])
    return code, capsys.readouterr().err.splitlines()


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_hostile_record_file_is_one_line_exit_6_and_the_output_kept(kind: str, tmp_path: Path, capsys) -> None:
    data, line, _ = KINDS[kind]
    path = tmp_path / "records.json"
    path.write_bytes(data)
    code, err = run(capsys, "merge", path, tmp_path / "merged.json")
    assert err == [f"{path}: {line}"]
    assert len(err[0]) < 400
    assert code == ExitCode.BAD_RECORDS
    assert (tmp_path / "merged.json").read_text(encoding="utf-8") == "what -o held\n"


@pytest.mark.parametrize("kind", ["a negative count", "a key given twice", "a count of 10,000 digits", "NaN",
                                  "the 30th of February", "nested 100,000 deep"])
def test_report_refuses_them_alike(kind: str, tmp_path: Path, capsys) -> None:
    data, line, _ = KINDS[kind]
    path = tmp_path / "records.json"
    path.write_bytes(data)
    code, err = run(capsys, "report", path, tmp_path / "report.html")
    assert err[0] == f"{path}: {line}" and code == ExitCode.BAD_RECORDS
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == "what -o held\n"


@pytest.mark.parametrize("kind", list(NOT_RECORDS))
def test_a_file_that_is_no_record_file_is_refused_by_its_own_code(kind: str, tmp_path: Path, capsys) -> None:
    data, line = NOT_RECORDS[kind]
    path = tmp_path / "records.json"
    path.write_bytes(data)
    code, err = run(capsys, "merge", path, tmp_path / "merged.json")
    assert (code, err) == (1, [f"{path}: {line}"])
    assert (tmp_path / "merged.json").read_text(encoding="utf-8") == "what -o held\n"


def test_one_hostile_file_among_good_ones_is_its_line_and_the_rest_is_merged(tmp_path: Path, capsys) -> None:
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.json"
    good.write_bytes(lines(*RECORDS))
    bad.write_bytes(KINDS["a count of 2^63"][0])
    code = main(["merge", str(good), str(bad), "-o", str(tmp_path / "merged.json")])
    err = [line for line in capsys.readouterr().err.splitlines() if ": warning: " not in line]
    assert code == ExitCode.BAD_RECORDS and err == [f"{bad}: {KINDS['a count of 2^63'][1]}"]
    merged = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    assert "山田 花子" in {profile["name"] for profile in merged["profiles"]}


def test_escaped_lone_surrogates_are_read_as_replacement_characters_with_a_warning(tmp_path: Path, capsys) -> None:
    path = tmp_path / "records.json"
    path.write_bytes(document(JA).replace("山田 花子".encode(), b"Sp\\ud800ices", 1))
    code = main(["merge", str(path), "-o", str(tmp_path / "merged.json")])
    err = capsys.readouterr().err
    assert code == 0 and "warning: lone_surrogate: lone surrogates read as U+FFFD in profile.name" in err
    assert "Sp\ufffdices" in (tmp_path / "merged.json").read_text(encoding="utf-8")


# --- frames(): the same rule for records given as dicts -----------------------------------------------

@pytest.mark.parametrize("kind", [kind for kind, (_, _, same) in KINDS.items() if same])
def test_frames_refuses_the_same_records_with_the_same_line(kind: str) -> None:
    data, line, _ = KINDS[kind]
    pytest.importorskip("pandas")
    with pytest.raises(BadRecords) as caught:
        frames(json.loads(data))
    assert str(caught.value) == line


def test_frames_reads_a_lone_surrogate_in_a_dict_as_a_replacement_character() -> None:
    pytest.importorskip("pandas")
    tables = frames([changed("profile.name", "Sp\ud800ices")])
    assert list(tables["profiles"]["profile_name"]) == ["Sp\ufffdices"]


def test_frames_names_a_number_python_will_not_print() -> None:
    pytest.importorskip("pandas")
    with pytest.raises(BadRecords, match=r"record 1, profile.metrics.citations: a whole number of about 10,0\d\d "
                                         r"digits is above the schema's maximum"):
        frames([changed("profile.metrics.citations", 10**10_000)])


# --- random mutations of real record files ------------------------------------------------------------

HOSTILE_VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([0, -1, 1499, 1500, 2099, 2100, MAX, MAX + 1]),
    st.floats(allow_nan=True, allow_infinity=True), st.none(), st.booleans(),
    st.text(max_size=12), st.sampled_from(["2021-02-30", "2024-02-29", "2007-13", "10.1234/x", "0000-0002-1825-0097",
                                           "Sp\ud800ices", "\udfff", "", "scholar", "profile", "partial"]),
    st.lists(st.integers(min_value=-5, max_value=5), max_size=3),
    st.dictionaries(st.sampled_from(["code", "message", "year", "citations", "name", "x"]),
                    st.one_of(st.integers(-3, 3000), st.text(max_size=5), st.none()), max_size=3),
)


def places(value: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON tree: the path to each value (the root's is ``()``)."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += places(item, (*path, index))
    return found


def mutated(record: dict, draw: Callable[..., Any]) -> dict:
    """``record`` with one to three changes drawn: a value replaced, a key dropped or added, an item added."""
    made = copy.deepcopy(record)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(places(made)[1:]))
        holder = made
        for step in path[:-1]:
            holder = holder[step]
        action = draw(st.sampled_from(["replace", "replace", "drop", "add", "append"]))
        if action == "drop" and isinstance(holder, dict):
            del holder[path[-1]]
        elif action == "add" and isinstance(holder, dict):
            holder[draw(st.sampled_from(["x", "year", "ids", "code", "site"]))] = draw(HOSTILE_VALUES)
        elif action == "append" and isinstance(holder[path[-1]], list):
            holder[path[-1]].append(draw(HOSTILE_VALUES))
        else:
            holder[path[-1]] = draw(HOSTILE_VALUES)
    return made


def serialised(records: list[dict], draw: Callable[..., Any]) -> bytes:
    """The records as a JSON document or JSON Lines, maybe with bytes flipped, cut or inserted."""
    ascii_only = draw(st.booleans())
    data = bytearray(document(*records, ascii_only=ascii_only) if draw(st.booleans())
                     else lines(*records, ascii_only=ascii_only))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["flip", "cut", "insert"]))
        if kind == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "cut":
            del data[at:at + draw(st.integers(1, 200))]
        else:
            data[at:at] = draw(st.sampled_from([b"\xff", b"\xef\xbb\xbf", b",", b'"', b"{", b"]", b"\\ud800", b"-",
                                                b"9" * 30, b'"site": "msr", ', b"\n"]))
    return bytes(data)


def assert_valid_or_refused(data: bytes) -> None:
    try:
        results = page_results(data)
    except ParseError as error:
        assert error.code in ("bad_records", "too_deep", "unrecognised"), error
        assert "\n" not in str(error) and len(str(error)) < 600
        return
    for result in results or ():  # None: no record file (a page, parsed as one)
        jsonschema.validate(to_builtins(result), SCHEMA)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_a_mutated_real_record_file_is_accepted_only_when_valid_else_one_line(data: st.DataObject) -> None:
    records = [mutated(record, data.draw) if data.draw(st.booleans()) else record
               for record in data.draw(st.lists(st.sampled_from(RECORDS), min_size=1, max_size=3))]
    assert_valid_or_refused(serialised(records, data.draw))


def finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(map(finite, value.values()))
    if isinstance(value, list):
        return all(map(finite, value))
    return True


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_mutated_record_reads_alike_from_a_file_and_as_a_dict(data: st.DataObject) -> None:
    """One rule: ``record_of`` (frames) and ``page_results`` (merge, report) accept and refuse alike."""
    record = mutated(data.draw(st.sampled_from(RECORDS)), data.draw)
    try:
        as_dict: Any = record_of(record, "record 1")
    except BadRecords as error:
        as_dict = str(error)
    else:
        jsonschema.validate(to_builtins(as_dict), SCHEMA)
    if not finite(record):  # NaN and Infinity are no JSON: the file is refused as such
        return
    try:
        from_file: Any = page_results(document(record, ascii_only=True))
    except BadRecords as error:
        from_file = str(error)
    if from_file is None:  # a file claims to be records by "site" and "page"; without them it is a page to parse
        assert not {"site", "page"} <= record.keys() and isinstance(as_dict, str)
    elif isinstance(as_dict, str) or isinstance(from_file, str):
        assert as_dict == from_file
    else:
        assert [to_builtins(r) for r in from_file] == [to_builtins(as_dict)]


# --- the fast paths of reading record files decide as the slow checks do -----------------------------


def test_a_key_given_twice_in_a_file_otherwise_as_pubharvest_writes_it_is_refused(tmp_path: Path, capsys) -> None:
    """A file as ``parse -f jsonl`` writes it skips the slow reading for keys given twice (it is its records' own
    encoding, which gives each key once); a key given twice makes it no longer that, and is still refused."""
    written = b"".join(msgspec.json.encode(record) + b"\n" for record in RECORDS)
    assert _as_written(written, page_results(written) or [], lines=True)  # the file takes the fast path
    twice = written.replace(b'"page":"publication_list",', b'"page":"publication_list","page":"rows",', 1)
    assert twice != written
    source = tmp_path / "twice.jsonl"
    source.write_bytes(twice)
    assert main(["merge", str(source)]) == ExitCode.BAD_RECORDS
    assert capsys.readouterr().err.strip() == \
        f"{source}: bad_records: line 2: the key 'page' is given twice in one object"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_compiled_schema_test_passes_exactly_the_records_the_naming_check_passes(data: st.DataObject) -> None:
    record = mutated(data.draw(st.sampled_from(RECORDS)), data.draw)
    try:
        result = msgspec.convert(record, PageResult)
    except (msgspec.ValidationError, TypeError, ValueError):  # no record of the types: nothing to check further
        return
    assert _compiled_test()(result) is (_result_check()(result, "") is None)
