"""The README, the manual (``docs/``), ``bench/README.md`` and the project's papers, checked so they cannot drift.

- Links: every relative link names a file of the repository, every ``#anchor`` a heading of its
  target (GitHub's slugs), and no absolute link points into this repository.
- Code: a ``python`` block with ``>>>`` examples runs as a doctest (the blocks of one page share
  their names, in order); one without is compiled and its ``pubharvest`` imports resolved. A
  ``console`` block is a transcript: each ``$ command`` runs in bash, in a scratch folder holding
  the repository's ``fixtures/``, and what it prints (stdout and stderr together) must match the
  lines under it, ``...`` standing for any text. Every ``pubharvest`` command shown in another block
  must name a real command and only options its ``--help`` lists. The ``pip install`` lines of the
  quick start cannot run here (they would install into the running environment); CI runs the test
  command itself, and ``tests/test_packaging.py`` builds the wheel.
- No file of the project names an issue by number, or a file that is not in the repository.
- LICENSE, CITATION.cff and the version, stated once.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import importlib.metadata
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tokenize
import tomllib
from collections.abc import Iterator
from functools import cache
from itertools import pairwise
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import ROOT
from markdown_it import MarkdownIt
from markdown_it.token import Token

import pubharvest

DOCS = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "bench" / "README.md", *(ROOT / "docs").glob("*.md")])
BIN = Path(sys.executable).parent  # where the console script `pubharvest` is installed
OPTIONS = doctest.ELLIPSIS


def name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def tokens(path: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))


def inline_children(path: Path) -> Iterator[tuple[Token, Token]]:
    """(inline token, child) for every piece of inline markup, tables included."""
    for token in tokens(path):
        for child in token.children or ():
            yield token, child


def heading_text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))


def slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    found = set()
    stream = tokens(path)
    for token, inline in pairwise(stream):
        if token.type == "heading_open":
            base = slug(heading_text(inline))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def links(path: Path) -> list[str]:
    return [str(child.attrs.get("href") or child.attrs.get("src"))
            for _, child in inline_children(path) if child.type in ("link_open", "image")]


def link_problem(page: Path, target: str) -> str | None:
    """What is wrong with one link of ``page``, or None."""
    parts = urlsplit(target)
    if parts.scheme in ("http", "https"):
        into_repo = parts.netloc.endswith(("github.com", "githubusercontent.com")) and "pubharvest" in parts.path
        return "an absolute link into this repository: make it relative" if into_repo else None
    if parts.scheme or parts.netloc:
        return None if parts.scheme == "mailto" else f"a {parts.scheme}: link"
    file = (page.parent / parts.path).resolve() if parts.path else page
    if not file.is_relative_to(ROOT):
        return "a file outside the repository"
    if not file.exists():
        return "no such file"
    if parts.fragment and file.suffix == ".md" and parts.fragment not in anchors(file):
        return f"no heading #{parts.fragment} in {name(file)}"
    return None


@pytest.mark.parametrize("page", DOCS, ids=name)
def test_every_link_resolves(page: Path) -> None:
    problems = [f"{target}: {problem}" for target in links(page) if (problem := link_problem(page, target))]
    assert not problems, "\n".join(problems)


def test_the_link_checker_sees_anchors_and_tables() -> None:
    """A checker that finds no links cannot fail: the README's table links into docs/ with anchors."""
    readme = links(ROOT / "README.md")
    assert "docs/cli.md" in readme and "docs/exports.md#merging" in readme
    assert link_problem(ROOT / "README.md", "docs/exports.md#no-such-heading")
    assert link_problem(ROOT / "README.md", "../outside.md") == "a file outside the repository"
    assert slug("Limits, redirects and secrets") == "limits-redirects-and-secrets"
    assert slug("The merged records (`schema --merged`)") == "the-merged-records-schema---merged"


# --- code blocks ----------------------------------------------------------------------------------


def blocks(path: Path, *kinds: str) -> list[Token]:
    """The fenced blocks of ``path`` whose language is one of ``kinds`` ("" for none)."""
    return [token for token in tokens(path) if token.type == "fence" and (token.info.split() or [""])[0] in kinds]


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to run the docs' examples in: the repository's fixtures are there, what they write stays there."""
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", DOCS, ids=name)
def test_python_examples_run(page: Path, scratch: Path) -> None:
    globs: dict[str, object] = {}
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    out = io.StringIO()
    for block in blocks(page, "python"):
        line = block.map[0] + 2 if block.map else 0
        if ">>>" not in block.content:
            check_compiles(block.content, f"{name(page)}:{line}")
            continue
        if "frames(" in block.content and importlib.util.find_spec("pandas") is None:
            pytest.skip("the example needs pandas (pip install 'pubharvest[pandas]')")
        test = doctest.DocTestParser().get_doctest(block.content, globs, name(page), str(page), line)
        runner.run(test, out=out.write, clear_globs=False)
    assert runner.summarize(verbose=False).failed == 0, out.getvalue()


def check_compiles(source: str, where: str) -> None:
    """A block shown, not run: it must be Python, and what it imports from pubharvest must exist."""
    for node in ast.walk(ast.parse(source, where)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("pubharvest"):
            module = importlib.import_module(str(node.module))
            missing = [alias.name for alias in node.names if not hasattr(module, alias.name)]
            assert not missing, f"{where}: {node.module} has no {missing}"


def transcript(block: Token) -> list[tuple[str, str]]:
    """(command, expected output) of each ``$ `` line of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.content.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"console output before any command: {line!r}"
            steps[-1][1].append(line)
    return [(command, "".join(f"{line}\n" for line in lines)) for command, lines in steps]


@pytest.mark.parametrize("page", [page for page in DOCS if blocks(page, "console")], ids=name)
def test_console_transcripts_print_what_they_show(page: Path, scratch: Path) -> None:
    if shutil.which("pubharvest", path=str(BIN)) is None:
        pytest.skip(f"the console script pubharvest is not installed in {BIN}")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    checker = doctest.OutputChecker()
    for block in blocks(page, "console"):
        for command, want in transcript(block):
            done = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=300, check=False)
            assert checker.check_output(want, done.stdout, OPTIONS), f"$ {command}\nwant:\n{want}got:\n{done.stdout}"


def shown_commands(page: Path) -> Iterator[list[str]]:
    """The words of each ``pubharvest`` command line in the page's non-console blocks, comments cut."""
    for block in blocks(page, "sh", "text", ""):
        for line in block.content.splitlines():
            words = line.split("#", 1)[0].split()
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # VAR=value before the command
                words.pop(0)
            if words[:1] == ["pubharvest"]:
                # "pubharvest parse|merge ...": each of the commands the line stands for
                yield from ([first, *words[2:]] for first in words[1:2][0].split("|")) if words[1:2] else [[]]


@cache
def help_of(*command: str) -> str | None:
    """``pubharvest COMMAND --help``, or None when COMMAND is not (all) a command path."""
    done = subprocess.run([sys.executable, "-c", RUN_CLI, *command, "--help"], capture_output=True, text=True,
                          check=False)
    usage = " ".join(done.stdout.split()[:2 + len(command)])
    return done.stdout if done.returncode == 0 and usage == " ".join(["usage:", "pubharvest", *command]) else None


# The console script, found by its entry point so that this test does not depend on the module holding it.
RUN_CLI = """import sys
from importlib.metadata import entry_points
(script,) = entry_points(group="console_scripts", name="pubharvest")
sys.argv[0] = "pubharvest"
sys.exit(script.load()())
"""


def command_help(words: list[str]) -> tuple[list[str], str | None]:
    """The command path ``words`` begin with and its help (None: no such command)."""
    for size in (2, 1) if words and not words[0].startswith("-") else (0,):
        path = words[:size]
        if len(path) == size and all(re.fullmatch(r"[a-z]+", word) for word in path):
            text = help_of(*path)
            if text is not None:
                return path, text
    return words[:1], None


@pytest.mark.parametrize("page", [page for page in DOCS if any(shown_commands(page))], ids=name)
def test_commands_shown_exist_with_their_options(page: Path) -> None:
    problems = []
    for words in shown_commands(page):
        path, text = command_help(words)
        if text is None:
            problems.append(f"pubharvest {' '.join(path)}: no such command")
            continue
        listed = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))
        unknown = sorted({option for word in words for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", word)}
                         - listed)
        if unknown:
            problems.append(f"pubharvest {' '.join(words)}: {unknown} not in its --help")
    assert not problems, "\n".join(problems)


def test_the_collectors_find_the_readmes_examples() -> None:
    readme = ROOT / "README.md"
    assert any(">>>" in block.content for block in blocks(readme, "python"))
    assert any(command.startswith("pubharvest parse") for block in blocks(readme, "console")
               for command, _ in transcript(block))
    assert any(words[:1] == ["parse"] for words in shown_commands(ROOT / "docs" / "cli.md"))


def test_the_readme_is_an_entry_page() -> None:
    """Under 8 KB, with the two quick-start commands, the second exactly the one CI runs."""
    readme = (ROOT / "README.md").read_bytes()
    assert len(readme) < 8192
    quick = [block.content.strip() for block in blocks(ROOT / "README.md", "sh")][:2]
    assert quick == ["pip install -e . && pubharvest parse fixtures/", "pip install -e '.[test]' && pytest"]
    assert quick[1] in (ROOT / ".ci" / "run").read_text().splitlines()


# --- what no file may mention ---------------------------------------------------------------------

# Pages and recorded answers: their bytes are the input of expected records, so they stay as saved.
NOT_PROSE = ("fixtures/", "tests/data/", "tests/cassettes/")
SKIPPED_DIRS = {".git", "build", "venv", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                ".hypothesis"}
TEXT = {".py", ".md", ".toml", ".cff", ".txt", ".cfg", ".ini", ".sh", ".yml", ".yaml"}
ISSUE = re.compile(r"\b(?:issues?|pull requests?|PRs?)\s+#?\d+", re.IGNORECASE)
BARE_NUMBER = re.compile(r"(?<![\w&/#'\"`])#\d+\b")  # "#12" in prose; "'#2'" and `#1` are values
ELSEWHERE = re.compile(r"\b(?:" + "|".join(("STRUCTURE", "DESIGN", "FIELDS")) + r")\.md\b")


def project_files() -> Iterator[Path]:
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
        for file in sorted(files):
            path = Path(folder, file)
            relative = name(path)
            if relative.startswith(NOT_PROSE):
                continue
            if path.suffix in TEXT or (relative.startswith((".ci/", "tools/")) and not path.suffix):
                yield path


def python_prose(source: str) -> Iterator[str]:
    """The comments and docstrings of a Python file."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            yield ast.get_docstring(node, clean=False) or ""


def markdown_prose(path: Path) -> Iterator[str]:
    return (child.content for _, child in inline_children(path) if child.type == "text")


def mentions(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    prose = python_prose(text) if path.suffix == ".py" else markdown_prose(path) if path.suffix == ".md" else ()
    found = ISSUE.findall(text) + ELSEWHERE.findall(text)
    return found + [hit for piece in prose for hit in BARE_NUMBER.findall(piece)]


def test_no_file_names_an_issue_or_a_file_outside_the_repository() -> None:
    hits = {name(path): found for path in project_files() if (found := mentions(path))}
    assert not hits, "\n".join(f"{path}: {found}" for path, found in hits.items())


def test_the_mention_check_catches_each_form() -> None:
    issue = "issue"  # spelt apart, so that this file does not mention one
    assert ISSUE.findall(f"see {issue} 12, and {issue.title()}s 11 and 15") == [f"{issue} 12", f"{issue.title()}s 11"]
    assert BARE_NUMBER.findall("fixed in #12 (see #7); groups '#2' and `#1` are values") == ["#12", "#7"]
    files = ["STRUCTURE" + ".md", "FIELDS" + ".md"]
    assert ELSEWHERE.findall(f"read {files[0]} and {files[1]}") == files


# --- the project's papers -------------------------------------------------------------------------


def citation_version() -> str:
    match = re.search(r'^version:\s*"?([^"\s]+)"?\s*$', (ROOT / "CITATION.cff").read_text(), re.MULTILINE)
    assert match, "CITATION.cff states no version"
    return match[1]


def test_the_version_is_stated_once_and_cited_as_it_is() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pubharvest.__version__"}
    assert citation_version() == pubharvest.__version__ == importlib.metadata.version("pubharvest")
    done = subprocess.run([sys.executable, "-c", RUN_CLI, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["pubharvest", pubharvest.__version__]


def test_citation_cff_has_what_cff_1_2_0_requires() -> None:
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert all(isinstance(cff[key], str) and cff[key] for key in ("message", "title", "version"))
    assert cff["authors"] and all("name" in author or "family-names" in author for author in cff["authors"])
    assert cff["license"] == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == "MIT"


def test_the_licence_is_mit() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 pubharvest contributors" in text
