"""What every site target shows (``hugo``, ``academicpages``): synced twice from the fixture and corpus
pages, the second run changes nothing; any order of the pages and their rows gives the same files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sitesync import corpus_pages, fixture_pages, papers_of, plan, sync, tree

from pubharvest.cli import main
from pubharvest.errors import ExitCode
from pubharvest.merge import Paper
from pubharvest.parsers.records import PublicationIds
from pubharvest.sync.bib import addable

TARGETS = ["hugo", "academicpages"]


@pytest.mark.corpus
@pytest.mark.parametrize("name", TARGETS)
def test_second_run_changes_nothing(tmp_path: Path, corpus: Path, name: str) -> None:
    every = papers_of(fixture_pages()) + papers_of(corpus_pages(corpus))
    sync(name, tmp_path, every)
    first = tree(tmp_path)
    again = plan(name, tmp_path, every)
    assert again.changes == [] and again.unmatched == []
    # every paper has its page, but a row whose title is a list of names (--add-missing leaves it out)
    assert sorted(again.missing) == sorted(p.key for p in every if not addable(p))
    assert len(again.matched) + len(again.missing) == len(every)
    assert tree(tmp_path) == first


@pytest.mark.parametrize("name", TARGETS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reordered_inputs_give_the_same_files(tmp_path: Path, name: str, seed: int) -> None:
    sync(name, tmp_path / "a", papers_of(fixture_pages()))
    sync(name, tmp_path / "b", papers_of(fixture_pages(), seed=seed))
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


@pytest.mark.corpus
@pytest.mark.parametrize("name", TARGETS)
def test_reordered_corpus_gives_the_same_files(tmp_path: Path, corpus: Path, name: str) -> None:
    sync(name, tmp_path / "a", papers_of(corpus_pages(corpus)))
    sync(name, tmp_path / "b", papers_of(corpus_pages(corpus), seed=7))
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


JA = str(FIXTURES / "scholar/handwritten_ja_profile.html")


@pytest.mark.parametrize("name", TARGETS)
def test_command_dry_run_then_sync_then_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    assert main(["sync", name, str(tmp_path), JA, "--add-missing", "--dry-run"]) == ExitCode.OK
    out, err = capsys.readouterr()
    # the profile's fourth row has a list of names for a title: not added
    assert out.count("--- /dev/null\n") == (6 if name == "hugo" else 3) and tree(tmp_path) == {}
    assert f"sync {name} {tmp_path}: 0 matched, 0 unmatched, 3 added, 1 missing, 0 conflicts; " in err
    assert main(["sync", name, str(tmp_path), JA, "--add-missing"]) == ExitCode.OK
    written = tree(tmp_path)
    assert len(written) == (6 if name == "hugo" else 3)
    capsys.readouterr()
    assert main(["sync", name, str(tmp_path), JA, "--dry-run"]) == ExitCode.OK
    out, err = capsys.readouterr()
    assert out == "" and "3 matched, 0 unmatched, 0 added, 1 missing, 0 conflicts; 0 files would change" in err
    assert tree(tmp_path) == written


@pytest.mark.parametrize(("name", "page"), [("hugo", "content/publication/x/index.md"),
                                            ("academicpages", "_publications/x.md")])
def test_command_bad_page_is_one_line_exit_7(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                             page: str) -> None:
    (tmp_path / page).parent.mkdir(parents=True)
    (tmp_path / page).write_bytes(b"---\ntitle: 'unclosed\n---\nBody\n")
    assert main(["sync", name, str(tmp_path), JA, "--add-missing"]) == ExitCode.BAD_TARGET
    err = [line for line in capsys.readouterr().err.splitlines() if "warning:" not in line]
    assert err == [f"{tmp_path}: bad_target: {page}: the front matter is not valid YAML (line 2)"]
    assert tree(tmp_path) == {page: b"---\ntitle: 'unclosed\n---\nBody\n"}


USER_KEYS = st.sampled_from(["tags", "featured", "image", "projects", "my_note", "title", "date", "venue", "doi"])
USER_VALUES = st.one_of(st.text(), st.booleans(), st.integers(), st.lists(st.text(), max_size=3))
USER_LINES = st.lists(st.one_of(st.dictionaries(USER_KEYS, USER_VALUES, min_size=1, max_size=1),
                                st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Zl", "Zp"]))
                                .map(lambda text: "#" + text)), max_size=6)


@pytest.mark.parametrize("name", TARGETS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=USER_LINES, body=st.text(), flow=st.booleans())
def test_any_user_page_keeps_every_byte(tmp_path: Path, name: str, lines: list[dict[str, object] | str],
                                        body: str, flow: bool) -> None:
    """A page of the user's, whatever it holds (keys, values in any YAML style, comments, a body), matched
    by its arXiv link: its bytes are all kept, the fields it lacked added before the closing fence."""
    paper = Paper(key="ren2021zero", title="ZeRO-Offload", year=2021, authors=["J Ren"], venue="ATC",
                  ids=PublicationIds(arxiv="2101.06840", doi="10.1/x"), sources=[])
    seen: set[str] = set()
    link = "url_pdf" if name == "hugo" else "paperurl"
    front = [f"{link}: https://arxiv.org/pdf/2101.06840.pdf\n"]
    for line in lines:
        if isinstance(line, str):
            front.append(line + "\n")
        elif (key := next(iter(line))) not in seen:
            seen.add(key)
            value = line[key]
            flowing = flow and isinstance(value, list)  # tags: [a, b]
            front.append(f"{key}: {yaml.safe_dump(value, default_flow_style=True, width=10**6).strip()}\n" if flowing
                         else yaml.safe_dump(line, default_flow_style=False, allow_unicode=True, width=40))
    data = ("---\n" + "".join(front) + "---\n" + body).encode()
    page = tmp_path / (f"{name}-{len(list(tmp_path.iterdir()))}")
    path = page / ("content/publication/mine/index.md" if name == "hugo" else "_publications/mine.md")
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    done = plan(name, page, [paper], add_missing=False)
    assert done.matched == [(path.relative_to(page).as_posix(), "ren2021zero")]
    [after] = [change.after for change in done.changes if change.path == path] or [data]
    head = ("---\n" + "".join(front)).encode()
    assert after.startswith(head) and after.endswith(("---\n" + body).encode())
    added = yaml.safe_load(after[len(head):-len(("---\n" + body).encode())] or b"{}") or {}
    assert not set(added) & ({link} | seen)
