"""The project's own modules by their installed names, read from pyproject.toml's package folders."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from conftest import ROOT


def package_dirs() -> dict[str, Path]:
    """``{"pubharvest.parsers": ROOT/"parsers", ...}``: the installed package of each folder (pyproject.toml)."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in mapping.items()}


def module_files(packages: Mapping[str, Path] | None = None) -> dict[str, Path]:
    """Every module of the project (of ``packages``, by default those of pyproject.toml) by its installed
    name, subpackages included: parsers/x.py is ``pubharvest.parsers.x``, parsers/scholar/rows.py
    ``pubharvest.parsers.scholar.rows``, parsers/scholar/__init__.py ``pubharvest.parsers.scholar``."""
    modules = {}
    for package, folder in (package_dirs() if packages is None else packages).items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            modules[".".join((package, *parts[:-1 if parts[-1] == "__init__" else None]))] = path
    return modules
