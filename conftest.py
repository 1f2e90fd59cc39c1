"""Collection rules for the whole tree (doctests run over the packages, not only tests/)."""

import importlib.util

# The Scrapy engine's modules need the optional `scrapy` extra; without it their doctests cannot
# be imported, and the tests that use them skip (tests/test_scrapy_engine.py, tests/test_workers.py).
collect_ignore = [
    path
    for path, module in (("scrapers/crawl.py", "scrapy"), ("scrapers/workers.py", "redis"))
    if importlib.util.find_spec(module) is None
]
