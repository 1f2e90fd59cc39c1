"""The blocks of a stretch of Markdown that holds only plain CommonMark, read without markdown-it.

An author page's head and each section's opening (``_with_newlines``'s output) are paragraphs, ATX
headings and ``-`` or ``1.`` list items whose text holds links to plain web addresses and ``*``/``**``
emphasis, nothing else. ``plain_blocks`` reads such a stretch into the blocks markdown-it's CommonMark
reading gives (``sections._token_blocks``), and answers None for anything else (any other block, a
backslash, backtick, ``<``, ``>``, ``_`` outside an address, an entity, an image, a stray bracket, a
tab or other whitespace than spaces, a ``*`` run that does not pair up as in the examples below), which
markdown-it then reads. markdown-it is then imported only for a page that needs it: importing it costs
about as much as the rest of a small page's parse. ``tests/parsers/test_elamur_plain.py`` holds the
two readings equal on the pages at hand, their drift variants and generated Markdown.

>>> [(level, ordered, [(run.text, run.em, run.href) for run in runs])
...  for level, ordered, runs in plain_blocks("# Ana\\n\\nSee [*h 2*](https://x.org/a)\\n- B")]
[(1, None, [('Ana', False, None)]), (0, None, [('See ', False, None), ('h 2', True, 'https://x.org/a')]), \
(0, False, [('B', False, None)])]
>>> plain_blocks("a `code` span") is None
True
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ._base import Run

__all__ = ["plain_blocks", "runs_flank", "ADDRESS", "BlockRuns"]

# (heading level or 0, whether the list item is numbered or None outside a list, the inline runs)
BlockRuns = tuple[int, "bool | None", list[Run]]

# What this reading leaves to markdown-it wherever it stands: code, HTML and autolinks, quotes,
# escapes, NUL, tabs and whitespace other than spaces and line breaks (markdown-it and Python trim
# them differently), an entity, an image.
_UNSUPPORTED = re.compile(r"[`<>\\\0]|[^\S \n]|&#?[A-Za-z0-9]+;|!\[")
_HEADING = re.compile(r"(#{1,6})(?: (.*))?")
_ITEM = re.compile(r"(?:(-)|(\d{1,9})([.)])) (\S.*)")
# Lines that are no paragraph text here: a thematic break or setext underline, another bullet, an
# empty item, a fence, a line indented (code, or an item's continuation).
_OTHER_LINE = re.compile(r"(?:[-*_] *){3,}|[=-]+ *|[-*+](?: .*)?|\d{1,9}[.)](?: .*)?|~~~.*| .*|#.*")
# An item whose own text starts another block (a nested list, a heading, a break).
_NESTED = re.compile(r"[-+*](?: |$)|#|\d{1,9}[.)](?: |$)|~~~|(?:[-*_] *){3,}$")

_TEXT = re.compile(r"[^\n\[\]*_]+")
# A link's address that markdown-it's link normalisation leaves as it is: a web address of a lower-case
# host or a place on the page, no character it would escape, no entity, no parenthesis. The list
# scanner's shapes (sections.py) take the same addresses.
ADDRESS = r"(?:https?://[a-z0-9.-]+(?=[/?#)])|#)(?:[A-Za-z0-9\-._~/?#=+,;:@!$']|&(?!#?[A-Za-z0-9]+;)|%[0-9A-Fa-f]{2})*"
_LINK = re.compile(rf"\[([^\[\]]*)\]\(({ADDRESS})\)")  # the label holds no bracket
# Tokens besides text (a ``str``), a link's start (``_Href``) and a ``*`` run (``(length, +1 or -1)``):
_BREAK = object()  # a soft or hard line break: the run of one space ``_inline_runs`` makes of either
_END = object()  # a link's end


def plain_blocks(body: str) -> list[BlockRuns] | None:
    """The blocks of ``body`` as markdown-it reads them, or None when it holds anything but paragraphs,
    ATX headings, ``-``/``1.`` list items and the inline text described above."""
    if _UNSUPPORTED.search(body):
        return None
    blocks: list[BlockRuns] = []
    lines: list[str] = []  # the open paragraph's
    ordered: bool | None = None  # the open paragraph's list item kind (None outside a list)
    marker: str | None = None  # the open list's marker ("-", "." or ")")
    for line in body.split("\n"):
        if not line.strip(" "):
            if not _closed(lines, ordered, blocks):
                return None
            continue
        heading = _HEADING.fullmatch(line)
        item = _ITEM.fullmatch(line)
        if heading:
            content = (heading[2] or "").strip(" ")
            if not content or content.endswith("#") or not _closed(lines, ordered, blocks):
                return None
            runs = _text_runs(content)
            if runs is None:
                return None
            blocks.append((len(heading[1]), None, runs))
            marker = ordered = None
        elif item and (marker or not lines or not item[2] or int(item[2]) == 1):
            if _NESTED.match(item[4]) or not _closed(lines, ordered, blocks):
                return None
            marker, ordered = item[1] or item[3], item[2] is not None
            lines.append(item[4])
        elif _OTHER_LINE.fullmatch(line) and not item:
            return None
        elif lines:  # a continuation line (in a list item, a lazy one)
            lines.append(line)
        else:  # a paragraph after a blank line or a heading: any list has ended
            marker = ordered = None
            lines.append(line)
    return blocks if _closed(lines, ordered, blocks) else None


def _closed(lines: list[str], ordered: bool | None, blocks: list[BlockRuns]) -> bool:
    """Close the open paragraph (emptying ``lines``) into ``blocks``; False when its text is not plain."""
    if not lines:
        return True
    runs = _text_runs("\n".join(lines).strip(" "))
    lines.clear()
    if runs is None:
        return False
    blocks.append((0, ordered, runs))
    return True


def _text_runs(content: str) -> list[Run] | None:
    """The runs of a block's text as markdown-it's tokens give them (``sections._inline_runs``), or None."""
    tokens: list[object] = []
    if not _scope_tokens(content, 0, len(content), tokens):
        return None
    runs: list[Run] = []
    strong = em = 0
    href: str | None = None
    links = -1

    def add(text: str) -> None:
        runs.append(Run(text, strong > 0, em > 0, href, links if href is not None else None))

    for at, token in enumerate(tokens):
        if type(token) is str:
            add(token)
        elif token is _BREAK:
            add(" ")
        elif isinstance(token, _Href):
            href, links = str(token), links + 1
        elif token is _END:
            href = None
        elif isinstance(token, tuple) and token[0] == 1:
            em += token[1]
        elif isinstance(token, tuple):
            # markdown-it leaves an empty text token outside a ``**`` pair (one of the run's two
            # stars) where no text joins it: before the opening run, after the closing one.
            if token[1] == 1 and (not at or type(tokens[at - 1]) is not str):
                add("")
            strong += token[1]
            if token[1] == -1 and (at + 1 == len(tokens) or type(tokens[at + 1]) is not str):
                add("")
    return runs


class _Href(str):
    """A link's start in the token list: its address."""


def _scope_tokens(content: str, pos: int, end: int, tokens: list[object]) -> bool:
    """Add the tokens of ``content[pos:end]`` (the block's text, or a link's label) to ``tokens``: text,
    line breaks, links and the ``*`` runs as ``(length, +1 or -1)``; False when it is not plain."""
    runs: list[tuple[int, int, int]] = []  # each * run: its token's index, start, length
    while pos < end:
        text = _TEXT.match(content, pos, end)
        char = content[pos]
        if text:
            tokens.append(text.group())
            pos = text.end()
        elif char == "\n":
            _trim_before_break(tokens)
            tokens.append(_BREAK)
            pos += 1
            while pos < end and content[pos] == " ":
                pos += 1
        elif char == "*":
            stop = pos
            while stop < end and content[stop] == "*":
                stop += 1
            if stop - pos > 2:
                return False
            runs.append((len(tokens), pos, stop - pos))
            tokens.append(None)  # replaced once the runs are paired
            pos = stop
        elif char == "[" and (link := _LINK.match(content, pos, end)):
            tokens.append(_Href(link[2]))
            if not _scope_tokens(content, link.start(1), link.end(1), tokens):
                return False
            tokens.append(_END)
            pos = link.end()
        else:  # a stray bracket, an underscore
            return False
    return _paired(content, end, runs, tokens)


def _trim_before_break(tokens: list[object]) -> None:
    """Drop the spaces before a line break from the text before it, as markdown-it does (one space of a
    soft break, all of a hard one)."""
    last = tokens[-1] if tokens else None
    if type(last) is not str or not last.endswith(" "):
        return
    trimmed = last.rstrip(" ") if last.endswith("  ") else last[:-1]
    if trimmed:
        tokens[-1] = trimmed
    else:
        tokens.pop()


def _paired(content: str, end: int, runs: list[tuple[int, int, int]], tokens: list[object]) -> bool:
    """Whether the ``*`` runs of one scope open and close in turn, each pair of one length, each run
    flanking as CommonMark asks of it there; their tokens then become ``(length, +1 or -1)``."""
    sides = tuple((content[start - 1] if start else " ", content[start + length] if start + length < end else " ")
                  for _, start, length in runs)
    if len(runs) % 2 or any(runs[at][2] != runs[at + 1][2] for at in range(0, len(runs), 2)) or not runs_flank(sides):
        return False
    for number, (index, _, length) in enumerate(runs):
        tokens[index] = (length, -1 if number % 2 else 1)
    return True


@lru_cache(maxsize=4096)
def runs_flank(sides: tuple[tuple[str, str], ...]) -> bool:
    """Whether ``*`` runs with these neighbours (``""`` after a stretch's end) open, close, open, close,
    ... in turn (none nested)."""
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
    and right-flanking (may close), by CommonMark 0.31's rules as markdown-it applies them.

    >>> _flanking(" ", "a"), _flanking("a", " "), _flanking("a", "b"), _flanking("🏢", "S")
    ((True, False), (False, True), (True, True), (True, False))
    """
    last_punct, last_space = _char_kind(before)
    next_punct, next_space = _char_kind(after)
    return (not (next_space or (next_punct and not (last_space or last_punct))),
            not (last_space or (last_punct and not (next_space or next_punct))))


_WHITESPACE = frozenset([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000,
                         *range(0x2000, 0x200B)])


def _char_kind(char: str) -> tuple[bool, bool]:
    """Whether CommonMark counts ``char`` as punctuation (a Unicode punctuation or symbol), and as
    whitespace (a space separator, tab, line or form feed), next to a ``*`` run."""
    return unicodedata.category(char)[0] in "PS", ord(char) in _WHITESPACE
