"""Identifiers by kind, for the store, merge and the CSV columns, with the sites' kinds read from the
registry (``pubharvest.parsers.SITES``) on every call: a site registered there is stored, merged
and exported without being named here.

A record's ``ids`` hold one field per kind (``doi``, ``arxiv``, ..., and ``scholar``, ``msr``,
``elamur`` for the sites that have one); a site without a field of its own keeps its ids in
``ids.other``, keyed by its name.

>>> from pubharvest.parsers.records import PublicationIds
>>> ids = PublicationIds(doi="10.1/x", msr="123")
>>> id_value(ids, "msr"), id_value(ids, "doi"), id_value(ids, "elamur")
('123', '10.1/x', None)
>>> string_kinds(PublicationIds)
('scholar', 'arxiv', 'doi', 'isbn', 'report_number', 'patent_number', 'msr', 'elamur')
"""

from __future__ import annotations

from typing import Any

import msgspec

import pubharvest.parsers as parsers
from pubharvest.parsers.records import own_id

__all__ = ["registered_sites", "id_value", "id_values", "string_kinds"]


def registered_sites() -> tuple[str, ...]:
    """The registry's site names, in its order (read on each call, as a site may be added at runtime)."""
    return parsers.SITES


def id_value(ids: Any, kind: str) -> str | None:
    """The identifier of one ``kind`` in ``ids``: a site's own id for a site's name, else the field."""
    if kind in registered_sites():
        return own_id(ids, kind)
    value: str | None = getattr(ids, kind)
    return value


def id_values(ids: Any, kinds: tuple[str, ...]) -> dict[str, str]:
    """The identifiers of ``kinds`` that ``ids`` holds (each as ``id_value`` gives it), read in one pass.

    >>> from pubharvest.parsers.records import PublicationIds
    >>> id_values(PublicationIds(doi="10.1/x", msr="123"), ("doi", "arxiv", "msr", "elamur"))
    {'doi': '10.1/x', 'msr': '123'}
    """
    fields = dict(zip(type(ids).__struct_fields__, msgspec.structs.astuple(ids)))
    sites, found = registered_sites(), {}
    for kind in kinds:
        value = own_id(ids, kind) if kind in sites else fields.get(kind)
        if value:
            found[kind] = value
    return found


def string_kinds(ids_type: type[msgspec.Struct]) -> tuple[str, ...]:
    """The kinds of which ``ids_type`` (``Ids`` or ``PublicationIds``) holds one string, in field order
    (not lists such as ``scholar_clusters``), then every registered site without a field of its own."""
    fields = tuple(f.name for f in msgspec.structs.fields(ids_type) if f.type == (str | None))
    return fields + tuple(site for site in registered_sites() if site not in ids_type.__struct_fields__)
