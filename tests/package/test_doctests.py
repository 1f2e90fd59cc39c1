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
import pkgutil

import pytest
from conftest import ROOT

import pubharvest

NEEDS = {"pubharvest.scrapers.crawl": "scrapy", "pubharvest.scrapers.workers": "redis",
         "pubharvest.dataframes": "pandas"}
EXTRAS = {"pandas": "pandas"}  # the extra that brings a package (else scrapy)


def module_names() -> list[str]:
    """Every module of the installed package, subpackages included, in a stable order."""
    names = ["pubharvest"]
    for info in pkgutil.walk_packages(pubharvest.__path__, "pubharvest."):
        names.append(info.name)
    return sorted(names)


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
    """A doctest that is never collected cannot fail: the finder must see the site parsers' examples."""
    module = importlib.import_module("pubharvest.parsers")
    assert any(test.examples for test in doctest.DocTestFinder().find(module))
