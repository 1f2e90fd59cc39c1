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
from collections.abc import Callable, Iterable
from itertools import chain
from typing import TypedDict
from urllib.parse import unquote, urlsplit

from lxml import etree
from lxml.etree import _Element as Element

from pubharvest.errors import Blocked, LayoutChanged, NotFoundOrPrivate, Truncated, Unrecognised

from .page import Document, html_root_streamed, html_selector, utf8_pieces
from .records import (
    Author,
    Coauthor,
    Ids,
    Link,
    Metrics,
    PageResult,
    Profile,
    PublicAccess,
    Publication,
    PublicationIds,
    SearchInfo,
    YearCitations,
)
from .site import SiteInfo
from .text import (
    absolute_url,
    clean,
    clean_or_none,
    clean_title,
    find_arxiv_id,
    find_year,
    is_initials,
    leading_int,
    split_names,
    to_int,
)

__all__ = ["SITE", "refuse", "sniff", "parse", "split_title_authors_venue"]

SITE = SiteInfo(
    name="scholar", title="Google Scholar", base_url="https://scholar.google.com", hosts=("scholar.google.",),
    id_pattern=r"[A-Za-z0-9_-]{8,20}", id_example="qc6CJjYAAAAJ",
    profile_path="/citations?user={id}&hl=en&pagesize=100",
    page_kinds=("profile", "rows", "publication_list", "publication", "coauthors", "search"),
    block_markers=('id="gs_captcha_ccl"', "id=gs_captcha_ccl", 'id="captcha-form"', "id=captcha-form",
                   "rc-doscaptcha-body"),
)

_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}")
_Z_INDEX = re.compile(r"z-index\s*:\s*(\d+)")
_OFFSET = re.compile(r"(?:right|left)\s*:\s*(\d+)px")
_PATENT = re.compile(r"^(?:(?P<office>[A-Z]{2}) )?Patent\b\.?(?: App(?:lication)?\.?)?(?: Specification)? ?"
                     r"(?P<number>[\w/,.-]*\d[\w/,.-]*)?")
_HEADER_MARKERS = ('id="gsc_prf_in"', "id='gsc_prf_in'", "id=gsc_prf_in>", "id=gsc_prf_in ")
_ROW_FRAGMENT = re.compile(r'^\s*<tr class="?gsc_a_tr', re.I)


def refuse(doc: Document) -> None:
    """Raise ``NotFoundOrPrivate`` for Google's sign-in page (a profile that does not exist or is
    not public) and ``Blocked`` for a CAPTCHA / "unusual traffic" page. The registry asks this of
    every page before any site sniffs it, so that a CAPTCHA is never parsed as "a profile with no
    publications"."""
    if not doc.is_html:
        return
    head = doc.head
    if _is_google_signin(head):
        raise NotFoundOrPrivate("Google redirected to its sign-in page: the profile does not exist "
                                "or is not public")
    if _is_captcha(doc, head):
        raise Blocked("the site answered with a CAPTCHA (\"not a robot\" / unusual traffic) page; "
                      "wait before retrying, and slow down")


def _is_captcha(doc: Document, head: str) -> bool:
    # The CAPTCHA form can sit past the first 100 KB (inline styles come first), so the whole page
    # is searched; a profile's header rules it out first, in one fast scan.
    if doc.contains('id="gsc_prf_in"'):
        return False
    if any(p in head for p in ("our systems have detected unusual traffic", "not a robot")):
        return True
    return (doc.contains("captcha") and any(doc.contains(m) for m in SITE.block_markers)) or doc.contains(
        "/sorry/index")


def _is_google_signin(head: str) -> bool:
    return ("accounts.google.com/v3/signin" in head or "accounts.google.com/servicelogin" in head) and (
        "gsc_prf_in" not in head
    )


def sniff(doc: Document) -> str | None:
    """One of ``SITE.page_kinds`` for a Scholar page, else None.

    Scholar pages pubharvest does not read (the cite popup, parts of pre-2014 pages) are refused
    here with a message saying what they are.
    """
    if not doc.is_html:
        if _coauthors_payload(doc) is not None:
            return "coauthors"
        if _payload_rows(doc) is not None:
            return "rows"
        return "publication_list" if _looks_like_saved_table(doc.text) else None
    head = doc.head
    # The header can sit past the first 100 KB (inline styles and scripts come first).
    if doc.contains_any("gsc_prf_in", _HEADER_MARKERS):
        return "profile"
    if _ROW_FRAGMENT.match(doc.text) or ("gsc_a_tr" in head and "<html" not in head):
        return "rows"
    kind = _sniff_publication_or_coauthors(doc)
    if kind:
        return kind
    if _is_search_page(doc) or _is_author_search_page(doc):
        return "search"
    if _is_legacy_profile(doc):
        return "profile"
    _refuse_other_scholar_pages(doc)
    if any(host in head for host in SITE.hosts) and ("gsc_a_t" in head or "gsc_rsb" in head):
        return "profile"  # a profile page with its header missing: parse() says layout_changed
    return None


def _refuse_other_scholar_pages(doc: Document) -> None:
    if doc.contains('id="gs_citt"'):
        raise Unrecognised("a Google Scholar \"Cite\" popup, not an author profile")
    if doc.contains("cit-dark-link") or doc.contains('class="cit-'):
        raise LayoutChanged("a Google Scholar page in the pre-2014 layout (cit-* markup) that is not a whole "
                            "saved profile, which pubharvest does not read; save the whole page")


def parse(doc: Document) -> PageResult:
    """The records of one Scholar page (see ``sniff`` for the kinds)."""
    kind = doc.kind or sniff(doc)
    if kind == "profile":
        return _parse_legacy_profile(doc) if _is_legacy_profile(doc) else _parse_profile(doc)
    if kind == "search":
        return _parse_search(doc) if _is_search_page(doc) else _parse_author_search(doc)
    if kind == "rows":
        return _parse_rows_page(doc)
    if kind == "publication_list":
        return _parse_saved_table(doc)
    if kind == "publication":
        return _parse_publication(doc)
    if kind == "coauthors":
        return _parse_coauthors(doc)
    raise Unrecognised("not a Google Scholar profile page")


# --- the profile page ---------------------------------------------------------------------


def _parse_profile(doc: Document) -> PageResult:
    streamed = _StreamedRows(lambda root: _canonical_url(root, doc.url))
    root = html_root_streamed(utf8_pieces(doc.text, doc.raw), "tr", streamed.take)
    parts = _landmarks(root)
    if "gsc_prf_in" not in parts:
        raise LayoutChanged("a Scholar page without the profile header (#gsc_prf_in)")
    url = _canonical_url(root, doc.url)
    rows = streamed.reader_for(parts.get("gsc_a_b"), url)
    _refuse_parser_cut(doc, parts, rows.rows)
    cut = "</html>" not in doc.text[-4096:].lower()
    # The row-range line under the table (#gsc_a_nn) proves the table whole: a cut after it loses
    # only the footer; a cut before it may have lost rows, silently.
    if cut and "gsc_a_nn" not in parts:
        raise Truncated(f"the page stops before its end (after {rows.rows} publication rows); save it again")
    if "gsc_a_t" not in parts:
        raise LayoutChanged("a Scholar profile without its publication table (#gsc_a_t)")
    result = PageResult(site=SITE.name, page="profile", url=url)
    if cut:
        result.warn("truncated", "the page stops after its publication table; what came later was not saved")
    result.profile = _profile(parts, url)
    if not result.profile.ids.scholar and rows.publications:
        result.profile.ids.scholar = (rows.publications[0].ids.scholar or "").split(":")[0] or None
    _check_row_range(_row_range(parts.get("gsc_a_nn")), rows.rows, len(rows.publications), result)
    result.publications = rows.finish(result)
    _warn_if_past_end(rows.rows, len(rows.publications), result, doc.url)
    _check_profile_parts(parts, doc, result.profile, result)
    _warn_if_partial(parts, result)
    if "gsc_coauth_opn" in parts:
        result.warn("coauthors_partial", "the sidebar shows only the first co-authors; the full list is "
                                         "behind \"View all\" (view_op=list_colleagues)")
    return result


# The parts of a profile page are read from lxml elements directly, found by id in one pass and
# then by class within each part: a selector call per field costs more than the whole tree walk.

_LANDMARK_IDS = frozenset({"gsc_prf_in", "gsc_prf_i", "gsc_prf_ivh", "gsc_prf_int", "gsc_prf_pup-img", "gsc_rsb_cit",
                           "gsc_rsb_st", "gsc_rsb_mnd", "gsc_rsb_co", "gsc_a_t", "gsc_a_b", "gsc_bpf_more",
                           "gsc_a_nn", "gsc_coauth_opn", "gsc_g"})
# libxml2 indexes the id attributes of an HTML document, so XPath's id() is a lookup, not a walk.
_BY_ID = etree.XPath("id($ids)")
_IDS = " ".join(sorted(_LANDMARK_IDS))
_HEAD_LINKS = etree.XPath("/html/head/link[@rel='canonical'] | /html/head/meta[@property='og:image']")


def _landmarks(root: Element) -> dict[str, Element]:
    """The page's parts by id, plus ``canonical``, ``og:image`` and ``hist`` (the histogram)."""
    found: dict[str, Element] = {}
    for element in _elements(_BY_ID(root, ids=_IDS)):
        found.setdefault(element.get("id", ""), element)
    for element in _elements(_HEAD_LINKS(root)):
        found.setdefault("canonical" if element.tag == "link" else "og:image", element)
    hist = _by_class(found.get("gsc_rsb_cit"), {"gsc_md_hist_b": "hist"}).get("hist")
    if hist:
        found["hist"] = hist[0]
    return found


def _canonical_url(root: Element, fallback: str | None) -> str | None:
    """The page's ``link rel=canonical`` (in its head), else ``fallback``."""
    link = next((e for e in _elements(_HEAD_LINKS(root)) if e.tag == "link"), None)
    return clean_or_none(_attr(link, "href")) or fallback


def _elements(found: object) -> list[Element]:
    """The elements an XPath expression found (lxml types its answer as any XPath value)."""
    return [element for element in found if isinstance(element, Element)] if isinstance(found, list) else []


def _by_class(root: Element | None, rules: dict[str, str], tag: tuple[str, ...] = ()) -> dict[str, list[Element]]:
    """Elements under ``root`` (of the tags ``tag``, or any) by the part their class names; the
    first rule an element matches wins."""
    found: dict[str, list[Element]] = {}
    if root is None:
        return found
    for element in root.iter(*tag):
        classes = element.get("class")
        if not classes:
            continue
        names = classes.split()
        for name, part in rules.items():
            if name in names:
                found.setdefault(part, []).append(element)
                break
    return found


def _first(parts: dict[str, list[Element]], part: str) -> Element | None:
    elements = parts.get(part)
    return elements[0] if elements else None


def _attr(element: Element | None, name: str) -> str | None:
    return element.get(name) if element is not None else None


def _text_of(element: Element | None) -> str | None:
    return clean_or_none(_text(element)) if element is not None else None


def _table_rows(body: Element | None) -> list[Element]:
    """The rows of ``#gsc_a_b``: publication rows and the "no articles" row."""
    return [row for row in body if _is_table_row(row)] if body is not None else []


def _is_table_row(row: Element) -> bool:
    return bool({"gsc_a_tr", "gsc_a_e"} & set(_classes(row)))


def _is_no_articles_row(row: Element) -> bool:
    """Whether ``row`` is the "There are no articles in this profile." row (a ``td.gsc_a_e``)."""
    return "gsc_a_e" in _classes(row) or any("gsc_a_e" in _classes(cell) for cell in row)


def _article_rows(rows: list[Element]) -> list[Element]:
    return [row for row in rows if not _is_no_articles_row(row)]


def _user_id(url: str | None) -> str | None:
    """The ``user=`` id of a Scholar URL.

    >>> _user_id("https://scholar.google.com/citations?user=RxmmtT8AAAAJ&hl=en")
    'RxmmtT8AAAAJ'
    """
    return _query_value(url, "user")


_QUERY_KEYS = {key: re.compile(f"[?&;]{key}=([^&#]*)")
               for key in ("user", "org", "cites", "citation_for_view", "cstart", "cluster")}


def _query_value(url: str | None, key: str) -> str | None:
    match = _QUERY_KEYS[key].search(url) if url else None
    return unquote(match.group(1)) if match and match.group(1) else None


def _profile(parts: dict[str, Element], url: str | None) -> Profile:
    """The profile header and the right-hand sidebar (``parts`` from ``landmarks``)."""
    affiliation = _headline_affiliation(parts.get("gsc_prf_i"))
    org_href = next((a.get("href") for a in affiliation.iter("a") if "view_op=view_org" in (a.get("href") or "")),
                    None) if affiliation is not None else None
    email_box = parts.get("gsc_prf_ivh")
    interests = _by_class(parts.get("gsc_prf_int"), {"gsc_prf_inta": "interest"}).get("interest", [])
    return Profile(
        name=_text_of(parts["gsc_prf_in"]),
        url=url,
        ids=Ids(scholar=_user_id(url), scholar_org=_query_value(org_href, "org")),
        affiliation=_text_of(affiliation),
        email_domain=_email_domain(email_box),
        homepage=next((a.get("href") for a in email_box.iter("a")), None) if email_box is not None else None,
        photo_url=_photo_url(parts),
        interests=[clean(_text(a)) for a in interests],
        metrics=_metrics(parts.get("gsc_rsb_st")),
        citations_by_year=_citations_by_year(parts.get("hist", parts.get("gsc_g"))),
        public_access=_public_access(parts.get("gsc_rsb_mnd")),
        coauthors=_coauthors(parts.get("gsc_rsb_co")),
    )


def _headline_affiliation(header: Element | None) -> Element | None:
    """The first ``div.gsc_prf_il`` without an id: the others are the e-mail and interests boxes."""
    if header is None:
        return None
    return next((d for d in header.iter("div") if "gsc_prf_il" in _classes(d) and not d.get("id")), None)


def _email_domain(box: Element | None) -> str | None:
    """The verified e-mail domain, whatever the language of the sentence around it.

    The homepage link's text is left out: it sits in the same box.
    """
    if box is None:
        return None
    text = " ".join([box.text or ""] + [child.tail or "" for child in box])
    return _last_domain(text)


def _last_domain(text: str) -> str | None:
    """The last word of ``text`` shaped like a domain name (``cftri.res.in``), lower-cased."""
    for word in reversed(text.split()):
        word = word.strip("-–—·:;,()[]<>@")
        if "." in word and _DOMAIN.fullmatch(word):
            return word.lower()
    return None


def _photo_url(parts: dict[str, Element]) -> str | None:
    """The profile photo, or None for the default avatar."""
    src = _attr(parts.get("gsc_prf_pup-img"), "src") or _attr(parts.get("og:image"), "content")
    if not src or "avatar_scholar" in src:
        return None
    return absolute_url(src, SITE.base_url)


def _metrics(table: Element | None) -> Metrics:
    """Citations, h-index and i10-index, all and since the year in the table's header."""
    if table is None:
        return Metrics()
    cells = [to_int(_text(td)) for td in table.iter("td") if "gsc_rsb_std" in _classes(td)]
    if len(cells) != 6:
        return Metrics()
    headers = [_text(th) for th in table.iter("th")]
    since = find_year(headers[-1]) if headers else None
    return Metrics(
        citations=cells[0], citations_since=cells[1], since_year=since,
        h_index=cells[2], h_index_since=cells[3], i10_index=cells[4], i10_index_since=cells[5],
    )


def _citations_by_year(chart: Element | None) -> list[YearCitations]:
    """Every year on the histogram's axis with its count; 0 for the years that have no bar.

    Years without citations have no bar, so bars are matched to years by ``z-index`` (1 is the
    newest year), never by position. Bars without a z-index (2014 layout) fall back to their offset.
    """
    if chart is None:
        return []
    texts = [(_text(e).strip(), e) for e in _elements(_YEAR_LABELS(chart))]
    labels = [(int(text), e) for text, e in texts if text.isdigit()]
    years = [year for year, _ in labels]
    counts = dict.fromkeys(years, 0)
    for bar in _elements(_BARS(chart)):
        year = _bar_year(bar.get("style", ""), labels)
        if year is not None:
            counts[year] = to_int(_text(bar)) or 0
    return [YearCitations(year=y, citations=c) for y, c in counts.items()]


_YEAR_LABELS = etree.XPath(".//span[contains(concat(' ', @class, ' '), ' gsc_g_t ')]")
_BARS = etree.XPath(".//a[contains(concat(' ', @class, ' '), ' gsc_g_a ')]")


def _offset(style: str) -> int | None:
    match = _OFFSET.search(style)
    return int(match.group(1)) if match else None


def _bar_year(style: str, labels: list[tuple[int, Element]]) -> int | None:
    z_index = _Z_INDEX.search(style)
    if z_index:
        rank = int(z_index.group(1))
        return labels[-rank][0] if 1 <= rank <= len(labels) else None
    offset = _offset(style)
    if offset is None:
        return None
    # A bar sits 5px beside its year label (measured on the 2019 and 2026 pages).
    for year, label in labels:
        label_offset = _offset(label.get("style", ""))
        if label_offset is not None and abs(offset - 5 - label_offset) <= 2:
            return year
    return None


def _public_access(box: Element | None) -> PublicAccess | None:
    """Counts of the public-access box; None when the page has no such box (unknown, not 0)."""
    if box is None:
        return None
    parts = _by_class(box, {"gsc_rsb_m_a": "available", "gsc_rsb_m_na": "not_available"})
    return PublicAccess(available=leading_int(_text_of(_first(parts, "available"))),
                        not_available=leading_int(_text_of(_first(parts, "not_available"))))


_COAUTHOR_CLASSES = {"gsc_rsb_a_desc": "desc", "gsc_rsb_a_ext2": "email", "gsc_rsb_a_ext": "affiliation",
                     "gsc_rsb_aa": "item"}


def _coauthor_parts(box: Element | None) -> list[dict[str, list[Element]]]:
    """The parts of each co-author item of the sidebar (see ``_COAUTHOR_CLASSES``)."""
    return [_by_class(item, _COAUTHOR_CLASSES, tag=("span", "a")) for item in box.iter("li")] if box is not None \
        else []


def _coauthors(box: Element | None) -> list[Coauthor]:
    """Every co-author the sidebar shows (at most 20; the rest are behind "View all")."""
    found = []
    for item, parts in zip(box.iter("li") if box is not None else (), _coauthor_parts(box)):
        desc = _first(parts, "desc")
        # 2014 pages have the link itself as a.gsc_rsb_aa, with no description block.
        link = next(desc.iter("a"), None) if desc is not None else next(item.iter("a"), None)
        name = _text_of(link)
        if link is None or not name:
            continue
        href = link.get("href")
        found.append(Coauthor(
            name=name,
            affiliation=_text_of(_first(parts, "affiliation")),
            email_domain=_email_domain(_first(parts, "email")),
            ids=Ids(scholar=_user_id(href)),
            url=absolute_url(href, SITE.base_url),
        ))
    return found


def _warn_if_partial(parts: dict[str, Element], result: PageResult) -> None:
    button = parts.get("gsc_bpf_more")
    if button is not None and button.get("disabled") is None:
        first_last = re.findall(r"\d+", _text_of(parts.get("gsc_a_nn")) or "")
        span = f"rows {first_last[0]}–{first_last[-1]}" if first_last else f"{len(result.publications)} rows"
        result.warn("partial", f"the page holds {span} of a longer list (\"Show more\" is enabled); "
                               "fetch the rest with cstart/pagesize")


# --- invariants: the page checked against itself --------------------------------------------
# A renamed class must not give a hollow record: each check below compares what the page states
# (its row range, its links, the raw markup) with what was read, by structure, never by labels.

_NUMBER = re.compile(r"\d(?:[\d.,\u00a0\u202f]*\d)?")


def _row_range(span: Element | None) -> tuple[int, int] | None:
    """The first and last row numbers of ``#gsc_a_nn`` ("Articles 1–20", "記事 1–4"), any language.

    >>> _row_range(etree.fromstring("<span>Artículos 1.001–1.100</span>"))
    (1001, 1100)
    >>> _row_range(etree.fromstring("<span></span>")) is None
    True
    """
    numbers = [int(re.sub(r"\D", "", n)) for n in _NUMBER.findall(_text(span))] if span is not None else []
    return (numbers[0], numbers[-1]) if len(numbers) >= 2 and numbers[-1] >= numbers[0] else None


def _check_row_range(stated: tuple[int, int] | None, rows: int, articles: int, result: PageResult) -> None:
    """``LayoutChanged`` when the range promises rows and none was found; a ``row_count`` warning
    when the count differs; ``profile_unreadable`` when a page with rows states no range."""
    if stated is None:
        if articles:
            result.warn("profile_unreadable", "the page states no row range (#gsc_a_nn): the number of rows "
                                              "read cannot be checked")
        return
    first, last = stated
    want = last - first + 1
    if not rows:
        raise LayoutChanged(f"the page says it shows rows {first}–{last} (#gsc_a_nn) but no publication row "
                            "(#gsc_a_b > tr.gsc_a_tr) was found")
    if articles != want:
        result.warn("row_count", f"the page says it shows rows {first}–{last} (#gsc_a_nn) but {articles} "
                                 "publication rows were read")


def _warn_if_past_end(rows: int, articles: int, result: PageResult, url: str | None, fragment: bool = False) -> None:
    """A ``past_end`` warning for a "no articles" row on a page that cannot be the whole profile:
    a later page (``cstart`` > 0, or a fragment) or a profile whose table says it is cited."""
    if articles or not rows:
        return
    cited = bool(result.profile and result.profile.metrics.citations)
    if fragment or cited or int(_query_value(url, "cstart") or 0) > 0:
        result.warn("past_end", "the page holds no rows: it starts past the profile's last row (cstart too large)")


_REQUIRED_PARTS = {"gsc_prf_i": "the header's details", "gsc_prf_ivh": "the e-mail line",
                   "gsc_prf_pup-img": "the photo", "gsc_rsb_cit": "the citations box",
                   "gsc_rsb_st": "the citations table", "gsc_bpf_more": "the \"Show more\" button"}


def _check_profile_parts(parts: dict[str, Element], doc: Document, profile: Profile, result: PageResult) -> None:
    """One ``profile_unreadable`` warning naming each part of the header or sidebar that every
    profile has, or that the page's own links prove, and that could not be read."""
    missing = [f"{what} (#{key})" for key, what in _REQUIRED_PARTS.items() if key not in parts]
    if not profile.name:
        missing.append("the name (#gsc_prf_in is empty)")
    if "gsc_prf_i" in parts and _headline_affiliation(parts["gsc_prf_i"]) is None:
        missing.append("the affiliation line (#gsc_prf_i div.gsc_prf_il)")
    if "gsc_rsb_st" in parts and profile.metrics.citations is None:
        missing.append("the six counts of the citations table (#gsc_rsb_st td.gsc_rsb_std)")
    missing += _unread_histogram(parts, profile)
    if doc.contains("mauthors=label:") and not profile.interests:
        missing.append("the interests (#gsc_prf_int a.gsc_prf_inta), which the page links")
    access = profile.public_access
    shown = "gsc_rsb_mnd" in parts or doc.contains("view_op=list_mandates") or doc.contains('class="gsc_rsb_m_a')
    if shown and (
            access is None or access.available is None or access.not_available is None):
        missing.append("the public-access counts (#gsc_rsb_mnd .gsc_rsb_m_a), which the page links")
    items = [item for item in _coauthor_parts(parts.get("gsc_rsb_co")) if "desc" in item]
    if any("affiliation" not in item or "email" not in item for item in items):
        missing.append("co-author affiliations and e-mails (#gsc_rsb_co span.gsc_rsb_a_ext, .gsc_rsb_a_ext2)")
    linked = _linked_profiles(doc, profile.ids.scholar)
    if len(linked) > len(profile.coauthors) or any(c.ids.scholar not in linked for c in profile.coauthors):
        missing.append(f"co-authors (#gsc_rsb_co .gsc_rsb_a_desc): the page links {len(linked)} other profiles, "
                       f"{len(profile.coauthors)} were read")
    if missing:
        result.warn("profile_unreadable", "could not read " + "; ".join(missing))


def _unread_histogram(parts: dict[str, Element], profile: Profile) -> list[str]:
    """What the citations-per-year chart lacks while the table says the profile is cited."""
    if not profile.metrics.citations:
        return []
    chart = parts.get("hist", parts.get("gsc_g"))
    if chart is None:
        return ["the citations-per-year chart (.gsc_md_hist_b)"]
    labels, bars = _elements(_YEAR_LABELS(chart)), _elements(_BARS(chart))
    if not labels or not bars:
        return [f"the chart's {'year labels (span.gsc_g_t)' if not labels else 'bars (a.gsc_g_a)'}"]
    if sum(y.citations for y in profile.citations_by_year) == 0 or any(not b.get("style") for b in bars):
        return ["the chart's bars (a.gsc_g_a with a z-index or offset)"]
    return []


_PROFILE_LINK = re.compile(r"citations\?user=([\w-]+)")


def _linked_profiles(doc: Document, own: str | None) -> set[str]:
    """The ids of the other profiles the page links (its co-authors)."""
    if not doc.contains("citations?user="):
        return set()
    return set(_PROFILE_LINK.findall(doc.text)) - {own}


def _refuse_parser_cut(doc: Document, parts: dict[str, Element], rows: int) -> None:
    """``Truncated`` when the markup holds parts the tree lacks: libxml2 stops reading at 2048
    nested elements (even with its huge-tree option) and drops the rest of the page silently."""
    lost = [key for key in ("gsc_prf_in", "gsc_a_t", "gsc_a_b", "gsc_a_nn")
            if key not in parts and doc.contains(f'id="{key}"')]
    if lost or doc.text.count('class="gsc_a_tr"') > rows:
        raise Truncated("the HTML parser stopped before the page's end (nesting deeper than 2048 elements?): "
                        f"{', '.join('#' + k for k in lost) or 'publication rows'} in the markup but not in the tree")


# --- publication rows -----------------------------------------------------------------------


def _publications(rows: Iterable[Element], result: PageResult, base: str | None) -> list[Publication]:
    """One ``Publication`` per table row, in page order (see ``_RowReader``)."""
    reader = _RowReader(base)
    for row in rows:
        reader.read(row)
    return reader.finish(result)


class _RowReader:
    """Table rows read one at a time, as a pull parser hands them over, into ``publications``; ``finish``
    then checks them: rows that lack a cell the parser reads are named in a ``rows_unreadable``
    warning, and a table where no row has a title is ``LayoutChanged``."""

    def __init__(self, base: str | None, body: Element | None = None) -> None:
        self.origin = _origin(base)
        self.body = body  # the element whose rows these are (``#gsc_a_b``)
        self.rows = 0  # table rows, the "no articles" row included
        self.publications: list[Publication] = []
        self._unread: dict[str, list[int]] = {}
        self._odd_titles: list[int] = []

    def read(self, row: Element) -> None:
        self.rows += 1
        if _is_no_articles_row(row):
            return
        number = len(self.publications) + 1
        parts = _row_parts(row)
        for field in _missing_row_fields(parts):
            self._unread.setdefault(field, []).append(number)
        pub = _publication(row, self.origin, parts)
        if "title_looks_like_authors" in pub.flags:
            self._odd_titles.append(number)
        self.publications.append(pub)

    def finish(self, result: PageResult) -> list[Publication]:
        """The publications, once the checks' warnings are on ``result``."""
        found, count = self.publications, len(self.publications)
        for number in self._odd_titles:
            result.warn("title_looks_like_authors",
                        f"row {number}: the title looks like an author list: {found[number - 1].title!r}")
        if count and len(self._unread.get(_ROW_FIELDS["anchor"], ())) == count:
            raise LayoutChanged(f"none of the {count} publication rows has a title link ({_ROW_FIELDS['anchor']})")
        for field, numbers in self._unread.items():
            result.warn("rows_unreadable", f"{_row_numbers(numbers)} of {count}: no {field}; that field is null")
        _warn_if_repeated(found, result)
        return found


class _StreamedRows:
    """The rows of ``#gsc_a_b`` read while lxml's pull parser builds the tree (``take`` is its callback),
    each cleared once read, so that a page of 100,000 rows never holds them all as elements."""

    def __init__(self, base: Callable[[Element], str | None]) -> None:
        self._base = base  # the page's URL, from the tree parsed so far (its head)
        self.reader: _RowReader | None = None
        self._done: Element | None = None

    def take(self, row: Element) -> None:
        body = row.getparent()
        if body is None or body.get("id") != "gsc_a_b" or not _is_table_row(row):
            return
        if self.reader is None:
            self.reader = _RowReader(self._base(row.getroottree().getroot()), body)
        elif body is not self.reader.body:
            return
        self.reader.read(row)
        # The row that closed last stays (lxml's pull parser may still point at it); the one before goes.
        if self._done is not None:
            body.remove(self._done)
        row.clear()
        self._done = row

    def reader_for(self, body: Element | None, base: str | None) -> _RowReader:
        """The rows of ``body`` (the page's first ``#gsc_a_b``): those read while parsing, unless they
        were another element's; then ``body``'s own, read from the tree."""
        if self.reader is not None and self.reader.body is body:
            return self.reader
        reader = _RowReader(base, body)
        for row in _table_rows(body):
            reader.read(row)
        return reader


def _warn_if_repeated(found: list[Publication], result: PageResult) -> None:
    """A ``duplicate_rows`` warning when rows repeat a publication id: Scholar lists each once."""
    seen: set[str] = set()
    repeats = []
    for number, pub in enumerate(found, 1):
        key = pub.ids.scholar
        if key and key in seen:
            repeats.append(number)
        elif key:
            seen.add(key)
    if repeats:
        result.warn("duplicate_rows", f"{_row_numbers(repeats[:20])}{' …' if len(repeats) > 20 else ''} "
                                      f"({len(repeats)} in all) repeat an earlier row's publication id")


# What each row must hold: every row of every saved page has all four, even when empty.
_ROW_FIELDS = {"anchor": "title link (td.gsc_a_t a.gsc_a_at)",
               "grays": "authors and venue lines (td.gsc_a_t div.gs_gray)",
               "count": "citation count (td.gsc_a_c a.gsc_a_ac)",
               "year": "year (td.gsc_a_y span.gsc_a_h)"}


def _missing_row_fields(parts: _RowParts) -> list[str]:
    """The descriptions of the fields a row lacks (see ``_ROW_FIELDS``)."""
    missing = [key for key in ("anchor", "count", "year") if parts.get(key) is None]
    if len(parts["grays"]) < 2:
        missing.append("grays")
    return [_ROW_FIELDS[key] for key in missing]


def _row_numbers(numbers: list[int]) -> str:
    """Row numbers in short form.

    >>> _row_numbers([1, 2, 3, 5, 7, 8])
    'rows 1–3, 5, 7–8'
    >>> _row_numbers([4])
    'row 4'
    """
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(f"{a}–{b}" if a != b else str(a) for a, b in spans)
    return f"row {text}" if len(numbers) == 1 else f"rows {text}"


# Rows are read from the lxml elements directly: a profile can hold thousands of rows, and a
# selector call per field costs more than the whole tree walk.


def _publication(row: Element, origin: str = SITE.base_url, parts: _RowParts | None = None) -> Publication:
    """A publication from one ``tr.gsc_a_tr`` row element (and its ``_row_parts``, when at hand)."""
    parts = _row_parts(row) if parts is None else parts
    anchor, year_span, grays = parts.get("anchor"), parts.get("year"), parts["grays"]
    href = _row_link(anchor)
    pub = Publication(
        title=clean_title(_text(anchor)) if anchor is not None else None,
        year=to_int(_text(year_span)) if year_span is not None else None,
        url=absolute_url(href, origin),
        ids=PublicationIds(scholar=_query_value(href, "citation_for_view")),
    )
    pub.date = str(pub.year) if pub.year else None
    _fill_authors_and_venue(pub, _text(grays[0]) if grays else "",
                            _text_without_year(grays[1]) if len(grays) > 1 else "")
    _fill_citations(pub, parts)
    return pub


_CELL_KINDS = {"gsc_a_t": "title", "gsc_a_c": "count", "gsc_a_y": "year"}


class _RowParts(TypedDict, total=False):
    """The data-carrying elements of one publication row."""

    anchor: Element | None  # the title link
    grays: list[Element]  # the authors line, then the venue line
    count: Element  # the citation count
    merged: Element  # the mark of merged citations
    year: Element | None


def _row_parts(row: Element) -> _RowParts:
    """The row's data-carrying elements: ``anchor``, ``grays`` (authors, venue), ``count``,
    ``merged``, ``year``. Cells are found by class, never by position: the 2014 owner view has an
    extra checkbox cell. (This runs once per row of pages with thousands: it compares class
    strings rather than splitting them, and visits only the elements that can carry data.)"""
    parts: _RowParts = {"grays": []}
    for cell in row:
        kind = _cell_kind(cell.get("class"))
        if kind == "title":
            _title_cell_parts(cell, parts)
        elif kind == "count":
            for element in cell.iter("a", "span"):
                classes = element.get("class") or ""
                if "gsc_a_ac" in classes:
                    parts.setdefault("count", element)
                elif "gsc_a_am" in classes or "gsc_a_m" in classes:
                    parts["merged"] = element
        elif kind == "year":
            parts["year"] = next((e for e in cell.iter("span") if "gsc_a_h" in (e.get("class") or "")), None)
    return parts


def _cell_kind(classes: str | None) -> str | None:
    if not classes:
        return None
    return _CELL_KINDS.get(classes) or next((_CELL_KINDS[c] for c in classes.split() if c in _CELL_KINDS), None)


def _title_cell_parts(cell: Element, parts: _RowParts) -> None:
    for child in cell:
        classes = child.get("class") or ""
        if child.tag == "a" and "gsc_a_at" in classes:
            parts.setdefault("anchor", child)
        elif child.tag == "div" and "gs_gray" in classes:
            parts["grays"].append(child)
    if "anchor" not in parts:  # not a direct child in some layout: look deeper
        parts["anchor"] = next((e for e in cell.iter("a") if "gsc_a_at" in _classes(e)), None)


def _text(element: Element) -> str:
    """All the text inside ``element`` (libxml2's text serialiser: faster than ``itertext``)."""
    if not len(element):
        return element.text or ""
    return etree.tostring(element, method="text", encoding=str, with_tail=False)


def _classes(element: Element) -> list[str]:
    classes = element.get("class")
    return classes.split() if classes else []


_PHONE_YEAR = re.compile(r"^\s*,\s*(?:\d{4}|0)\s*$")


def _text_without_year(venue: Element) -> str:
    """The venue text without its ``span.gs_oph`` (", 2007", shown on phones only; a last span of
    that shape is dropped whatever its class, so that a renamed class cannot leak the year)."""
    parts = [venue.text or ""]
    children = list(venue)
    for child in children:
        if "gs_oph" not in _classes(child) and not (child is children[-1] and _PHONE_YEAR.match(_text(child))):
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _row_link(anchor: Element | None) -> str | None:
    if anchor is None:
        return None
    # 2019 pages put the link in data-href and "javascript:void(0)" in href.
    href = anchor.get("href") or ""
    if not href or href.startswith("javascript"):
        href = anchor.get("data-href") or ""
    return href or None


def _origin(url: str | None) -> str:
    parts = urlsplit(url or SITE.base_url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else SITE.base_url


def _fill_authors_and_venue(pub: Publication, authors_text: str, venue_text: str) -> None:
    """Authors, venue (given without Scholar's appended year) and what the venue makes certain."""
    pub.authors, pub.authors_truncated = split_names(authors_text)
    venue = clean(venue_text)
    if venue.endswith("…"):
        venue, pub.venue_truncated = venue[:-1].rstrip(" ,"), True
    pub.venue = venue or None
    _classify_venue(pub)
    if _looks_like_author_list(pub.title):
        pub.flags.append("title_looks_like_authors")


def _classify_venue(pub: Publication) -> None:
    venue = pub.venue or ""
    if "arxiv" in venue.lower():
        pub.ids.arxiv = find_arxiv_id(venue)
        if pub.ids.arxiv and venue.lower().startswith("arxiv"):
            pub.type = "article"
    patent = _PATENT.match(venue) if "Patent" in venue else None
    if patent:
        pub.type = "patent"
        number = patent.group("number")
        office = patent.group("office")
        pub.ids.patent_number = f"{office} {number}" if office and number else number


def _fill_citations(pub: Publication, parts: _RowParts) -> None:
    count = parts.get("count")
    if count is None:
        return
    pub.citations = to_int(_text(count)) or 0
    clusters = _query_value(count.get("href"), "cites")
    pub.ids.scholar_clusters = [c for c in (clusters or "").split(",") if c]
    if "merged" in parts:
        pub.flags.append("merged_citations")
    primary = count.get("data-eud")
    if primary and primary != pub.ids.scholar:
        pub.flags.append(f"duplicate_of:{primary}")


_NAME_WORD = re.compile(r"^[^\W\d_][\w'’.-]*$")


def _looks_like_author_list(title: str | None) -> bool:
    """Whether a title is really a list of full names ("Ann Lee, Bo Chen, and Cy Dunn").

    >>> _looks_like_author_list("Rewon Child, Reza Yazdani Aminabadi, Julie Bernauer, and Bryan Catanzaro")
    True
    >>> _looks_like_author_list("Black pepper, its pungent principle, and health")
    False
    >>> _looks_like_author_list("Machine Learning, Data Science, and Neural Networks")
    False
    """
    if not title or title.count(",") + title.count(" and ") < 2:
        return False
    parts = [re.sub(r"^and\s+", "", p.strip()) for p in re.split(r",|\band\b", title) if p.strip()]
    if len(parts) < 3:
        return False
    return sum(1 for part in parts if _looks_like_full_name(part)) >= 0.8 * len(parts)


# Title-case topic lists ("Trust, Privacy, and Security Engineering") look like names too; words
# with these endings are common in topics and rare in personal names.
# (Not "-ing", "-ence" or "-ment": Ding, Florence and Clement are names.)
_TOPIC_ENDINGS = ("tion", "sion", "ness", "ity", "ics", "ogy", "ism", "learning", "computing", "engineering",
                  "processing", "mining", "management", "development", "works", "systems", "models", "data",
                  "science", "sciences", "intelligence", "security", "privacy")


def _looks_like_full_name(part: str) -> bool:
    words = part.split()
    return 2 <= len(words) <= 4 and all(
        _NAME_WORD.match(w) and w[0].isupper() and not w.lower().endswith(_TOPIC_ENDINGS) for w in words)


# --- the single publication page ---------------------------------------------------------
# ``view_op=view_citation``: one paper's own page, with the full author list, the exact date, the
# venue's parts, the abstract and the paper's citations per year. The field table is read by
# structure: the fields every page has are found by what they hold (a date, a ``cites=`` link, the
# "Scholar articles" snippet, the description's id); the venue's parts by their English label when
# the page is in English, else by their place and shape (``_field_by_shape``).

_PUB_IDS = frozenset({"gsc_oci_title", "gsc_oci_title_gg", "gsc_oci_table", "gsc_sb_ui", "gsc_vcpb", "gsc_oci_descr",
                      "title", "main_sec"})
_PUB_ID_LIST = " ".join(sorted(_PUB_IDS))
_HEAD_TITLE = etree.XPath("/html/head/meta[@property='og:title']/@content")
_SNIFF_PUBLICATION = ('id="gsc_oci_table"', 'id="gsc_oci_title"')
_LEGACY_PUBLICATION = ('class="cit-dt"', "view_op=view_citation")
# English labels (Scholar's hl=en) of the fields whose value has no shape of its own; scholarly's
# list of keys. Other languages fall back to ``_field_by_shape``.
_FIELD_LABELS = {"authors": "authors", "inventors": "authors", "publication date": "date", "journal": "journal",
                 "journal name": "journal", "conference": "conference", "book": "book", "source": "source",
                 "volume": "volume", "issue": "issue", "pages": "pages", "publisher": "publisher",
                 "patent office": "patent_office", "patent number": "patent_number",
                 "application number": "application_number", "institution": "publisher",
                 "description": "description", "total citations": "citations", "scholar articles": "articles",
                 "citations per year": "chart"}
# The pre-2014 layout names its sections by id.
_LEGACY_SECTIONS = {"pubdate_sec": "date", "volume_sec": "volume", "issue_sec": "issue",
                    "pages_sec": "pages", "publisher_sec": "publisher", "description_sec": "description",
                    "scholar_sec": "citations"}
_VENUE_KEYS = ("journal", "conference", "book", "source")
_TYPE_OF_VENUE = {"journal": "article-journal", "conference": "paper-conference", "book": "chapter"}
_FULL_TEXT_MARK = re.compile(r">\[[A-Z]{3,4}\]</span>")
_SCHOLAR_DATE = re.compile(r"^(\d{4})(?:/(\d{1,2}))?(?:/(\d{1,2}))?$")
_PAGE_RANGE = re.compile(r"^[\w.]*\d[\w.]*\s*[-–]\s*[\w.]*\d[\w.]*$")
_SHORT_NUMBER = re.compile(r"^[\w.-]{0,3}\d[\w.-]{0,5}$")
_OFFICE = re.compile(r"^[A-Z]{2}$")
_LONG_NUMBER = re.compile(r"^[A-Z]{0,2}[\d,/ .-]{5,}[A-Z]?\d?$")


class _Field(TypedDict):
    """One row of the field table: its label as written, its value element, and its key once known."""

    label: str
    value: Element
    key: str | None


def _sniff_publication_or_coauthors(doc: Document) -> str | None:
    """``publication`` or ``coauthors`` for those two Scholar pages (current and older layouts)."""
    if doc.contains_any("gsc_oci_t", _SNIFF_PUBLICATION) or all(doc.contains(m) for m in _LEGACY_PUBLICATION):
        return "publication"
    if doc.contains_any("gsc_", ('id="gsc_coauthors_title"',)) or (
            doc.contains_any("gsc_", _SNIFF_COAUTHORS) and not doc.contains("gsc_prf")):
        return "coauthors"  # a profile holds the co-author dialog's empty container, and gsc_prf all over
    return None


def _refuse_cut_page(text: str, what: str) -> None:
    """``Truncated`` when the page stops before its end: a whole page without its ``</html>``, or a
    fragment with elements left open (these pages close every ``div`` they open)."""
    if "<html" in text[:4096].lower():
        if "</html>" not in text[-4096:].lower():
            raise Truncated(f"the {what} stops before its end (no </html>); save it again")
        return
    unclosed = text.count("<div") - text.count("</div>")
    if unclosed > 0:
        raise Truncated(f"the {what} stops before its end ({unclosed} elements left open); save it again")


def _parse_publication(doc: Document) -> PageResult:
    _refuse_cut_page(doc.text, "publication page")
    parts: dict[str, Element] = {}
    for element in _elements(_BY_ID(doc.selector.root, ids=_PUB_ID_LIST)):
        parts.setdefault(element.get("id", ""), element)
    legacy = "gsc_oci_table" not in parts
    fields = _legacy_fields(parts.get("main_sec"), doc.selector.root) if legacy else _oci_fields(parts["gsc_oci_table"])
    if not fields:
        raise LayoutChanged("a Scholar publication page without its field table (#gsc_oci_table div.gs_scl "
                            "> .gsc_oci_field + .gsc_oci_value)")
    heading = parts.get("title" if legacy else "gsc_oci_title")
    result = PageResult(site=SITE.name, page="publication", url=doc.url)
    pub = Publication(title=_full_title(heading, doc.selector.root, fields))
    if not pub.title:
        raise LayoutChanged("a Scholar publication page without its title (#gsc_oci_title)")
    if heading is None:
        result.warn("publication_unreadable", "no title heading (#gsc_oci_title): the title is the page's "
                                              "og:title or its cluster's")
    pub.ids.scholar = _publication_id(parts, doc)
    pub.url = doc.url or (f"{SITE.base_url}/citations?view_op=view_citation&hl=en&citation_for_view={pub.ids.scholar}"
                          if pub.ids.scholar else None)
    pub.links = _title_links(heading, parts.get("gsc_oci_title_gg") if not legacy else parts.get("main_sec"))
    _fill_fields(pub, fields, result)
    result.publications = [pub]
    result.profile = _page_owner(parts.get("gsc_sb_ui"), pub.ids.scholar)
    if not legacy and "gsc_sb_ui" not in parts:
        result.warn("publication_unreadable", "no sidebar naming the profile (#gsc_sb_ui): the record's profile "
                                              "is the id of the paper's UID:PUBID alone")
    if not any(link.kind not in ("publisher", "related") for link in pub.links) and _FULL_TEXT_MARK.search(doc.text):
        result.warn("publication_unreadable", "the page marks a full-text link ([PDF], [HTML]) beside the title "
                                              "that was not read (#gsc_oci_title_gg)")
    if legacy:
        result.warn("legacy_layout", "a pre-2014 publication page: its citations per year are a chart image "
                                     "with scaled bars, not read")
    return result


def _oci_fields(table: Element) -> list[_Field]:
    """The rows of ``#gsc_oci_table``: each a ``div.gs_scl`` with a label and a value."""
    found: list[_Field] = []
    for row in table:
        cells = _by_class(row, {"gsc_oci_field": "label", "gsc_oci_value": "value"}, tag=("div",))
        value = _first(cells, "value")
        if value is not None:
            found.append(_Field(label=_text_of(_first(cells, "label")) or "", value=value,
                                key="description" if value.get("id") == "gsc_oci_descr" else None))
    return found


def _legacy_fields(main: Element | None, root: Element) -> list[_Field]:
    """The ``div.cit-dt`` / ``div.cit-dd`` pairs of a pre-2014 page, keyed by their section's id."""
    if main is None:
        return []
    found: list[_Field] = []
    for label in root.iter("div"):
        if "cit-dt" not in _classes(label):
            continue
        value = label.getnext()
        if value is None or "cit-dd" not in _classes(value) or value.find(".//div[@id='title']") is not None:
            continue
        section = label.getparent()
        key = _LEGACY_SECTIONS.get(section.get("id", "")) if section is not None else None
        found.append(_Field(label=_text_of(label) or "", value=value, key=key))
    return found


def _full_title(heading: Element | None, root: Element, fields: list[_Field]) -> str | None:
    """The heading's title; when Scholar cut it (``…``), the page's ``og:title`` or the cluster's title."""
    title = clean_title(_text(heading)) if heading is not None else ""
    if title and not title.endswith("…"):
        return title
    stem = title.rstrip("…").strip()
    found = _HEAD_TITLE(root)
    candidates = [str(t) for t in found] if isinstance(found, list) else []
    candidates += [_text(a) for f in fields for a in f["value"].iter("a") if "cluster=" in (a.get("href") or "")]
    for candidate in map(clean_title, candidates):
        if candidate.startswith(stem) and len(candidate) > len(stem):
            return candidate
    return title or None


def _publication_id(parts: dict[str, Element], doc: Document) -> str | None:
    """``UID:PUBID``: from the page's URL, else its edit link or form (``citation_for_view``)."""
    found = _query_value(doc.url, "citation_for_view") or _query_value(_attr(parts.get("gsc_vcpb"), "data-edit-link"),
                                                                        "citation_for_view")
    if found:
        return found
    match = re.search(r"citation_for_view=([\w-]+:[\w-]+)", doc.text)
    return match.group(1) if match else None


def _title_links(heading: Element | None, full_text: Element | None) -> list[Link]:
    """The publisher's page (the title's link) and the full-text links beside the title (``[PDF]``)."""
    links: list[Link] = []
    anchor = next(heading.iter("a"), None) if heading is not None else None
    if anchor is not None and anchor.get("href"):
        links.append(Link(kind="publisher", url=anchor.get("href", "")))
    for a in full_text.iter("a") if full_text is not None else ():
        mark = re.match(r"\s*\[(\w+)\]", _text(a))
        if a.get("href") and mark:
            links.append(Link(kind=mark.group(1).lower(), url=a.get("href", ""), label=_text_of(a)))
    return links


def _page_owner(box: Element | None, pub_id: str | None) -> Profile | None:
    """The profile the page belongs to (the sidebar's name link), else a stub with its id alone."""
    link = next((a for a in box.iter("a") if _text_of(a)), None) if box is not None else None
    user = _user_id(link.get("href")) if link is not None else (pub_id or "").partition(":")[0] or None
    if link is None and user is None:
        return None
    url = absolute_url(link.get("href"), SITE.base_url) if link is not None else None
    return Profile(name=_text_of(link), url=url, ids=Ids(scholar=user))


def _fill_fields(pub: Publication, fields: list[_Field], result: PageResult) -> None:
    """Every field of the table into ``pub``: structural ones first, the venue's parts by label or shape."""
    values: dict[str, str] = {}
    guessed: list[str] = []
    for number, field in enumerate(fields, 1):
        key = field["key"] or _FIELD_LABELS.get(field["label"].casefold()) or _structural_key(field["value"], values)
        if key is None:
            key = _field_by_shape(clean(_text(field["value"])), values, first=number == 1)
            guessed.append(f"{number} ({field['label']!r} as {key or 'nothing'})")
        if key in ("citations", "articles"):
            _fill_citation_fields(pub, field["value"], key, result)
        elif key == "description":
            pub.summary = clean_or_none(_text(field["value"]))
        elif key and key != "chart":
            values.setdefault(key, clean(_text(field["value"])))
    if guessed:
        result.warn("fields_by_shape", "labels pubharvest does not know (not hl=en?); fields read by their place "
                                       "and shape: " + ", ".join(guessed))
    _fill_bibliographic(pub, values, result)


def _structural_key(value: Element, seen: dict[str, str]) -> str | None:
    """The key of a field whose value says what it is: the "Scholar articles" snippet (a ``cluster=``
    link), the total citations (a ``cites=`` link or the chart), a date."""
    hrefs = [a.get("href") or "" for a in value.iter("a")]
    if any("cluster=" in h for h in hrefs):
        return "articles"
    if any("cites=" in h for h in hrefs) or value.find(".//*[@id='gsc_oci_graph']") is not None:
        return "citations"
    return "date" if "date" not in seen and _SCHOLAR_DATE.match(clean(_text(value))) else None


def _field_by_shape(text: str, seen: dict[str, str], first: bool) -> str | None:
    """What an unlabelled field is, from Scholar's order (authors first; venue, volume, issue, pages,
    publisher; or patent office, patent number, application number) and the value's shape."""
    if first and "authors" not in seen:
        return "authors"
    if not text:
        return None
    if _OFFICE.match(text) and "patent_office" not in seen:
        return "patent_office"
    if "patent_office" in seen and _LONG_NUMBER.match(text):
        return "patent_number" if "patent_number" not in seen else "application_number"
    if _PAGE_RANGE.match(text) and "pages" not in seen:
        return "pages"
    if _SHORT_NUMBER.match(text):
        return next((k for k in ("volume", "issue", "pages") if k not in seen), None)
    if not any(k in seen for k in _VENUE_KEYS):
        return "source"
    return "publisher" if "publisher" not in seen else None


def _fill_bibliographic(pub: Publication, values: dict[str, str], result: PageResult) -> None:
    pub.authors, pub.authors_truncated = split_names(values.get("authors"))
    if not pub.authors:
        result.warn("publication_unreadable", "no author list (the first field of #gsc_oci_table) was read")
    pub.date, pub.year = _iso_scholar_date(values.get("date"))
    pub.volume, pub.issue, pub.pages = values.get("volume"), values.get("issue"), values.get("pages")
    pub.publisher = values.get("publisher")
    pub.patent_office = values.get("patent_office")
    venue_key = next((k for k in _VENUE_KEYS if k in values), None)
    container = values.get(venue_key) if venue_key else None
    pub.container = container
    pub.venue = _scholar_venue(container, pub.volume, pub.issue, pub.pages)
    pub.type = _TYPE_OF_VENUE.get(venue_key or "")
    if pub.type == "chapter" and not pub.pages:
        pub.type = "book"
    number = values.get("patent_number") or values.get("application_number")
    if number or pub.patent_office:
        pub.type = "patent"
        pub.ids.patent_number = f"{pub.patent_office} {number}" if pub.patent_office and number else number
    elif pub.venue:
        _classify_venue(pub)


def _iso_scholar_date(text: str | None) -> tuple[str | None, int | None]:
    """Scholar's ``2018/9/16`` as ISO ``2018-09-16`` (as precise as given) and the year.

    >>> _iso_scholar_date("2018/9/16"), _iso_scholar_date("2004"), _iso_scholar_date("2021/3")
    (('2018-09-16', 2018), ('2004', 2004), ('2021-03', 2021))
    """
    match = _SCHOLAR_DATE.match(text or "")
    if not match:
        return None, find_year(text)
    year, month, day = match.groups()
    date = "-".join([year] + [f"{int(part):02d}" for part in (month, day) if part])
    return date, int(year)


def _scholar_venue(container: str | None, volume: str | None, issue: str | None, pages: str | None) -> str | None:
    """The venue as a profile row writes it ("Food/Nahrung 44 (1), 42-46"), so that exports and merge
    read both pages alike.

    >>> _scholar_venue("IEEE access", "6", None, "53019-53033")
    'IEEE access 6, 53019-53033'
    """
    if not container:
        return None
    venue = " ".join(p for p in (container, volume, f"({issue})" if issue else None) if p)
    return f"{venue}, {pages}" if pages else venue


def _fill_citation_fields(pub: Publication, value: Element, key: str, result: PageResult) -> None:
    """Total citations with their clusters and the chart, or the "Scholar articles" snippets."""
    for a in value.iter("a"):
        href = a.get("href") or ""
        if "as_yhi=" in href:  # a bar of the chart: ``_publication_histogram`` reads those
            continue
        clusters = _query_value(href, "cites") or _query_value(href, "cluster") or ""
        pub.ids.scholar_clusters += [c for c in clusters.split(",") if c and c not in pub.ids.scholar_clusters]
        if "cites=" in href and pub.citations is None:
            pub.citations = to_int(_text(a))
        elif key == "articles" and "cluster=" in href and "btnI" not in href:
            pub.versions = to_int(_text(a))
        elif key == "articles" and "q=related:" in href:
            pub.links.append(Link(kind="related", url=absolute_url(href, SITE.base_url) or href))
    if key == "citations":
        pub.citations_by_year = _publication_histogram(value, result)
        if pub.citations is None:
            result.warn("publication_unreadable", "the total citations field holds no count (a.cites= link)")


def _bar_link_year(href: str) -> int | None:
    """The year a bar's link ends with (``...&as_ylo=2019&as_yhi=2019``), else None.

    >>> _bar_link_year("/scholar?cites=1&as_ylo=2019&as_yhi=2019"), _bar_link_year("/scholar?cites=12019")
    (2019, None)
    """
    tail = href[-4:]
    return int(tail) if tail.isdigit() and href[-5:-4] == "=" else None


def _publication_histogram(value: Element, result: PageResult) -> list[YearCitations]:
    """Every year of the paper's chart, 0 where there is no bar; each bar's year is the one its link
    ends with (``as_yhi=2019``), never its position."""
    years: list[int] = []
    counts: dict[int, int] = {}
    unread = 0
    for element in value.iter("span", "a"):
        classes = element.get("class") or ""
        if element.tag == "span" and "gsc_oci_g_t" in classes.split():
            years += [year] if (year := to_int(element.text)) else []
        elif element.tag == "a" and "gsc_oci_g_a" in classes.split():
            year = _bar_link_year(element.get("href") or "")
            if year is None:
                unread += 1
            else:
                label = element.find("span")  # span.gsc_oci_g_al holds the count
                counts[year] = to_int(label.text if label is not None else element.text) or 0
    linked = sum(1 for a in value.iter("a") if "as_yhi=" in (a.get("href") or ""))
    unread += max(0, linked - len(counts) - unread)
    if unread:
        result.warn("histogram_unreadable", f"{unread} bars of the citations chart (a.gsc_oci_g_a, each linking "
                                            "its year) were not read; left out")
    axis = years + list(counts)
    if not axis:
        return []
    return [YearCitations(year=y, citations=counts.get(y, 0)) for y in range(min(axis), max(axis) + 1)]


# --- the co-author list ------------------------------------------------------------------
# ``view_op=list_colleagues``: every co-author, not only the sidebar's first 20. Two layouts: the
# 2017 page (``#gsc_ccl > div.gsc_1usr`` cards) and the current dialog's content
# (``#gsc_codb_content > div.gsc_ucoar``, what ``list_colleagues&json=`` answers, as HTML or inside
# a JSON object), read with one set of class rules.

_SNIFF_COAUTHORS = ('id="gsc_coauthors_title"', 'id="gsc_codb_content"', 'class="gsc_ucoar')
_CARD_CLASSES = {"gsc_1usr_name": "name", "gs_ai_name": "name", "gsc_1usr_aff": "affiliation",
                 "gs_ai_aff": "affiliation", "gsc_1usr_emlb": "domain", "gsc_1usr_eml": "email",
                 "gs_ai_eml": "email", "gsc_1usr_cby": "cited_by", "gs_ai_cby": "cited_by",
                 "gsc_co_int": "interest", "gs_ai_one_int": "interest", "gsc_1usr": "card", "gsc_ucoar": "card"}
_COAUTHOR_IDS = "gsc_ccl gsc_codb_content gsc_lnv_ui gs_ab_na"


def _coauthors_payload(doc: Document) -> str | None:
    """The HTML inside a ``list_colleagues&json=`` answer that is a JSON object (its first string
    value holding co-author cards), else None. The cards' class names are looked for first (a cached
    scan), so that a large rows payload is not decoded once more only to learn it holds none."""
    if not (doc.contains("gsc_ucoar") or doc.contains("gsc_codb_content")) or not doc.text.lstrip().startswith("{"):
        return None
    try:
        payload = json.loads(doc.text)
    except ValueError:
        return None
    values = payload.values() if isinstance(payload, dict) else ()
    return next((v for v in values if isinstance(v, str) and ("gsc_ucoar" in v or "gsc_codb_content" in v)), None)


def _parse_coauthors(doc: Document) -> PageResult:
    payload = _coauthors_payload(doc)
    _refuse_cut_page(payload if payload is not None else doc.text, "co-author list")
    root = html_selector(payload).root if payload is not None else doc.selector.root
    parts: dict[str, Element] = {}
    for element in _elements(_BY_ID(root, ids=_COAUTHOR_IDS)):
        parts.setdefault(element.get("id", ""), element)
    box = parts.get("gsc_ccl", parts.get("gsc_codb_content"))
    if box is None:  # a bare dialog fragment: the cards themselves
        box = root
    cards, linked = _cards(box)
    coauthors = [c for c in map(_coauthor_card, cards) if c is not None]
    if (cards or linked) and not coauthors:
        raise LayoutChanged(f"a Scholar co-author list whose {len(cards) or len(linked)} co-authors could not be read "
                            "(div.gsc_1usr / div.gsc_ucoar with h3.gsc_1usr_name / h3.gs_ai_name)")
    result = PageResult(site=SITE.name, page="coauthors", url=doc.url)
    owner = _coauthors_owner(parts, doc.url)
    owner.coauthors = coauthors
    result.profile = owner
    if len(coauthors) < len(cards) or len(linked - {owner.ids.scholar}) > len(coauthors):
        result.warn("coauthors_unreadable", f"the page shows {max(len(cards), len(linked))} co-authors, "
                                            f"{len(coauthors)} were read")
    unread = [number for number, card in enumerate(cards, 1) if "unread" in card]
    if unread:
        result.warn("coauthors_unreadable", f"{_row_numbers(unread).replace('row', 'card')} of {len(cards)} hold "
                                            "text that no part pubharvest knows reads (a renamed class?)")
    if "gsc_ccl" in parts and not owner.name:
        result.warn("coauthors_unreadable", "no link naming the profile (#gsc_lnv_ui): the owner's name is null")
    return result



def _cards(box: Element) -> tuple[list[dict[str, list[Element]]], set[str]]:
    """The parts of each card (``_CARD_CLASSES``), and the profiles the box links: one walk of the box,
    each element going to the card last opened (cards are not nested)."""
    cards: list[dict[str, list[Element]]] = []
    hrefs: set[str] = set()
    known: dict[str, str | None] = {"": None}  # each class string is split once: cards repeat the same few
    for element in box.iter("div", "h3", "a"):
        classes = element.get("class") or ""
        if element.tag == "a" and "user=" in (href := element.get("href") or ""):
            hrefs.add(href)
        part = known.get(classes, "")
        if part == "":
            part = known[classes] = next((_CARD_CLASSES[n] for n in classes.split() if n in _CARD_CLASSES), None)
        if part == "card":
            cards.append({"card": [element]})
        elif part and cards:
            cards[-1].setdefault(part, []).append(element)
        elif cards and element.text and element.text.strip() and not _is_part(element.getparent(), known) and \
                cards[-1]["card"][0] in element.iterancestors():  # not the footer after the last card
            cards[-1].setdefault("unread", []).append(element)  # text no part holds: a renamed class?
    return cards, {user for user in map(_user_id, hrefs) if user}


def _is_part(element: Element | None, known: dict[str, str | None]) -> bool:
    return element is not None and bool(known.get(element.get("class") or ""))


def _coauthor_card(parts: dict[str, list[Element]]) -> Coauthor | None:
    """One co-author card: name and id (the name's link), affiliation, e-mail domain, cited-by, interests."""
    heading = _first(parts, "name")
    link = next(heading.iter("a"), None) if heading is not None else None
    name = _text_of(link if link is not None else heading)
    if not name:
        return None
    href = link.get("href") if link is not None else None
    domain = _text_of(_first(parts, "domain"))
    return Coauthor(
        name=name,
        affiliation=_text_of(_first(parts, "affiliation")),
        email_domain=domain.lstrip("@").lower() if domain else _email_domain(_first(parts, "email")),
        ids=Ids(scholar=_user_id(href)),
        url=absolute_url(href, SITE.base_url),
        interests=[clean(_text(a)) for a in parts.get("interest", [])],
        citations=leading_int(_text_of(_first(parts, "cited_by"))),
    )


def _coauthors_owner(parts: dict[str, Element], url: str | None) -> Profile:
    """Whose co-authors these are: the 2017 page's sidebar link, else the page's URL (``user=``)."""
    box = parts.get("gsc_lnv_ui")
    link = next((a for a in box.iter("a") if _text_of(a)), None) if box is not None else None
    href = link.get("href") if link is not None else _attr(parts.get("gs_ab_na"), "href")
    user = _user_id(href) or _user_id(url)
    return Profile(name=_text_of(link), ids=Ids(scholar=user),
                   url=f"{SITE.base_url}/citations?user={user}" if user else None)


# --- row fragments and the "show more" payload -------------------------------------------


def _payload_rows(doc: Document) -> tuple[str, bool] | None:
    """Rows HTML and the "more rows" flag of a ``json=1`` payload ``{"B": rows, "N": more}``."""
    if not doc.text[:200].lstrip().startswith("{") or '"B"' not in doc.text[:200]:
        return None
    try:
        payload = json.loads(doc.text)
    except ValueError:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("B"), str):
        return None
    return payload["B"], bool(payload.get("N"))


def _parse_rows_page(doc: Document) -> PageResult:
    payload = _payload_rows(doc)
    rows_html, more = payload if payload else (doc.text, False)
    streamed = _StreamedRows(lambda root: doc.url)
    pieces = utf8_pieces(rows_html, None if payload else doc.raw)
    root = html_root_streamed(chain([b'<table><tbody id="gsc_a_b">'], pieces, [b"</tbody></table>"]), "tr",
                              streamed.take)
    rows = streamed.reader_for(root.find(".//tbody"), doc.url)
    if not rows.rows and "gsc_a_tr" in rows_html:
        raise LayoutChanged("the rows carry gsc_a_tr but none could be read")
    if rows_html.strip() and not rows_html[-256:].rstrip().lower().endswith("</tr>"):
        raise Truncated(f"the rows stop in the middle of row {rows.rows}; save them again")
    result = PageResult(site=SITE.name, page="rows", url=doc.url)
    result.publications = rows.finish(result)
    _warn_if_past_end(rows.rows, len(rows.publications), result, doc.url, fragment=True)
    if more:
        result.warn("partial", f"the payload says more rows follow these {rows.rows} (\"N\": true); "
                               "fetch the next cstart")
    return result


# --- the saved-table text form ------------------------------------------------------------
# A profile table copied as text: "| title authors venue, year | citations | year |" rows, the
# three parts of the first cell run together, then the sidebar's co-author lines run together.

_TABLE_ROW = re.compile(r"^\|(?P<cell>.+)\|\s*(?P<cites>[\d,.\s\u00a0]*)(?P<merged>\*?)\s*\|\s*(?P<year>\d{4})?\s*\|$")
_PARTICLES = frozenset("van von der den de del della di da dos das du la le ten ter bin al el st "
                       "Van Von Der Den De Del Della Di Da Dos Das Du La Le Ten Ter Bin Al El Abd Abu Ben St.".split())
_ELLIPSIS = frozenset({"...", "…"})
_GLUE = re.compile(r"(?<=[a-z\u00df-\u00ff])(?<!Mc)(?=[A-Z\u00c0-\u00de])")


def _looks_like_saved_table(text: str) -> bool:
    """Whether ``text`` is Scholar's publication table saved as ``| … | n | year |`` lines."""
    if not _may_start_row(text):
        return False  # no line starts with "|": no row, found without splitting a big page into lines
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    rows = sum(1 for line in lines if _TABLE_ROW.match(line))
    return rows > 0 and rows * 2 >= len(lines)


def _may_start_row(text: str) -> bool:
    """Whether some line of ``text`` (as ``str.splitlines`` cuts it) starts with ``|`` once stripped."""
    at = text.find("|")
    while at >= 0:
        start = at
        while start and text[start - 1].isspace():
            start -= 1
        if not start or len((text[start:at] + "|").splitlines()) > 1:
            return True
        at = text.find("|", at + 1)
    return False


def _parse_saved_table(doc: Document) -> PageResult:
    result = PageResult(site=SITE.name, page="publication_list", url=doc.url)
    trailing: list[str] = []
    for line in (line.strip() for line in doc.text.splitlines()):
        row = _TABLE_ROW.match(line)
        if row:
            result.publications.append(_table_row_publication(row, result))
            trailing.clear()  # lines between rows, or a header, are not the sidebar
        elif line and not set(line) <= set("|-: "):
            trailing.append(line)
    glued = [_coauthor_from_glued_text(line) for line in trailing]
    for line, coauthor in zip(trailing, glued):
        if coauthor is None:
            result.warn("ignored_line", f"a line after the table is not a co-author: {line[:80]!r}")
    result.profile = Profile(coauthors=[c for c in glued if c is not None])
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
        names = sum(1 for w in words[start:end] if is_initials(w))
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
    if not is_initials(words[start]):
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


def _looks_like_person(text: str) -> bool:
    words = text.split()
    return 2 <= len(words) <= 5 and all(w[0].isupper() for w in words)


def _is_family_word(word: str) -> bool:
    return word in _PARTICLES or bool(
        word and word[0].isupper() and any(c.islower() for c in word) and _NAME_WORD.match(word))


def _coauthor_from_glued_text(line: str) -> Coauthor | None:
    """A co-author from the sidebar text saved without separators; None for a line that is
    neither run-together parts nor a bare name (a heading, a button label).

    >>> c = _coauthor_from_glued_text("He YuxiongSnowflakeVerified email at snowflake.com")
    >>> c.name, c.affiliation, c.email_domain
    ('He Yuxiong', 'Snowflake', 'snowflake.com')
    """
    parts = _GLUE.split(clean(line))
    domain = _DOMAIN.findall(parts[-1]) if len(parts) > 1 else []
    if domain:
        parts = parts[:-1]
    if len(parts) == 1 and not domain and not _looks_like_person(parts[0]):
        return None
    return Coauthor(name=parts[0].strip(), affiliation=clean_or_none("".join(parts[1:])),
                    email_domain=domain[-1].lower() if domain else None)


# --- search results -------------------------------------------------------------------------
# ``/scholar?q=`` (also ``cites=``, ``cluster=``, ``start=``): ``div.gs_r`` blocks, each with a
# ``div.gs_ri`` body (2016: inside ``#gs_ccl``; 2020+: ``#gs_res_ccl_mid``, with ``data-cid``).
# Labels ("Cited by 12", "被引用 12 次", "All 5 versions") are localised: links are told apart by
# their URL (``cites=``, ``cluster=``, ``q=related:``), and only the number is read from their text.

_RESULT_CLASSES = {"gs_ri": "body", "gs_ggs": "side", "gs_rt": "title", "gs_ct1": "badge", "gs_ctu": "citation_only",
                   "gs_a": "byline", "gs_rs": "snippet", "gs_fl": "links"}
_QUERY_BOX = etree.XPath("id('gs_hdr_tsi gs_hdr_frm_in_txt')")
_ANY_QUERY_BOX = etree.XPath("//input[@name='q']")
_BADGES = frozenset({"gs_ctc", "gs_ctu", "gs_ct1", "gs_ct2"})
_RESULT_ID = re.compile(r"(?:related|info|cache):([\w-]+):")
_CLUSTER_IN_CLICK = re.compile(r"(?:^|&(?:amp;)?)d=(\d+)")
_YEAR_AT_END = re.compile(r"^(?P<venue>.*?)[,\s]*(?P<year>(?:1[5-9]|20)\d\d)$")
_SEARCH_NEXT = etree.XPath("id('gs_n')//a[.//span[contains(@class, 'gs_ico_nav_next')]]/@href")
_SEARCH_CURRENT = etree.XPath("id('gs_n')//td[span[contains(@class, 'gs_ico_nav_current')]]")
_QUERY_KEYS.update({key: re.compile(f"[?&;]{key}=([^&#]*)") for key in ("cluster", "start", "after_author", "astart")})


def _is_search_page(doc: Document) -> bool:
    """The 2020+ results list (``#gs_res_ccl``), or the 2016 one: ``#gs_ccl`` under the results bar
    ``#gs_ab_md`` (2017 Citations pages such as the co-author list use ``#gs_ccl`` too, without the bar)."""
    return doc.contains('id="gs_res_ccl"') or (doc.contains('id="gs_ccl"') and doc.contains('id="gs_ab_md"'))


def _parse_search(doc: Document) -> PageResult:
    root = doc.selector.root
    url = doc.url
    origin = _origin(url)
    result = PageResult(site=SITE.name, page="search", url=url)
    listing = next(iter(_elements(_BY_ID(root, ids="gs_res_ccl_mid gs_ccl"))), None)
    blocks, others = _result_blocks(listing)
    parsed = [_result_parts(block) for block in blocks]
    result.publications = [_search_result(block, parts, origin) for block, (parts, _) in zip(blocks, parsed)]
    result.profiles = [_profile_stub(h4, origin) for block in others for h4 in block.iter("h4")
                       if "gs_rt2" in _classes(h4)]
    result.search = _search_info(doc, root, origin, listing, has_results=bool(blocks))
    _check_search_results(doc, blocks, others, parsed, result)
    _check_cut(doc, result, len(blocks), ('id="gs_ftr"', 'id="gs_res_ccl_bot"'))
    return result


def _check_cut(doc: Document, result: PageResult, read: int, after_list: tuple[str, ...]) -> None:
    """``Truncated`` for a search page cut before the end of its list (none of the ``after_list``
    markers that follow it is there); a ``truncated`` warning for one cut later, which lost nothing read."""
    if "</html>" in doc.text[-4096:].lower():
        return
    if not any(doc.contains(marker) for marker in after_list):
        raise Truncated(f"the page stops before the end of its list (after {read} entries); save it again")
    result.warn("truncated", "the page stops after its list; what came later was not saved")


def _result_blocks(listing: Element | None) -> tuple[list[Element], list[Element]]:
    """The result blocks of the results list (a ``div.gs_r`` with a ``div.gs_ri`` body), and its
    other ``div.gs_r`` blocks (the "User profiles for …" block, related searches)."""
    blocks: list[Element] = []
    others: list[Element] = []
    for child in listing if listing is not None else []:
        if "gs_r" in _classes(child):
            (blocks if any("gs_ri" in _classes(c) for c in child) else others).append(child)
    return blocks, others


_SKIP = "skip"
_BODY_NAMES = frozenset({"title", "byline", "snippet", "links"})


def _part_name(element: Element) -> str | None:
    """The part ``element`` is by its class (``_RESULT_CLASSES``); ``_SKIP`` for a script or comment."""
    if not isinstance(element.tag, str) or element.tag in ("script", "style"):
        return _SKIP
    classes = element.get("class")
    if not classes:
        return None
    return _RESULT_CLASSES.get(classes) or next((_RESULT_CLASSES[c] for c in classes.split() if c in _RESULT_CLASSES),
                                                None)


def _result_parts(block: Element) -> tuple[dict[str, list[Element]], list[str]]:
    """The parts of a result block: its side link box and body, the body's parts and the title
    line's badges, looked for only where they sit (a walk of the whole block costs more than the
    rest); and the classes of the children that are none of these (a renamed class looks so)."""
    parts: dict[str, list[Element]] = {}
    unknown: list[str] = []
    for child in block:
        name = _part_name(child)
        if name == "body":
            for part in child:
                inner = _part_name(part)
                if inner in _BODY_NAMES:
                    parts.setdefault(inner, []).append(part)
                elif inner != _SKIP:
                    unknown.append(part.get("class") or part.tag)
                if inner == "title":
                    for span in part.iter("span"):
                        if _part_name(span) in ("badge", "citation_only"):
                            parts.setdefault(_part_name(span) or "", []).append(span)
        elif name == "side":
            parts.setdefault("side", []).append(child)
        elif name != _SKIP:
            unknown.append(child.get("class") or child.tag)
    return parts, unknown


def _search_result(block: Element, parts: dict[str, list[Element]], origin: str) -> Publication:
    """One result block: the title line, the byline, the snippet and the links under it."""
    heading = _first(parts, "title")
    link = next(heading.iter("a"), None) if heading is not None else None
    pub = Publication(
        title=clean_title(_text_without_badges(heading)) or None if heading is not None else None,
        url=absolute_url(link.get("href"), origin) if link is not None else None,
        summary=_text_of(_first(parts, "snippet")),
        result_type=_badge(_first(parts, "badge")),
        result_id=block.get("data-cid"),
    )
    if "citation_only" in parts:
        pub.flags.append("citation_only")  # a reference Scholar found in other papers, with no page of its own
    byline = _first(parts, "byline")
    if byline is not None:
        _fill_byline(pub, byline, origin)
    _fill_result_links(pub, parts, origin)
    if not pub.ids.scholar_clusters and link is not None:
        pub.ids.scholar_clusters = _CLUSTER_IN_CLICK.findall(link.get("data-clk") or "")[:1]
    return pub


def _badge(element: Element | None) -> str | None:
    """A badge's text without its brackets: ``[PDF]`` -> ``PDF``."""
    return clean_or_none(_text(element).strip("[] ")) if element is not None else None


def _text_without_badges(heading: Element) -> str:
    """The title line's text without its "[PDF]" / "[CITATION]" badges."""
    parts = [heading.text or ""]
    for child in heading:
        if not _BADGES & set(_classes(child)):
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _fill_byline(pub: Publication, byline: Element, origin: str) -> None:
    """Authors (with the profiles they link), venue, year and host from "A Bee, C Dee - Venue, 2020 - host".

    >>> pub = Publication()
    >>> _fill_byline(pub, etree.fromstring('<div>A Bee, <a href="/citations?user=ab">C Dee</a>\u2026\u00a0- '
    ...              '\u2026 of Nature, 2020 - nature.com</div>'), SITE.base_url)
    >>> pub.authors, pub.authors_truncated, pub.venue, pub.venue_truncated, pub.year, pub.publisher
    (['A Bee', 'C Dee'], True, '… of Nature', True, 2020, 'nature.com')
    >>> pub.author_links[0].ids.scholar
    'ab'
    """
    fields = [clean(part) for part in _text(byline).replace("\u00a0", " ").split(" - ")]
    authors = fields[0]
    middle, host = (fields[1:-1], fields[-1]) if len(fields) > 2 else (fields[1:], None)
    venue_year = " - ".join(middle)
    if len(fields) == 2 and not _YEAR_AT_END.match(venue_year):
        venue_year, host = "", venue_year  # "A Bee - host": no venue, no year
    pub.authors, pub.authors_truncated = split_names(authors.rstrip("…").rstrip(", ") if authors.endswith("…")
                                                     else authors)
    pub.authors_truncated = pub.authors_truncated or authors.endswith("…")
    match = _YEAR_AT_END.match(venue_year)
    venue = match.group("venue") if match else venue_year
    pub.year = int(match.group("year")) if match else None
    pub.date = str(pub.year) if pub.year else None
    pub.venue_truncated = "…" in venue
    pub.venue = clean_or_none(venue.rstrip("… ,")) if venue.strip("… ") else None
    pub.publisher = clean_or_none(host)
    pub.author_links = [Author(name=clean(_text(a)), ids=Ids(scholar=_user_id(a.get("href"))),
                               url=absolute_url(a.get("href"), origin))
                        for a in byline.iter("a") if _user_id(a.get("href"))]
    _classify_venue(pub)


def _fill_result_links(pub: Publication, parts: dict[str, list[Element]], origin: str) -> None:
    """Cited by (count and cluster), All versions (count and cluster), Related, the full-text links."""
    for side in parts.get("side", []):
        for a in side.iter("a"):
            badge = _badge(next((s for s in a.iter("span") if "gs_ctg2" in _classes(s)), None))
            kind = badge.lower() if badge else "library" if "output=instlink" in (a.get("href") or "") else "fulltext"
            pub.links.append(Link(kind=kind,
                                  url=absolute_url(a.get("href"), origin) or "", label=_text_of(a)))
    bars = parts.get("links", [])
    if not bars:
        return
    pub.citations = 0  # a result whose link bar has no "Cited by" link is not cited
    for a in bars[-1].iter("a"):
        href = a.get("href") or ""
        if "cites=" in href:
            pub.citations = leading_int(_text(a)) or 0
            pub.ids.scholar_clusters = [c for c in (_query_value(href, "cites") or "").split(",") if c]
            pub.links.append(Link(kind="cited_by", url=absolute_url(href, origin) or ""))
        elif "cluster=" in href:
            pub.versions = leading_int(_text(a))
            cluster = _query_value(href, "cluster")
            if cluster and cluster not in pub.ids.scholar_clusters:
                pub.ids.scholar_clusters.append(cluster)
            pub.links.append(Link(kind="versions", url=absolute_url(href, origin) or ""))
        elif "related:" in href:
            pub.links.append(Link(kind="related", url=absolute_url(href, origin) or ""))
        elif "cache:" in href:
            pub.links.append(Link(kind="cached", url=absolute_url(href, origin) or "", label=_text_of(a)))
        if not pub.result_id and _RESULT_ID.search(href):
            pub.result_id = _RESULT_ID.search(href).group(1)  # type: ignore[union-attr]


def _profile_stub(heading: Element, origin: str) -> Profile:
    """A profile of the "User profiles for …" block: the name line, then affiliation, e-mail and
    cited-by lines separated by ``<br>`` (read by shape: a domain, a lone number)."""
    link = next(heading.iter("a"), None)
    href = link.get("href") if link is not None else None
    box = heading.getparent()
    lines = [clean(line) for line in _lines_after(heading, box) if clean(line)]
    email_line = next((line for line in lines if _last_domain(line)), None)
    count_line = lines[-1] if lines and re.fullmatch(r"\D*\d[\d.,\s\u00a0]*\D*", lines[-1]) and \
        lines[-1] != email_line else None
    affiliation = next((line for line in lines if line not in (email_line, count_line)), None)
    return Profile(name=_text_of(link), url=absolute_url(href, origin), ids=Ids(scholar=_user_id(href)),
                   affiliation=affiliation, email_domain=_last_domain(email_line or ""),
                   metrics=Metrics(citations=to_int(count_line)))


def _lines_after(heading: Element, box: Element | None) -> list[str]:
    """The ``<br>``-separated text lines that follow ``heading`` in ``box``."""
    if box is None:
        return []
    text: list[str] = []
    after = False
    for element in box.iter():
        if element is heading:
            after = True
            continue
        if not after or heading in element.iterancestors():
            continue
        if element.tag == "br":
            text.append("\n")
        elif element.text and element.tag not in ("script", "style"):
            text.append(element.text)
        text.append(element.tail or "")
    return "".join(text).split("\n")


def _search_info(doc: Document, root: Element, origin: str, listing: Element | None, has_results: bool) -> SearchInfo:
    """The query, the stated total, the page number and the "Next" link of a results page."""
    nav_next = next((h for h in _SEARCH_NEXT(root) if isinstance(h, str)), None)  # type: ignore[union-attr]
    current = _elements(_SEARCH_CURRENT(root))
    query_box = _elements(_QUERY_BOX(root)) or _elements(_ANY_QUERY_BOX(root))
    probe = nav_next or doc.url
    info = SearchInfo(
        kind="articles",
        query=clean_or_none(query_box[0].get("value")) if query_box else None,
        cites=[c for c in (_query_value(probe, "cites") or "").split(",") if c],
        cluster=_query_value(probe, "cluster"),
        total_results=_stated_total(root),
        page_number=to_int(_text(current[0])) if current else None,
        next_start=to_int(_query_value(nav_next, "start")),
        next_url=absolute_url(nav_next, origin) if nav_next else None,
    )
    if info.total_results is None and not has_results and listing is not None and listing.get("id") == "gs_res_ccl_mid":
        info.total_results = 0  # the results list is there and empty: nothing matched
    return info


def _stated_total(root: Element) -> int | None:
    """The result count of the line above the results ("About 1.620.000 results (0,05 sec)",
    "約有 6,030,000 項結果", "Page 2 of about 22,600 results"): the last number before the time in
    parentheses, with any grouping."""
    box = next(iter(_elements(_BY_ID(root, ids="gs_ab_md"))), None)
    if box is None:
        return None
    # 2020+: the count is the first div (div.gs_ab_mdw) of the box; 2016: the box's own text
    line = re.sub(r"\(.*", "", clean(_text(box[0] if len(box) and box[0].tag == "div" else box)))
    numbers = _NUMBER.findall(line)
    return to_int(numbers[-1]) if numbers else None


def _check_search_results(doc: Document, blocks: list[Element], others: list[Element],
                          parsed: list[tuple[dict[str, list[Element]], list[str]]], result: PageResult) -> None:
    """The results read against the page: blocks with no title, a count that differs from the
    result bodies in the markup, a stated total with no results."""
    read = [pub for pub in result.publications if pub.title]
    marked = doc.text.count('class="gs_ri"')
    if blocks and not read:
        raise LayoutChanged(f"the page holds {len(blocks)} result blocks (div.gs_r) but no result title "
                            "(h3.gs_rt) could be read")
    if not blocks and (marked or doc.contains('data-cid="')):
        raise LayoutChanged(f"the markup holds {marked} result bodies (div.gs_ri) but no result block "
                            "(div.gs_r > div.gs_ri) was found")
    if marked != len(blocks):
        result.warn("row_count", f"the markup holds {marked} result bodies (div.gs_ri), {len(blocks)} were read")
    if not blocks and doc.contains('class="gs_rt"') and not result.profiles:
        raise LayoutChanged("the markup holds result titles (h3.gs_rt) but no result block (div.gs_r > div.gs_ri)")
    unread: dict[str, list[int]] = {}
    for number, ((parts, strange), pub) in enumerate(zip(parsed, result.publications), 1):
        for part in _unread_result_parts(parts, pub, strange):
            unread.setdefault(part, []).append(number)
    for part, numbers in unread.items():
        result.warn("rows_unreadable", f"{_row_numbers(numbers)} of {len(blocks)}: {part}")
    info = result.search
    total = info.total_results if info else None
    if total and not blocks:
        raise LayoutChanged(f"the page says it found {total} results but no result block (div.gs_r) was found")
    root = doc.selector.root
    if not blocks and doc.contains('id="gs_res_ccl"') and not _elements(_BY_ID(root, ids="gs_res_ccl_mid")):
        result.warn("search_unreadable", "the page has no results list (#gs_res_ccl_mid): whether anything "
                                         "matched is unknown")
    if blocks and not _elements(_BY_ID(root, ids="gs_ab_md")):
        result.warn("search_unreadable", "the page has no result count line (#gs_ab_md): the total is unknown")
    if info is not None:
        _check_page_bar(doc, info, result)
    if not result.profiles and any("view_op=search_authors" in (a.get("href") or "")
                                   for block in others for h3 in block.iter("h3") for a in h3.iter("a")):
        result.warn("search_unreadable", "the page has a \"User profiles\" block (a link to view_op=search_authors) "
                                         "but no profile (h4.gs_rt2 a) was read in it")
    read_ids = {a.ids.scholar for pub in result.publications for a in pub.author_links} | {
        p.ids.scholar for p in result.profiles}
    linked = {_user_id(href) for block in [*blocks, *others] for a in block.iter("a")
              if "user=" in (href := a.get("href") or "")} - {None}
    unread_ids = linked - read_ids
    if unread_ids:
        result.warn("search_unreadable", f"the page links {len(unread_ids)} profiles that were not read "
                                         "(div.gs_a a, h4.gs_rt2 a)")


# The parts a result block and its body (div.gs_ri) are made of; any other child is a part the
# parser does not know, which a renamed class would also look like.
def _unknown_children(parent: Element | None, known: set[str]) -> set[str]:
    return {child.get("class") or child.tag for child in (parent if parent is not None else [])
            if isinstance(child.tag, str) and child.tag not in ("script", "style") and not known & set(_classes(child))}


def _unread_result_parts(parts: dict[str, list[Element]], pub: Publication, unknown: list[str]) -> list[str]:
    """What one result block (its ``parts``) holds that was not read: children of unknown classes
    (``unknown``), a title, a title-line part, a badge, a full-text link's type."""
    missing = [f"a part the parser does not know ({', '.join(sorted(set(unknown)))})"] if unknown else []
    if not pub.title:
        missing.append("no title (h3.gs_rt)")
    heading = _first(parts, "title")
    for child in heading if heading is not None else []:
        if child.tag == "span" and not child.get("id") and not _BADGES & set(_classes(child)):
            missing.append(f"a part of the title line the parser does not know ({child.get('class')})")
        elif _BADGES & set(_classes(child)) and pub.result_type is None:
            missing.append("the result type badge (h3.gs_rt span.gs_ct1)")
    if any(link.kind == "fulltext" for link in pub.links):
        missing.append("the type of a full-text link (div.gs_ggs span.gs_ctg2)")
    return missing


_SEARCH_PAGE_LINKS = etree.XPath("id('gs_n')//a")


_USER_LINK = re.compile(r"citations\?(?:[^\"'<>\s]*?(?:&|&amp;))?user=([\w-]+)")


def _linked_user_ids(doc: Document) -> set[str]:
    """The ids of every profile the page links (``citations?…user=ID``, whatever the parameters' order)."""
    return set(_USER_LINK.findall(doc.text)) if doc.contains("user=") else set()


def _check_page_bar(doc: Document, info: SearchInfo, result: PageResult) -> None:
    """The page bar (#gs_n) against the page's links to other result pages (``start=``)."""
    if info.page_number is not None and info.next_start is not None or not doc.contains("start="):
        return
    root = doc.selector.root
    if info.page_number is None:
        result.warn("search_unreadable", "the page links other result pages (start=) but its page bar "
                                         "(#gs_n, .gs_ico_nav_current) could not be read")
        return
    later = [n for n in (to_int(_text(a)) for a in _elements(_SEARCH_PAGE_LINKS(root))) if n and n > info.page_number]
    if later and info.next_start is None:
        result.warn("search_unreadable", f"the page bar links page {later[0]} but no \"Next\" link "
                                         "(#gs_n .gs_ico_nav_next) was read")


# --- the author search page -------------------------------------------------------------------
# ``/citations?view_op=search_authors&mauthors=NAME``: ``#gsc_sa_ccl`` holds one card per profile
# (``div.gsc_1usr``, and inside it the ``div.gs_ai`` markup of the co-author dialog's rows);
# the "next" button carries the ``after_author`` / ``astart`` of the next page in its onclick.

_AUTHOR_CARD_CLASSES = {"gs_ai_name": "name", "gs_ai_aff": "affiliation", "gs_ai_eml": "email", "gs_ai_cby": "cited_by",
                        "gs_ai_int": "interests", "gs_ai_one_int": "interest", "gs_ai_t": "text"}
_AUTHOR_CARDS = etree.XPath("id('gsc_sa_ccl')//div[contains(concat(' ', @class, ' '), ' gsc_1usr ')]")
_AUTHOR_NEXT = etree.XPath("//button[contains(concat(' ', @class, ' '), ' gsc_pgn_pnx ')]")
_AUTHOR_QUERY_BOX = etree.XPath("//input[@name='mauthors']")
_ONCLICK_URL = re.compile(r"window\.location\s*=\s*'([^']*)'")


def _is_author_search_page(doc: Document) -> bool:
    return doc.contains('id="gsc_sa_ccl"')


def _parse_author_search(doc: Document) -> PageResult:
    root = doc.selector.root
    origin = _origin(doc.url)
    cards = _elements(_AUTHOR_CARDS(root))
    result = PageResult(site=SITE.name, page="search", url=doc.url)
    result.profiles = [_author_card(card, origin) for card in cards]
    next_url = _author_next_url(root, origin)
    query_box = _elements(_AUTHOR_QUERY_BOX(root))
    result.search = SearchInfo(kind="authors",
                               query=clean_or_none(query_box[0].get("value")) if query_box else None,
                               next_start=to_int(_query_value(next_url, "astart")), next_url=next_url)
    unnamed = [n for n, profile in enumerate(result.profiles, 1) if not profile.name or not profile.ids.scholar]
    if cards and len(unnamed) == len(cards):
        raise LayoutChanged(f"none of the {len(cards)} profile cards (div.gsc_1usr) has a name linking a profile")
    if unnamed:
        result.warn("rows_unreadable", f"{_row_numbers(unnamed)} of {len(cards)}: no name or user id")
    unread: dict[str, list[int]] = {}
    for number, card in enumerate(cards, 1):
        for part in _unread_card_parts(card):
            unread.setdefault(part, []).append(number)
    for part, numbers in unread.items():
        result.warn("rows_unreadable", f"{_row_numbers(numbers)} of {len(cards)}: {part}")
    if next_url is None and doc.contains("after_author"):
        result.warn("search_unreadable", "the page links a next page (after_author=) but no \"next\" button "
                                         "(button.gsc_pgn_pnx) was read")
    marked = doc.text.count('class="gsc_1usr')
    if marked != len(cards):
        result.warn("row_count", f"the markup holds {marked} profile cards (gsc_1usr), {len(cards)} were read")
    if not cards and _linked_user_ids(doc):
        raise LayoutChanged("the page links profiles but no profile card (#gsc_sa_ccl div.gsc_1usr) was found")
    _check_cut(doc, result, len(cards), ('class="gsc_pgn', 'id="gs_ftr"'))
    return result


def _author_card(card: Element, origin: str) -> Profile:
    parts = _by_class(card, _AUTHOR_CARD_CLASSES)
    name_box = _first(parts, "name")
    link = next(name_box.iter("a"), None) if name_box is not None else None
    href = link.get("href") if link is not None else None
    interests = parts.get("interest", [])
    return Profile(name=_text_of(link), url=absolute_url(href, origin), ids=Ids(scholar=_user_id(href)),
                   affiliation=_text_of(_first(parts, "affiliation")),
                   email_domain=_email_domain(_first(parts, "email")),
                   interests=[clean(_text(a)) for a in interests if clean(_text(a))],
                   metrics=Metrics(citations=to_int(_text_of(_first(parts, "cited_by")))))


_CARD_PARTS = {"gs_ai_name", "gs_ai_aff", "gs_ai_eml", "gs_ai_cby", "gs_ai_int"}


def _unread_card_parts(card: Element) -> list[str]:
    """What a profile card's text box (div.gs_ai_t) holds that was not read."""
    parts = _by_class(card, _AUTHOR_CARD_CLASSES)
    text_box = _first(parts, "text")
    if text_box is None:
        return ["the card's text (div.gs_ai_t)"]
    missing = [f"a part the parser does not know ({name})" for name in sorted(_unknown_children(text_box, _CARD_PARTS))]
    box = _first(parts, "interests")
    if box is not None and any(True for _ in box.iter("a")) and not parts.get("interest"):
        missing.append("the interests (div.gs_ai_int a.gs_ai_one_int)")
    return missing


def _author_next_url(root: Element, origin: str) -> str | None:
    """The next page's URL from the "next" button's onclick; None when it is disabled or absent."""
    button = next(iter(_elements(_AUTHOR_NEXT(root))), None)
    if button is None or button.get("disabled") is not None:
        return None
    match = _ONCLICK_URL.search(button.get("onclick") or "")
    if not match:
        return None
    href = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), match.group(1))
    return absolute_url(href, origin)


# --- the pre-2014 layout ------------------------------------------------------------------------
# Profiles saved before 2014 use ``cit-*`` markup: the header in ``#cit-name-display`` and its
# siblings, the counts in ``table#stats`` (``td.cit-data``), rows ``tr.cit-table.item`` whose cells
# all carry the same ids (``td#col-title`` …, repeated on every row), co-authors as links with a
# ``title`` in the left column. The chart of citations per year is an image: no figures to read.

_LEGACY_IDS = ("cit-name-display", "cit-affiliation-display", "cit-int-read", "cit-domain-display",
               "cit-homepage-read", "stats")
_LEGACY_ROWS = etree.XPath("//tr[contains(concat(' ', @class, ' '), ' cit-table ') and "
                           "contains(concat(' ', @class, ' '), ' item ')]")
_LEGACY_RANGE = re.compile(r"^\s*(\d+)\s*[-–]\s*(\d+)\s*$")
_LEGACY_PAGER = etree.XPath("//form[@id='citationsForm']//span")


def _is_legacy_profile(doc: Document) -> bool:
    """Whether the page is a whole pre-2014 profile; ``LayoutChanged`` for a part of one (a body
    saved without its document: no canonical link names the profile, nothing proves it whole)."""
    # The single-publication page of that era shows the author's header too, without the table.
    if not doc.contains('id="cit-name-display"') or not (doc.contains('id="stats"') or
                                                         doc.contains('class="cit-table item"')):
        return False
    whole = "<html" in doc.head and doc.contains('rel="canonical"') and "</html>" in doc.text[-4096:].lower()
    if not whole:
        raise LayoutChanged("part of a pre-2014 Scholar profile (cit-* markup) without its document: no "
                            "canonical link names the profile and nothing shows the page whole; save the whole page")
    return True


def _parse_legacy_profile(doc: Document) -> PageResult:
    root = doc.selector.root
    found = {key: element for key in _LEGACY_IDS
             for element in _elements(_BY_ID(root, ids=key))[:1]}
    url = clean_or_none(_attr(next(iter(_elements(_HEAD_LINKS(root))), None), "href")) or doc.url
    if "stats" not in found or not _text_of(found.get("cit-name-display")):
        raise LayoutChanged("a pre-2014 Scholar profile without its name (#cit-name-display) or its "
                            "citations table (table#stats)")
    origin = _origin(url)
    result = PageResult(site=SITE.name, page="profile", url=url)
    own = _user_id(url)
    homepage = next(found["cit-homepage-read"].iter("a"), None) if "cit-homepage-read" in found else None
    interests = list(found["cit-int-read"].iter("a")) if "cit-int-read" in found else []
    result.profile = Profile(
        name=_text_of(found["cit-name-display"]), url=url, ids=Ids(scholar=own),
        affiliation=_text_of(found.get("cit-affiliation-display")),
        email_domain=_last_domain(_text_of(found.get("cit-domain-display")) or ""),
        homepage=homepage.get("href") if homepage is not None else None,
        interests=[clean(_text(a)) for a in interests],
        metrics=_legacy_metrics(found["stats"]),
        coauthors=_legacy_coauthors(root, own, origin),
    )
    rows = _elements(_LEGACY_ROWS(root))
    result.publications = [_legacy_publication(row, origin) for row in rows]
    _check_legacy_rows(root, rows, result)
    _check_legacy_parts(doc, found, rows, result)
    if doc.contains("view_op=list_colleagues"):
        result.warn("coauthors_partial", "the page shows only the first co-authors; the full list is "
                                         "behind its link (view_op=list_colleagues)")
    return result


def _legacy_metrics(table: Element) -> Metrics:
    """The six counts of ``table#stats`` (all, since) and the "since" year of its header row."""
    cells = [to_int(_text(td)) for td in table.iter("td") if "cit-data" in _classes(td)]
    header = [_text(td) for td in next(table.iter("tr")).iter("td")]
    if len(cells) != 6:
        return Metrics()
    return Metrics(citations=cells[0], citations_since=cells[1], since_year=find_year(header[-1]),
                   h_index=cells[2], h_index_since=cells[3], i10_index=cells[4], i10_index_since=cells[5])


def _legacy_coauthors(root: Element, own: str | None, origin: str) -> list[Coauthor]:
    """The co-author links of the left column (``a.cit-dark-link`` to a profile, with a ``title``)."""
    found: list[Coauthor] = []
    for a in root.iter("a"):
        href, user = a.get("href") or "", _user_id(a.get("href"))
        if a.get("title") and user and user != own and "cit-dark-link" in _classes(a) and "view_op" not in href:
            found.append(Coauthor(name=clean(a.get("title")), ids=Ids(scholar=user), url=absolute_url(href, origin)))
    return found


def _legacy_publication(row: Element, origin: str) -> Publication:
    """One ``tr.cit-table.item``: title link and two ``span.cit-gray`` lines, cited-by, year."""
    cells = {cell.get("id"): cell for cell in row if cell.tag == "td"}
    title_cell = cells.get("col-title")
    anchor = next(title_cell.iter("a"), None) if title_cell is not None else None
    grays = [span for span in title_cell.iter("span") if "cit-gray" in _classes(span)] if title_cell is not None else []
    href = anchor.get("href") if anchor is not None else None
    year = to_int(_text(cells["col-year"])) if "col-year" in cells else None
    pub = Publication(title=clean_title(_text(anchor)) if anchor is not None else None, year=year,
                      date=str(year) if year else None, url=absolute_url(href, origin),
                      ids=PublicationIds(scholar=_query_value(href, "citation_for_view")))
    _fill_authors_and_venue(pub, _text(grays[0]) if grays else "", _text(grays[1]) if len(grays) > 1 else "")
    if pub.venue and pub.venue.endswith("..."):  # cut venues end in three dots here, not "…"
        pub.venue, pub.venue_truncated = pub.venue[:-3].rstrip(" ,") or None, True
    count = next(cells["col-citedby"].iter("a"), None) if "col-citedby" in cells else None
    pub.citations = (to_int(_text(count)) or 0) if count is not None else 0 if "col-citedby" in cells else None
    if count is not None:
        pub.ids.scholar_clusters = [c for c in (_query_value(count.get("href"), "cites") or "").split(",") if c]
    if "col-asterisk" in cells and "*" in _text(cells["col-asterisk"]):
        pub.flags.append("merged_citations")
    return pub


_LEGACY_REQUIRED = {"cit-affiliation-display": "the affiliation", "cit-domain-display": "the e-mail line",
                    "cit-int-read": "the interests", "cit-homepage-read": "the homepage box"}
_LEGACY_CELLS = {"col-title": "title cell", "col-citedby": "cited-by cell", "col-year": "year cell"}


def _check_legacy_parts(doc: Document, found: dict[str, Element], rows: list[Element], result: PageResult) -> None:
    """One ``profile_unreadable`` warning naming each header part every saved page of this layout has
    and that was not found, the counts or co-authors not read; ``rows_unreadable`` for rows without
    a cell or an authors line."""
    profile = result.profile
    assert profile is not None
    missing = [f"{what} (#{key})" for key, what in _LEGACY_REQUIRED.items() if key not in found]
    if profile.metrics.citations is None:
        missing.append("the six counts of the citations table (table#stats td.cit-data)")
    linked = _linked_user_ids(doc) - {profile.ids.scholar}
    if linked - {c.ids.scholar for c in profile.coauthors}:
        missing.append(f"co-authors (a.cit-dark-link[title]): the page links {len(linked)} other profiles, "
                       f"{len(profile.coauthors)} were read")
    if missing:
        result.warn("profile_unreadable", "could not read " + "; ".join(missing))
    unread: dict[str, list[int]] = {}
    for number, row in enumerate(rows, 1):
        cells = {cell.get("id") for cell in row}
        for key, what in _LEGACY_CELLS.items():
            if key not in cells:
                unread.setdefault(what, []).append(number)
        title = next((cell for cell in row if cell.get("id") == "col-title"), None)
        # (a row may lack the venue line: row 14 of the vspCNtYAAAAJ page has authors only)
        if title is not None and not any("cit-gray" in _classes(span) for span in title.iter("span")):
            unread.setdefault("authors line (span.cit-gray)", []).append(number)
    for what, numbers in unread.items():
        result.warn("rows_unreadable", f"{_row_numbers(numbers)} of {len(rows)}: no {what}; that field is null")


def _check_legacy_rows(root: Element, rows: list[Element], result: PageResult) -> None:
    """The rows read against the range the pager states ("1-20"), and a "partial" warning when it
    links a next page (``cstart=``)."""
    stated = next((m for m in (_LEGACY_RANGE.match(_text(s)) for s in _elements(_LEGACY_PAGER(root))) if m), None)
    if stated is None:
        result.warn("profile_unreadable", "the page states no row range: the number of rows read cannot be checked")
    else:
        first, last = int(stated.group(1)), int(stated.group(2))
        if not rows:
            raise LayoutChanged(f"the page says it shows rows {first}–{last} but no row (tr.cit-table.item) was found")
        if len(rows) != last - first + 1:
            result.warn("row_count", f"the page says it shows rows {first}–{last} but {len(rows)} rows were read")
    if rows and not any(pub.title for pub in result.publications):
        raise LayoutChanged(f"none of the {len(rows)} rows (tr.cit-table.item) has a title link")
    pager = _elements(_LEGACY_PAGER(root))
    form = pager[0].getparent() if pager else None
    if form is not None and any("cstart=" in (a.get("href") or "") for a in form.iter("a")):
        result.warn("partial", f"the page holds rows {stated.group(1)}–{stated.group(2)} of a longer list; "
                               "fetch the rest with cstart/pagesize" if stated else "the page links a next page")
