"""Google Scholar: every page kind pubharvest reads, one module each.

``profile`` (the profile page and its invariants), ``legacy`` (profiles saved before 2014),
``rows`` (publication rows, bare row fragments and the "show more" payload), ``publication``
(one paper's page), ``coauthors`` (the co-author list), ``saved_table`` (the profile table copied
as text) and ``search`` (search results and author search), all on ``_base`` (the lxml toolkit,
URL and id helpers, cut checks) and ``identity`` (``SITE``). Imports run one way: this module -> the
kinds -> rows -> _base -> identity. This module imports a kind (and lxml) only when a page may be of
it: the registry asks Scholar first of every page, and a Markdown page has no use for them.
Selectors and quirks are described in docs/scholar.md. Everything is read by ids and classes, never
by the (localised) labels.

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

import re
from functools import cache
from typing import TYPE_CHECKING

from pubharvest.errors import Blocked, LayoutChanged, NotFoundOrPrivate, Unrecognised

from ..page import Document
from ..records import PageResult
from .identity import SITE

if TYPE_CHECKING:
    from lxml import etree

__all__ = ["SITE", "refuse", "sniff", "parse"]

_HEADER_MARKERS = ('id="gsc_prf_in"', "id='gsc_prf_in'", "id=gsc_prf_in>", "id=gsc_prf_in ")
_ROW_FRAGMENT = re.compile(r'^\s*<tr class="?gsc_a_tr', re.I)


def refuse(doc: Document) -> None:
    """Raise ``NotFoundOrPrivate`` for Google's sign-in page (a profile that does not exist or is
    not public) and ``Blocked`` for a CAPTCHA / "unusual traffic" page. The registry asks this of
    every page before any site sniffs it, so that a CAPTCHA is never parsed as "a profile with no
    publications"."""
    if not doc.is_html:
        return
    _scan_cores(doc)
    head = doc.head
    if _is_google_signin(head):
        raise NotFoundOrPrivate("Google redirected to its sign-in page: the profile does not exist "
                                "or is not public")
    if _is_captcha(doc, head):
        raise Blocked("the site answered with a CAPTCHA (\"not a robot\" / unusual traffic) page; "
                      "wait before retrying, and slow down")


# What the markers the Scholar checks look for hold: the ids and classes of every layout since 2014 (gsc_,
# gs_) and of the layout before (cit-). The first two are found within a Scholar page's first kilobytes; on
# another site's page one scan for each rules out every marker that holds it (``Document.contains``), which
# would otherwise be a scan of the whole page each. ``cit-`` is scanned for only when a check asks for a
# marker holding it (``Document.contains_any``): a page of today's layout never holds it, and a row fragment
# never asks.
_CORES = ("gsc_", "gs_")
_LEGACY_CORE = "cit-"


def _scan_cores(doc: Document) -> None:
    for core in _CORES:
        if core not in doc.head:  # a Scholar page's head holds them: no scan that rules nothing out
            doc.contains(core)


def _is_captcha(doc: Document, head: str) -> bool:
    """Whether the page is Google's CAPTCHA / "unusual traffic" page, by its own markup (the form and
    box ids of ``SITE.block_markers``, a reCAPTCHA script, a form posting to ``/sorry/``), never by a
    phrase in its text: a paper titled "I am not a robot" is a paper."""
    # The CAPTCHA form can sit past the first 100 KB (inline styles come first), so the whole page
    # is searched; a profile's header rules it out first, in one fast scan.
    if doc.contains_any("gsc_prf_in", ('id="gsc_prf_in"',)):  # the short marker's absence rules out both
        return False
    if not (doc.contains("captcha") or doc.contains("/sorry/")):  # the cheap scan before building the tree
        return False
    return bool(_captcha_markup()(doc.selector.root))


@cache
def _captcha_markup() -> etree.XPath:
    """Markup only Google's block pages hold: div#gs_captcha_ccl and form#gs_captcha_f (Scholar),
    form#captcha-form and div#recaptcha on google.com/sorry/, the DoS interstitial's rc-doscaptcha-body,
    and the reCAPTCHA widget or script inside a form."""
    from lxml import etree

    return etree.XPath(
        "//*[@id='gs_captcha_ccl' or @id='gs_captcha_f' or @id='captcha-form']"
        " | //*[contains(concat(' ', normalize-space(@class), ' '), ' rc-doscaptcha-body ')]"
        " | //form[contains(@action, '/sorry/')]"
        " | //form//*[@id='recaptcha' or contains(concat(' ', normalize-space(@class), ' '), ' g-recaptcha ')]"
        " | //script[contains(@src, '/recaptcha/')][//form]"
    )


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
        return _text_kind(doc)
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


_JSON_OBJECT = re.compile(r"\s*\{")  # ``\s``: the characters ``str.lstrip`` strips, without a copy


def _text_kind(doc: Document) -> str | None:
    """``coauthors`` or ``rows`` for a JSON payload of Scholar's, ``publication_list`` for the profile table
    saved as text, else None. Each kind's test is asked only of text that may pass it: a JSON payload
    starts with ``{``, the table's rows with ``|``."""
    if _JSON_OBJECT.match(doc.text):
        from .coauthors import coauthors_payload
        from .rows import payload_rows

        if coauthors_payload(doc) is not None:
            return "coauthors"
        if payload_rows(doc) is not None:
            return "rows"
    if "|" not in doc.text:
        return None
    from .saved_table import looks_like_saved_table

    return "publication_list" if looks_like_saved_table(doc.text) else None


def _is_search_page(doc: Document) -> bool:
    """The 2020+ results list (``#gs_res_ccl``), or the 2016 one: ``#gs_ccl`` under the results bar
    ``#gs_ab_md`` (2017 Citations pages such as the co-author list use ``#gs_ccl`` too, without the bar)."""
    return doc.contains('id="gs_res_ccl"') or (doc.contains('id="gs_ccl"') and doc.contains('id="gs_ab_md"'))


def _is_author_search_page(doc: Document) -> bool:
    return doc.contains('id="gsc_sa_ccl"')


def _is_legacy_profile(doc: Document) -> bool:
    """Whether the page is a whole pre-2014 profile; ``LayoutChanged`` for a part of one (a body
    saved without its document: no canonical link names the profile, nothing proves it whole)."""
    # The single-publication page of that era shows the author's header too, without the table.
    if not doc.contains('id="cit-name-display"') or not (doc.contains('id="stats"') or
                                                         doc.contains('class="cit-table item"')):
        return False
    from .legacy import refuse_cut_legacy_page

    refuse_cut_legacy_page(doc)
    if not ("<html" in doc.head and doc.contains('rel="canonical"')):
        raise LayoutChanged("part of a pre-2014 Scholar profile (cit-* markup) without its document: no "
                            "canonical link names the profile and nothing shows the page whole; save the whole page")
    return True


def _refuse_other_scholar_pages(doc: Document) -> None:
    if doc.contains('id="gs_citt"'):
        raise Unrecognised("a Google Scholar \"Cite\" popup, not an author profile")
    if doc.contains_any(_LEGACY_CORE, ("cit-dark-link", 'class="cit-')):
        from .legacy import refuse_cut_legacy_page

        refuse_cut_legacy_page(doc)
        raise LayoutChanged("a Google Scholar page in the pre-2014 layout (cit-* markup) that is not a whole "
                            "saved profile, which pubharvest does not read; save the whole page")


def parse(doc: Document) -> PageResult:
    """The records of one Scholar page (see ``sniff`` for the kinds)."""
    kind = doc.kind or sniff(doc)
    if kind == "profile":
        if _is_legacy_profile(doc):
            from .legacy import parse_legacy_profile

            return parse_legacy_profile(doc)
        from .profile import parse_profile

        return parse_profile(doc)
    if kind == "search":
        from .search import parse_author_search, parse_search

        return parse_search(doc) if _is_search_page(doc) else parse_author_search(doc)
    if kind == "rows":
        from .rows import parse_rows_page

        return parse_rows_page(doc)
    if kind == "publication_list":
        from .saved_table import parse_saved_table

        return parse_saved_table(doc)
    if kind == "publication":
        from .publication import parse_publication

        return parse_publication(doc)
    if kind == "coauthors":
        from .coauthors import parse_coauthors

        return parse_coauthors(doc)
    raise Unrecognised("not a Google Scholar profile page")
_SNIFF_PUBLICATION = ('id="gsc_oci_table"', 'id="gsc_oci_title"')
_LEGACY_PUBLICATION = ('class="cit-dt"', "view_op=view_citation")


def _sniff_publication_or_coauthors(doc: Document) -> str | None:
    """``publication`` or ``coauthors`` for those two Scholar pages (current and older layouts)."""
    if doc.contains_any("gsc_oci_t", _SNIFF_PUBLICATION) or (
            doc.contains(_LEGACY_CORE) and all(doc.contains(m) for m in _LEGACY_PUBLICATION)):
        return "publication"
    if doc.contains_any("gsc_", ('id="gsc_coauthors_title"',)) or (
            doc.contains_any("gsc_", _SNIFF_COAUTHORS) and not doc.contains("gsc_prf")):
        return "coauthors"  # a profile holds the co-author dialog's empty container, and gsc_prf all over
    return None


# A profile page holds the co-author dialog's empty container too (see _sniff_publication_or_coauthors).
_SNIFF_COAUTHORS = ('id="gsc_coauthors_title"', 'id="gsc_codb_content"', 'class="gsc_ucoar')
