"""pubharvest: researcher-profile pages in, structured and citable records out.

The whole Python API is named here and imported on first use, so that ``import pubharvest``
(and ``pubharvest --help``) stays fast:

>>> from pubharvest import parse, ParseError
>>> result = parse(open("fixtures/scholar/003_9ea93ed9343d2054.txt", "rb").read())
>>> result.site, result.page, len(result.publications)
('scholar', 'publication_list', 20)
>>> try:
...     parse(b"")
... except ParseError as error:
...     print(error.code)
empty

The parts: ``pubharvest.parsers`` (offline: bytes of a saved page -> records),
``pubharvest.scrapers`` (jobs that fetch pages), and the command line, writers, store and merge
in this package's own modules. ``frames(results)`` gives the records as pandas DataFrames
(``pip install 'pubharvest[pandas]'``). Every error is a ``pubharvest.errors.PubharvestError``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_ERRORS = (
    "PubharvestError", "ParseError", "Empty", "Binary", "Truncated", "Blocked", "NotFoundOrPrivate",
    "Unrecognised", "LayoutChanged", "BadRecords", "FetchError", "Unreachable", "HttpError", "HostBlocked",
    "NotFound", "RobotsDisallowed", "JobError", "StoreError", "MissingDependency",
)
_RECORDS = (
    "PageResult", "Profile", "Publication", "Ids", "PublicationIds", "Metrics", "Coauthor", "Affiliation",
    "Topic", "YearCitations", "PublicAccess", "Facets", "Source", "PageWarning",
)
_WHERE: dict[str, str] = {
    "parse": "pubharvest.parsers", "detect": "pubharvest.parsers", "Detection": "pubharvest.parsers",
    "json_schema": "pubharvest.parsers.records",
    "frames": "pubharvest.dataframes",
    **{name: "pubharvest.errors" for name in _ERRORS},
    **{name: "pubharvest.parsers.records" for name in _RECORDS},
}
__all__ = ["__version__", *sorted(_WHERE)]

if TYPE_CHECKING:
    from pubharvest.dataframes import frames
    from pubharvest.errors import (
        BadRecords,
        Binary,
        Blocked,
        Empty,
        FetchError,
        HostBlocked,
        HttpError,
        JobError,
        LayoutChanged,
        MissingDependency,
        NotFound,
        NotFoundOrPrivate,
        ParseError,
        PubharvestError,
        RobotsDisallowed,
        StoreError,
        Truncated,
        Unreachable,
        Unrecognised,
    )
    from pubharvest.parsers import Detection, detect, parse
    from pubharvest.parsers.records import (
        Affiliation,
        Coauthor,
        Facets,
        Ids,
        Metrics,
        PageResult,
        PageWarning,
        Profile,
        PublicAccess,
        Publication,
        PublicationIds,
        Source,
        Topic,
        YearCitations,
        json_schema,
    )


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'pubharvest' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
