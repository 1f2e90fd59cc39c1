"""Crossref's REST API: a work by its DOI (``/works/{doi}``), else a bibliographic search
(``/works?query.bibliographic=&query.author=``), read into ``Work``s.

>>> doi_key("10.1145/3448016.3452841")
'/works/10.1145/3448016.3452841'
>>> from pubharvest.parsers.records import Publication
>>> query_key(Publication(title="Vector quotient filters", authors=["P Pandey"], year=2021), rows=5)
'/works?query.bibliographic=Vector+quotient+filters&query.author=Pandey&rows=5'
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import urlencode

from pubharvest.names import split_name
from pubharvest.parsers.identifiers import normal_doi, orcid_in_url
from pubharvest.parsers.records import Publication

from .verify import Claim
from .work import Work, doi_path, first_year

NAME = "crossref"
_MARKUP = re.compile(r"</?[A-Za-z][^<>]*>")  # JATS and HTML tags Crossref keeps in titles (<i>, <scp>, <sub>)
# Crossref's types, as CSL names them (the records' ``type``)
CSL_TYPES = {"journal-article": "article-journal", "proceedings-article": "paper-conference",
             "posted-content": "article", "book-chapter": "chapter", "book": "book", "monograph": "book",
             "edited-book": "book", "dissertation": "thesis", "report": "report"}


def doi_key(doi: str) -> str:
    return f"/works/{doi_path(doi)}"


def query_key(pub: Publication, rows: int) -> str | None:
    """The search for ``pub`` by its title and first author's family name; None without a title."""
    if not pub.title:
        return None
    query = {"query.bibliographic": pub.title}
    family = split_name(pub.authors[0]).family if pub.authors else None
    if family:
        query["query.author"] = family
    return "/works?" + urlencode({**query, "rows": rows})


def works(answer: Any, method: str) -> list[Work]:
    """The works of an answer: the one of ``/works/{doi}``, the items of a search, best first."""
    message = answer.get("message") if isinstance(answer, dict) else None
    if not isinstance(message, dict):
        return []
    items = [message] if method == "doi" else message.get("items") or []
    return [work(item) for item in items if isinstance(item, dict)]


def work(item: dict[str, Any]) -> Work:
    """One Crossref work: the claim to verify, and the values it may add to a paper."""
    year, date = _issued(item)
    authors = [a for a in item.get("author") or [] if isinstance(a, dict)]
    first = next((a for a in authors if a.get("sequence") == "first"), authors[0] if authors else None)
    values: dict[str, str | int] = {}
    for name, value in (("year", year), ("date", date), ("container", first_text(item.get("container-title"))),
                        ("volume", item.get("volume")), ("issue", item.get("issue")), ("pages", item.get("page")),
                        ("publisher", item.get("publisher")), ("type", CSL_TYPES.get(item.get("type") or ""))):
        if isinstance(value, (str, int)) and value != "":
            values[name] = value
    return Work(
        claim=Claim(title=first_text(item.get("title")), first_author=_name(first), year=year, kind=item.get("type"),
                    subtitle=first_text(item.get("subtitle"))),
        doi=normal_doi(item.get("DOI")), values=values,
        authors=[(named, orcid_in_url(a.get("ORCID"))) for a in authors if (named := _name(a))],
    )


def _issued(item: dict[str, Any]) -> tuple[int | None, str | None]:
    """The year and date of issue: ``issued``, else the print or online date, else the posting date."""
    for key in ("issued", "published", "published-print", "published-online", "posted"):
        year, date = first_year(item.get(key))
        if year is not None:
            return year, date
    return None, None


def first_text(values: object) -> str | None:
    """The first of a list of texts (Crossref gives titles as lists), without the markup Crossref keeps in them.

    >>> first_text(["<scp>T</scp>reebase: an <scp>R</scp> package"]), first_text([]), first_text("A &amp; <i>B</i>")
    ('Treebase: an R package', None, 'A & B')
    """
    text = values[0] if isinstance(values, list) and values else values
    if not isinstance(text, str):
        return None
    return " ".join(html.unescape(_MARKUP.sub("", text)).split()) or None


def _name(author: dict[str, Any] | None) -> str | None:
    if author is None:
        return None
    parts = [author.get("given"), author.get("family")]
    name = " ".join(p for p in parts if isinstance(p, str) and p) or author.get("name")
    return name if isinstance(name, str) and name else None
