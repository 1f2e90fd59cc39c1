"""CSL-JSON items (the input format of citeproc, Zotero, Pandoc) for publications and merged papers.

>>> from pubharvest.parsers.records import Publication, PublicationIds
>>> item = csl_item(Publication(title="ZeRO-Offload", authors=["RY Aminabadi", "BigScience Workshop"],
...     authors_truncated=True, venue="arXiv preprint arXiv:2101.06840", year=2021,
...     type="article", ids=PublicationIds(arxiv="2101.06840")), "aminabadi2021zero")
>>> item["type"], item["issued"], item["number"], item["publisher"]
('article', {'date-parts': [[2021]]}, '2101.06840', 'arXiv')
>>> item["author"]
[{'family': 'Aminabadi', 'given': 'R. Y.'}, {'literal': 'BigScience Workshop'}, {'literal': 'others'}]

JSON quotes any text, so the one rule for a field's text is ``csl_text``: a lone surrogate (which has
no UTF-8 form, and which ``json`` would write as it is, making the file unwritable) is U+FFFD.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from json.encoder import encode_basestring
from typing import Any

from .citable import (
    PREPRINT,
    Citable,
    citable_parts,
    container_of,
    csl_type,
    date_parts,
    issued_parts,
    number_of,
    shown_title,
)
from .keys import Keys
from .names import split_name

FALLBACK_TYPE = "document"  # CSL 1.0.2's type for a work of unknown kind
# The last author of a cut list: pandoc's citeproc (as its BibTeX reader makes of ``and others``)
# renders it "et al."
OTHERS = {"literal": "others"}
_SURROGATE = re.compile("[\ud800-\udfff]")


def csl_text(text: str) -> str:
    r"""A field's text as CSL-JSON holds it: a lone surrogate becomes U+FFFD, the replacement character.

    >>> csl_text("Sp\ud800ices") == "Sp\ufffdices", csl_text("a\n}{@")
    (True, 'a\n}{@')
    """
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def csl_texts(value: Any) -> Any:
    """``value`` (an item, or any part of one) with ``csl_text`` applied to every string in it."""
    if isinstance(value, str):
        return csl_text(value)
    if isinstance(value, dict):
        return {key: csl_texts(part) for key, part in value.items()}
    if isinstance(value, list):
        return [csl_texts(part) for part in value]
    return value


def csl_name(name: str) -> dict[str, str]:
    """A CSL name object: ``family``/``given`` (and particle, suffix), or ``literal`` for a group.

    >>> csl_name("T van de Ven")
    {'family': 'Ven', 'given': 'T.', 'non-dropping-particle': 'van de'}
    """
    return dict(_name_fields(name))


@functools.lru_cache(maxsize=1 << 16)  # names repeat on every paper of a profile
def _name_fields(name: str) -> tuple[tuple[str, str], ...]:
    parts = split_name(name)
    if parts.literal is not None:
        return (("literal", csl_text(parts.literal)),)
    fields = {"family": parts.family, "given": parts.given, "non-dropping-particle": parts.particle,
              "suffix": parts.suffix}
    return tuple((key, csl_text(value)) for key, value in fields.items() if value)


def csl_authors(pub: Citable) -> list[dict[str, str]] | None:
    """The ``author`` names, ending in ``{"literal": "others"}`` when the page cut the list."""
    names = [csl_name(name) for name in pub.authors]
    return [*names, dict(OTHERS)] if names and pub.authors_truncated else names or None


def csl_item(pub: Citable, key: str) -> dict[str, Any]:
    """One CSL-JSON item; ``key`` is its ``id`` and ``citation-key`` (the BibTeX key)."""
    # the names are CSL text already (made once per distinct name): only the other fields are walked
    return {name: csl_authors(pub) if name == "author" else csl_texts(value) for name, value in _item_fields(pub, key)}


def csl_item_json(pub: Citable, key: str) -> str:
    """``csl_item`` as JSON, the same text as ``json.dumps(csl_item(pub, key), ensure_ascii=False)``, made
    without the item: the names, dates and venue fields as JSON once per distinct value, each field's
    text quoted by json's own function.

    >>> from pubharvest.parsers.records import Publication
    >>> print(csl_item_json(Publication(title="A \\"b\\"", authors=["T van de Ven"], year=2020), "ven2020b"))
    {"id": "ven2020b", "citation-key": "ven2020b", "type": "document", "title": "A \\"b\\"", \
"author": [{"family": "Ven", "given": "T.", "non-dropping-particle": "van de"}], "issued": {"date-parts": [[2020]]}}
    """
    quoted_key = _quoted(key)
    text = [f'{{"id": {quoted_key}, "citation-key": {quoted_key}']
    add = text.append
    for name, value in _item_fields(pub, key)[2:]:  # after the id and the citation key
        if name in _SHARED_FIELDS:
            add(_shared_field_json(name, value))
        elif name == "author":
            add(_authors_json(pub))
        elif name == "issued":
            add(_issued_json(pub.year, pub.date))
        elif value.__class__ is str:
            add(_FIELD_OPENINGS[name] + _quoted(value))
        else:
            add(_FIELD_OPENINGS[name] + _ENCODE(csl_texts(value)))
    return "".join(text) + "}"


def _item_fields(pub: Citable, key: str) -> list[tuple[str, Any]]:
    """The item's fields in order, without those it lacks (None); ``author`` stands for
    ``csl_authors(pub)``, and the text is not yet CSL text."""
    kind = csl_type(pub)
    ids = pub.ids
    parts = citable_parts(pub)
    preprint = kind == PREPRINT and bool(ids.arxiv)
    fields: list[tuple[str, Any]] = [("id", key), ("citation-key", key), ("type", kind or FALLBACK_TYPE)]
    add = fields.append
    if (title := shown_title(pub)) is not None:
        add(("title", title))
    if pub.authors:
        add(("author", pub.authors))
    if issued := issued_parts(pub):
        add(("issued", {"date-parts": [issued]}))
    if (container := container_of(kind, pub.venue, parts)) is not None:
        add(("container-title", container))
    for name, value in (("volume", parts.volume), ("issue", parts.issue), ("page", parts.pages),
                        # a preprint's arXiv id goes in ``number`` (zotero/zotero-bits#88)
                        ("number", number_of(pub, kind) or (ids.arxiv if kind == PREPRINT else None)),
                        ("publisher", "arXiv" if preprint and not pub.publisher else pub.publisher),
                        ("genre", "Technical report" if kind == "report" else None),
                        ("DOI", ids.doi), ("ISBN", ids.isbn),
                        ("URL", pub.url or (f"https://arxiv.org/abs/{ids.arxiv}" if preprint else None))):
        if value is not None:
            add((name, value))
    if pub.authors_truncated:  # said again where tools that do not know pandoc's convention can read it
        add(("custom", {"authors_truncated": True}))
    return fields


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps' output
_FIELD_OPENINGS = {name: f", {_ENCODE(name)}: " for name in (
    "type", "title", "author", "issued", "container-title", "volume", "issue", "page", "number", "publisher",
    "genre", "DOI", "ISBN", "URL", "custom")}


def _quoted(text: str) -> str:
    """A JSON string of ``csl_text(text)``, as json writes it."""
    return encode_basestring(csl_text(text))


@functools.lru_cache(maxsize=1 << 16)  # names repeat on every paper of a profile
def _name_json(name: str) -> str:
    return _ENCODE(csl_name(name))


_OTHERS_JSON = _ENCODE(OTHERS)


def _authors_json(pub: Citable) -> str:
    names = ", ".join([_name_json(name) for name in pub.authors])
    return f', "author": [{names}, {_OTHERS_JSON}]' if pub.authors_truncated else f', "author": [{names}]'


@functools.lru_cache(maxsize=1 << 12)  # a few hundred distinct years and dates
def _issued_json(year: int | None, date: str | None) -> str:
    return _FIELD_OPENINGS["issued"] + _ENCODE({"date-parts": [date_parts(year, date)]})


# Fields whose values repeat across papers (types, venues and their parts, publishers): each distinct
# value is made JSON once
_SHARED_FIELDS = frozenset({"type", "container-title", "volume", "issue", "page", "publisher", "genre"})


@functools.lru_cache(maxsize=1 << 16)
def _shared_field_json(name: str, value: str) -> str:
    return _FIELD_OPENINGS[name] + _quoted(value)


def csl_items(pubs: Iterable[Citable], keys: Keys | None = None) -> list[dict[str, Any]]:
    """Items for ``pubs`` with unique ids (the BibTeX keys the same papers get)."""
    keys = keys or Keys()
    return [csl_item(pub, keys.key(pub)) for pub in pubs]
