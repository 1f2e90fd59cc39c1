"""What an Elamur page is made of: the site, the page's kind (by its URL), its front matter, and
the runs, blocks, items and sections the readers below hand on."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from pubharvest.siteregistry import TITLES

from ..numbers import count_in
from ..records import PageResult
from ..site import SiteInfo
from ..text import clean
from ..warning_codes import Warn

SITE = SiteInfo(
    name="elamur", title=TITLES["elamur"], base_url="https://md.research.elamur.ai", hosts=("research.elamur.ai",),
    id_pattern=r"[a-z0-9][a-z0-9-]*", id_example="olatunji-ruwase", profile_path="/free/en/authors/{id}/",
    page_kinds=("profile",),
)

HTML_HOST = f"https://{SITE.hosts[0]}/"  # the pages' canonical URLs; the Markdown twins are on ``base_url``
MARKDOWN_HOST = SITE.base_url + "/"

# Kinds of Elamur pages by the first segment of their path, for sniff() and refusal messages.
_PAGE_KINDS = {"papers": "publication", "topics": "topic", "shelves": "shelf", "companies": "company",
              "universities": "university", "paper-stars": "ranking"}
PAGE_LABELS = {"publication": "paper page", "topic": "topic page", "shelf": "shelf page",
               "company": "company page", "university": "university page",
               "ranking": "Paper Stars ranking page", "author_year": "author's works-of-one-year page",
               "cited_by": "author's cited-by page", "page": "page"}

_COMMENTS = re.compile(r"(?:\s*(?:<!--.*?-->|\[//\]: # \([^\n]*\)[ \t]*(?=\n|\Z)))+\s*", re.S)
FRONT_MATTER = re.compile(r"---\s+(?P<body>.*?)\s+---(?=\s|\Z)", re.S)
_FRONT_KEY = re.compile(r'(?P<key>[a-z_]+):\s+"(?P<value>[^"]*)"')
_PAGE_URL = re.compile(rf"\A(?:{re.escape(HTML_HOST)}|{re.escape(MARKDOWN_HOST)})"
                       r"(?P<tier>[^/]+)/(?P<lang>[^/]+)/(?P<path>[^#?]*)")
_HTML_LINK = re.compile(rf"\[this page in HTML\]\((?P<url>{re.escape(HTML_HOST)}[^)\s]*)\)")
# The closing line: a label in the page's language, a day, a month's name and a year ("Updated 2 November
# 2026", "Actualizado el 2 de noviembre de 2026", "Aktualisiert am 2. November 2026"), with the short words
# some languages put between them.
UPDATED = re.compile(r"[^\W\d_]+[ \t]+(?P<day>\d{1,2})\.?[ \t]+(?:[^\W\d_]{1,3}[ \t]+)?(?P<month>[^\W\d_]+)\.?"
                     r"[ \t]+(?:[^\W\d_]{1,3}[ \t]+)?(?P<year>\d{4})\s*\Z")


def page_kind(url: str) -> str:
    """``"profile"`` for an author page URL, else the kind of Elamur page it is."""
    match = _PAGE_URL.match(url)
    parts = [p for p in (match.group("path") if match else "").split("/") if p]
    if parts[:1] == ["authors"]:
        if len(parts) == 2:
            return "profile"
        return {"year": "author_year", "cited-by": "cited_by"}.get(parts[2] if len(parts) > 2 else "", "page")
    return _PAGE_KINDS.get(parts[0], "page") if parts else "page"


def without_comments(text: str) -> str:
    """The text without leading HTML or Markdown comments (hand-written fixtures start with one)."""
    text = text.lstrip("\ufeff")
    match = _COMMENTS.match(text)
    return text[match.end():] if match else text


def content_start(text: str) -> int:
    """Where the page starts in ``text``: after any byte-order marks and leading comments (an offset,
    so that a page of 100 MB is not copied to drop a line)."""
    pos = 0
    while text.startswith("\ufeff", pos):
        pos += 1
    match = _COMMENTS.match(text, pos)
    return match.end() if match else pos


def front_matter(text: str) -> dict[str, str]:
    """The ``key: "value"`` pairs of the front matter, whether its newlines survived or not."""
    match = FRONT_MATTER.match(text)
    if not match:
        return {}
    return {m.group("key"): m.group("value") for m in _FRONT_KEY.finditer(match.group("body"))}


def page_url(meta: dict[str, str], text: str) -> str | None:
    """The page's HTML URL: the canonical of the front matter, else the "this page in HTML" link."""
    canonical = meta.get("canonical", "")
    if canonical.startswith(HTML_HOST):
        return canonical
    if "canonical" in meta:
        return None  # another site's page
    match = _HTML_LINK.search(text[:2048])
    return match.group("url") if match else None


@dataclass
class Run:
    """A stretch of inline text with its markup: bold, italic, and the link it sits in."""

    text: str
    strong: bool = False
    em: bool = False
    href: str | None = None
    link: int | None = None  # which link of the block (two links may share an href)


@dataclass
class Block:
    kind: str  # "heading", "paragraph" or "item"
    runs: list[Run]
    level: int = 0
    ordered: bool = False  # an item of a numbered list

    @property
    def text(self) -> str:
        return clean("".join(run.text for run in self.runs))


@dataclass
class Section:
    title: str  # "" for the page head (H1 and what comes before the first H2)
    blocks: list[Block | Item] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(block.text for block in self.blocks)

    @property
    def items(self) -> list[Block | Item]:
        return [block for block in self.blocks if block.kind == "item"]

    @property
    def lead(self) -> str:
        """The text of the blocks before the section's first list item (where it states its counts)."""
        lead = []
        for block in self.blocks:
            if block.kind == "item":
                break
            lead.append(block.text)
        return " ".join(lead)

    @property
    def opening(self) -> str:
        """The heading and the lead: in the one-line form an unknown heading runs on into its lead
        (nothing tells where it stops), so a count the lead states may be in either."""
        return clean(f"{self.title} {self.lead}")


def joined(runs: list[Run]) -> str:
    return clean("".join(run.text for run in runs))


def links_of(runs: list[Run]) -> list[tuple[str, list[Run]]]:
    """Each link of a run list: its href and the runs of its text, in page order."""
    found: dict[int, tuple[str, list[Run]]] = {}
    for run in runs:
        if run.link is not None and run.href is not None:
            found.setdefault(run.link, (run.href, []))[1].append(run)
    return list(found.values())


class Item(NamedTuple):
    """A list item read by the scanner: its shape and its parts (the match's groups, as ``Block`` runs
    would give them). The match keeps offsets into the page: each part is made only when it is read."""

    shape: str  # a name of ``_SHAPES``
    parts: re.Match[str]
    kind: str = "item"
    level: int = 0

    @property
    def runs(self) -> list[Run]:
        """None: the scanner keeps the item's parts instead (see ``_paper_item``, ``_work_item``)."""
        return []

    @property
    def text(self) -> str:
        return clean(" ".join(self.parts.groups()))


def check_count(result: PageResult, what: str, stated: int | None, found: int) -> None:
    """Warn when a count the page states differs from the number of items it lists."""
    if stated is not None and stated != found:
        result.warn(Warn.count_mismatch, f"the page says {stated} {what} but lists {found}")


def all_works_counts(sec: Section, result: PageResult | None) -> tuple[int | None, int | None]:
    """The two counts the *All works* lead states, by its shape: the one number of each of its two
    clauses (``3 works of theirs in our library, …; 2 with a page here, …``); warned on ``result``
    when they cannot be read.

    >>> all_works_counts(Section("Todas las obras", [Block("paragraph", [Run("1.606 obras suyas; 2 con página.")])]),
    ...                  None)
    (1606, 2)
    """
    clauses = [count_in(clause) for clause in sec.opening.split(";")]
    if len(clauses) == 2 and None not in clauses:
        return clauses[0], clauses[1]
    if result is not None:
        result.warn(Warn.profile_unreadable, f"the lead of section {sec.title[:40]!r} is not '<N> works …; <N> with "
                                             f"a page …': {sec.lead[:80]!r}; the works in the library are unread")
    return None, None
