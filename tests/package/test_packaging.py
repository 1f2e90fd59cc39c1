"""The distribution installs one top-level import name, ``pubharvest``, and nothing it imports can be shadowed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT
from projectfiles import module_files

# Imports each module named on its command line (every module of the project: ``module_files``, which reads
# pyproject.toml's package folders, as walking ``pubharvest.__path__`` would miss parsers/ and scrapers/)
IMPORT_ALL = """
import importlib, importlib.util, sys
optional = {"pubharvest.scrapers.crawl": "scrapy", "pubharvest.scrapers.workers": "redis"}
for name in sys.argv[1:]:
    if name in optional and importlib.util.find_spec(optional[name]) is None:
        continue
    importlib.import_module(name)
from pubharvest import parse, detect, ParseError, PubharvestError
print("ok")
"""


@pytest.mark.slow  # builds a wheel
def test_wheel_holds_one_top_level_package(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("pubharvest-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"pubharvest"}
    modules = {name.replace(".", "/") + ("/__init__.py" if path.name == "__init__.py" else ".py")
               for name, path in module_files().items()}
    assert sorted(modules - set(names)) == []
    assert "pubharvest/py.typed" in names


def test_every_package_folder_is_installed() -> None:
    """pyproject.toml names its packages one by one: a folder of modules left off that list is missing from
    every wheel (and from ``pip install .``), though an editable install still finds it."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {name for name, path in module_files().items() if path.name == "__init__.py"}
    assert sorted(packages - listed) == []


def test_local_parsers_and_scrapers_modules_do_not_shadow_the_package(tmp_path: Path) -> None:
    (tmp_path / "parsers.py").write_text("raise SystemExit('the local parsers.py was imported')\n")
    (tmp_path / "scrapers.py").write_text("raise SystemExit('the local scrapers.py was imported')\n")
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL, *sorted(module_files())], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
