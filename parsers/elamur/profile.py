"""The profile of an Elamur author page: the header, affiliations, topics, works by year, metrics,
links and co-authors."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from pubharvest.errors import LayoutChanged

from ..identifiers import give_id, openalex_in_url, orcid_in_url, wikidata_in_url
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
    all_works_counts,
    check_count,
    joined,
    links_of,
)
from .kinds import CITED_BY_PAGE

_AFFILIATION_KINDS = {"🏢": "company", "🎓": "education", "🏥": "healthcare"}
_AUTHOR_PATH = re.compile(r"/authors/([^/]+)/?\Z")
_TIMES = re.compile(r"×\s*([\d,]+)")


def _markdown_url(url: str | None) -> str | None:
    """The Markdown twin of an Elamur HTML URL: same path on the ``md.`` host."""
    return MARKDOWN_HOST + url[len(HTML_HOST):] if url and url.startswith(HTML_HOST) else None


def read_profile(meta: dict[str, str], url: str, head: Section, kinds: dict[str, Section],
                 result: PageResult) -> Profile:
    """The profile of the page whose head is ``head`` and whose other sections are ``kinds``
    (``kinds.sections_by_kind``)."""
    titles = [b for b in head.blocks if b.kind == "heading" and b.level == 1]
    if not titles:
        raise LayoutChanged("the Elamur author page has no '# <name>' heading")
    links = [link for block in head.blocks for link in links_of(block.runs)]
    slug = url.rstrip("/").rsplit("/", 1)[-1]
    found = Profile(
        name=titles[0].text,
        url=url,
        markdown_url=_markdown_url(url),
        ids=Ids(elamur=slug),
        affiliation=_headline_affiliation(meta, titles[0].text, result),
        metrics=_metrics(links, kinds, result),
        links=_profile_links(head, kinds.get("cited_by"), titles[0].text),
        snapshot_date=_snapshot_date(head.text),
    )
    _give_profile_ids(found, links, result)
    if affiliations_sec := kinds.get("affiliations"):
        found.affiliations = _affiliations(affiliations_sec, result)
        stated = _snapshot_date(affiliations_sec.text)
        if stated and found.snapshot_date and stated != found.snapshot_date:
            result.warn(Warn.dates_differ,
                        f"affiliations are from OpenAlex {stated}, metrics from {found.snapshot_date}")
    if fields_sec := kinds.get("fields"):
        found.topics = _topics(fields_sec, result)
    if years_sec := kinds.get("works_by_year"):
        found.works_by_year = _works_by_year(years_sec, result)
    if coauthors_sec := kinds.get("coauthors"):
        found.coauthors = _coauthors(coauthors_sec, result)
    if venues_sec := kinds.get("venues"):
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
    """The ISO date of a snapshot note (``OpenAlex, 2026-10-14``): the one ISO date of the text."""
    match = re.search(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)", text)
    return match.group(1) if match else None


def _give_profile_ids(profile: Profile, links: list[tuple[str, list[Run]]], result: PageResult) -> None:
    """The ORCID, Wikidata and OpenAlex ids the page's head links, each with the link it was read from. The
    author's own OpenAlex link (``/A…``) gives their id; the links to their metrics and works (``/authors/A…``,
    ``works?filter=author.id:A…``) give it when there is none, and must all name the same author."""
    openalex: dict[str, str] = {}
    for href, _ in links:
        give_id(profile, "orcid", orcid_in_url(href), "link", href, result)
        give_id(profile, "wikidata", wikidata_in_url(href), "link", href, result)
        author = openalex_in_url(href) or _openalex_works_author(href)
        if author:
            openalex.setdefault(author, href)
            if "/authors/" not in href and author == openalex_in_url(href):
                give_id(profile, "openalex", author, "link", href)  # a disagreement is ids_disagree, below
    if len(openalex) > 1:
        result.warn(Warn.ids_disagree, f"the OpenAlex links name different authors: {', '.join(sorted(openalex))}")
    if profile.ids.openalex is None and len(openalex) == 1:
        author, href = openalex.popitem()
        give_id(profile, "openalex", author, "link", href, result)


def _openalex_works_author(href: str) -> str | None:
    """The author of an OpenAlex works list filtered by author (``works?filter=author.id:A…``).

    >>> _openalex_works_author("https://openalex.org/works?filter=author.id:A5022644245&sort=cited_by_count:desc")
    'A5022644245'
    """
    match = re.match(r"https://openalex\.org/works\?filter=author\.id:(A\d+)", href)
    return match.group(1) if match else None


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


def _metrics(links: list[tuple[str, list[Run]]], kinds: dict[str, Section], result: PageResult) -> Metrics:
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
    if all_works := kinds.get("all_works"):
        found.library_works_all = all_works_counts(all_works, result)[0]
    if found.library_works is not None and found.library_works_all is not None:
        check_count(result, "works in the library", found.library_works_all, found.library_works + (without_page or 0))
    if cited_by := kinds.get("cited_by"):
        _cited_by_counts(cited_by, found, result)
    return found


def _cited_by_counts(sec: Section, found: Metrics, result: PageResult) -> None:
    """The *Cited by* lead's counts, by their places: the one number before the parenthesis (citations
    in the library), the one inside it (papers whose bibliographies were read), the one of the link
    to the cited-by page (citing papers with a page)."""
    lead = next((block for block in sec.blocks if block.kind == "paragraph"), None)
    plain = clean(" ".join([sec.title, *(run.text for run in (lead.runs if lead else []) if run.href is None)]))
    before, _, rest = plain.partition("(")
    cells = Cells()
    cites = cells.count_in(before, f"the citations of section {sec.title[:40]!r}")
    found.library_papers_read = cells.count_in(rest.partition(")")[0], "the papers read")
    link = next((runs for href, runs in links_of(lead.runs if lead else []) if CITED_BY_PAGE.search(href)), None)
    found.library_citing_papers = cells.count_in(joined(link) if link else "", "the citing papers link")
    cells.report(result)
    if cites is None or found.library_citations is None:
        found.library_citations = found.library_citations if cites is None else cites
    elif cites != found.library_citations:
        result.warn(Warn.count_mismatch, f"cited {found.library_citations} times in the head, {cites} in "
                                         f"section {sec.title[:40]!r}")


def _profile_links(head: Section, cited_by: Section | None, name: str) -> list[Link]:
    """In page order: the cited-by page, the Paper Stars rank, and searches by name elsewhere (told
    by their addresses, whatever the label before them says: "Elsewhere:" in English)."""
    found: list[Link] = []
    for block in head.blocks + (cited_by.blocks if cited_by else []):
        for href, runs in links_of(block.runs):
            if "/cited-by/" in href:
                link = Link(kind="cited_by", url=href)
            elif _metric_of_link(href) == "rank":
                link = Link(kind="ranking", url=href)
            elif _searches_for(href, name):
                link = Link(kind="search", url=href, label=joined(runs))
            else:
                continue
            if all(link.url != seen.url for seen in found):
                found.append(link)
    return found


def _searches_for(href: str, name: str) -> bool:
    """Whether ``href`` is a search for ``name`` on another site (a value of its query is the name):
    such links are never identifiers.

    >>> _searches_for("https://dblp.org/search?q=Ana+Mar%C3%ADa+Quintero", "Ana María Quintero")
    True
    """
    query = parse_qs(urlsplit(href).query)
    return any(clean(value) == name for values in query.values() for value in values)


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
    # The italic word (*current*, in the page's language) marks a current affiliation.
    found = Affiliation(name=name, kind=_AFFILIATION_KINDS.get(marker), url=href,
                        current=any(run.em and clean(run.text) for run in runs))
    if marker and marker not in _AFFILIATION_KINDS:
        result.warn(Warn.unknown_marker, f"affiliation {name!r} has the unknown kind marker {marker!r}")
    match = re.fullmatch(
        r"(?:(?:(?P<city>[^·]+?) · )?(?P<country>[^·]+?) )?(?P<start>\d{4})(?:–(?P<end>\d{4}))?"
        r"(?: · (?P<papers>\S*\d\S*) [^·\d]+)?", rest)
    if not match:
        result.warn(Warn.affiliation_unparsed, f"could not read place and years of affiliation {name!r}: {rest!r}")
        return found
    found.city, found.country = match["city"], match["country"]
    found.start_year = int(match["start"])
    found.end_year = int(match["end"] or match["start"])
    found.papers = read_count(match["papers"])
    if match["papers"] and found.papers is None:
        result.warn(Warn.affiliation_unparsed, f"the papers of affiliation {name!r} are no count: {match['papers']!r}")
    return found


def _topics(sec: Section, result: PageResult) -> list[Topic]:
    """Shelves (OpenAlex fields and subfields, told apart only by the URL path) and Elamur topics:
    ``[<name> · <N> works](…/shelves/<field>/[<subfield>/])``, the count the one number after the last `` · ``."""
    found = []
    cells = Cells()
    for block in sec.blocks:
        for href, runs in links_of(block.runs):
            path = re.search(r"/(shelves|topics)/(.+?)/?\Z", href)
            if not path:
                continue
            name, _, tail = joined(runs).rpartition(" · ")
            if path.group(1) == "topics":
                kind = "topic"
            else:
                kind = "subfield" if "/" in path.group(2) else "field"
            count = cells.count_in(tail, f"the count of {kind} {joined(runs)[:40]!r}")
            found.append(Topic(name=name or tail, kind=kind, count=count, url=href))
    for what, stated in _stated_field_counts(sec, cells).items():
        check_count(result, what, stated, sum((t.kind == "topic") == (what == "topics") for t in found))
    cells.report(result)
    return found


# The marks before the two counts of the fields section: ``📚 Shelves 5 …`` and ``🧭 Topics 1 …``.
_FIELD_MARKS = {"📚": "shelves", "🧭": "topics"}
_FIELD_MARK = re.compile("(?P<mark>[📚🧭])(?P<text>[^📚🧭]*)")


def _stated_field_counts(sec: Section, cells: Cells) -> dict[str, int | None]:
    """The counts stated after the shelves and topics marks: the one number of the text from a mark to
    the next link or mark (the heading too: in the one-line form an unknown heading runs on into it)."""
    stretches = [sec.title]
    for block in sec.blocks:
        stretches.append("")
        for run in block.runs:
            if run.href is None:
                stretches[-1] += run.text
            else:
                stretches.append("")
    found: dict[str, int | None] = {}
    for stretch in stretches:
        for match in _FIELD_MARK.finditer(stretch):
            what = _FIELD_MARKS[match["mark"]]
            found[what] = cells.count_in(match["text"], f"the stated number of {what}")
    return found


def _works_by_year(sec: Section, result: PageResult) -> list[YearWorks]:
    """``[**2021** 2 papers](…/year/2021/)`` under ``### 2020s`` headings: the year from the address,
    the count the one number of the link's text outside the bold year."""
    found = []
    cells = Cells()
    for block in sec.blocks:
        for href, runs in links_of(block.runs):
            year = re.search(r"/year/(\d{4})/?\Z", href)
            if not year:
                continue
            count = cells.count_in(joined([run for run in runs if not run.strong]), f"the works of {year[1]}")
            if count is not None:
                found.append(YearWorks(year=int(year.group(1)), works=count))
    cells.report(result)
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
    cells = Cells()
    check_count(result, "co-authors", cells.count_in(sec.opening, "the stated number of co-authors"), len(found))
    cells.report(result)
    return found


def _coauthor(name: str, href: str, rest: str) -> Coauthor:
    """The co-author of an item: the link's text and URL, and ``×N`` in the text around it."""
    slug = _AUTHOR_PATH.search(href)
    times = _TIMES.search(clean(rest))
    return Coauthor(name=clean(name), ids=Ids(elamur=slug.group(1) if slug else None),
                    papers=read_count(times.group(1)) if times else 1, url=href)
