"""The modules' imports, read from their source: no import cycle, and arrows that point one way, down
the floors of ``FLOORS`` (``cli -> formats -> domain -> scrapers -> parsers -> registry -> errors``).

Every ``import`` counts, at module level and inside functions (a function-level import is still a
dependency, only a later one); imports under ``if TYPE_CHECKING:`` do not, as they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

from projectfiles import module_files

ROOT = Path(__file__).resolve().parents[2]

# The floors, lowest first. A module may import from its own floor and the floors below, never from one
# above. ``name`` is that module; ``name.*`` a package and every module in it, at any depth.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # the one error tree: the leaf, imports no project module
    ("errors", ("pubharvest.errors",)),
    # the site registry: the sites' names and titles, a leaf the parsers read and ``--help`` reads alone
    ("registry", ("pubharvest.siteregistry",)),
    # offline: the bytes of a saved page in, records out (the record model, the sites' modules)
    ("parsers", ("pubharvest.parsers.*",)),
    # network: jobs that fetch pages politely and hand the bytes to the parsers
    ("scrapers", ("pubharvest.scrapers.*",)),
    # the records' domain: names, a paper's bibliographic fields and citation key, the merge, records
    # read back from files, the store of every run, saved pages into it, what changed between two runs,
    # enrichment from Crossref and OpenAlex
    ("domain", ("pubharvest.names", "pubharvest.citable", "pubharvest.keys", "pubharvest.counts", "pubharvest.merge",
                "pubharvest.metrics.*", "pubharvest.recordfiles", "pubharvest.inputs", "pubharvest.store",
                "pubharvest.intake", "pubharvest.changes", "pubharvest.enrich.*")),
    # the formats: records written (JSON, CSV, BibTeX, CSL-JSON, RIS, ORCID works, tables, DataFrames, sync
    # targets) and shown (the report, a job's progress)
    ("formats", ("pubharvest.output", "pubharvest.latex", "pubharvest.texchars", "pubharvest.bibtex", "pubharvest.csl",
                 "pubharvest.ris", "pubharvest.orcid", "pubharvest.tables",
                 "pubharvest.dataframes", "pubharvest.report", "pubharvest.progress", "pubharvest.sync.*")),
    # the public Python API: the package itself, naming what the floors below offer
    ("api", ("pubharvest",)),
    # the command, one module per command: on top, imported by nothing else
    ("cli", ("pubharvest.cli.*",)),
)


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
                return [*path[path.index(nxt):], nxt]
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


def floor_of(module: str) -> int | None:
    """The index in ``FLOORS`` of the floor ``module`` is on, or None when no floor names it.

    >>> [floor_of(m) for m in ("pubharvest.errors", "pubharvest.parsers", "pubharvest.parsers.scholar.rows",
    ...                        "pubharvest.cli.parse", "pubharvest", "pubharvest.nowhere")]
    [0, 2, 2, 7, 6, None]
    """
    for index, (_, names) in enumerate(FLOORS):
        for name in names:
            package = name.removesuffix(".*")
            if module == package or (name.endswith(".*") and module.startswith(package + ".")):
                return index
    return None


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """``"importer -> imported"`` for each import of a module from a floor above its own.

    >>> for wrong in upward_imports({"pubharvest.parsers.x": {"pubharvest.errors", "pubharvest.scrapers.y"},
    ...                              "pubharvest.scrapers.y": {"pubharvest.parsers", "pubharvest.cli"},
    ...                              "pubharvest.merge": {"pubharvest.names", "pubharvest.output"}}):
    ...     print(wrong)
    pubharvest.merge -> pubharvest.output
    pubharvest.parsers.x -> pubharvest.scrapers.y
    pubharvest.scrapers.y -> pubharvest.cli
    """
    return [f"{module} -> {target}" for module, targets in sorted(graph.items()) for target in sorted(targets)
            if (floor_of(target) or 0) > (floor_of(module) or 0)]


def hidden_imports(source: str) -> list[str]:
    """The lookups in ``source`` of another module through ``sys.modules``: an import the graph cannot see.

    >>> hidden_imports("import sys\\nsys.modules[__name__].x = 1\\nsys.modules['pubharvest.parsers'].SITES")
    ["sys.modules['pubharvest.parsers']"]
    """
    return [ast.unparse(node) for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Subscript)
            and ast.unparse(node.value) == "sys.modules" and ast.unparse(node.slice) != "__name__"]


def test_the_graph_holds_every_module_and_the_imports_it_should() -> None:
    graph = import_graph()
    assert {"pubharvest.cli", "pubharvest.cli.parse", "pubharvest.cli.scrape", "pubharvest.errors",
            "pubharvest.parsers", "pubharvest.parsers.scholar", "pubharvest.scrapers.engine",
            "pubharvest.scrapers.runner"} <= set(graph)
    assert {"pubharvest.scrapers.engine", "pubharvest.scrapers.fetch"} <= graph["pubharvest.scrapers.runner"]
    assert "pubharvest.errors" in graph["pubharvest.cli"]
    assert graph["pubharvest.errors"] == set(), "the shared leaf imports nothing of the project"


def test_modules_of_subpackages_are_found_by_their_installed_name(tmp_path: Path) -> None:
    for name in ("__init__.py", "page.py", "scholar/__init__.py", "scholar/rows.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    assert sorted(module_files({"pubharvest.parsers": tmp_path})) == [
        "pubharvest.parsers", "pubharvest.parsers.page", "pubharvest.parsers.scholar",
        "pubharvest.parsers.scholar.rows"]


def test_function_level_imports_count_and_type_checking_ones_do_not() -> None:
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pubharvest import store\n"
              "def run():\n    from . import scrape\n")
    known = {"pubharvest.store", "pubharvest.cli.scrape", "pubharvest.cli.x"}
    assert imported("pubharvest.cli.x", source, known) == {"pubharvest.cli.scrape"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"m.cli": {"m.scrape"}, "m.scrape": {"m.cli"}}) == ["m.cli", "m.scrape", "m.cli"]
    assert find_cycle({"m.cli": {"m.scrape"}, "m.scrape": {"m.errors"}, "m.errors": set()}) is None


def test_no_import_cycle() -> None:
    assert find_cycle(import_graph()) is None


def test_every_module_is_on_a_floor() -> None:
    assert [module for module in sorted(import_graph()) if floor_of(module) is None] == []


def test_no_upward_import() -> None:
    assert upward_imports(import_graph()) == []


def test_no_module_reaches_another_through_sys_modules() -> None:
    found = {module: hidden for module, path in module_files().items()
             if (hidden := hidden_imports(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_record_model_reads_the_registry_not_its_package() -> None:
    graph = import_graph()
    assert graph["pubharvest.siteregistry"] == set(), "the registry is a leaf"
    assert "pubharvest.siteregistry" in graph["pubharvest.parsers.records"]
    assert "pubharvest.siteregistry" in graph["pubharvest.parsers"]
    assert "pubharvest.parsers" not in graph["pubharvest.parsers.records"]


# A site parser that is a package reads each kind of page in a module of its own; its modules import
# one way, from the package down to its base, never up nor across a floor.
SITE_PACKAGE_FLOORS = {
    "pubharvest.parsers.scholar": [["__init__"], ["profile", "legacy", "publication", "coauthors", "saved_table",
                                                  "search"], ["rows"], ["_base"], ["identity"]],
    "pubharvest.parsers.elamur": [["__init__"], ["profile", "publications"], ["sections"], ["kinds", "plain"],
                                  ["_base"]],
}


def floor_violations(package: str, floors: list[list[str]], graph: Mapping[str, set[str]]) -> list[str]:
    """``"importer -> imported"`` for each import inside ``package`` that does not point to a lower floor.

    >>> floor_violations("p", [["__init__"], ["a", "b"], ["_base"]], {"p.a": {"p._base", "p.b"}, "p._base": {"p"}})
    ['p._base -> p', 'p.a -> p.b']
    """
    level = {(package if name == "__init__" else f"{package}.{name}"): depth
             for depth, names in enumerate(floors) for name in names}
    return [f"{module} -> {target}" for module in sorted(level) for target in sorted(graph.get(module, ()))
            if target in level and level[target] <= level[module]]


def test_each_site_package_imports_one_way() -> None:
    graph = import_graph()
    for package, floors in SITE_PACKAGE_FLOORS.items():
        inside = {m for m in graph if m == package or m.startswith(package + ".")}
        named = {package if n == "__init__" else f"{package}.{n}" for names in floors for n in names}
        assert inside == named, f"{package}: every module is on a floor"
        assert floor_violations(package, floors, graph) == []
