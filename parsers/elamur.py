"""Elamur Research author pages, served as Markdown, read with or without their newlines.

Saved copies often lose every newline (the whole page is one line). ``_with_newlines`` first
puts the newlines back where the page's known shapes are (``## Affiliations``, `` 1. **[``,
`` - [``, ...), then CommonMark (markdown-it-py) reads the blocks (``_markdown_sections``), so
both forms go through the same code and give the same records.

>>> doc = Document.from_input('--- title: "T" canonical: "https://research.elamur.ai/free/en/topics/gpu/" ---')
>>> sniff(doc)
'topic'
>>> _page_kind("https://research.elamur.ai/free/en/authors/olatunji-ruwase/")
'profile'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import chain
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

from pubharvest.errors import LayoutChanged, Truncated, Unrecognised

from .listings import check_listings, distinct
from .page import Document
from .records import (
    Affiliation,
    Coauthor,
    Ids,
    Link,
    Metrics,
    PageResult,
    Profile,
    Publication,
    PublicationIds,
    Topic,
    YearWorks,
)
from .site import SiteInfo
from .text import clean, clean_or_none, find_arxiv_id, iso_date, split_names, to_int

__all__ = ["SITE", "sniff", "parse", "split_title"]

SITE = SiteInfo(
    name="elamur", title="Elamur Research", base_url="https://md.research.elamur.ai", hosts=("research.elamur.ai",),
    id_pattern=r"[a-z0-9][a-z0-9-]*", id_example="olatunji-ruwase", profile_path="/free/en/authors/{id}/",
    page_kinds=("profile",),
)

_HTML_HOST = f"https://{SITE.hosts[0]}/"  # the pages' canonical URLs; the Markdown twins are on ``base_url``
_MARKDOWN_HOST = SITE.base_url + "/"

# Section headings of an author page. In the one-line form a heading has no end, so only these
# known strings tell where a heading stops and its text begins.
_SECTIONS = ("Affiliations", "Fields, topics and concepts", "Works by year", "Papers", "All works",
            "Co-authors here", "Venues", "Cited by")

_AFFILIATION_KINDS = {"🏢": "company", "🎓": "education", "🏥": "healthcare"}
# Kinds of Elamur pages by the first segment of their path, for sniff() and refusal messages.
_PAGE_KINDS = {"papers": "publication", "topics": "topic", "shelves": "shelf", "companies": "company",
              "universities": "university", "paper-stars": "ranking"}
_PAGE_LABELS = {"publication": "paper page", "topic": "topic page", "shelf": "shelf page",
               "company": "company page", "university": "university page",
               "ranking": "Paper Stars ranking page", "author_year": "author's works-of-one-year page",
               "cited_by": "author's cited-by page", "page": "page"}

_COMMENTS = re.compile(r"(?:\s*(?:<!--.*?-->|\[//\]: # \([^\n]*\)[ \t]*(?=\n|\Z)))+\s*", re.S)
_FRONT_MATTER = re.compile(r"---\s+(?P<body>.*?)\s+---(?=\s|\Z)", re.S)
_FRONT_KEY = re.compile(r'(?P<key>[a-z_]+):\s+"(?P<value>[^"]*)"')
_PAGE_URL = re.compile(rf"\A(?:{re.escape(_HTML_HOST)}|{re.escape(_MARKDOWN_HOST)})"
                       r"(?P<tier>[^/]+)/(?P<lang>[^/]+)/(?P<path>[^#?]*)")
_HTML_LINK = re.compile(rf"\[this page in HTML\]\((?P<url>{re.escape(_HTML_HOST)}[^)\s]*)\)")
_UPDATED = re.compile(r"Updated (?P<day>\d{1,2}) (?P<month>[A-Za-z]+) (?P<year>\d{4})\s*\Z")

# Shapes that start a block in the one-line form (see FIELDS.md A1-A2).
_KNOWN_HEADING = re.compile(
    r"(?m)[ \t]*(?<!\S)(?P<marks>#{2,3}) (?P<title>" + "|".join(map(re.escape, _SECTIONS))
    + r"|\d{4}s)(?=[ \t]|$)[ \t]*")
_OTHER_HEADING = re.compile(r"(?m)[ \t]+(?=#{2,6} \S)")
_TITLE_BY_INTRO = re.compile(r"(?m)(?:^|[ \t]+)# (?P<name>[^#\n]+?)[ \t]+(?=(?P=name) has )")
_TITLE_BY_CRUMB = re.compile(r"(?m)(?<= / )(?P<name>[^/#\n]+?)[ \t]+# (?P=name)[ \t]+")
_NUMBERED_ITEM = re.compile(r"(?m)[ \t]+(?=\d+[.)] (?:\*\*)?\[)")  # CommonMark: "1." or "1)"; a link first
_LINK_ITEM = re.compile(r"(?m)[ \t]+(?=- \[)")
_PLAIN_ITEM = re.compile(r"(?m)[ \t]+(?=- \S)")

# Parts of a list item, read once per item.
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)(?! citation)")
_CITATIONS = re.compile(r"([\d,]+) citations?")
_YEAR_AND_CITATIONS = re.compile(r"\((\d{4}) · (\d[\d,]*) citations?\)")
_PAPER_PATH = re.compile(r"/papers/([^/]+)/?\Z")
_AUTHOR_PATH = re.compile(r"/authors/([^/]+)/?\Z")
_TIMES = re.compile(r"×\s*([\d,]+)")
_ARXIV_TAIL = re.compile(r"\s*\barXiv:(\S+)\Z")



@cache
def _markdown() -> MarkdownIt:
    """The CommonMark parser, made on first use (markdown-it is imported only when a page is parsed)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


# --- the page: kind, front matter, blocks -------------------------------------------------------


def sniff(doc: Document) -> str | None:
    """The kind of Elamur page ``doc`` is (``"profile"`` for an author page), or None if not Elamur's."""
    url = _page_url(_front_matter(_without_comments(doc.text[:8192])), doc.text[:8192])
    return _page_kind(url) if url else None


def _page_kind(url: str) -> str:
    """``"profile"`` for an author page URL, else the kind of Elamur page it is."""
    match = _PAGE_URL.match(url)
    parts = [p for p in (match.group("path") if match else "").split("/") if p]
    if parts[:1] == ["authors"]:
        if len(parts) == 2:
            return "profile"
        return {"year": "author_year", "cited-by": "cited_by"}.get(parts[2] if len(parts) > 2 else "", "page")
    return _PAGE_KINDS.get(parts[0], "page") if parts else "page"


def _without_comments(text: str) -> str:
    """The text without leading HTML or Markdown comments (hand-written fixtures start with one)."""
    text = text.lstrip("\ufeff")
    match = _COMMENTS.match(text)
    return text[match.end():] if match else text


def _start(text: str) -> int:
    """Where the page starts in ``text``: after any byte-order marks and leading comments (an offset,
    so that a page of 100 MB is not copied to drop a line)."""
    pos = 0
    while text.startswith("\ufeff", pos):
        pos += 1
    match = _COMMENTS.match(text, pos)
    return match.end() if match else pos


def _front_matter(text: str) -> dict[str, str]:
    """The ``key: "value"`` pairs of the front matter, whether its newlines survived or not."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}
    return {m.group("key"): m.group("value") for m in _FRONT_KEY.finditer(match.group("body"))}


def _page_url(meta: dict[str, str], text: str) -> str | None:
    """The page's HTML URL: the canonical of the front matter, else the "this page in HTML" link."""
    canonical = meta.get("canonical", "")
    if canonical.startswith(_HTML_HOST):
        return canonical
    if "canonical" in meta:
        return None  # another site's page
    match = _HTML_LINK.search(text[:2048])
    return match.group("url") if match else None


def _markdown_url(url: str | None) -> str | None:
    """The Markdown twin of an Elamur HTML URL: same path on the ``md.`` host."""
    return _MARKDOWN_HOST + url[len(_HTML_HOST):] if url and url.startswith(_HTML_HOST) else None


def _with_newlines(body: str, head: bool = True) -> str:
    """The Markdown body with newlines put back before the known headings and list items (and, in the
    page's ``head``, around its ``# Name`` heading).

    A body whose newlines survived is left as it is (every shape already starts a line).

    >>> _with_newlines("Intro. ## Venues Where. - SC 2021 ## Cited by Text")
    'Intro.\\n\\n## Venues\\n\\nWhere.\\n- SC 2021\\n\\n## Cited by\\n\\nText'
    """
    text = body
    if head:
        text = _TITLE_BY_INTRO.sub(lambda m: f"\n\n# {m['name']}\n\n", text, count=1)
        if not re.search(r"(?m)^# ", text):
            text = _TITLE_BY_CRUMB.sub(lambda m: f"{m['name']}\n\n# {m['name']}\n\n", text, count=1)
    text = _KNOWN_HEADING.sub(lambda m: f"\n\n{m['marks']} {m['title']}\n\n", text)
    text = _OTHER_HEADING.sub("\n\n", text)  # an unknown heading: its start is known, its end is not
    text = _NUMBERED_ITEM.sub("\n\n", text)
    text = _LINK_ITEM.sub("\n", text)
    # Venue bullets are plain text: split them only inside the Venues section.
    text = re.sub(r"(?ms)^## Venues$.*?(?=^#|\Z)", lambda m: _PLAIN_ITEM.sub("\n", m.group()), text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


@dataclass
class _Run:
    """A stretch of inline text with its markup: bold, italic, and the link it sits in."""

    text: str
    strong: bool = False
    em: bool = False
    href: str | None = None
    link: int | None = None  # which link of the block (two links may share an href)


@dataclass
class _Block:
    kind: str  # "heading", "paragraph" or "item"
    runs: list[_Run]
    level: int = 0

    @property
    def text(self) -> str:
        return clean("".join(run.text for run in self.runs))


@dataclass
class _Section:
    title: str  # "" for the page head (H1 and what comes before the first H2)
    blocks: list[_Block | _Item] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(block.text for block in self.blocks)

    @property
    def items(self) -> list[_Block | _Item]:
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


def _markdown_sections(body: str) -> list[_Section]:
    """The page cut into sections at its ``##`` headings, each a list of blocks of inline runs."""
    sections = [_Section("")]
    level = 0
    in_item = 0
    for token in _markdown().parse(body):
        if token.type == "list_item_open":
            in_item += 1
        elif token.type == "list_item_close":
            in_item -= 1
        elif token.type == "heading_open":
            level = int(token.tag[1:])
        elif token.type == "inline":
            runs = _inline_runs(token)
            if level == 2:
                sections.append(_Section(clean("".join(r.text for r in runs))))
            elif level:
                sections[-1].blocks.append(_Block("heading", runs, level))
            else:
                sections[-1].blocks.append(_Block("item" if in_item else "paragraph", runs))
            level = 0
    return sections


def _inline_runs(token: Token) -> list[_Run]:
    """The inline content of a block as runs of text with their markup."""
    runs: list[_Run] = []
    strong = em = 0
    href: str | None = None
    links = -1
    for child in token.children or []:
        kind = child.type
        if kind in ("text", "code_inline"):
            runs.append(_Run(child.content, strong > 0, em > 0, href, links if href is not None else None))
        elif kind in ("softbreak", "hardbreak"):
            runs.append(_Run(" ", strong > 0, em > 0, href, links if href is not None else None))
        elif kind in ("strong_open", "strong_close"):
            strong += 1 if kind.endswith("open") else -1
        elif kind in ("em_open", "em_close"):
            em += 1 if kind.endswith("open") else -1
        elif kind == "link_open":
            href, links = str(child.attrs.get("href", "")), links + 1
        elif kind == "link_close":
            href = None
    return runs


def _joined(runs: list[_Run]) -> str:
    return clean("".join(run.text for run in runs))


def _links_of(runs: list[_Run]) -> list[tuple[str, list[_Run]]]:
    """Each link of a run list: its href and the runs of its text, in page order."""
    found: dict[int, tuple[str, list[_Run]]] = {}
    for run in runs:
        if run.link is not None and run.href is not None:
            found.setdefault(run.link, (run.href, []))[1].append(run)
    return list(found.values())


# --- the long lists, read without markdown-it --------------------------------------------------
#
# The lists of an author page (Papers, All works, Co-authors here) hold all but a few kB of a big
# page, and markdown-it reads about 1 MB/s. The scanner below reads an item of one of the shapes
# those lists have with one regular expression, where nothing in it can be markup but what the shape
# says: its text holds none of ``*_[]`<>\&#``, no tab, and no line of it starts a block. Any other item
# (and everything outside those lists) goes through ``_with_newlines`` and markdown-it, one item at a
# time, so both readings give the same blocks. Positions, not slices: a page is never copied whole.

_PLAIN = r"[^\n\r\t\0*_\[\]`<>\\&#]"
# A line break, when the next line cannot start a block (a list item, heading, quote, fence, HTML,
# thematic break or setext underline) nor be blank: it stays in the paragraph, as a soft break.
_BREAK = r"\n[ ]*+(?![-+*>#=~`<_ \n\r\t]|\d{1,9}[.)](?:[ \n]|\Z))"
_TEXT = rf"{_PLAIN}*+(?:{_BREAK}{_PLAIN}*+)*+"  # possessive: no backtracking, none is needed
_TO_EM = rf"(?!\*){_TEXT}(?:\n[ ]*+)?(?=\*[^\s*])"  # text before an italic stretch, which may start a line
# URLs that markdown-it's link normalisation leaves as they are.
_URL = r"https?://[a-z0-9.-]++(?:/[A-Za-z0-9\-._~/?=+,;:@!$']*+)?"
_SHAPES = {
    "Papers": {"paper": re.compile(
        rf"\d{{1,9}}[.)] \*\*\[(?P<title>{_PLAIN}++)\]\((?P<href>{_URL})\)\*\*(?=[ \n])[ ]*+(?:\n[ ]*+)?"
        rf"\*(?P<em>{_PLAIN}++)\*(?P<rest>{_TEXT})\s*+")},
    "All works": {"work": re.compile(
        rf"\d{{1,9}}[.)] \[\*\*(?P<bold>(?!\*){_TEXT})\*\*(?P<authors>{_TO_EM})\*(?P<em>{_PLAIN}++)\*\]"
        rf"\((?P<href>{_URL})\)\s*+"),
        "unpaged": re.compile(
        rf"\d{{1,9}}[.)] \*\*\[(?P<linked>{_PLAIN}++)\]\((?P<href>{_URL})\)(?P<tail>{_TEXT})\*\*"
        rf"(?P<authors>{_TO_EM})\*(?P<em>{_PLAIN}++)\*\s*+")},
    "Co-authors here": {"person": re.compile(
        rf"- \[(?P<name>{_PLAIN}++)\]\((?P<href>{_URL})\)(?P<rest>{_PLAIN}*+)\s*+")},
}
# Where the one-line form's items start (``_NUMBERED_ITEM``, ``_LINK_ITEM``), and level-2 headings.
_ITEM_START = re.compile(r"[ \t\n](?=\d+[.)] (?:\*\*)?\[|- \[)")
# Lines that open a block that may run on past the stretch being read: a fence, a quote, HTML.
_OPEN_BLOCK = re.compile(r"(?m)^[ \t]*(?:```|~~~|<|>)")
_LIST_HEADING = re.compile(r"## (?P<title>" + "|".join(map(re.escape, _SHAPES)) + r")(?=[ \t\n]|\Z)")


class _Item(NamedTuple):
    """A list item read by the scanner: its shape and its parts (the match's groups, as ``_Block`` runs
    would give them). The match keeps offsets into the page: each part is made only when it is read."""

    shape: str  # a name of ``_SHAPES``
    parts: re.Match[str]
    kind: str = "item"
    level: int = 0

    @property
    def runs(self) -> list[_Run]:
        """None: the scanner keeps the item's parts instead (see ``_paper_item``, ``_work_item``)."""
        return []

    @property
    def text(self) -> str:
        return clean(" ".join(self.parts.groups()))


def _read_sections(text: str, start: int) -> list[_Section]:
    """The sections of the page that starts at ``start`` in ``text``: the long lists by the scanner,
    item by item, the rest (and any item of another shape) by markdown-it."""
    bounds = _level2_headings(text, start)
    head = _with_newlines(text[start:bounds[0]])
    if _OPEN_BLOCK.search(head):
        return _markdown_sections(_with_newlines(text[start:]))
    sections = _markdown_sections(head)
    for at, end in zip(bounds, bounds[1:] + [len(text)]):
        heading = _LIST_HEADING.match(text, at)
        if heading is None:
            if not _add_slow(sections, text, at, end):
                break
            continue
        item = _ITEM_START.search(text, at, end)
        first = item.start() + 1 if item else end
        if not (_add_slow(sections, text, at, first) and _scan_items(text, first, end, _SHAPES[heading["title"]],
                                                                     sections)):
            break
    return sections


def _level2_headings(text: str, start: int) -> list[int]:
    """Where the ``## `` headings start (after a space or a line break, as ``_with_newlines`` puts
    them on a line of their own), and ``len(text)`` when there is none."""
    found = []
    at = text.find("## ", start)
    while at >= 0:
        if (at == start or text[at - 1] in " \t\n") and at + 3 < len(text) and not text[at + 3].isspace():
            found.append(at)
        at = text.find("## ", at + 3)
    return found or [len(text)]


def _scan_items(text: str, pos: int, end: int, shapes: dict[str, re.Pattern[str]], sections: list[_Section]) -> bool:
    """The items of a long list between ``pos`` and ``end``, each read by a shape or by markdown-it;
    False when markdown-it had to read the rest of the page (see ``_add_slow``)."""
    while pos < end:
        stop = _next_item(text, pos, end)
        item = _scanned(text, pos, stop, shapes, sections[-1])
        if item is None:
            if not _add_slow(sections, text, pos, stop):
                return False
        else:
            sections[-1].blocks.append(item)
        pos = stop
    return True


def _next_item(text: str, pos: int, end: int) -> int:
    """Where the item after the one at ``pos`` starts (as ``_ITEM_START`` finds it), else ``end``.

    Each item start ends with a ``[``: the brackets are found with ``str.find``, and each is asked
    whether an item start ends there, much faster than a regular expression tried at every space."""
    bracket = text.find("[", text.find("[", pos, end) + 1, end)  # skip the item's own
    while bracket >= 0:
        start = _item_ending_at(text, bracket, pos + 2)
        if start >= 0:
            return start
        bracket = text.find("[", bracket + 1, end)
    return end


def _item_ending_at(text: str, bracket: int, lo: int) -> int:
    """The start of the ``1. **[``, ``1. [`` or ``- [`` after a space or line break (at ``lo`` or
    later) that ends at the ``[`` at ``bracket``, or -1."""
    at = bracket - 2 if text.startswith("**", bracket - 2) else bracket
    if at == bracket and text.startswith("- ", at - 2):
        start = at - 2
    elif text.startswith((". ", ") "), at - 2):
        start = at - 2
        while start > lo and text[start - 1].isdecimal():
            start -= 1
        if start == at - 2 or not text[start].isdecimal():
            return -1
    else:
        return -1
    return start if start >= lo and text[start - 1] in " \t\n" else -1


def _scanned(text: str, pos: int, stop: int, shapes: dict[str, re.Pattern[str]], section: _Section) -> _Item | None:
    """The item at ``pos`` read by one of ``shapes``, or None when none fits exactly."""
    if not _starts_item(text, pos, section):
        return None
    for shape, pattern in shapes.items():
        match = pattern.fullmatch(text, pos, stop)
        if match and _emphasis_holds(text, match, stop):
            return _Item(shape, match)
    return None


def _starts_item(text: str, pos: int, section: _Section) -> bool:
    """Whether CommonMark starts a list item at ``pos``: after a space (``_with_newlines`` puts a
    line break there), after the previous item, after a blank line, or a bullet or a first item
    (they may interrupt a paragraph)."""
    if pos == 0 or text[pos - 1] in " \t" or (section.blocks and section.blocks[-1].kind == "item"):
        return True
    line = text.rfind("\n", 0, pos - 1)
    return not text[line + 1:pos - 1].strip() or text.startswith(("- ", "1. ", "1) "), pos)


def _emphasis_holds(text: str, match: re.Match[str], stop: int) -> bool:
    """Whether each ``*`` run of the matched shape opens or closes as the shape says (CommonMark's
    flanking rules: ``**Title**Jie`` closes, ``al.*2021`` opens, ``*(…)*Summary`` does not close).

    The match ends at ``stop`` (a full match), so the runs' neighbours all lie inside it."""
    return _runs_flank(tuple(_STAR_SIDES.findall(text, match.start(), stop)))


# Each ``*`` or ``**`` run with the characters before and after it ("" after the stretch's end). The
# star comes first, so that the engine skips to each one; the character before it is looked back at.
_STAR_SIDES = re.compile(r"(?s)\*(?<=(.)\*)\*?(?=(.?))")


@lru_cache(maxsize=4096)
def _runs_flank(sides: tuple[tuple[str, str], ...]) -> bool:
    """Whether runs with these neighbours open, close, open, close, ... in turn (none nested)."""
    opening = True
    for before, after in sides:
        left, right = _flanking(before, after or " ")
        if not (left if opening else right):
            return False
        opening = not opening
    return True


@lru_cache(maxsize=65536)  # bounded: a hostile page may put a star between any two characters
def _flanking(before: str, after: str) -> tuple[bool, bool]:
    """Whether a ``*`` run between the characters ``before`` and ``after`` is left-flanking (may open)
    and right-flanking (may close), as markdown-it decides."""
    last_punct, last_space = _char_kind(before)
    next_punct, next_space = _char_kind(after)
    return (not (next_space or (next_punct and not (last_space or last_punct))),
            not (last_space or (last_punct and not (next_space or next_punct))))


def _char_kind(char: str) -> tuple[bool, bool]:
    """Whether markdown-it counts ``char`` as punctuation, and as whitespace, next to a ``*`` run."""
    from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace

    return isMdAsciiPunct(ord(char)) or isPunctChar(char), isWhiteSpace(ord(char))


def _has_link(block: _Block | _Item) -> bool:
    return isinstance(block, _Item) or bool(_links_of(block.runs))


def _add_slow(sections: list[_Section], text: str, pos: int, stop: int) -> bool:
    """Read ``text[pos:stop]`` (a stretch after the head) with markdown-it and add its blocks and
    sections. A stretch that opens a block which may run on past its end (a fence, a quote, HTML)
    is read with all the rest of the page instead, as one: then the answer is False (nothing is left)."""
    part = _with_newlines(text[pos:stop], head=False)
    if _OPEN_BLOCK.search(part):
        part, stop = _with_newlines(text[pos:], head=False), len(text)
    found = _markdown_sections(part)
    sections[-1].blocks.extend(found[0].blocks)
    sections.extend(found[1:])
    return stop < len(text)


# --- the public entry ---------------------------------------------------------------------------


def parse(doc: Document) -> PageResult:
    """The records of an Elamur author page; raises ``Unrecognised`` for other kinds of Elamur page."""
    text = doc.text
    start = _start(text)
    front = _FRONT_MATTER.match(text, start)
    meta = _front_matter(front.group()) if front else {}
    url = _page_url(meta, text[start:start + 2048])
    if url is None:
        if text.startswith("---", start) and not meta:
            raise Truncated("the page stops inside its front matter")
        raise Unrecognised("not an Elamur Research page")
    kind = _page_kind(url)
    if kind != "profile":
        raise Unrecognised(f"an Elamur Research {_PAGE_LABELS[kind]} ({url}), not an author page; "
                           "pubharvest reads Elamur author pages only")
    updated = _updated_date(text)
    if updated is None:
        raise Truncated("the Elamur author page stops before its closing \"Updated <date>\" line: "
                        "the file was cut short")
    sections = _read_sections(text, front.end() if front else start)
    result = PageResult(site=SITE.name, page="profile", url=url)
    result.profile = _profile(meta, url, sections, result)
    result.profile.updated = updated
    result.publications = _publications(sections, result.profile, result)
    return result


def _updated_date(text: str) -> str | None:
    """The ISO date of the closing ``Updated 2 November 2026`` line, or None when it is missing."""
    end = len(text)
    while end and text[end - 1].isspace():  # not rstrip(): no copy of the page
        end -= 1
    match = _UPDATED.search(text, max(0, end - 40))
    return iso_date(match["year"], match["month"], match["day"]) if match else None


def _section(sections: list[_Section], title: str) -> _Section | None:
    return next((s for s in sections if s.title == title), None)


def _check_count(result: PageResult, what: str, stated: int | None, found: int) -> None:
    """Warn when a count the page states differs from the number of items it lists."""
    if stated is not None and stated != found:
        result.warn("count_mismatch", f"the page says {stated} {what} but lists {found}")


def _known_sections(sections: list[_Section], result: PageResult) -> None:
    for sec in sections[1:]:
        if sec.title not in _SECTIONS:
            result.warn("unknown_section", f"section {sec.title[:60]!r} is not one pubharvest knows; skipped")


# --- the profile --------------------------------------------------------------------------------


def _profile(meta: dict[str, str], url: str, sections: list[_Section], result: PageResult) -> Profile:
    head = sections[0]
    _known_sections(sections, result)
    titles = [b for b in head.blocks if b.kind == "heading" and b.level == 1]
    if not titles:
        raise LayoutChanged("the Elamur author page has no '# <name>' heading")
    links = [link for block in head.blocks for link in _links_of(block.runs)]
    slug = url.rstrip("/").rsplit("/", 1)[-1]
    found = Profile(
        name=titles[0].text,
        url=url,
        markdown_url=_markdown_url(url),
        ids=_profile_ids(links, slug, result),
        affiliation=_headline_affiliation(meta.get("title", "")),
        metrics=_metrics(links, sections, result),
        links=_profile_links(head, sections),
        snapshot_date=_snapshot_date(head.text),
    )
    affiliations_sec = _section(sections, "Affiliations")
    if affiliations_sec:
        found.affiliations = _affiliations(affiliations_sec, result)
        stated = _snapshot_date(affiliations_sec.text)
        if stated and found.snapshot_date and stated != found.snapshot_date:
            result.warn("dates_differ", f"affiliations are from OpenAlex {stated}, metrics from {found.snapshot_date}")
    fields_sec = _section(sections, "Fields, topics and concepts")
    if fields_sec:
        found.topics = _topics(fields_sec, result)
    years_sec = _section(sections, "Works by year")
    if years_sec:
        found.works_by_year = _works_by_year(years_sec)
    coauthors_sec = _section(sections, "Co-authors here")
    if coauthors_sec:
        found.coauthors = _coauthors(coauthors_sec, result)
    venues_sec = _section(sections, "Venues")
    if venues_sec:
        found.venues = [block.text for block in venues_sec.items if block.text]
    return found


def _headline_affiliation(title: str) -> str | None:
    """``Olatunji Ruwase · Bellevue College — author profile and papers`` -> ``Bellevue College``."""
    match = re.match(r"(?P<name>.+?) · (?P<affiliation>.+?) — author profile and papers\Z", clean(title))
    return match["affiliation"] if match else None


def _snapshot_date(text: str) -> str | None:
    match = re.search(r"OpenAlex, (\d{4}-\d{2}-\d{2})", text)
    return match.group(1) if match else None


def _profile_ids(links: list[tuple[str, list[_Run]]], slug: str, result: PageResult) -> Ids:
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
        result.warn("ids_disagree", f"the OpenAlex links name different authors: {', '.join(sorted(openalex))}")
    if ids.openalex is None and len(openalex) == 1:
        ids.openalex = openalex.pop()
    return ids


def _metrics(links: list[tuple[str, list[_Run]]], sections: list[_Section], result: PageResult) -> Metrics:
    found = Metrics()
    for href, link_runs in links:
        label = _joined(link_runs)
        if m := re.fullmatch(r"h-index ([\d,]+)", label):
            found.h_index = to_int(m.group(1))
        elif href.startswith("https://openalex.org/works") and (m := re.fullmatch(r"([\d,]+) works?", label)):
            found.works = to_int(m.group(1))
        elif href.startswith("https://openalex.org/works") and (m := re.fullmatch(r"([\d,]+) citations?", label)):
            found.citations = to_int(m.group(1))
        elif m := re.search(r"([\d,]+) works? in our library", label):
            found.library_works = to_int(m.group(1))
        elif m := re.search(r"Cited ([\d,]+) times? in our library", label):
            found.library_citations = to_int(m.group(1))
        elif m := re.search(r"Paper Stars ranking: #([\d,]+)", label):
            found.rank = to_int(m.group(1))
    all_works = _section(sections, "All works")
    if all_works and (m := re.match(r"([\d,]+) works? of theirs in our library", all_works.lead)):
        found.library_works_all = to_int(m.group(1))
    without_page = next((to_int(m.group(1)) for _, runs in links
                         if (m := re.search(r"([\d,]+) more in our library without a page", _joined(runs)))), 0)
    if found.library_works is not None and found.library_works_all is not None:
        _check_count(result, "works in the library", found.library_works_all, found.library_works + (without_page or 0))
    cited_by = _section(sections, "Cited by")
    if cited_by:
        text = cited_by.text
        if m := re.search(r"cite their works ([\d,]+) times?", text):
            if found.library_citations is None:
                found.library_citations = to_int(m.group(1))
            elif to_int(m.group(1)) != found.library_citations:
                result.warn("count_mismatch", f"cited {found.library_citations} times in the head, "
                                              f"{m.group(1)} in 'Cited by'")
        if m := re.search(r"of the ([\d,]+) papers whose bibliographies we read", text):
            found.library_papers_read = to_int(m.group(1))
        if m := re.search(r"([\d,]+) citing papers? with a page", text):
            found.library_citing_papers = to_int(m.group(1))
    return found


def _profile_links(head: _Section, sections: list[_Section]) -> list[Link]:
    """In page order: the cited-by page, the Paper Stars rank, and searches by name elsewhere."""
    found: list[Link] = []
    cited_by = _section(sections, "Cited by")
    for block in head.blocks + (cited_by.blocks if cited_by else []):
        # The links that follow "Elsewhere:" in its block are name searches, never identifiers.
        elsewhere = next((i for i, run in enumerate(block.runs) if run.href is None and "Elsewhere:" in run.text),
                         len(block.runs))
        for href, runs in _links_of(block.runs):
            if "/cited-by/" in href:
                link = Link(kind="cited_by", url=href)
            elif "Paper Stars ranking" in _joined(runs):
                link = Link(kind="ranking", url=href)
            elif any(run is runs[0] for run in block.runs[elsewhere:]):
                link = Link(kind="search", url=href, label=_joined(runs))
            else:
                continue
            if all(link.url != seen.url for seen in found):
                found.append(link)
    return found


def _affiliations(sec: _Section, result: PageResult) -> list[Affiliation]:
    found = []
    for block in sec.blocks:
        for href, runs in _links_of(block.runs):
            if any(run.strong for run in runs):
                found.append(_affiliation(href, runs, result))
    return found


def _affiliation(href: str, runs: list[_Run], result: PageResult) -> Affiliation:
    """``[🏢**Snowflake Inc.** Bozeman · United States 2025–2026 · 4 papers*current*](url)``."""
    first_strong = next(i for i, run in enumerate(runs) if run.strong)
    marker = _joined(runs[:first_strong])
    name = _joined([run for run in runs if run.strong])
    rest = _joined([run for run in runs[first_strong:] if not run.strong and not run.em])
    found = Affiliation(name=name, kind=_AFFILIATION_KINDS.get(marker), url=href,
                        current=any(run.em and clean(run.text) == "current" for run in runs))
    if marker and marker not in _AFFILIATION_KINDS:
        result.warn("unknown_marker", f"affiliation {name!r} has the unknown kind marker {marker!r}")
    match = re.fullmatch(
        r"(?:(?:(?P<city>[^·]+?) · )?(?P<country>[^·]+?) )?(?P<start>\d{4})(?:–(?P<end>\d{4}))?"
        r"(?: · (?P<papers>[\d,]+) papers?)?", rest)
    if not match:
        result.warn("affiliation_unparsed", f"could not read place and years of affiliation {name!r}: {rest!r}")
        return found
    found.city, found.country = match["city"], match["country"]
    found.start_year = int(match["start"])
    found.end_year = int(match["end"] or match["start"])
    found.papers = to_int(match["papers"])
    return found


def _topics(sec: _Section, result: PageResult) -> list[Topic]:
    """Shelves (OpenAlex fields and subfields, told apart only by the URL path) and Elamur topics."""
    found = []
    for block in sec.blocks:
        for href, runs in _links_of(block.runs):
            match = re.fullmatch(r"(?P<name>.+?) · (?P<n>[\d,]+) works?", _joined(runs))
            path = re.search(r"/(shelves|topics)/(.+?)/?\Z", href)
            if not match or not path:
                continue
            if path.group(1) == "topics":
                kind = "topic"
            else:
                kind = "subfield" if "/" in path.group(2) else "field"
            found.append(Topic(name=match["name"], kind=kind, count=to_int(match["n"]), url=href))
    text = sec.text
    if m := re.search(r"Shelves ([\d,]+)", text):
        _check_count(result, "shelves", to_int(m.group(1)), sum(t.kind != "topic" for t in found))
    if m := re.search(r"Topics ([\d,]+)", text):
        _check_count(result, "topics", to_int(m.group(1)), sum(t.kind == "topic" for t in found))
    return found


def _works_by_year(sec: _Section) -> list[YearWorks]:
    """``[**2021** 2 papers](…/year/2021/)`` under ``### 2020s`` headings."""
    found = []
    for block in sec.blocks:
        for href, runs in _links_of(block.runs):
            year = re.search(r"/year/(\d{4})/?\Z", href)
            count = re.search(r"([\d,]+) papers?", _joined(runs))
            if year and count:
                found.append(YearWorks(year=int(year.group(1)), works=to_int(count.group(1)) or 0))
    return found


def _coauthors(sec: _Section, result: PageResult) -> list[Coauthor]:
    """``- [Samyam Rajbhandari](…/authors/samyam-rajbhandari/) ×2``; no ``×N`` means one paper."""
    found = []
    for block in sec.items:
        if isinstance(block, _Item):
            found.append(_coauthor(block.parts["name"], block.parts["href"], block.parts["rest"]))
        elif links := _links_of(block.runs):
            href, runs = links[0]
            found.append(_coauthor(_joined(runs), href, _joined([run for run in block.runs if run.href is None])))
    if m := re.match(r"([\d,]+) co-authors? with a page", sec.lead):
        _check_count(result, "co-authors", to_int(m.group(1)), len(found))
    return found


def _coauthor(name: str, href: str, rest: str) -> Coauthor:
    """The co-author of an item: the link's text and URL, and ``×N`` in the text around it."""
    slug = _AUTHOR_PATH.search(href)
    times = _TIMES.search(clean(rest))
    return Coauthor(name=clean(name), ids=Ids(elamur=slug.group(1) if slug else None),
                    papers=to_int(times.group(1)) if times else 1, url=href)


# --- the publications ---------------------------------------------------------------------------


def _publications(sections: list[_Section], profile: Profile, result: PageResult) -> list[Publication]:
    """The "Papers" and "All works" lists merged: one record per paper, in order of first mention.

    Invariants: every item of either list gives a paper (else ``listings_unreadable``, or
    ``layout_changed`` when none does); the counts the page states (``N works in our library`` for
    Papers, ``N works of theirs`` and ``N with a page here`` for All works) match what was read.

    *All works* is merged as it is read, so that a work absorbed into its *Papers* record is dropped at
    once (a big page holds each paper twice); the merge's warnings still come after the lists' own."""
    papers_sec, all_sec = _section(sections, "Papers"), _section(sections, "All works")
    papers_read, works_read = _Tally(), _Tally()
    papers = list(_listed(papers_sec, _paper_item, papers_read))
    _check_tally(result, "'Papers'", papers_read, "a bold '[title](…/papers/…)' link")
    titles = {p.ids.elamur: p.title for p in papers if p.ids.elamur}
    works = _listed(all_sec, lambda block: _work_item(block, titles, profile.venues, result), works_read)
    merged = PageResult(site=result.site, page=result.page)  # the merge's warnings, until the lists are checked
    kept = distinct(chain(papers, works), merged)
    _check_tally(result, "'All works'", works_read, "a link to the paper's page or a bold '[title ↗](original)' link")
    stated_all = None
    if all_sec:
        if m := re.match(r"([\d,]+) works? of theirs in our library", all_sec.lead):
            stated_all = to_int(m.group(1))
            _check_count(result, "works in 'All works'", stated_all, works_read.found)
        if m := re.search(r"; ([\d,]+) with a page here", all_sec.lead):
            _check_count(result, "works with a page", to_int(m.group(1)), works_read.with_page)
    if papers_sec:
        _check_count(result, "works in 'Papers'", profile.metrics.library_works, len(papers))
    if not papers and not works_read.found and (profile.metrics.library_works or stated_all):
        raise LayoutChanged(f"the Elamur author page says {profile.metrics.library_works or stated_all} works are "
                            "in the library but has no 'Papers' or 'All works' list items")
    result.warnings.extend(merged.warnings)
    return kept


@dataclass
class _Tally:
    """What reading a list's items found: how many items, which (1-based) gave no paper or an
    incomplete one, how many papers, and how many of them with an Elamur page."""

    items: int = 0
    unreadable: list[int] = field(default_factory=list)
    incomplete: list[int] = field(default_factory=list)
    found: int = 0
    with_page: int = 0


def _listed(sec: _Section | None, read: Callable[[_Block | _Item], Publication | None],
            tally: _Tally) -> Iterator[Publication]:
    """The papers of a section's list items, one at a time, counted on ``tally``."""
    if sec is None:
        return
    items = sec.items
    tally.items = len(items)
    for number, block in enumerate(items, 1):
        pub = read(block) if _has_link(block) else None
        if pub is None or not pub.title:
            tally.unreadable.append(number)
            continue
        tally.found += 1
        tally.with_page += bool(pub.ids.elamur)
        if pub.year is None or pub.citations is None:
            tally.incomplete.append(number)
        yield pub


def _check_tally(result: PageResult, name: str, tally: _Tally, missing: str) -> None:
    """``listings.check_listings`` on a list once read: items that gave no paper, items without their
    ``(year · N citations)``."""
    check_listings(result, name, tally.items, tally.unreadable, missing, tally.incomplete,
                   "their '(year · N citations)'")


def _first_em(runs: list[_Run]) -> tuple[int, int] | None:
    """Start and end of the first italic stretch of ``runs``."""
    start = next((i for i, run in enumerate(runs) if run.em), None)
    if start is None:
        return None
    end = next((i for i in range(start, len(runs)) if not runs[i].em), len(runs))
    return start, end


def _year_and_citations(text: str) -> tuple[int | None, int | None]:
    """``(2021 · 309 citations)`` -> ``(2021, 309)``."""
    if both := _YEAR_AND_CITATIONS.fullmatch(text):  # the usual form: what the two searches would find
        return int(both[1]), to_int(both[2])
    year = _YEAR.search(text)
    cites = _CITATIONS.search(text)
    return (int(year.group(1)) if year else None, to_int(cites.group(1)) if cites else None)


def _paper_slug(href: str | None) -> str | None:
    match = _PAPER_PATH.search(href or "")
    return match.group(1) if match else None


def _paper_item(block: _Block | _Item) -> Publication | None:
    """``1. **[Title](…/papers/<slug>/)** *(2021 · 309 citations)* One-sentence summary.``; None for
    an item of another shape (no bold link to a paper page)."""
    if isinstance(block, _Item):
        return _paper(block.parts["title"], block.parts["href"], block.parts["em"], block.parts["rest"])
    href, title_runs = _links_of(block.runs)[0]
    if not all(run.strong for run in title_runs):
        return None
    span = _first_em(block.runs)
    if span is None:
        return _paper(_joined(title_runs), href, None, "")
    return _paper(_joined(title_runs), href, _joined(block.runs[span[0]:span[1]]), _joined(block.runs[span[1]:]))


def _paper(title: str, href: str, em: str | None, rest: str) -> Publication | None:
    """The paper of a *Papers* item: its title, link, first italic stretch and the text after it."""
    slug = _paper_slug(href)
    if slug is None:
        return None
    year = cites = summary = None
    if em is not None:
        year, cites = _year_and_citations(em)
        summary = clean_or_none(rest)
    return Publication(title=clean(title), year=year, citations=cites, url=href, summary=summary,
                       ids=PublicationIds(elamur=slug))


def _work_item(block: _Block | _Item, titles: dict[str, str | None], venues: list[str],
               result: PageResult) -> Publication | None:
    """An "All works" item: a paper with a page, or (``↗``) an original link for one without a page;
    None for an item of neither shape."""
    if isinstance(block, _Item):
        parts = block.parts
        if block.shape == "work":  # the whole bold span is inside the link
            bold = linked = parts["bold"]
            tail = ""
        else:
            linked, tail = parts["linked"], parts["tail"]
            bold = linked + tail
        return _work(parts["href"], parts["em"], parts["authors"], bold, linked, tail, titles, venues, result)
    runs = block.runs
    href, _ = _links_of(runs)[0]
    return _work(href, _joined([r for r in runs if r.em]), _joined([r for r in runs if not r.strong and not r.em]),
                 _joined([r for r in runs if r.strong]), _joined([r for r in runs if r.strong and r.href]),
                 _joined([r for r in runs if r.strong and not r.href]), titles, venues, result)


def _work(href: str, em: str, authors: str, bold: str, linked: str, tail: str, titles: dict[str, str | None],
          venues: list[str], result: PageResult) -> Publication | None:
    """The paper of an "All works" item from its parts: the first link, the italic and plain text, and
    the bold text (all of it; the part inside a link; the part outside)."""
    year, cites = _year_and_citations(clean(em))
    names, truncated = split_names(authors)
    slug = _paper_slug(href)
    if slug:
        title, venue, arxiv = split_title(clean(bold), titles.get(slug), venues, result)
        return Publication(title=title, authors=names, authors_truncated=truncated, venue=venue, year=year,
                           citations=cites, ids=PublicationIds(arxiv=arxiv, elamur=slug), url=href)
    pub = Publication(authors=names, authors_truncated=truncated, year=year, citations=cites, url=href)
    # No page: the bold span holds "[Title ↗](original) arXiv:… · no summary yet".
    linked = clean(linked)
    if not linked.endswith("↗"):
        return None
    pub.title = re.sub(r"\s*↗\Z", "", linked)
    for part in clean(tail).split(" · "):
        part = clean(part)
        if part.startswith("arXiv:"):
            pub.ids.arxiv = find_arxiv_id(part)
        elif part and part != "no summary yet":
            pub.venue = part
    return pub


def split_title(bold: str, known_title: str | None, venues: list[str],
                result: PageResult | None) -> tuple[str, str | None, str | None]:
    """Title, venue and arXiv id of a bold span where they run together (FIELDS.md A6).

    >>> split_title("ZeRO-Infinity: Breaking the Wall SC 2021", None, ["SC 2021"], None)
    ('ZeRO-Infinity: Breaking the Wall', 'SC 2021', None)
    """
    arxiv = None
    if "arXiv:" in bold and (match := _ARXIV_TAIL.search(bold)):
        arxiv, bold = find_arxiv_id(match.group()), bold[: match.start()]
    if known_title and bold.startswith(known_title):
        return known_title, clean_or_none(bold[len(known_title):]), arxiv
    for venue in sorted(venues, key=len, reverse=True):
        if bold.endswith(" " + venue):
            return bold[: -len(venue) - 1], venue, arxiv
    if arxiv is None and result is not None:
        result.warn("title_may_hold_venue", f"no known title or venue to split from {bold!r}")
    return bold, None, arxiv
