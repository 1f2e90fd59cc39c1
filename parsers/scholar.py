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

from .page import Document, html_root_streamed, utf8_pieces
from .records import (
    Coauthor,
    Ids,
    Metrics,
    PageResult,
    Profile,
    PublicAccess,
    Publication,
    PublicationIds,
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
    page_kinds=("profile", "rows", "publication_list"),
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
    """``profile``, ``rows`` or ``publication_list`` for a Scholar page, else None.

    Scholar pages pubharvest does not read (search results, the cite popup, the pre-2014 layout)
    are refused here with a message saying what they are.
    """
    if not doc.is_html:
        if _payload_rows(doc) is not None:
            return "rows"
        return "publication_list" if _looks_like_saved_table(doc.text) else None
    head = doc.head
    # The header can sit past the first 100 KB (inline styles and scripts come first).
    if any(doc.contains(marker) for marker in _HEADER_MARKERS):
        return "profile"
    if _ROW_FRAGMENT.match(doc.text) or ("gsc_a_tr" in head and "<html" not in head):
        return "rows"
    _refuse_other_scholar_pages(doc)
    if any(host in head for host in SITE.hosts) and ("gsc_a_t" in head or "gsc_rsb" in head):
        return "profile"  # a profile page with its header missing: parse() says layout_changed
    return None


def _refuse_other_scholar_pages(doc: Document) -> None:
    if doc.contains('id="gs_res_ccl"'):
        raise Unrecognised("a Google Scholar search results page, not an author profile")
    if doc.contains('id="gs_citt"'):
        raise Unrecognised("a Google Scholar \"Cite\" popup, not an author profile")
    if doc.contains("cit-dark-link") or doc.contains('class="cit-'):
        raise LayoutChanged("a Google Scholar page in the pre-2014 layout (cit-* markup), which "
                            "pubharvest does not read; save the page again from the current site")


def parse(doc: Document) -> PageResult:
    """The records of one Scholar page (see ``sniff`` for the kinds)."""
    kind = doc.kind or sniff(doc)
    if kind == "profile":
        return _parse_profile(doc)
    if kind == "rows":
        return _parse_rows_page(doc)
    if kind == "publication_list":
        return _parse_saved_table(doc)
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
               for key in ("user", "org", "cites", "citation_for_view", "cstart")}


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
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    rows = sum(1 for line in lines if _TABLE_ROW.match(line))
    return rows > 0 and rows * 2 >= len(lines)


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
