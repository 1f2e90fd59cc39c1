"""The co-author list (``view_op=list_colleagues``): every co-author, not only the sidebar's
first 20. Two layouts: the 2017 page (``#gsc_ccl > div.gsc_1usr`` cards) and the current dialog's content
(``#gsc_codb_content > div.gsc_ucoar``, what ``list_colleagues&json=`` answers, as HTML or inside
a JSON object), read with one set of class rules."""

from __future__ import annotations

import json

from lxml.etree import _Element as Element

from pubharvest.errors import LayoutChanged

from ..numbers import count_in
from ..page import Document, html_selector
from ..records import Coauthor, Ids, PageResult, Profile
from ..text import absolute_url, clean
from ..warning_codes import Warn
from ._base import (
    BY_ID,
    as_elements,
    attr,
    element_text,
    email_domain_of,
    first_of,
    linked_user_ids,
    refuse_cut_page,
    text_of,
    user_id,
)
from .identity import SITE
from .rows import row_numbers

_CARD_CLASSES = {"gsc_1usr_name": "name", "gs_ai_name": "name", "gsc_1usr_aff": "affiliation",
                 "gs_ai_aff": "affiliation", "gsc_1usr_emlb": "domain", "gsc_1usr_eml": "email",
                 "gs_ai_eml": "email", "gsc_1usr_cby": "cited_by", "gs_ai_cby": "cited_by",
                 "gsc_co_int": "interest", "gs_ai_one_int": "interest", "gsc_1usr": "card", "gsc_ucoar": "card"}
_COAUTHOR_IDS = "gsc_ccl gsc_codb_content gsc_lnv_ui gs_ab_na"


def coauthors_payload(doc: Document) -> str | None:
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


def parse_coauthors(doc: Document) -> PageResult:
    payload = coauthors_payload(doc)
    refuse_cut_page(payload if payload is not None else doc.text, "co-author list")
    root = html_selector(payload).root if payload is not None else doc.selector.root
    parts: dict[str, Element] = {}
    for element in as_elements(BY_ID(root, ids=_COAUTHOR_IDS)):
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
    if not coauthors and linked_user_ids(doc) - {owner.ids.scholar}:  # the cards' markup lost, the links kept
        raise LayoutChanged("a Scholar co-author list that links other profiles but holds no co-author card "
                            "(div.gsc_1usr / div.gsc_ucoar)")
    owner.coauthors = coauthors
    result.profile = owner
    if len(coauthors) < len(cards) or len(linked - {owner.ids.scholar}) > len(coauthors):
        result.warn(Warn.coauthors_unreadable, f"the page shows {max(len(cards), len(linked))} co-authors, "
                                               f"{len(coauthors)} were read")
    unread = [number for number, card in enumerate(cards, 1) if "unread" in card]
    if unread:
        result.warn(Warn.coauthors_unreadable, f"{row_numbers(unread).replace('row', 'card')} of {len(cards)} hold "
                                               "text that no part pubharvest knows reads (a renamed class?)")
    if "gsc_ccl" in parts and not owner.name:
        result.warn(Warn.coauthors_unreadable, "no link naming the profile (#gsc_lnv_ui): the owner's name is null")
    if not owner.ids.scholar:
        result.warn(Warn.coauthors_unreadable, "no link naming the profile (#gsc_lnv_ui) gives its id (user=), nor "
                                               "does the page's URL: the owner's id is null")
    unlinked = [number for number, coauthor in enumerate(coauthors, 1) if not coauthor.ids.scholar]
    if unlinked:
        result.warn(Warn.coauthors_unreadable, f"{row_numbers(unlinked).replace('row', 'co-author')} of "
                                               f"{len(coauthors)}: the name links no profile (user=): the id is null")
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
        elif cards and element.text and element.text.strip() and not _is_part(element.getparent(), known) and\
                cards[-1]["card"][0] in element.iterancestors():  # not the footer after the last card
            cards[-1].setdefault("unread", []).append(element)  # text no part holds: a renamed class?
    return cards, {user for user in map(user_id, hrefs) if user}


def _is_part(element: Element | None, known: dict[str, str | None]) -> bool:
    return element is not None and bool(known.get(element.get("class") or ""))


def _coauthor_card(parts: dict[str, list[Element]]) -> Coauthor | None:
    """One co-author card: name and id (the name's link), affiliation, e-mail domain, cited-by, interests."""
    heading = first_of(parts, "name")
    link = next(heading.iter("a"), None) if heading is not None else None
    name = text_of(link if link is not None else heading)
    if not name:
        return None
    href = link.get("href") if link is not None else None
    domain = text_of(first_of(parts, "domain"))
    return Coauthor(
        name=name,
        affiliation=text_of(first_of(parts, "affiliation")),
        email_domain=domain.lstrip("@").lower() if domain else email_domain_of(first_of(parts, "email")),
        ids=Ids(scholar=user_id(href)),
        url=absolute_url(href, SITE.base_url),
        interests=[clean(element_text(a)) for a in parts.get("interest", [])],
        citations=count_in(text_of(first_of(parts, "cited_by"))),
    )


def _coauthors_owner(parts: dict[str, Element], url: str | None) -> Profile:
    """Whose co-authors these are: the 2017 page's sidebar link, else the page's URL (``user=``)."""
    box = parts.get("gsc_lnv_ui")
    link = next((a for a in box.iter("a") if text_of(a)), None) if box is not None else None
    href = link.get("href") if link is not None else attr(parts.get("gs_ab_na"), "href")
    user = user_id(href) or user_id(url)
    return Profile(name=text_of(link), ids=Ids(scholar=user),
                   url=f"{SITE.base_url}/citations?user={user}" if user else None)
