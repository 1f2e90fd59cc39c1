"""Run mypy over the package as it is installed: ``pubharvest.parsers`` and ``pubharvest.scrapers``.

mypy finds modules by folders, and knows nothing of setuptools' ``package-dir`` mapping (the
folders ``parsers/`` and ``scrapers/`` install as ``pubharvest.parsers`` and ``pubharvest.scrapers``).
So this builds, in ``build/typecheck/`` (rebuilt on every run), a ``pubharvest/`` tree of symbolic links shaped as the
wheel is, runs mypy on it with the settings in pyproject.toml, and prints its report with the
repository's own paths. Usage: ``python tools/typecheck.py [extra mypy arguments]``; exits with
mypy's status.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, Path]:
    """``{"pubharvest.parsers": ROOT/"parsers", ...}`` from pyproject.toml's package-dir table."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in mapping.items()}


def package_files(folder: Path) -> Iterator[Path]:
    """The modules (and ``py.typed``) of the package in ``folder`` and of its subpackages, at any depth."""
    for source in sorted(folder.iterdir()):
        if source.is_dir() and (source / "__init__.py").is_file():
            yield from package_files(source)
        elif source.suffix in (".py", ".pyi") or source.name == "py.typed":
            yield source


def link_tree(where: Path) -> dict[str, str]:
    """Link every module of every package into ``where`` by its installed path; linked -> real paths."""
    real: dict[str, str] = {}
    for package, folder in package_dirs().items():
        target = where.joinpath(*package.split("."))
        for source in package_files(folder):
            linked = target / source.relative_to(folder)
            linked.parent.mkdir(parents=True, exist_ok=True)
            linked.symlink_to(source)
            real[str(linked)] = str(source.relative_to(ROOT))
    return real


def test_paths() -> list[Path]:
    """The folders the tests import from by name: pytest's ``pythonpath`` in pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return [ROOT / folder for folder in config["tool"]["pytest"]["ini_options"]["pythonpath"]]


def main(argv: list[str]) -> int:
    tree = ROOT / "build" / "typecheck"  # a fixed place, so that mypy's cache stays valid
    shutil.rmtree(tree, ignore_errors=True)
    real = link_tree(tree)
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               str(tree / "pubharvest"), "tests", "bench", "tools", *argv]
    env = {**os.environ, "MYPYPATH": os.pathsep.join([str(tree), *map(str, test_paths())])}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    report = done.stdout + done.stderr
    for linked, path in sorted(real.items(), key=lambda item: -len(item[0])):
        report = report.replace(linked, path).replace(os.path.relpath(linked, ROOT), path)
    print(report, end="")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
