"""The modules' imports, read from their source: no import cycle, and arrows that point one way
(``pubharvest -> scrapers -> parsers``, ``pubharvest.errors`` the one shared leaf).

Every ``import`` counts, at module level and inside functions (a function-level import is still a
dependency, only a later one); imports under ``if TYPE_CHECKING:`` do not, as they never run.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ERRORS = "pubharvest.errors"


def package_dirs() -> dict[str, Path]:
    """``{"pubharvest.parsers": ROOT/"parsers", ...}``: the installed package of each folder (pyproject.toml)."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in mapping.items()}


def module_files() -> dict[str, Path]:
    """Every module of the project by its installed name: parsers/x.py is ``pubharvest.parsers.x``."""
    modules = {}
    for package, folder in package_dirs().items():
        for path in folder.glob("*.py"):
            modules[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return modules


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements under ``node``, at any depth, except those under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for orelse in child.orelse:
                yield from _import_nodes(orelse)
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        yield from _import_nodes(child)


def imported(module: str, source: str, known: set[str], is_package: bool = False) -> set[str]:
    """The project modules that ``module`` (whose text is ``source``) imports.

    ``from P import name`` is the module ``P.name`` when that is a module, else ``P`` itself.

    >>> sorted(imported("pubharvest.scrapers.job", "from . import sites\\nfrom pubharvest.errors import JobError",
    ...                 {"pubharvest.scrapers.sites", "pubharvest.errors", "pubharvest.scrapers.job"}))
    ['pubharvest.errors', 'pubharvest.scrapers.sites']
    """
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in _import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            anchor = ".".join(parts[:len(parts) - node.level + 1])
            base = f"{anchor}.{base}" if base else anchor
        for alias in node.names:
            name = f"{base}.{alias.name}"
            if name in known:
                found.add(name)
            elif base in known:
                found.add(base)
    found.discard(module)
    return found


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    known = set(files)
    return {module: imported(module, path.read_text(encoding="utf-8"), known, path.stem == "__init__")
            for module, path in files.items()}


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (module -> modules it imports), as a closed path, or None.

    >>> find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    ['a', 'b', 'c', 'a']
    >>> find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    True
    """
    state: dict[str, str] = {}  # "open" while on the current path, "done" after
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """``"importer -> imported"`` for each import against the layers.

    ``pubharvest.parsers`` imports only itself and ``pubharvest.errors``; ``pubharvest.scrapers``
    imports only itself, the parsers and ``pubharvest.errors``; the faces (``pubharvest.*``) anything.

    >>> upward_imports({"pubharvest.parsers.x": {"pubharvest.errors", "pubharvest.scrapers.y"},
    ...                 "pubharvest.scrapers.y": {"pubharvest.parsers", "pubharvest.cli"}})
    ['pubharvest.parsers.x -> pubharvest.scrapers.y', 'pubharvest.scrapers.y -> pubharvest.cli']
    """
    allowed = {"pubharvest.parsers": ("pubharvest.parsers",),
               "pubharvest.scrapers": ("pubharvest.scrapers", "pubharvest.parsers")}
    wrong = []
    for module, targets in sorted(graph.items()):
        layer = next((p for p in allowed if module == p or module.startswith(p + ".")), None)
        if layer is None:
            continue
        for target in sorted(targets):
            ok = target == ERRORS or any(target == p or target.startswith(p + ".") for p in allowed[layer])
            if not ok:
                wrong.append(f"{module} -> {target}")
    return wrong


def test_the_graph_holds_every_module_and_the_imports_it_should() -> None:
    graph = import_graph()
    assert {"pubharvest.cli", "pubharvest.errors", "pubharvest.parsers", "pubharvest.parsers.scholar",
            "pubharvest.scrapers.engine", "pubharvest.scrapers.runner"} <= set(graph)
    assert {"pubharvest.scrapers.engine", "pubharvest.scrapers.fetch"} <= graph["pubharvest.scrapers.runner"]
    assert "pubharvest.errors" in graph["pubharvest.cli"]
    assert graph["pubharvest.errors"] == set(), "the shared leaf imports nothing of the project"


def test_function_level_imports_count_and_type_checking_ones_do_not() -> None:
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pubharvest import cli\n"
              "def run():\n    from . import scrape\n")
    known = {"pubharvest.cli", "pubharvest.scrape", "pubharvest.x"}
    assert imported("pubharvest.x", source, known) == {"pubharvest.scrape"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"m.cli": {"m.scrape"}, "m.scrape": {"m.cli"}}) == ["m.cli", "m.scrape", "m.cli"]
    assert find_cycle({"m.cli": {"m.scrape"}, "m.scrape": {"m.errors"}, "m.errors": set()}) is None


def test_no_import_cycle() -> None:
    assert find_cycle(import_graph()) is None


def test_no_upward_import() -> None:
    assert upward_imports(import_graph()) == []
