"""The page read into sections: its blocks by ``plain_blocks`` or markdown-it, and a scanner for the long lists."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


from ._base import Block, Item, Run, Section, joined
from .kinds import ENGLISH_TITLES
from .plain import ADDRESS, BlockRuns, plain_blocks, runs_flank

# Shapes that start a block in the one-line form: the English section headings and decade headings, the title
# heading (found by the intro line or the breadcrumb that repeats the name), and list items.
_KNOWN_HEADING = re.compile(
    r"(?m)[ \t]*(?<!\S)(?P<marks>#{2,3}) (?P<title>" + "|".join(map(re.escape, ENGLISH_TITLES))
    + r"|\d{4}s)(?=[ \t]|$)[ \t]*")
_OTHER_HEADING = re.compile(r"(?m)[ \t]+(?=#{2,6} \S)")
# A heading of another wording has no known end in the one-line form: it ends at the latest before its
# first link (no heading of an author page holds one), so the links stay in the section's blocks.
_HEADING_TO_LINK = re.compile(r"(?m)^(#{2,6} [^\n\[]*?)[ \t]*(?=\[)")
# A stretch from a level-2 heading to the next heading that holds no link: the only one of an author
# page whose bullets are plain text is the venue list (a summary may hold " - ", but its list has links).
_LINKLESS_SECTION = re.compile(r"(?ms)^## (?:(?!\]\().)*?(?=^#|\Z)")
_TITLE_BY_INTRO = re.compile(r"(?m)(?:^|[ \t]+)# (?P<name>[^#\n]+?)[ \t]+(?=(?P=name) has )")
_TITLE_BY_CRUMB = re.compile(r"(?m)(?<= / )(?P<name>[^/#\n]+?)[ \t]+# (?P=name)[ \t]+")
_NUMBERED_ITEM = re.compile(r"(?m)[ \t]+(?=\d+[.)] (?:\*\*)?\[)")  # CommonMark: "1." or "1)"; a link first
_LINK_ITEM = re.compile(r"(?m)[ \t]+(?=- \[)")
_PLAIN_ITEM = re.compile(r"(?m)[ \t]+(?=- \S)")



@cache
def _markdown() -> MarkdownIt:
    """The CommonMark parser, made on first use (markdown-it is imported only when a page is parsed)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


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
    text = _HEADING_TO_LINK.sub("\\1\n\n", text)
    text = _NUMBERED_ITEM.sub("\n\n", text)
    text = _LINK_ITEM.sub("\n", text)
    # Venue bullets are plain text: split them only inside a section without links.
    text = _LINKLESS_SECTION.sub(lambda m: _PLAIN_ITEM.sub("\n", m.group()), text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _markdown_sections(body: str) -> list[Section]:
    """The page cut into sections at its ``##`` headings, each a list of blocks of inline runs: read by
    ``plain_blocks`` when the body holds only plain CommonMark, else by markdown-it."""
    blocks = plain_blocks(body)
    return _sectioned(_token_blocks(body) if blocks is None else blocks)


def _token_blocks(body: str) -> list[BlockRuns]:
    """The blocks of ``body`` as markdown-it reads them: heading level, list item kind, inline runs."""
    found: list[BlockRuns] = []
    level = 0
    in_item = 0
    lists: list[bool] = []  # whether each open list is numbered
    for token in _markdown().parse(body):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append(token.type == "ordered_list_open")
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif token.type == "list_item_open":
            in_item += 1
        elif token.type == "list_item_close":
            in_item -= 1
        elif token.type == "heading_open":
            level = int(token.tag[1:])
        elif token.type == "inline":
            found.append((level, lists[-1] if in_item else None, _inline_runs(token)))
            level = 0
    return found


def _sectioned(blocks: list[BlockRuns]) -> list[Section]:
    """The blocks cut into sections at their level-2 headings."""
    sections = [Section("")]
    for level, ordered, runs in blocks:
        if level == 2:
            sections.append(Section(joined(runs)))
        elif level:
            sections[-1].blocks.append(Block("heading", runs, level))
        elif ordered is not None:
            sections[-1].blocks.append(Block("item", runs, ordered=ordered))
        else:
            sections[-1].blocks.append(Block("paragraph", runs))
    return sections


def _inline_runs(token: Token) -> list[Run]:
    """The inline content of a block as runs of text with their markup."""
    runs: list[Run] = []
    strong = em = 0
    href: str | None = None
    links = -1
    for child in token.children or []:
        kind = child.type
        if kind in ("text", "code_inline"):
            runs.append(Run(child.content, strong > 0, em > 0, href, links if href is not None else None))
        elif kind in ("softbreak", "hardbreak"):
            runs.append(Run(" ", strong > 0, em > 0, href, links if href is not None else None))
        elif kind in ("strong_open", "strong_close"):
            strong += 1 if kind.endswith("open") else -1
        elif kind in ("em_open", "em_close"):
            em += 1 if kind.endswith("open") else -1
        elif kind == "link_open":
            href, links = str(child.attrs.get("href", "")), links + 1
        elif kind == "link_close":
            href = None
    return runs


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
_SHAPES = {
    "papers": {"paper": re.compile(
        rf"\d{{1,9}}[.)] \*\*\[(?P<title>{_PLAIN}++)\]\((?P<href>{ADDRESS})\)\*\*(?=[ \n])[ ]*+(?:\n[ ]*+)?"
        rf"\*(?P<em>{_PLAIN}++)\*(?P<rest>{_TEXT})\s*+")},
    "all_works": {"work": re.compile(
        rf"\d{{1,9}}[.)] \[\*\*(?P<bold>(?!\*){_TEXT})\*\*(?P<authors>{_TO_EM})\*(?P<em>{_PLAIN}++)\*\]"
        rf"\((?P<href>{ADDRESS})\)\s*+"),
        "unpaged": re.compile(
        rf"\d{{1,9}}[.)] \*\*\[(?P<linked>{_PLAIN}++)\]\((?P<href>{ADDRESS})\)(?P<tail>{_TEXT})\*\*"
        rf"(?P<authors>{_TO_EM})\*(?P<em>{_PLAIN}++)\*\s*+")},
    "coauthors": {"person": re.compile(
        rf"- \[(?P<name>{_PLAIN}++)\]\((?P<href>{ADDRESS})\)(?P<rest>{_PLAIN}*+)\s*+")},
}
# Where the one-line form's items start (``_NUMBERED_ITEM``, ``_LINK_ITEM``), and level-2 headings.
_ITEM_START = re.compile(r"[ \t\n](?=\d+[.)] (?:\*\*)?\[|- \[)")
# Lines that open a block that may run on past the stretch being read: a fence, a quote, HTML.
_OPEN_BLOCK = re.compile(r"(?m)^[ \t]*(?:```|~~~|<|>)")


def read_sections(text: str, start: int) -> list[Section]:
    """The sections of the page that starts at ``start`` in ``text``: the long lists by the scanner,
    item by item, the rest (and any item of another shape) by markdown-it."""
    bounds = _level2_headings(text, start)
    head = _with_newlines(text[start:bounds[0]])
    if _OPEN_BLOCK.search(head):
        return _markdown_sections(_with_newlines(text[start:]))
    sections = _markdown_sections(head)
    for at, end in zip(bounds, [*bounds[1:], len(text)], strict=True):
        item = _ITEM_START.search(text, at, end)
        first = item.start() + 1 if item else end
        if not _add_slow(sections, text, at, first):
            break
        shapes = _shapes_of(text, first, end, sections[-1])
        if shapes is None:
            if not _add_slow(sections, text, first, end):
                break
        elif not _scan_items(text, first, end, shapes, sections):
            break
    return sections


def _shapes_of(text: str, first: int, end: int, section: Section) -> dict[str, re.Pattern[str]] | None:
    """The shapes of the long list whose first item starts at ``first`` (the first shape it fits), or
    None (no item, or one of no known shape: markdown-it reads that list)."""
    if first >= end:
        return None
    if not _starts_item(text, first, section):
        return None
    stop = _next_item(text, first, end)
    return next((shapes for shapes in _SHAPES.values() if _fitting(text, first, stop, shapes)), None)


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


def _scan_items(text: str, pos: int, end: int, shapes: dict[str, re.Pattern[str]], sections: list[Section]) -> bool:
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


def _scanned(text: str, pos: int, stop: int, shapes: dict[str, re.Pattern[str]], section: Section) -> Item | None:
    """The item at ``pos`` read by one of ``shapes``, or None when none fits exactly."""
    return _fitting(text, pos, stop, shapes) if _starts_item(text, pos, section) else None


def _fitting(text: str, pos: int, stop: int, shapes: dict[str, re.Pattern[str]]) -> Item | None:
    """The item from ``pos`` to ``stop`` read by the first of ``shapes`` it fits exactly, or None."""
    for shape, pattern in shapes.items():
        match = pattern.fullmatch(text, pos, stop)
        if match and _emphasis_holds(text, match, stop):
            return Item(shape, match)
    return None


def _starts_item(text: str, pos: int, section: Section) -> bool:
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
    return runs_flank(tuple(_STAR_SIDES.findall(text, match.start(), stop)))


# Each ``*`` or ``**`` run with the characters before and after it ("" after the stretch's end). The
# star comes first, so that the engine skips to each one; the character before it is looked back at.
_STAR_SIDES = re.compile(r"(?s)\*(?<=(.)\*)\*?(?=(.?))")


def _add_slow(sections: list[Section], text: str, pos: int, stop: int) -> bool:
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
