"""The distribution installs one top-level import name, ``pubharvest``, and nothing it imports can be shadowed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

IMPORT_ALL = """
import importlib, importlib.util, pkgutil, pubharvest
optional = {"pubharvest.scrapers.crawl": "scrapy", "pubharvest.scrapers.workers": "redis"}
for info in pkgutil.walk_packages(pubharvest.__path__, "pubharvest."):
    if info.name in optional and importlib.util.find_spec(optional[info.name]) is None:
        continue
    importlib.import_module(info.name)
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
    for module in ("pubharvest/parsers/scholar/__init__.py", "pubharvest/parsers/scholar/_base.py",
                   "pubharvest/scrapers/runner.py", "pubharvest/cli/__init__.py", "pubharvest/cli/scrape.py",
                   "pubharvest/py.typed"):
        assert module in names


def test_local_parsers_and_scrapers_modules_do_not_shadow_the_package(tmp_path: Path) -> None:
    (tmp_path / "parsers.py").write_text("raise SystemExit('the local parsers.py was imported')\n")
    (tmp_path / "scrapers.py").write_text("raise SystemExit('the local scrapers.py was imported')\n")
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
