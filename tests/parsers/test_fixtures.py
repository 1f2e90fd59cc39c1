"""One test per fixture pair: ``fixtures/<site>/<case>.<html|md|txt|...>`` against ``<case>.json``.
A page that is itself JSON is named ``<case>.page.json``.

The expected JSON is a ``PageResult`` checked by hand against the page, or ``{"error": CODE}``
for a page that must be refused. Adding a case is adding two files.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import jsonschema
import msgspec
import pytest
from conftest import FIXTURES, ROOT

import pubharvest.parsers as parsers
from pubharvest.parsers.page import Document
from pubharvest.parsers.records import PageResult, Profile, from_json, own_id, set_own_id, to_builtins, to_json
from pubharvest.parsers.site import SiteInfo

BAD_INPUTS = ROOT / "tests" / "data"

def fixture_pairs(folder: Path = FIXTURES) -> list[tuple[Path, Path]]:
    """Every page with its expected records: ``case.html`` (or ``case.page.json``) with ``case.json``."""
    pairs = []
    for page in sorted(folder.rglob("*.*")):
        expected = page.with_name(page.name.split(".")[0] + ".json")
        if page.is_file() and page != expected and expected.exists():
            pairs.append((page, expected))
    return pairs


def expected_of(expected: Path) -> dict:
    return json.loads(expected.read_text(encoding="utf-8"))


PAIRS = fixture_pairs()
REFUSED = fixture_pairs(BAD_INPUTS)
GIVING_RECORDS = [(page, expected) for page, expected in PAIRS if "error" not in expected_of(expected)]
# The pages whose expected records hold publications (an export of the others is its header alone).
WITH_PUBLICATIONS = [page for page, expected in GIVING_RECORDS if expected_of(expected).get("publications")]
SCHEMA = parsers.json_schema()


@pytest.mark.parametrize("page,expected", PAIRS, ids=[str(p.relative_to(FIXTURES)) for p, _ in PAIRS])
def test_fixture(page: Path, expected: Path) -> None:
    want = json.loads(expected.read_text(encoding="utf-8"))
    if "error" in want:
        with pytest.raises(parsers.ParseError) as caught:
            parsers.parse(page.read_bytes(), url=want.get("url"))
        assert caught.value.code == want["error"]
        return
    got = to_builtins(parsers.parse(page.read_bytes(), url=want.get("url")))
    got.pop("source")
    # Fields the expected file leaves out are expected at their defaults (null, [] or false):
    # adding a field to the model does not mean rewriting every fixture.
    want = to_builtins(from_json(expected.read_bytes()))
    want.pop("source")
    assert got == want


@pytest.mark.parametrize("page,expected", GIVING_RECORDS, ids=[str(p.relative_to(FIXTURES)) for p, _ in GIVING_RECORDS])
def test_fixture_output_matches_schema(page: Path, expected: Path) -> None:
    jsonschema.validate(to_builtins(parsers.parse(page.read_bytes())), SCHEMA)


@pytest.mark.parametrize("page,expected", REFUSED, ids=[str(p.relative_to(BAD_INPUTS)) for p, _ in REFUSED])
def test_bad_input_is_refused_with_its_code(page: Path, expected: Path) -> None:
    """Bad inputs (``tests/data/<site>/``) pair a page with ``{"error": CODE}``."""
    want = json.loads(expected.read_text(encoding="utf-8"))
    with pytest.raises(parsers.ParseError) as caught:
        parsers.parse(page.read_bytes(), url=want.get("url"))
    assert caught.value.code == want["error"]
    assert "\n" not in caught.value.message


def test_fixtures_hold_only_pages_that_parse() -> None:
    assert not [p for p, e in PAIRS if "error" in json.loads(e.read_text(encoding="utf-8"))]


def test_there_are_fixtures_for_every_site() -> None:
    sites = {page.parent.name for page, _ in PAIRS}
    assert set(parsers.SITES) <= sites


# --- the record's site is any registered site ------------------------------------------------

def test_a_record_of_no_registered_site_is_refused_when_made_or_read() -> None:
    with pytest.raises(ValueError, match="'nowhere' is not a site pubharvest knows"):
        PageResult(site="nowhere", page="profile")
    with pytest.raises(msgspec.ValidationError, match="nowhere"):
        from_json(b'{"site": "nowhere", "page": "profile"}')
    assert SCHEMA["$defs"]["PageResult"]["properties"]["site"] == {"enum": sorted(parsers.SITES)}


def test_a_fourth_site_added_to_the_registry_is_a_valid_record_site(monkeypatch: pytest.MonkeyPatch) -> None:
    """One module (its ``SITE``, ``sniff``, ``parse`` and an optional ``refuse``) and one registry
    line: the record model, its schema and the block check follow."""
    site = SiteInfo(name="toy", title="Toy Research", base_url="https://toy.example.org", hosts=("toy.example.org",),
                    id_pattern=r"[a-z]+", id_example="ada", profile_path="/people/{id}/", page_kinds=("profile",))

    def refuse(doc: Document) -> None:
        if "toy-captcha" in doc.text:
            raise parsers.Blocked("the toy site's CAPTCHA")

    def sniff(doc: Document) -> str | None:
        return "profile" if "toy.example.org" in doc.text else None

    def parse(doc: Document) -> PageResult:
        profile = Profile(name="Ada")
        set_own_id(profile.ids, "toy", "ada")  # no field of its own in Ids: kept in ``ids.other``
        return PageResult(site="toy", page="profile", profile=profile)

    toy = types.ModuleType("pubharvest.parsers.toy")
    vars(toy).update(SITE=site, refuse=refuse, sniff=sniff, parse=parse)
    monkeypatch.setitem(sys.modules, "pubharvest.parsers.toy", toy)
    monkeypatch.setattr(parsers, "SITES", (*parsers.SITES, "toy"))

    result = parsers.parse(b"<p>a page of https://toy.example.org</p>")
    assert result.site == "toy" and result.profile is not None
    assert own_id(result.profile.ids, "toy") == "ada" and result.profile.ids.other == {"toy": "ada"}
    assert from_json(to_json(result)) == result
    assert "toy" in parsers.json_schema()["$defs"]["PageResult"]["properties"]["site"]["enum"]
    jsonschema.validate(to_builtins(result), parsers.json_schema())
    with pytest.raises(parsers.Blocked, match="toy site"):  # every site's refusal is asked before sniffing
        parsers.parse(b"<p>toy-captcha</p>")
