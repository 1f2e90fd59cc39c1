"""Page results from any input ``merge`` reads: a saved page (parsed), or records pubharvest wrote
(a JSON array or object of ``PageResult`` from ``parse``, JSON Lines from ``parse -f jsonl``, the
scraper or the store), perhaps gzipped.

>>> [r.site for r in read_results(b'{"site": "msr", "page": "publication_list"}')]
['msr']
"""

from __future__ import annotations

import json

import msgspec

from pubharvest.errors import BadRecords, Unrecognised
from pubharvest.parsers import parse
from pubharvest.parsers.page import gunzip
from pubharvest.parsers.records import PageResult


def read_results(data: bytes, url: str | None = None) -> list[PageResult]:
    """The page results in ``data``: decoded when they are records, else parsed as a page."""
    if data[:2] == b"\x1f\x8b":
        data = gunzip(data)
    items = _json_records(data)
    if items is None:
        return [parse(data, url=url)]
    try:
        return [msgspec.convert(item, type=PageResult) for item in items]
    except msgspec.ValidationError as error:
        raise BadRecords(f"not valid page results: {error}") from None


def _json_records(data: bytes) -> list[dict] | None:
    """The JSON objects in ``data`` when it is pubharvest records (array, object or lines), else None."""
    text = data.lstrip()
    if text[:1] not in (b"[", b"{"):
        return None
    try:
        parsed = json.loads(text)
        if parsed == []:  # what `parse` writes when nothing parsed
            return []
        items = parsed if isinstance(parsed, list) else [parsed]
    except ValueError:
        try:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            return None
    if items and all(isinstance(i, dict) and {"site", "page"} <= i.keys() for i in items):
        return items
    if len(items) == 1 and isinstance(items[0], dict) and {"profiles", "papers"} <= items[0].keys():
        raise Unrecognised("the output of `pubharvest merge`: merge reads pages and page results")
    return None
