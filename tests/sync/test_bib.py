"""The bib target on a realistic hand-edited file: every byte the user wrote stays, only owned fields are
added or updated, and the real readers (bibtexparser, biber) read the result as they read the original."""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from bibbuilder import Built, build, profile_page, publications

from pubharvest.errors import BadTarget
from pubharvest.merge import merge
from pubharvest.sync import SyncOptions, SyncPlan
from pubharvest.sync.bib import COUNT_FIELD, BibTarget
from pubharvest.sync.bibfile import BibDocument

OWNED = "google_scholar_id|doi|eprint|archiveprefix|pubharvest_citations"
OWNED_FIELD = re.compile(rf"\b({OWNED})\s*=\s*\{{[^{{}}\n]*\}}", re.I)
AS_OF = "2026-12-04"


def synced(built: Built, path: Path, add_missing: bool = False) -> tuple[bytes, SyncPlan]:
    path.write_bytes(built.text)
    papers = merge([("profile.html", built.page)]).papers
    plan = BibTarget().plan(path, papers, [], SyncOptions(as_of=AS_OF, add_missing=add_missing))
    (change,) = plan.changes
    return change.after, plan


def only_owned_lines_differ(before: bytes, after: bytes) -> list[str]:
    """The problems in the diff: each block of lines that differs must differ only by owned fields
    (``OWNED_FIELD``) added or updated and the commas and line breaks that separate them."""
    old, new = before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True)
    problems = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        was, now = OWNED_FIELD.sub("", "".join(old[i1:i2])), OWNED_FIELD.sub("", "".join(new[j1:j2]))
        for op, a1, a2, b1, b2 in difflib.SequenceMatcher(a=was, b=now, autojunk=False).get_opcodes():
            if op != "equal" and (op != "insert" or now[b1:b2].strip(" \t\r\n,")):
                problems.append(f"{op} {was[a1:a2]!r} -> {now[b1:b2]!r} in {''.join(new[j1:j2])!r}")
    return problems


def test_a_hand_edited_file_keeps_every_byte_but_the_owned_fields(tmp_path: Path) -> None:
    built = build()
    after, plan = synced(built, tmp_path / "refs.bib")
    assert only_owned_lines_differ(built.text, after) == []
    assert sorted(key for key, _ in plan.matched) == sorted(built.expected)
    assert sorted(plan.unmatched) == sorted([*built.unmatched, "(no key) at line " + str(_keyless_line(built))])
    assert [c.split(":")[0] for c in plan.conflicts] == built.conflicts
    assert len(plan.missing) == 10  # 70 papers, 60 entries of them


def _keyless_line(built: Built) -> int:
    text = built.text.decode()
    return text[:text.index("@misc{ title = {An entry without a key}")].count("\n") + 1


def test_every_matched_entry_gains_exactly_the_records_fields(tmp_path: Path) -> None:
    built = build()
    after, _ = synced(built, tmp_path / "refs.bib")
    doc = BibDocument.parse(after)
    entries = {e.key: e for e in doc.entries() if e.key}
    for key, n in built.expected.items():
        entry = entries[key]
        pub = built.page.publications[n]
        assert doc.literal(entry.field("google_scholar_id")) == f"P{n:03d}xx_Ab-C", key
        count = doc.literal(entry.field(COUNT_FIELD))
        assert count == f"{n * 3} (scholar, {AS_OF})", key
        if pub.ids.arxiv:
            assert doc.literal(entry.field("eprint")) == pub.ids.arxiv
            assert doc.literal(entry.field("archiveprefix")) == "arXiv"
        if key in built.conflicts:
            assert doc.literal(entry.field("doi")) == "10.9999/a.typo"
    for key in built.unmatched:
        assert entries[key].field(COUNT_FIELD) is None


def test_the_stale_count_is_updated_in_place(tmp_path: Path) -> None:
    built = build()
    after, _ = synced(built, tmp_path / "refs.bib")
    old_line = next(line for line in built.text.decode().splitlines() if "{1 (scholar, 2020-01-01)}" in line)
    assert old_line not in after.decode()
    assert old_line.replace("{1 (scholar, 2020-01-01)}", f"{{36 (scholar, {AS_OF})}}") in after.decode()


def test_a_second_sync_changes_nothing(tmp_path: Path) -> None:
    built = build()
    path = tmp_path / "refs.bib"
    after, _ = synced(built, path, add_missing=True)
    again = Built(text=after, page=built.page)
    assert synced(again, path, add_missing=True)[0] == after


def test_one_count_changed_changes_only_that_count(tmp_path: Path) -> None:
    built = build()
    path = tmp_path / "refs.bib"
    first, _ = synced(built, path, add_missing=True)
    pubs = list(built.page.publications)
    pubs[4] = type(pubs[4])(**{**{f: getattr(pubs[4], f) for f in pubs[4].__struct_fields__}, "citations": 999})
    changed_page = type(built.page)(**{**{f: getattr(built.page, f) for f in built.page.__struct_fields__},
                                       "publications": pubs})
    second, _ = synced(Built(text=first, page=changed_page), path, add_missing=True)
    diff = [line for line in difflib.unified_diff(first.decode().splitlines(), second.decode().splitlines(), n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert len(diff) == 2 and "{12 (scholar," in diff[0] and "{999 (scholar," in diff[1], diff


def test_one_paper_more_adds_exactly_that_paper(tmp_path: Path) -> None:
    built = build()
    path = tmp_path / "refs.bib"
    first, _ = synced(built, path, add_missing=True)
    more = profile_page(publications(71))
    second, plan = synced(Built(text=first, page=more), path, add_missing=True)
    assert len(plan.added) == 1
    assert second.startswith(first)
    added = second[len(first):].decode()
    assert added.count("@") == 1 and "case 70" in added and "P070xx_Ab-C" in added


def test_bibtexparser_reads_the_result_as_it_reads_the_original(tmp_path: Path) -> None:
    bibtexparser = pytest.importorskip("bibtexparser")
    built = build()
    after, _ = synced(built, tmp_path / "refs.bib", add_missing=True)
    before_lib = bibtexparser.parse_string(built.text.decode())
    after_lib = bibtexparser.parse_string(after.decode())
    assert len(after_lib.failed_blocks) == len(before_lib.failed_blocks)
    assert len(after_lib.entries) == len(before_lib.entries) + 10
    assert len(after_lib.strings) == 2
    by_key = {e.key: e for e in after_lib.entries}
    assert by_key[built.conflicts[0]].fields_dict["doi"].value == "10.9999/a.typo"  # never changed
    for key, n in built.expected.items():
        fields = {f.key.lower(): f.value for f in by_key[key].fields}  # upper-case entries keep their case
        assert fields["google_scholar_id"] == f"P{n:03d}xx_Ab-C"
        assert fields["pubharvest_citations"] == f"{n * 3} (scholar, {AS_OF})"


@pytest.mark.skipif(shutil.which("biber") is None, reason="biber is not installed (Debian: biber)")
def test_biber_finds_no_new_error(tmp_path: Path) -> None:
    built = build(keyless=False)  # biber gives up on a file with an entry without a key, whoever wrote it
    after, _ = synced(built, tmp_path / "refs.bib", add_missing=True)
    (tmp_path / "before.bib").write_bytes(built.text)
    (tmp_path / "after.bib").write_bytes(after)

    def problems(name: str) -> tuple[list[str], list[str]]:
        command = ["biber", "--tool", "--validate-datamodel", "--output-file", f"{name}.out", f"{name}.bib"]
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120)
        lines = (done.stdout + done.stderr).splitlines()
        strip = re.compile(r"/tmp/\S+|\(\w+\.bib\)|\d+\.utf8|line \d+")
        return ([strip.sub("", line) for line in lines if line.startswith("ERROR")],
                [strip.sub("", line) for line in lines if line.startswith("WARN")])

    errors_before, warns_before = problems("before")
    errors_after, warns_after = problems("after")
    assert errors_after == errors_before == []
    entries = [len(re.findall(rb"^@", (tmp_path / f"{name}.out").read_bytes(), re.M)) for name in ("before", "after")]
    assert entries[1] == entries[0] + 10 and entries[0] >= 100, entries  # biber read every entry, and the added ones
    new = [w for w in warns_after if w not in warns_before]
    custom = re.compile(r"Field '(google_scholar_id|pubharvest_citations)' invalid in data model")
    added_keys = {f"'{key}'" for key in re.findall(r"@\w+\{(\w+),", after[len(built.text):].decode())}
    assert [w for w in new if not custom.search(w) and not any(k in w for k in added_keys)] == []


@pytest.mark.parametrize("data", [b"\x00\x01binary", b"@article{k,\n  title = {unclosed,\n}\n",
                                  b"@article{k,\n  title = {A} year = 2020\n}\n"])
def test_a_file_that_is_no_bibtex_is_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "refs.bib"
    path.write_bytes(data)
    with pytest.raises(BadTarget):
        BibTarget().plan(path, [], [], SyncOptions())


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadTarget, match="is a folder"):
        BibTarget().plan(tmp_path, [], [], SyncOptions())


@pytest.mark.parametrize("seed", range(6))
def test_other_hand_edited_files_keep_their_bytes_too(tmp_path: Path, seed: int) -> None:
    built = build(count=60 + seed * 8, seed=seed)
    assert BibDocument.parse(built.text).to_bytes() == built.text
    after, plan = synced(built, tmp_path / "refs.bib")
    assert only_owned_lines_differ(built.text, after) == []
    assert sorted(key for key, _ in plan.matched) == sorted(built.expected)
    after = synced(built, tmp_path / "refs.bib", add_missing=True)[0]
    assert synced(Built(text=after, page=built.page), tmp_path / "refs.bib", add_missing=True)[0] == after
