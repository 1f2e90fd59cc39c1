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
import re
from collections.abc import Iterable
from typing import Any

from .citable import (
    PREPRINT,
    Citable,
    citable_parts,
    container_title,
    csl_type,
    document_number,
    issued_parts,
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
        return value if value.isascii() else _SURROGATE.sub("\ufffd", value)
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
    kind = csl_type(pub)
    parts = citable_parts(pub)
    issued = issued_parts(pub)
    preprint = kind == PREPRINT and bool(pub.ids.arxiv)
    item: dict[str, Any] = {
        "id": key,
        "citation-key": key,
        "type": kind or FALLBACK_TYPE,
        "title": shown_title(pub),
        "author": csl_authors(pub),
        "issued": {"date-parts": [issued]} if issued else None,
        "container-title": container_title(pub),
        "volume": parts.volume,
        "issue": parts.issue,
        "page": parts.pages,
        # a preprint's arXiv id goes in ``number`` (zotero/zotero-bits#88)
        "number": document_number(pub) or (pub.ids.arxiv if kind == PREPRINT else None),
        "publisher": "arXiv" if preprint and not pub.publisher else pub.publisher,
        "genre": "Technical report" if kind == "report" else None,
        "DOI": pub.ids.doi,
        "ISBN": pub.ids.isbn,
        "URL": pub.url or (f"https://arxiv.org/abs/{pub.ids.arxiv}" if preprint else None),
        # said again where tools that do not know pandoc's convention can read it
        "custom": {"authors_truncated": True} if pub.authors_truncated else None,
    }
    # the names are CSL text already (made once per distinct name): only the other fields are walked
    return {name: value if name == "author" else csl_texts(value) for name, value in item.items() if value is not None}


def csl_items(pubs: Iterable[Citable], keys: Keys | None = None) -> list[dict[str, Any]]:
    """Items for ``pubs`` with unique ids (the BibTeX keys the same papers get)."""
    keys = keys or Keys()
    return [csl_item(pub, keys.key(pub)) for pub in pubs]
