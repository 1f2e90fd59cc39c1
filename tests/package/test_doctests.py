"""Every module's doctests, run through the module's installed name (``pubharvest.parsers.scholar``).

pytest's ``--doctest-modules`` would import ``parsers/scholar/__init__.py`` under a name of its own, a
second copy of the module beside the installed one; here each module is imported once, as users
import it. The Scrapy engine's modules need the ``scrapy`` extra and are left out without it.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import io

import pytest
from conftest import ROOT
from projectfiles import module_files

NEEDS = {"pubharvest.scrapers.crawl": "scrapy", "pubharvest.scrapers.workers": "redis",
         "pubharvest.dataframes": "pandas"}
EXTRAS = {"pandas": "pandas"}  # the extra that brings a package (else scrapy)


def module_names() -> list[str]:
    """Every module of the installed package, subpackages included, in a stable order: those of parsers/ and
    scrapers/ too, which walking ``pubharvest.__path__`` does not reach (they are installed from their own
    folders)."""
    return sorted(module_files())


@pytest.mark.parametrize("name", module_names())
def test_doctests(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = NEEDS.get(name)
    if extra and importlib.util.find_spec(extra) is None:
        pytest.skip(f"{name} needs the {extra!r} package (pip install 'pubharvest[{EXTRAS.get(extra, 'scrapy')}]')")
    monkeypatch.chdir(ROOT)  # doctests read fixtures by their path from the repository's root
    module = importlib.import_module(name)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=out.write)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, out.getvalue()


def test_doctests_are_found() -> None:
    """A doctest that is never collected cannot fail: the finder must see the site parsers' examples, and
    every package folder's modules must be among those run."""
    module = importlib.import_module("pubharvest.parsers")
    assert any(test.examples for test in doctest.DocTestFinder().find(module))
    names = module_names()
    assert {"pubharvest.parsers.scholar.rows", "pubharvest.scrapers.engine", "pubharvest.metrics.indicators",
            "pubharvest.cli.metrics"} <= set(names)
