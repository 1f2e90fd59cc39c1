"""The profile of an Elamur author page: the header, affiliations, topics, works by year, metrics,
links and co-authors."""

from __future__ import annotations

import re

from pubharvest.errors import LayoutChanged

from ..numbers import Cells, read_count
from ..records import Affiliation, Coauthor, Ids, Link, Metrics, PageResult, Profile, Topic, YearWorks
from ..text import clean
from ..warning_codes import Warn
from ._base import (
    HTML_HOST,
    MARKDOWN_HOST,
    Item,
    Run,
    Section,
    check_count,
    joined,
    known_sections,
    links_of,
    section_titled,
)

_AFFILIATION_KINDS = {"🏢": "company", "🎓": "education", "🏥": "healthcare"}
_AUTHOR_PATH = re.compile(r"/authors/([^/]+)/?\Z")
_TIMES = re.compile(r"×\s*([\d,]+)")


def _markdown_url(url: str | None) -> str | None:
    """The Markdown twin of an Elamur HTML URL: same path on the ``md.`` host."""
    return MARKDOWN_HOST + url[len(HTML_HOST):] if url and url.startswith(HTML_HOST) else None


def read_profile(meta: dict[str, str], url: str, sections: list[Section], result: PageResult) -> Profile:
    head = sections[0]
    known_sections(sections, result)
    titles = [b for b in head.blocks if b.kind == "heading" and b.level == 1]
    if not titles:
        raise LayoutChanged("the Elamur author page has no '# <name>' heading")
    links = [link for block in head.blocks for link in links_of(block.runs)]
    slug = url.rstrip("/").rsplit("/", 1)[-1]
    found = Profile(
        name=titles[0].text,
        url=url,
        markdown_url=_markdown_url(url),
        ids=_profile_ids(links, slug, result),
        affiliation=_headline_affiliation(meta, titles[0].text, result),
        metrics=_metrics(links, sections, result),
        links=_profile_links(head, sections),
        snapshot_date=_snapshot_date(head.text),
    )
    affiliations_sec = section_titled(sections, "Affiliations")
    if affiliations_sec:
        found.affiliations = _affiliations(affiliations_sec, result)
        stated = _snapshot_date(affiliations_sec.text)
        if stated and found.snapshot_date and stated != found.snapshot_date:
            result.warn(Warn.dates_differ,
                        f"affiliations are from OpenAlex {stated}, metrics from {found.snapshot_date}")
    fields_sec = section_titled(sections, "Fields, topics and concepts")
    if fields_sec:
        found.topics = _topics(fields_sec, result)
    years_sec = section_titled(sections, "Works by year")
    if years_sec:
        found.works_by_year = _works_by_year(years_sec)
    coauthors_sec = section_titled(sections, "Co-authors here")
    if coauthors_sec:
        found.coauthors = _coauthors(coauthors_sec, result)
    venues_sec = section_titled(sections, "Venues")
    if venues_sec:
        found.venues = [block.text for block in venues_sec.items if block.text]
    return found


def _headline_affiliation(meta: dict[str, str], name: str, result: PageResult) -> str | None:
    """The affiliation of the front matter's title: ``<name> · <affiliation> — <what the page is>``
    (``Olatunji Ruwase · Bellevue College — author profile and papers``), read by its separators, not
    by its words; a title with no `` · `` after the name names no affiliation. A page without a
    front matter title, or with one of another shape, is warned about."""
    title = clean(meta.get("title", ""))
    if not title:
        what = "no front matter (--- title: … ---)" if not meta else "no title in its front matter"
        result.warn(Warn.profile_unreadable, f"the page has {what}: the headline affiliation is unread")
        return None
    match = re.fullmatch(r"(?P<name>.+?)(?: · (?P<affiliation>.+?))? — [^—·]+", title)
    if not match or clean(match["name"]) != name:
        result.warn(Warn.profile_unreadable, f"the front matter's title {title[:80]!r} is not '<name> · "
                                             "<affiliation> — …': the headline affiliation is unread")
        return None
    return match["affiliation"]


def _snapshot_date(text: str) -> str | None:
    match = re.search(r"OpenAlex, (\d{4}-\d{2}-\d{2})", text)
    return match.group(1) if match else None


def _profile_ids(links: list[tuple[str, list[Run]]], slug: str, result: PageResult) -> Ids:
    ids = Ids(elamur=slug)
    openalex: set[str] = set()
    for href, _ in links:
        if m := re.match(r"https://openalex\.org/(?:authors/)?(A\d+)\Z", href):
            openalex.add(m.group(1))
            if "/authors/" not in href:
                ids.openalex = m.group(1)
        elif m := re.match(r"https://openalex\.org/works\?filter=author\.id:(A\d+)", href):
            openalex.add(m.group(1))
        elif m := re.match(r"https://orcid\.org/(\d{4}-\d{4}-\d{4}-\d{3}[\dX])\Z", href):
            ids.orcid = m.group(1)
        elif m := re.match(r"https://www\.wikidata\.org/wiki/(Q\d+)\Z", href):
            ids.wikidata = m.group(1)
    if len(openalex) > 1:
        result.warn(Warn.ids_disagree, f"the OpenAlex links name different authors: {', '.join(sorted(openalex))}")
    if ids.openalex is None and len(openalex) == 1:
        ids.openalex = openalex.pop()
    return ids


def _metric_of_link(href: str) -> str | None:
    """Which metric a link of the page head shows, by its address alone (its label may be in any
    language): OpenAlex's author page (the h-index), its works list (works) and that list by citations
    (citations), the author's own page at ``#papers`` (works in the library), its cited-by page, the
    Paper Stars ranking, and ``#also`` (works in the library without a page).

    >>> _metric_of_link("https://openalex.org/authors/A5022644245"), _metric_of_link("#also")
    ('h_index', 'without_page')
    >>> _metric_of_link("https://openalex.org/works?filter=author.id:A1&sort=cited_by_count:desc")
    'citations'
    >>> _metric_of_link("https://md.research.elamur.ai/free/en/authors/olatunji-ruwase/#papers")
    'library_works'
    """
    if re.match(r"https://openalex\.org/authors/A\d+\Z", href):
        return "h_index"
    if href.startswith("https://openalex.org/works"):
        return "citations" if "cited_by_count" in href else "works"
    own_page = _AUTHOR_PAGE_PART.search(href) if href.startswith(MARKDOWN_HOST) else None
    if own_page:
        return "library_works" if own_page[1] == "#papers" else "library_citations"
    if "/paper-stars/" in href and "#star-" in href:
        return "rank"
    return "without_page" if href.endswith("#also") else None


_AUTHOR_PAGE_PART = re.compile(r"/authors/[^/]+/(#papers|cited-by/)\Z")
_RANK = re.compile(r"#star-(\d+)\Z")


def _metrics(links: list[tuple[str, list[Run]]], sections: list[Section], result: PageResult) -> Metrics:
    """The head's metrics, each from the link whose address says what it is (``_metric_of_link``) and
    the one number of its text; a rank from its address (``#star-3972``)."""
    cells = Cells()
    counts: dict[str, int | None] = {}
    unknown = []
    for href, link_runs in links:
        metric = _metric_of_link(href)
        if metric is None and re.search(r"\d", joined(link_runs)):
            unknown.append(f"{joined(link_runs)[:40]!r} ({href[:80]})")
        if metric is None or metric in counts:
            continue
        rank = _RANK.search(href) if metric == "rank" else None
        counts[metric] = int(rank[1]) if rank else cells.count_in(joined(link_runs), f"the {metric} link ({href})")
    cells.report(result)
    if unknown:
        result.warn(Warn.profile_unreadable, "links of the page head show a number but their address is no metric "
                                             f"pubharvest knows: {'; '.join(unknown)}; not read")
    found = Metrics(h_index=counts.get("h_index"), works=counts.get("works"), citations=counts.get("citations"),
                    library_works=counts.get("library_works"), library_citations=counts.get("library_citations"),
                    rank=counts.get("rank"))
    without_page = counts.get("without_page")
    all_works = section_titled(sections, "All works")
    if all_works and (m := re.match(r"([\d,]+) works? of theirs in our library", all_works.lead)):
        found.library_works_all = read_count(m.group(1))
    if found.library_works is not None and found.library_works_all is not None:
        check_count(result, "works in the library", found.library_works_all, found.library_works + (without_page or 0))
    cited_by = section_titled(sections, "Cited by")
    if cited_by:
        text = cited_by.text
        if m := re.search(r"cite their works ([\d,]+) times?", text):
            if found.library_citations is None:
                found.library_citations = read_count(m.group(1))
            elif read_count(m.group(1)) != found.library_citations:
                result.warn(Warn.count_mismatch, f"cited {found.library_citations} times in the head, "
                                                 f"{m.group(1)} in 'Cited by'")
        if m := re.search(r"of the ([\d,]+) papers whose bibliographies we read", text):
            found.library_papers_read = read_count(m.group(1))
        if m := re.search(r"([\d,]+) citing papers? with a page", text):
            found.library_citing_papers = read_count(m.group(1))
    return found


def _profile_links(head: Section, sections: list[Section]) -> list[Link]:
    """In page order: the cited-by page, the Paper Stars rank, and searches by name elsewhere."""
    found: list[Link] = []
    cited_by = section_titled(sections, "Cited by")
    for block in head.blocks + (cited_by.blocks if cited_by else []):
        # The links that follow "Elsewhere:" in its block are name searches, never identifiers.
        elsewhere = next((i for i, run in enumerate(block.runs) if run.href is None and "Elsewhere:" in run.text),
                         len(block.runs))
        for href, runs in links_of(block.runs):
            if "/cited-by/" in href:
                link = Link(kind="cited_by", url=href)
            elif _metric_of_link(href) == "rank":
                link = Link(kind="ranking", url=href)
            elif any(run is runs[0] for run in block.runs[elsewhere:]):
                link = Link(kind="search", url=href, label=joined(runs))
            else:
                continue
            if all(link.url != seen.url for seen in found):
                found.append(link)
    return found


def _affiliations(sec: Section, result: PageResult) -> list[Affiliation]:
    found = []
    for block in sec.blocks:
        for href, runs in links_of(block.runs):
            if any(run.strong for run in runs):
                found.append(_affiliation(href, runs, result))
    return found


def _affiliation(href: str, runs: list[Run], result: PageResult) -> Affiliation:
    """``[🏢**Snowflake Inc.** Bozeman · United States 2025–2026 · 4 papers*current*](url)``."""
    first_strong = next(i for i, run in enumerate(runs) if run.strong)
    marker = joined(runs[:first_strong])
    name = joined([run for run in runs if run.strong])
    rest = joined([run for run in runs[first_strong:] if not run.strong and not run.em])
    found = Affiliation(name=name, kind=_AFFILIATION_KINDS.get(marker), url=href,
                        current=any(run.em and clean(run.text) == "current" for run in runs))
    if marker and marker not in _AFFILIATION_KINDS:
        result.warn(Warn.unknown_marker, f"affiliation {name!r} has the unknown kind marker {marker!r}")
    match = re.fullmatch(
        r"(?:(?:(?P<city>[^·]+?) · )?(?P<country>[^·]+?) )?(?P<start>\d{4})(?:–(?P<end>\d{4}))?"
        r"(?: · (?P<papers>[\d,]+) papers?)?", rest)
    if not match:
        result.warn(Warn.affiliation_unparsed, f"could not read place and years of affiliation {name!r}: {rest!r}")
        return found
    found.city, found.country = match["city"], match["country"]
    found.start_year = int(match["start"])
    found.end_year = int(match["end"] or match["start"])
    found.papers = read_count(match["papers"])
    return found


def _topics(sec: Section, result: PageResult) -> list[Topic]:
    """Shelves (OpenAlex fields and subfields, told apart only by the URL path) and Elamur topics."""
    found = []
    for block in sec.blocks:
        for href, runs in links_of(block.runs):
            match = re.fullmatch(r"(?P<name>.+?) · (?P<n>[\d,]+) works?", joined(runs))
            path = re.search(r"/(shelves|topics)/(.+?)/?\Z", href)
            if not match or not path:
                continue
            if path.group(1) == "topics":
                kind = "topic"
            else:
                kind = "subfield" if "/" in path.group(2) else "field"
            found.append(Topic(name=match["name"], kind=kind, count=read_count(match["n"]), url=href))
    text = sec.text
    if m := re.search(r"Shelves ([\d,]+)", text):
        check_count(result, "shelves", read_count(m.group(1)), sum(t.kind != "topic" for t in found))
    if m := re.search(r"Topics ([\d,]+)", text):
        check_count(result, "topics", read_count(m.group(1)), sum(t.kind == "topic" for t in found))
    return found


def _works_by_year(sec: Section) -> list[YearWorks]:
    """``[**2021** 2 papers](…/year/2021/)`` under ``### 2020s`` headings."""
    found = []
    for block in sec.blocks:
        for href, runs in links_of(block.runs):
            year = re.search(r"/year/(\d{4})/?\Z", href)
            count = re.search(r"([\d,]+) papers?", joined(runs))
            if year and count:
                found.append(YearWorks(year=int(year.group(1)), works=read_count(count.group(1)) or 0))
    return found


def _coauthors(sec: Section, result: PageResult) -> list[Coauthor]:
    """``- [Samyam Rajbhandari](…/authors/samyam-rajbhandari/) ×2``; no ``×N`` means one paper."""
    found = []
    for block in sec.items:
        if isinstance(block, Item):
            found.append(_coauthor(block.parts["name"], block.parts["href"], block.parts["rest"]))
        elif links := links_of(block.runs):
            href, runs = links[0]
            found.append(_coauthor(joined(runs), href, joined([run for run in block.runs if run.href is None])))
    if m := re.match(r"([\d,]+) co-authors? with a page", sec.lead):
        check_count(result, "co-authors", read_count(m.group(1)), len(found))
    return found


def _coauthor(name: str, href: str, rest: str) -> Coauthor:
    """The co-author of an item: the link's text and URL, and ``×N`` in the text around it."""
    slug = _AUTHOR_PATH.search(href)
    times = _TIMES.search(clean(rest))
    return Coauthor(name=clean(name), ids=Ids(elamur=slug.group(1) if slug else None),
                    papers=read_count(times.group(1)) if times else 1, url=href)
