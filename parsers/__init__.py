"""pubharvest parsers: the bytes of a saved page in, a ``PageResult`` out. Never touches the network.

>>> from pubharvest.parsers import parse, detect
>>> result = parse(open("fixtures/scholar/003_9ea93ed9343d2054.txt", "rb").read())
>>> result.site, result.page, len(result.publications)
('scholar', 'publication_list', 20)

Every failure is a ``ParseError`` with a ``code`` (see ``parsers.errors``).
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from pubharvest import siteregistry as registry
from pubharvest.errors import (
    Binary,
    Blocked,
    Empty,
    LayoutChanged,
    NotFoundOrPrivate,
    ParseError,
    Truncated,
    Unrecognised,
)

from .page import Document, refuse_forbidden
from .records import PageResult, Source, json_schema
from .site import SiteInfo
from .text import paused_gc

__all__ = [
    "parse", "detect", "Detection", "refuse_block_pages", "PageResult", "json_schema", "SITES", "SiteInfo",
    "site_info", "site_infos", "site_titles",
    "ParseError", "Empty", "Binary", "Truncated", "Blocked", "NotFoundOrPrivate", "Unrecognised", "LayoutChanged",
]

if TYPE_CHECKING:
    from pubharvest.siteregistry import SITES


class _Package(ModuleType):
    """This package, whose ``SITES`` is the registry's (``registry.SITES``): read there, and written
    there when a site is added at runtime (``parsers.SITES = (*parsers.SITES, "toy")``), so that the
    record model, which reads the registry, knows the site at once."""

    @property
    def SITES(self) -> tuple[str, ...]:
        return registry.SITES

    @SITES.setter
    def SITES(self, names: tuple[str, ...]) -> None:
        registry.SITES = names


sys.modules[__name__].__class__ = _Package


def site_info(name: str) -> SiteInfo:
    """The identity a site module declares (``SITE``); raises ``KeyError`` for a name not in ``SITES``.

    >>> site_info("elamur").base_url
    'https://md.research.elamur.ai'
    """
    if name not in registry.SITES:
        raise KeyError(name)
    info: SiteInfo = _site_module(name).SITE
    return info


def site_infos() -> tuple[SiteInfo, ...]:
    """Every registered site's identity, in registry order."""
    return tuple(site_info(name) for name in registry.SITES)


def site_titles() -> str:
    """The registered sites as messages name them: "Google Scholar, Microsoft Research, Elamur Research"."""
    return ", ".join(info.title for info in site_infos())


@dataclass(frozen=True)
class Detection:
    """Which parser would run: the site and the kind of page."""

    site: str
    page: str


def _site_module(name: str) -> ModuleType:
    return importlib.import_module(f".{name}", __name__)


def refuse_block_pages(doc: Document) -> None:
    """Raise ``Blocked`` or ``NotFoundOrPrivate`` for a page a site sends instead of content: each
    site's own CAPTCHA or sign-in page (its module's optional ``refuse(doc)``), then the 403 page
    any site may send. Asked before any site sniffs the page."""
    for name in registry.SITES:
        refuse = getattr(_site_module(name), "refuse", None)
        if refuse is not None:
            refuse(doc)
    refuse_forbidden(doc)


def _detect_document(doc: Document) -> tuple[ModuleType, Detection]:
    refuse_block_pages(doc)
    for name in registry.SITES:
        module = _site_module(name)
        kind = module.sniff(doc)
        if kind:
            return module, Detection(site=module.SITE.name, page=kind)
    raise _refusal_of_unknown(doc)


def _refusal_of_unknown(doc: Document) -> ParseError:
    """``Truncated`` for an HTML page that stops before its end and that names a site (its stated
    URL, or the markup the site's pages start with), whatever the offset it was cut at; else
    ``Unrecognised``, saying which site when the page names one."""
    site = _site_named_by(doc) if doc.is_html else None
    if site is not None and doc.is_cut:
        return Truncated(f"a {site.title} page that stops before its content (after {len(doc.text):,} characters); "
                         "save or fetch it again")
    if site is not None:
        return Unrecognised(f"a {site.title} page of a kind pubharvest does not read")
    return Unrecognised(_describe_unknown(doc))


def _site_named_by(doc: Document) -> SiteInfo | None:
    urls = doc.stated_urls()
    for info in site_infos():
        if any(info.serves(url) for url in urls) or any(marker in doc.head for marker in info.head_markers):
            return info
    return None


def _describe_unknown(doc: Document) -> str:
    if doc.is_html:
        return f"an HTML page of no site pubharvest knows ({site_titles()})"
    return "a text file that is not a page of any site pubharvest knows"


def detect(data: bytes | str, url: str | None = None, charset: str | None = None) -> Detection:
    """Which site parser would run on ``data``, and on which kind of page; raises ``ParseError``."""
    return _detect_document(Document.from_input(data, url, charset))[1]


def parse(data: bytes | str, url: str | None = None, charset: str | None = None) -> PageResult:
    """Detect the site and kind of page, parse it, and return its records; raises ``ParseError``.

    ``url`` is where the page came from, when known; a canonical URL stated by the page wins. ``charset`` is the
    one the HTTP ``Content-Type`` header named (``page.header_charset``), which outranks the page's own.
    """
    doc = Document.from_input(data, url, charset)
    module, detection = _detect_document(doc)
    doc.kind = detection.page
    with paused_gc():  # a large page makes many objects and no cycles
        try:
            result: PageResult = module.parse(doc)
        except LayoutChanged as error:
            if not doc.is_cut:
                raise
            # What is missing from a page that stops before its end says nothing about its layout.
            raise Truncated(f"the page stops before its end ({error.message})") from None
    result.warnings += doc.warnings  # doubts about the whole page, such as how its bytes were decoded
    if result.url is None:
        result.url = url
    result.source = Source(sha256=doc.sha256, parser=f"{detection.site}.{detection.page}")
    return result
