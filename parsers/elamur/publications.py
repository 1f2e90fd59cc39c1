"""The publications of an Elamur author page: the Papers list (with citations) and the All works
list (with venues), matched by their paper pages."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain

from pubharvest.errors import LayoutChanged

from ..identifiers import find_arxiv_id, give_id, ids_from_links
from ..listings import check_listings, distinct
from ..numbers import count_in, read_count, read_year
from ..records import PageResult, Profile, Publication, PublicationIds
from ..text import clean, clean_or_none, split_names
from ..warning_codes import Warn
from ._base import Block, Item, Run, Section, all_works_counts, check_count, joined, links_of
from .kinds import PAPER_PAGE

# Parts of a list item, read once per item.
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)(?! citation)")
_CITATIONS = re.compile(r"([\d,]+) citations?")
_YEAR_AND_CITATIONS = re.compile(r"\((\d{4}) · (\d[\d,]*) citations?\)")
_ARXIV_TAIL = re.compile(r"\s*\barXiv:(\S+)\Z")


def _has_link(block: Block | Item) -> bool:
    return isinstance(block, Item) or bool(links_of(block.runs))


def read_publications(kinds: dict[str, Section], profile: Profile, result: PageResult) -> list[Publication]:
    """The "Papers" and "All works" lists merged: one record per paper, in order of first mention.

    Invariants: every item of either list gives a paper (else ``listings_unreadable``, or
    ``layout_changed`` when none does); the counts the page states (``N works in our library`` for
    Papers, ``N works of theirs`` and ``N with a page here`` for All works) match what was read.

    *All works* is merged as it is read, so that a work absorbed into its *Papers* record is dropped at
    once (a big page holds each paper twice); the merge's warnings still come after the lists' own."""
    papers_sec, all_sec = kinds.get("papers"), kinds.get("all_works")
    papers_read, works_read = _Tally(), _Tally()
    papers = list(_listed(papers_sec, _paper_item, papers_read))
    _check_tally(result, "'Papers'", papers_read, "a bold '[title](…/papers/…)' link")
    titles = {p.ids.elamur: p.title for p in papers if p.ids.elamur}
    works = _listed(all_sec, lambda block: _work_item(block, titles, profile.venues, result), works_read)
    merged = PageResult(site=result.site, page=result.page)  # the merge's warnings, until the lists are checked
    kept = distinct(chain(papers, works), merged)
    _check_tally(result, "'All works'", works_read, "a link to the paper's page or a bold '[title ↗](original)' link")
    stated_all = None
    if all_sec:
        stated_all, with_page = all_works_counts(all_sec, None)  # unreadable: warned with the profile
        check_count(result, "works in 'All works'", stated_all, works_read.found)
        check_count(result, "works with a page", with_page, works_read.with_page)
    if papers_sec:
        check_count(result, "works in 'Papers'", profile.metrics.library_works, len(papers))
    if not papers and not works_read.found and (profile.metrics.library_works or stated_all):
        raise LayoutChanged(f"the Elamur author page says {profile.metrics.library_works or stated_all} works are "
                            "in the library but has no 'Papers' or 'All works' list items")
    result.warnings.extend(merged.warnings)
    return kept


@dataclass
class _Tally:
    """What reading a list's items found: how many items, which (1-based) gave no paper or an
    incomplete one, how many papers, and how many of them with an Elamur page."""

    items: int = 0
    unreadable: list[int] = field(default_factory=list)
    incomplete: list[int] = field(default_factory=list)
    found: int = 0
    with_page: int = 0


def _listed(sec: Section | None, read: Callable[[Block | Item], Publication | None],
            tally: _Tally) -> Iterator[Publication]:
    """The papers of a section's list items, one at a time, counted on ``tally``."""
    if sec is None:
        return
    items = sec.items
    tally.items = len(items)
    for number, block in enumerate(items, 1):
        pub = read(block) if _has_link(block) else None
        if pub is None or not pub.title:
            tally.unreadable.append(number)
            continue
        tally.found += 1
        tally.with_page += bool(pub.ids.elamur)
        if pub.year is None or pub.citations is None:
            tally.incomplete.append(number)
        yield pub


def _check_tally(result: PageResult, name: str, tally: _Tally, missing: str) -> None:
    """``listings.check_listings`` on a list once read: items that gave no paper, items without their
    ``(year · N citations)``."""
    check_listings(result, name, tally.items, tally.unreadable, missing, tally.incomplete,
                   "their '(year · N citations)'")


def _first_em(runs: list[Run]) -> tuple[int, int] | None:
    """Start and end of the first italic stretch of ``runs``."""
    start = next((i for i, run in enumerate(runs) if run.em), None)
    if start is None:
        return None
    end = next((i for i in range(start, len(runs)) if not runs[i].em), len(runs))
    return start, end


def _year_and_citations(text: str) -> tuple[int | None, int | None]:
    """``(2021 · 309 citations)`` -> ``(2021, 309)``: a year, then the one number after `` · `` (the
    word after it may be in any language); other forms searched for a year and ``N citations``.

    >>> _year_and_citations("(2021 · 1.309 citas)"), _year_and_citations("2021 · 9 citations")
    ((2021, 1309), (2021, 9))
    """
    if both := _YEAR_AND_CITATIONS.fullmatch(text):  # the usual form: what the two searches would find
        return int(both[1]), read_count(both[2])
    first, dot, rest = text.strip().strip("()").partition(" · ")
    year, count = read_year(first), count_in(rest)
    if dot and year is not None and count is not None:
        return year, count
    found = _YEAR.search(text)
    cites = _CITATIONS.search(text)
    return (int(found.group(1)) if found else None, read_count(cites.group(1)) if cites else None)


def _paper_slug(href: str | None) -> str | None:
    match = PAPER_PAGE.search(href or "")
    return match.group(1) if match else None


def _paper_item(block: Block | Item) -> Publication | None:
    """``1. **[Title](…/papers/<slug>/)** *(2021 · 309 citations)* One-sentence summary.``; None for
    an item of another shape (no bold link to a paper page)."""
    if isinstance(block, Item):
        return _paper(block.parts["title"], block.parts["href"], block.parts["em"], block.parts["rest"])
    href, title_runs = links_of(block.runs)[0]
    if not all(run.strong for run in title_runs):
        return None
    span = _first_em(block.runs)
    if span is None:
        return _paper(joined(title_runs), href, None, "")
    return _paper(joined(title_runs), href, joined(block.runs[span[0]:span[1]]), joined(block.runs[span[1]:]))


def _paper(title: str, href: str, em: str | None, rest: str) -> Publication | None:
    """The paper of a *Papers* item: its title, link, first italic stretch and the text after it."""
    slug = _paper_slug(href)
    if slug is None:
        return None
    year = cites = summary = None
    if em is not None:
        year, cites = _year_and_citations(em)
        summary = clean_or_none(rest)
    return Publication(title=clean(title), year=year, citations=cites, url=href, summary=summary,
                       ids=PublicationIds(elamur=slug))


def _work_item(block: Block | Item, titles: dict[str, str | None], venues: list[str],
               result: PageResult) -> Publication | None:
    """An "All works" item: a paper with a page, or (``↗``) an original link for one without a page;
    None for an item of neither shape."""
    if isinstance(block, Item):
        parts = block.parts
        if block.shape == "work":  # the whole bold span is inside the link
            bold = linked = parts["bold"]
            tail = ""
        else:
            linked, tail = parts["linked"], parts["tail"]
            bold = linked + tail
        return _work(parts["href"], parts["em"], parts["authors"], bold, linked, tail, titles, venues, result)
    runs = block.runs
    href, _ = links_of(runs)[0]
    return _work(href, joined([r for r in runs if r.em]), joined([r for r in runs if not r.strong and not r.em]),
                 joined([r for r in runs if r.strong]), joined([r for r in runs if r.strong and r.href]),
                 joined([r for r in runs if r.strong and not r.href]), titles, venues, result)


def _work(href: str, em: str, authors: str, bold: str, linked: str, tail: str, titles: dict[str, str | None],
          venues: list[str], result: PageResult) -> Publication | None:
    """The paper of an "All works" item from its parts: the first link, the italic and plain text, and
    the bold text (all of it; the part inside a link; the part outside)."""
    year, cites = _year_and_citations(clean(em))
    names, truncated = split_names(authors)
    slug = _paper_slug(href)
    if slug:
        title, venue, arxiv = split_title(clean(bold), titles.get(slug), venues, result)
        found = Publication(title=title, authors=names, authors_truncated=truncated, venue=venue, year=year,
                            citations=cites, ids=PublicationIds(elamur=slug), url=href)
        give_id(found, "arxiv", arxiv, "text", None, result)
        return found
    pub = Publication(authors=names, authors_truncated=truncated, year=year, citations=cites, url=href)
    # No page: the bold span holds "[Title ↗](original) arXiv:… · no summary yet".
    linked = clean(linked)
    if not linked.endswith("↗"):
        return None
    pub.title = re.sub(r"\s*↗\Z", "", linked)
    ids_from_links(pub, result)  # the original's address: arXiv's, a DOI's
    for part in clean(tail).split(" · "):
        part = clean(part)
        if part.startswith("arXiv:"):
            give_id(pub, "arxiv", find_arxiv_id(part), "text", None, result)
        elif part and part != "no summary yet":
            pub.venue = part
    return pub


def split_title(bold: str, known_title: str | None, venues: list[str],
                result: PageResult | None) -> tuple[str, str | None, str | None]:
    """Title, venue and arXiv id of a bold span where they run together (an All works item's bold span
    holds the title, then the venue, or an ``arXiv:`` id): the known title first, else the longest known venue.

    >>> split_title("ZeRO-Infinity: Breaking the Wall SC 2021", None, ["SC 2021"], None)
    ('ZeRO-Infinity: Breaking the Wall', 'SC 2021', None)
    """
    arxiv = None
    if "arXiv:" in bold and (match := _ARXIV_TAIL.search(bold)):
        arxiv, bold = find_arxiv_id(match.group()), bold[: match.start()]
    if known_title and bold.startswith(known_title):
        return known_title, clean_or_none(bold[len(known_title):]), arxiv
    for venue in sorted(venues, key=len, reverse=True):
        if bold.endswith(" " + venue):
            return bold[: -len(venue) - 1], venue, arxiv
    if arxiv is None and result is not None:
        result.warn(Warn.title_may_hold_venue, f"no known title or venue to split from {bold!r}")
    return bold, None, arxiv
