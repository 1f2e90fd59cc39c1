"""What every Scholar page kind reads with: the lxml toolkit (elements by id
and by class, their text and attributes), URL and id helpers, and the check for a cut page."""

from __future__ import annotations

import re
from urllib.parse import unquote

from lxml import etree
from lxml.etree import _Element as Element

from pubharvest.errors import Truncated

from ..page import Document, closes_html
from ..text import clean_or_none, findall_from

DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}")
# libxml2 indexes the id attributes of an HTML document, so XPath's id() is a lookup, not a walk.
BY_ID = etree.XPath("id($ids)")
HEAD_LINKS = etree.XPath("/html/head/link[@rel='canonical'] | /html/head/meta[@property='og:image']")


def canonical_url(root: Element, fallback: str | None) -> str | None:
    """The page's ``link rel=canonical`` (in its head), else ``fallback``."""
    link = next((e for e in as_elements(HEAD_LINKS(root)) if e.tag == "link"), None)
    return clean_or_none(attr(link, "href")) or fallback


def as_elements(found: object) -> list[Element]:
    """The elements an XPath expression found (lxml types its answer as any XPath value)."""
    return [element for element in found if isinstance(element, Element)] if isinstance(found, list) else []


def by_class(root: Element | None, rules: dict[str, str], tag: tuple[str, ...] = ()) -> dict[str, list[Element]]:
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
        if len(names) == 1:  # most elements: one name, which one rule at most can be
            part = rules.get(names[0])
            if part is not None:
                found.setdefault(part, []).append(element)
            continue
        for name, part in rules.items():
            if name in names:
                found.setdefault(part, []).append(element)
                break
    return found


def first_with_class(root: Element | None, name: str) -> Element | None:
    """The first element under ``root`` (itself included) that has the class ``name``, as ``by_class`` finds it."""
    if root is None:
        return None
    for element in root.iter():
        classes = element.get("class")
        if classes and name in classes and name in classes.split():
            return element
    return None


def first_of(parts: dict[str, list[Element]], part: str) -> Element | None:
    elements = parts.get(part)
    return elements[0] if elements else None


def attr(element: Element | None, name: str) -> str | None:
    return element.get(name) if element is not None else None


def text_of(element: Element | None) -> str | None:
    return clean_or_none(element_text(element)) if element is not None else None


def user_id(url: str | None) -> str | None:
    """The ``user=`` id of a Scholar URL.

    >>> user_id("https://scholar.google.com/citations?user=RxmmtT8AAAAJ&hl=en")
    'RxmmtT8AAAAJ'
    """
    return query_value(url, "user")


def query_value(url: str | None, key: str) -> str | None:
    """The value of the query parameter ``key`` in ``url``, unquoted: what follows the first ``key=`` that
    comes after a ``?``, ``&`` or ``;``, up to the next ``&`` or ``#``; None when absent or empty. (Found by
    ``str.find``: it runs twice per row of a profile, and a regular expression tried each character.)

    >>> query_value("/citations?hl=en&xuser=1&user=AB%2DC#x", "user"), query_value("/c?user=&hl=en", "user")
    ('AB-C', None)
    """
    if not url:
        return None
    marker = key + "="
    at = url.find(marker, 1)
    while at > 0 and url[at - 1] not in "?&;":
        at = url.find(marker, at + 1)
    if at < 0:
        return None
    start = at + len(marker)
    end = url.find("&", start)
    end = len(url) if end < 0 else end
    fragment = url.find("#", start, end)
    value = url[start:end if fragment < 0 else fragment]
    return (unquote(value) if "%" in value else value) if value else None


def email_domain_of(box: Element | None) -> str | None:
    """The verified e-mail domain, whatever the language of the sentence around it.

    The homepage link's text is left out: it sits in the same box.
    """
    if box is None:
        return None
    text = " ".join([box.text or ""] + [child.tail or "" for child in box])
    return last_domain(text)


def last_domain(text: str) -> str | None:
    """The last word of ``text`` shaped like a domain name (``cftri.res.in``), lower-cased."""
    for word in reversed(text.split()):
        word = word.strip("-–—·:;,()[]<>@")
        if "." in word and DOMAIN.fullmatch(word):
            return word.lower()
    return None


NUMBER = re.compile(r"\d(?:[\d.,\u00a0\u202f]*\d)?")


def element_text(element: Element) -> str:
    """All the text inside ``element`` (libxml2's text serialiser: faster than ``itertext``)."""
    if not len(element):
        return element.text or ""
    return etree.tostring(element, method="text", encoding=str, with_tail=False)


def class_names(element: Element) -> list[str]:
    classes = element.get("class")
    return classes.split() if classes else []


def refuse_cut_page(text: str, what: str) -> None:
    """``Truncated`` when the page stops before its end: a whole page without its ``</html>``, or a
    fragment with elements left open (these pages close every ``div`` they open)."""
    if "<html" in text[:4096].lower():
        if not closes_html(text):
            raise Truncated(f"the {what} stops before its end (no </html>); save it again")
        return
    unclosed = text.count("<div") - text.count("</div>")
    if unclosed > 0:
        raise Truncated(f"the {what} stops before its end ({unclosed} elements left open); save it again")


_USER_LINK = re.compile(r"citations\?(?:[^\"'<>\s]*?(?:&|&amp;))?user=([\w-]+)")


def linked_user_ids(doc: Document) -> set[str]:
    """The ids of every profile the page links (``citations?…user=ID``, whatever the parameters' order)."""
    return set(findall_from(_USER_LINK, "citations?", doc.text)) if doc.contains("user=") else set()
