"""A paper's citation counts with where and when each was read: what the exports that carry a count
(RIS's note) say of it. A page's publication has its page's count; a merged paper has each source's.
The date is the day a job fetched the page; a page parsed offline says no date, and none is made up
(never "today": the same records give the same bytes).

>>> from pubharvest.parsers.records import PageResult, Publication, Source
>>> pub = Publication(title="ZeRO", citations=405)
>>> page = PageResult(site="scholar", page="profile", publications=[pub],
...                   source=Source(sha256="", parser="", fetched_at="2024-05-01T10:00:00Z"))
>>> count_text(paper_counts(pub, page))
'405 (Google Scholar, 2024-05-01)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pubharvest.parsers.records import PageResult

from .citable import Citable


class Count(NamedTuple):
    """One count of a paper's citations: the number, the site that showed it, the ISO day it was read."""

    citations: int
    site: str
    date: str | None = None


def paper_counts(pub: Citable, page: PageResult | None = None) -> list[Count]:
    """The counts of ``pub``: its page's (``page``, the page result it came on), or each source's of a
    merged paper, each once, in source order."""
    sources = getattr(pub, "sources", None)  # a merged paper (``pubharvest.merge.Paper``)
    if sources is not None:
        counts = [Count(source.citations, source.site, day(source.fetched_at))
                  for source in sources if source.citations is not None]
        return list(dict.fromkeys(counts))
    citations = getattr(pub, "citations", None)
    if citations is None or page is None:
        return []
    return [Count(citations, page.site, day(page.source.fetched_at if page.source else None))]


def day(timestamp: str | None) -> str | None:
    """The ISO day of an ISO timestamp: ``2024-05-01T10:00:00Z`` -> ``2024-05-01``."""
    return timestamp[:10] if timestamp else None


def count_text(counts: Sequence[Count]) -> str | None:
    """The counts as one line: ``405 (Google Scholar, 2024-05-01); 398 (Elamur Research)``."""
    return "; ".join(f"{count.citations} ({', '.join(filter(None, (site_title(count.site), count.date)))})"
                     for count in counts) or None


def site_title(site: str) -> str:
    """A site's name as people write it (``Google Scholar``), or its code when it is not registered."""
    from pubharvest.parsers import site_info

    try:
        return site_info(site).title
    except KeyError:
        return site
