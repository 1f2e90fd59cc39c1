"""Elamur Research author pages, served as Markdown, read with or without their newlines.

``_base`` holds the site, the page's kind and front matter and the blocks it is made of;
``sections`` reads the page into sections; ``profile`` and ``publications`` read the records.

Saved copies often lose every newline (the whole page is one line). ``_with_newlines`` first
puts the newlines back where the page's known shapes are (``## Affiliations``, `` 1. **[``,
`` - [``, ...), then CommonMark (markdown-it-py) reads the blocks (``_markdown_sections``), so
both forms go through the same code and give the same records.

>>> doc = Document.from_input('--- title: "T" canonical: "https://research.elamur.ai/free/en/topics/gpu/" ---')
>>> sniff(doc)
'topic'
>>> page_kind("https://research.elamur.ai/free/en/authors/olatunji-ruwase/")
'profile'
"""

from __future__ import annotations

import re

from pubharvest.errors import Truncated, Unrecognised

from ..page import Document
from ..records import PageResult
from ..text import month_number
from ..warning_codes import Warn
from ._base import (
    FRONT_MATTER,
    PAGE_LABELS,
    SITE,
    UPDATED,
    content_start,
    front_matter,
    page_kind,
    page_url,
    without_comments,
)

__all__ = ["SITE", "sniff", "parse"]


def sniff(doc: Document) -> str | None:
    """The kind of Elamur page ``doc`` is (``"profile"`` for an author page), or None if not Elamur's."""
    url = page_url(front_matter(without_comments(doc.text[:8192])), doc.text[:8192])
    return page_kind(url) if url else None


def parse(doc: Document) -> PageResult:
    """The records of an Elamur author page; raises ``Unrecognised`` for other kinds of Elamur page."""
    text = doc.text
    start = content_start(text)
    front = FRONT_MATTER.match(text, start)
    meta = front_matter(front.group()) if front else {}
    url = page_url(meta, text[start:start + 2048])
    if url is None:
        if text.startswith("---", start) and not meta:
            raise Truncated("the page stops inside its front matter")
        raise Unrecognised("not an Elamur Research page")
    kind = page_kind(url)
    if kind != "profile":
        raise Unrecognised(f"an Elamur Research {PAGE_LABELS[kind]} ({url}), not an author page; "
                           "pubharvest reads Elamur author pages only")
    updated = UPDATED.search(text, max(0, _text_end(text) - 80))
    if updated is None:
        raise Truncated("the Elamur author page stops before its closing \"Updated <date>\" line: "
                        "the file was cut short")
    from .kinds import sections_by_kind  # the readers: imported only when an Elamur page is read
    from .profile import read_profile
    from .publications import read_publications
    from .sections import read_sections

    sections = read_sections(text, front.end() if front else start)
    result = PageResult(site=SITE.name, page="profile", url=url)
    kinds = sections_by_kind(sections, result)
    result.profile = read_profile(meta, url, sections[0], kinds, result)
    result.profile.updated = _updated_date(updated, result)
    result.publications = read_publications(kinds, result.profile, result)
    return result


def _text_end(text: str) -> int:
    """Where ``text`` ends but for trailing white space (not rstrip(): no copy of the page)."""
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    return end


def _updated_date(match: re.Match[str], result: PageResult) -> str:
    """The ISO date of the closing line (``Updated 2 November 2026`` -> ``2026-11-02``); the year alone,
    with a warning, when its month is a name in no language pubharvest knows."""
    month = month_number(match["month"])
    if month is None:
        result.warn(Warn.profile_unreadable, f"the closing date's month {match['month']!r} is no month name "
                                             "pubharvest knows: the page's update date is its year only")
        return match["year"]
    return f"{match['year']}-{month:02d}-{int(match['day']):02d}"
