"""Google Scholar author profiles: the profile page, bare row fragments, the "show more" JSON
payload, and the saved-table text form.

Selectors and quirks are documented in ``research/scholar/STRUCTURE.md``. Everything is read by
ids and classes, never by the (localised) labels.

>>> doc = Document.from_input('<tr class="gsc_a_tr"><td class="gsc_a_t"><a class="gsc_a_at" '
...     'href="/citations?citation_for_view=AAAAAAAAAAAJ:u5HHmVD_uO8C">{Zero}: a test</a>'
...     '<div class="gs_gray">A Bee, C Dee, ...</div><div class="gs_gray">Nature 1, 2'
...     '<span class="gs_oph">, 2020</span></div></td><td class="gsc_a_c"><a class="gsc_a_ac" href="">'
...     '</a></td><td class="gsc_a_y"><span class="gsc_a_h">2020</span></td></tr>')
>>> pub = parse(doc).publications[0]
>>> pub.title, pub.authors, pub.authors_truncated, pub.venue, pub.year, pub.citations
('Zero: a test', ['A Bee', 'C Dee'], True, 'Nature 1, 2', 2020, 0)
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urljoin, urlsplit

from parsel import Selector

from .errors import LayoutChanged, Truncated, Unrecognised
from .page import Document
from .records import (
    Coauthor,
    Ids,
    Metrics,
    PageResult,
    Profile,
    Publication,
    PublicationIds,
    PublicAccess,
    YearCitations,
)
from .text import clean, clean_or_none, find_arxiv_id, find_year, leading_int, split_names, to_int

SITE = "scholar"
BASE_URL = "https://scholar.google.com"

_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}")
_Z_INDEX = re.compile(r"z-index\s*:\s*(\d+)")
_OFFSET = re.compile(r"(?:right|left)\s*:\s*(\d+)px")
_LATEX_COMMAND = re.compile(r"\\\s?(?:it|bf|em|rm|sc|tt|sl|textit|textbf|emph|mathrm)\b\s*")
_PATENT = re.compile(r"^(?:(?P<office>[A-Z]{2}) )?Patent\b\.?(?: App(?:lication)?\.?)?(?: Specification)? ?(?P<number>[\w/,.-]*\d[\w/,.-]*)?")
_ROW_FRAGMENT = re.compile(r'^\s*<tr class="?gsc_a_tr', re.I)


def sniff(doc: Document) -> str | None:
    """``profile``, ``rows`` or ``publication_list`` for a Scholar page, else None.

    Scholar pages pubharvest does not read (search results, the cite popup, the pre-2014 layout)
    are refused here with a message saying what they are.
    """
    if not doc.is_html:
        if _payload_rows(doc) is not None:
            return "rows"
        return "publication_list" if looks_like_saved_table(doc.text) else None
    head = doc.head
    if 'id="gsc_prf_in"' in head or "id=gsc_prf_in" in head:
        return "profile"
    if _ROW_FRAGMENT.match(doc.text) or ("gsc_a_tr" in head and "<html" not in head):
        return "rows"
    _refuse_other_scholar_pages(doc.text)
    if "scholar.google." in head and ("gsc_a_t" in head or "gsc_rsb" in head):
        return "profile"  # a profile page with its header missing: parse() says layout_changed
    return None


def _refuse_other_scholar_pages(text: str) -> None:
    if 'id="gs_res_ccl"' in text:
        raise Unrecognised("a Google Scholar search results page, not an author profile")
    if 'id="gs_citt"' in text:
        raise Unrecognised("a Google Scholar \"Cite\" popup, not an author profile")
    if "cit-dark-link" in text or 'class="cit-' in text:
        raise LayoutChanged("a Google Scholar page in the pre-2014 layout (cit-* markup), which "
                            "pubharvest does not read; save the page again from the current site")


def parse(doc: Document) -> PageResult:
    """The records of one Scholar page (see ``sniff`` for the kinds)."""
    kind = sniff(doc)
    if kind == "profile":
        return _parse_profile(doc)
    if kind == "rows":
        return _parse_rows_page(doc)
    if kind == "publication_list":
        return _parse_saved_table(doc)
    raise Unrecognised("not a Google Scholar profile page")


# --- the profile page ---------------------------------------------------------------------


def _parse_profile(doc: Document) -> PageResult:
    page = doc.selector
    if not page.css("#gsc_prf_in"):
        raise LayoutChanged("a Scholar page without the profile header (#gsc_prf_in)")
    if "</html>" not in doc.text[-4096:].lower():
        raise Truncated(f"the page stops before its end (after {len(page.css('#gsc_a_b > tr.gsc_a_tr'))} "
                        "publication rows); save it again")
    if not page.css("#gsc_a_t"):
        raise LayoutChanged("a Scholar profile without its publication table (#gsc_a_t)")
    url = canonical_url(page) or doc.url
    result = PageResult(site=SITE, page="profile", url=url)
    result.profile = profile(page, url)
    result.publications = publications(page.css("#gsc_a_b > tr.gsc_a_tr"), result, base=url)
    _warn_if_partial(page, result)
    _warn_if_coauthors_cut(page, result)
    return result


def canonical_url(page: Selector) -> str | None:
    """The ``link[rel=canonical]`` URL: it holds the real user id after a redirect."""
    return clean_or_none(page.css('link[rel="canonical"]::attr(href)').get())


def user_id(url: str | None) -> str | None:
    """The ``user=`` id of a Scholar URL.

    >>> user_id("https://scholar.google.com/citations?user=RxmmtT8AAAAJ&hl=en")
    'RxmmtT8AAAAJ'
    """
    return _query_value(url, "user")


def _query_value(url: str | None, key: str) -> str | None:
    if not url:
        return None
    values = parse_qs(urlsplit(url).query).get(key)
    return values[0] if values else None


def profile(page: Selector, url: str | None) -> Profile:
    """The profile header and the right-hand sidebar."""
    head = page.css("#gsc_prf_i")
    org_href = head.css('div.gsc_prf_il:not([id]) a[href*="view_op=view_org"]::attr(href)').get()
    email_box = head.css("#gsc_prf_ivh")
    return Profile(
        name=clean_or_none(page.css("#gsc_prf_in").xpath("string()").get()),
        url=url,
        ids=Ids(scholar=user_id(url) or _user_id_from_rows(page), scholar_org=_query_value(org_href, "org")),
        affiliation=clean_or_none(head.css("div.gsc_prf_il:not([id])").xpath("string()").get()),
        email_domain=email_domain(email_box),
        homepage=email_box.css("a::attr(href)").get(),
        photo_url=photo_url(page),
        interests=[clean(t) for t in head.css("#gsc_prf_int a.gsc_prf_inta").xpath("string()").getall()],
        metrics=metrics(page.css("#gsc_rsb_st")),
        citations_by_year=citations_by_year(page),
        public_access=public_access(page.css("#gsc_rsb_mnd")),
        coauthors=coauthors(page.css("#gsc_rsb_co")),
    )


def _user_id_from_rows(page: Selector) -> str | None:
    pub_id = _query_value(page.css("a.gsc_a_at").attrib.get("href"), "citation_for_view")
    return pub_id.split(":")[0] if pub_id else None


def email_domain(box: Selector) -> str | None:
    """The verified e-mail domain, whatever the language of the sentence around it.

    The homepage link's text is left out: it sits in the same box.
    """
    text = " ".join(box.xpath("./text()").getall())
    found = _DOMAIN.findall(text)
    return found[-1].lower() if found else None


def photo_url(page: Selector) -> str | None:
    """The profile photo, or None for the default avatar."""
    src = page.css("#gsc_prf_pup-img::attr(src)").get() or page.css('meta[property="og:image"]::attr(content)').get()
    if not src or "avatar_scholar" in src:
        return None
    return urljoin(BASE_URL, src)


def metrics(table: Selector) -> Metrics:
    """Citations, h-index and i10-index, all and since the year in the table's header."""
    cells = [to_int(c) for c in table.css("td.gsc_rsb_std").xpath("string()").getall()]
    if len(cells) != 6:
        return Metrics()
    headers = table.css("th.gsc_rsb_sth").xpath("string()").getall() or table.css("th").xpath("string()").getall()
    since = find_year(headers[-1]) if headers else None
    return Metrics(
        citations=cells[0], citations_since=cells[1], since_year=since,
        h_index=cells[2], h_index_since=cells[3], i10_index=cells[4], i10_index_since=cells[5],
    )


def citations_by_year(page: Selector) -> list[YearCitations]:
    """Every year on the histogram's axis with its count; 0 for the years that have no bar.

    Years without citations have no bar, so bars are matched to years by ``z-index`` (1 is the
    newest year), never by position. Bars without a z-index (2014 layout) fall back to their offset.
    """
    chart = page.css(".gsc_md_hist_b") or page.css("#gsc_g")
    if not chart:
        return []
    chart = chart[0]
    years = [int(y) for y in chart.css("span.gsc_g_t").xpath("string()").getall() if y.strip().isdigit()]
    offsets = [_offset(s) for s in chart.css("span.gsc_g_t::attr(style)").getall()]
    counts = dict.fromkeys(years, 0)
    for bar in chart.css("a.gsc_g_a"):
        year = _bar_year(bar.attrib.get("style", ""), years, offsets)
        if year is not None:
            counts[year] = to_int(bar.css("span.gsc_g_al").xpath("string()").get()) or 0
    return [YearCitations(year=y, citations=c) for y, c in counts.items()]


def _offset(style: str) -> int | None:
    match = _OFFSET.search(style)
    return int(match.group(1)) if match else None


def _bar_year(style: str, years: list[int], offsets: list[int | None]) -> int | None:
    z_index = _Z_INDEX.search(style)
    if z_index:
        rank = int(z_index.group(1))
        return years[len(years) - rank] if 1 <= rank <= len(years) else None
    offset = _offset(style)
    # A bar sits 5px beside its year label (measured on the 2019 and 2026 pages).
    for year, year_offset in zip(years, offsets):
        if offset is not None and year_offset is not None and abs(offset - 5 - year_offset) <= 2:
            return year
    return None


def public_access(box: Selector) -> PublicAccess | None:
    """Counts of the public-access box; None when the page has no such box (unknown, not 0)."""
    if not box:
        return None
    available = box.css(".gsc_rsb_m_a").xpath("string()").get()
    not_available = box.css(".gsc_rsb_m_na").xpath("string()").get()
    return PublicAccess(available=leading_int(available), not_available=leading_int(not_available))


def coauthors(box: Selector) -> list[Coauthor]:
    """Every co-author the sidebar shows (at most 20; the rest are behind "View all")."""
    found = []
    for item in box.css("ul.gsc_rsb_a > li"):
        link = item.css(".gsc_rsb_a_desc > a") or item.css("a.gsc_rsb_aa") or item.css("a")
        href = link.attrib.get("href") if link else None
        name = clean(link.xpath("string()").get()) if link else ""
        if not name:
            continue
        found.append(Coauthor(
            name=name,
            affiliation=clean_or_none(item.css(".gsc_rsb_a_ext:not(.gsc_rsb_a_ext2)").xpath("string()").get()),
            email_domain=email_domain(item.css(".gsc_rsb_a_ext2")),
            ids=Ids(scholar=user_id(href)),
            url=urljoin(BASE_URL, href) if href else None,
        ))
    return found


def _warn_if_partial(page: Selector, result: PageResult) -> None:
    button = page.css("#gsc_bpf_more")
    if button and "disabled" not in button.attrib:
        shown = clean(page.css("#gsc_a_nn").xpath("string()").get())
        first_last = re.findall(r"\d+", shown)
        span = f"rows {first_last[0]}–{first_last[-1]}" if first_last else f"{len(result.publications)} rows"
        result.warn("partial", f"the page holds {span} of a longer list (\"Show more\" is enabled); "
                               "fetch the rest with cstart/pagesize")


def _warn_if_coauthors_cut(page: Selector, result: PageResult) -> None:
    if page.css("#gsc_coauth_opn"):
        result.warn("coauthors_partial", "the sidebar shows only the first co-authors; the full list is "
                                         "behind \"View all\" (view_op=list_colleagues)")


# --- publication rows -----------------------------------------------------------------------


def publications(rows: list[Selector], result: PageResult, base: str | None) -> list[Publication]:
    """One ``Publication`` per table row, in page order."""
    found = []
    for row in rows:
        pub = publication(row, base)
        if "title_looks_like_authors" in pub.flags:
            result.warn("title_looks_like_authors",
                        f"row {len(found) + 1}: the title looks like an author list: {pub.title!r}")
        found.append(pub)
    return found


def publication(row: Selector, base: str | None = None) -> Publication:
    """A publication from one ``tr.gsc_a_tr`` row."""
    anchor = row.css("td.gsc_a_t a.gsc_a_at")
    href = _row_link(anchor)
    grays = row.css("td.gsc_a_t > div.gs_gray")
    authors_text = grays[0].xpath("string()").get() if grays else ""
    venue_text = "".join(grays[1].xpath("./text() | ./*[not(contains(@class, 'gs_oph'))]//text()").getall()) if len(grays) > 1 else ""
    pub = Publication(
        title=clean_title(anchor.xpath("string()").get() or ""),
        year=to_int(row.css("td.gsc_a_y .gsc_a_h").xpath("string()").get()),
        url=urljoin(base or BASE_URL, href) if href else None,
        ids=PublicationIds(scholar=_query_value(href, "citation_for_view")),
    )
    pub.date = str(pub.year) if pub.year else None
    _fill_authors_and_venue(pub, authors_text, venue_text)
    _fill_citations(pub, row.css("td.gsc_a_c"))
    return pub


def _row_link(anchor: Selector) -> str | None:
    # 2019 pages put the link in data-href and "javascript:void(0)" in href.
    href = anchor.attrib.get("href", "") if anchor else ""
    if not href or href.startswith("javascript"):
        href = anchor.attrib.get("data-href", "") if anchor else ""
    return href or None


def clean_title(text: str) -> str:
    """A title without inline markup, LaTeX font commands or BibTeX braces.

    >>> clean_title("Die {\\\\ it Planck} sche  {Zero-offload}")
    'Die Planck sche Zero-offload'
    """
    return clean(_LATEX_COMMAND.sub("", text).replace("{", "").replace("}", ""))


def _fill_authors_and_venue(pub: Publication, authors_text: str, venue_text: str) -> None:
    """Authors, venue (given without Scholar's appended year) and what the venue makes certain."""
    pub.authors, pub.authors_truncated = split_names(authors_text)
    venue = clean(venue_text)
    if venue.endswith("…"):
        venue, pub.venue_truncated = venue[:-1].rstrip(" ,"), True
    pub.venue = venue or None
    _classify_venue(pub)
    if looks_like_author_list(pub.title):
        pub.flags.append("title_looks_like_authors")


def _classify_venue(pub: Publication) -> None:
    venue = pub.venue or ""
    arxiv = find_arxiv_id(venue)
    if arxiv:
        pub.ids.arxiv = arxiv
        if venue.lower().startswith("arxiv"):
            pub.type = "article"
    patent = _PATENT.match(venue)
    if patent:
        pub.type = "patent"
        number = patent.group("number")
        office = patent.group("office")
        pub.ids.patent_number = f"{office} {number}" if office and number else number


def _fill_citations(pub: Publication, cell: Selector) -> None:
    count = cell.css("a.gsc_a_ac")
    if not count:
        return
    pub.citations = to_int(count.xpath("string()").get()) or 0
    clusters = _query_value(count.attrib.get("href"), "cites")
    pub.ids.scholar_clusters = [c for c in (clusters or "").split(",") if c]
    if cell.css(".gsc_a_m, a.gsc_a_am"):
        pub.flags.append("merged_citations")
    primary = count.attrib.get("data-eud")
    if primary and primary != pub.ids.scholar:
        pub.flags.append(f"duplicate_of:{primary}")


_NAME_WORD = re.compile(r"^[^\W\d_][\w'’.-]*$")


def looks_like_author_list(title: str | None) -> bool:
    """Whether a title is really a list of full names ("Ann Lee, Bo Chen, and Cy Dunn").

    >>> looks_like_author_list("Rewon Child, Reza Yazdani Aminabadi, Julie Bernauer, and Bryan Catanzaro")
    True
    >>> looks_like_author_list("Black pepper, its pungent principle, and health")
    False
    """
    if not title:
        return False
    parts = [re.sub(r"^and\s+", "", p.strip()) for p in re.split(r",|\band\b", title) if p.strip()]
    if len(parts) < 3:
        return False
    names = [p for p in parts if 2 <= len(p.split()) <= 4 and all(
        _NAME_WORD.match(w) and w[0].isupper() for w in p.split())]
    return len(names) >= 0.8 * len(parts)


# --- row fragments and the "show more" payload -------------------------------------------


def _payload_rows(doc: Document) -> tuple[str, bool] | None:
    """Rows HTML and the "more rows" flag of a ``json=1`` payload ``{"B": rows, "N": more}``."""
    text = doc.text.lstrip()
    if not text.startswith("{") or '"B"' not in text[:200]:
        return None
    try:
        payload = json.loads(text)
    except ValueError:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("B"), str):
        return None
    return payload["B"], bool(payload.get("N"))


def _parse_rows_page(doc: Document) -> PageResult:
    payload = _payload_rows(doc)
    rows_html, more = payload if payload else (doc.text, False)
    table = Selector(text=f'<table><tbody id="gsc_a_b">{rows_html}</tbody></table>', type="html")
    rows = table.css("#gsc_a_b > tr.gsc_a_tr")
    if not rows and "gsc_a_tr" in rows_html:
        raise LayoutChanged("the rows carry gsc_a_tr but none could be read")
    if rows_html.strip() and not rows_html.rstrip().lower().endswith("</tr>"):
        raise Truncated(f"the rows stop in the middle of row {len(rows)}; save them again")
    result = PageResult(site=SITE, page="rows", url=doc.url)
    result.publications = publications(rows, result, base=doc.url)
    if more:
        result.warn("partial", f"the payload says more rows follow these {len(rows)} (\"N\": true); fetch the next cstart")
    return result


# --- the saved-table text form ------------------------------------------------------------
# A profile table copied as text: "| title authors venue, year | citations | year |" rows, the
# three parts of the first cell run together, then the sidebar's co-author lines run together.

_TABLE_ROW = re.compile(r"^\|(?P<cell>.+)\|\s*(?P<cites>[\d,.\s\u00a0]*)(?P<merged>\*?)\s*\|\s*(?P<year>\d{4})?\s*\|$")
_PARTICLES = frozenset("van von der den de del della di da dos das du la le ten ter bin al el st "
                       "Van Von Der Den De Del Della Di Da Dos Das Du La Le Ten Ter Bin Al El Abd Abu Ben St.".split())
_ELLIPSIS = frozenset({"...", "…"})
_GLUE = re.compile(r"(?<=[a-z\u00df-\u00ff])(?<!Mc)(?=[A-Z\u00c0-\u00de])")


def looks_like_saved_table(text: str) -> bool:
    """Whether ``text`` is Scholar's publication table saved as ``| … | n | year |`` lines."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    rows = sum(1 for line in lines if _TABLE_ROW.match(line))
    return rows > 0 and rows * 2 >= len(lines)


def _parse_saved_table(doc: Document) -> PageResult:
    result = PageResult(site=SITE, page="publication_list", url=doc.url)
    trailing: list[str] = []
    for line in (line.strip() for line in doc.text.splitlines()):
        row = _TABLE_ROW.match(line)
        if row:
            result.publications.append(_table_row_publication(row, result))
        elif line and not set(line) <= set("|-: "):
            trailing.append(line)
    result.profile = Profile(coauthors=[coauthor_from_glued_text(line) for line in trailing])
    return result


def _table_row_publication(row: re.Match[str], result: PageResult) -> Publication:
    year = to_int(row.group("year"))
    title, authors_text, venue = split_title_authors_venue(clean(row.group("cell")))
    pub = Publication(title=clean_title(title), year=year, date=str(year) if year else None,
                      citations=to_int(row.group("cites")) or 0)
    if row.group("merged"):
        pub.flags.append("merged_citations")
    _fill_authors_and_venue(pub, authors_text, venue)
    if not authors_text:
        result.warn("unsplit_row", f"no author list found in row {len(result.publications) + 1}; "
                                   "the whole cell is kept as the title")
    if "title_looks_like_authors" in pub.flags:
        result.warn("title_looks_like_authors",
                    f"row {len(result.publications) + 1}: the title looks like an author list: {pub.title!r}")
    return pub


def split_title_authors_venue(cell: str) -> tuple[str, str, str]:
    """Title, author list and venue of one run-together cell; the venue loses its appended year.

    The author list is Scholar's: initials then family name ("RY Aminabadi"), comma-separated,
    perhaps ending in "...". The split takes the longest such run that starts after the title.

    >>> split_title_authors_venue("Deep nets K Lee, A van de Berg, ... Nature 3 (1), 2-9, 2020")
    ('Deep nets', 'K Lee, A van de Berg, ...', 'Nature 3 (1), 2-9')
    """
    words = cell.split(" ")
    best: tuple[tuple[int, int, int], int, int] | None = None
    for start in range(1, len(words)):
        end = _author_run_end(words, start)
        if end is None:
            continue
        names = sum(1 for w in words[start:end] if _is_initials(w))
        score = (names, int(words[end - 1] in _ELLIPSIS), int(words[start] not in {"A", "I"}))
        if best is None or score > best[0]:
            best = (score, start, end)
    if best is None:
        return re.sub(r",\s*(?:\d{4}|0)$", "", cell), "", ""
    _, start, end = best
    venue = re.sub(r"(?:^|,\s*)(?:\d{4}|0)$", "", " ".join(words[end:])).strip()
    return " ".join(words[:start]), " ".join(words[start:end]).rstrip(","), venue


def _author_run_end(words: list[str], start: int) -> int | None:
    """Index after the author run starting at ``words[start]``, or None if no name starts there."""
    position, found = start, False
    while position < len(words):
        name = _name_end(words, position)
        if name is None:
            break
        position, found = name, True
        if not words[position - 1].endswith(","):
            return position
        if position < len(words) and words[position] in _ELLIPSIS:
            return position + 1
    return position if found else None


def _name_end(words: list[str], start: int) -> int | None:
    """Index after one "initials family" name at ``words[start]``, or None."""
    if not _is_initials(words[start]):
        return None
    # Bounded by a comma, a family name may have up to three words ("T Le Scao,", "EM Abd Allah,").
    for end in range(start + 1, min(start + 4, len(words))):
        if not _is_family_word(words[end].rstrip(",")):
            break
        if words[end].endswith(","):
            return end + 1
    # The last name of the list runs into the venue: particles, then one word.
    end = start + 1
    while end < len(words) and words[end] in _PARTICLES:
        end += 1
    if end < len(words) and _is_family_word(words[end].rstrip(",")):
        return end + 1
    return None


def _is_initials(word: str) -> bool:
    return 1 <= len(word) <= 4 and word.isalpha() and word.isupper()


def _is_family_word(word: str) -> bool:
    return word in _PARTICLES or bool(
        word and word[0].isupper() and any(c.islower() for c in word) and _NAME_WORD.match(word))


def coauthor_from_glued_text(line: str) -> Coauthor:
    """A co-author from the sidebar text saved without separators.

    >>> c = coauthor_from_glued_text("He YuxiongSnowflakeVerified email at snowflake.com")
    >>> c.name, c.affiliation, c.email_domain
    ('He Yuxiong', 'Snowflake', 'snowflake.com')
    """
    parts = _GLUE.split(clean(line))
    domain = _DOMAIN.findall(parts[-1]) if len(parts) > 1 else []
    if domain:
        parts = parts[:-1]
    return Coauthor(name=parts[0].strip(), affiliation=clean_or_none("".join(parts[1:])),
                    email_domain=domain[-1].lower() if domain else None)
