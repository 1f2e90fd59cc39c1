r"""A byte-preserving editor of a Markdown file's YAML front matter (``---`` fenced), for the site
targets.

The front matter is read with PyYAML (to know its keys, their values and the lines each spans) and
edited as lines: a key set in place replaces only its own lines, a new key goes last, before the
closing fence, and every other byte (comments, blank lines, key order, quoting, line endings, the
Markdown body) stays as it was. Values are written as YAML that any YAML 1.1 or 1.2 parser reads
back as the same text (``yaml_scalar``): Hugo's go-yaml and Jekyll's Psych read YAML 1.1, where
``no``, ``y``, ``1:20`` and ``2020-01-01`` are not strings.

>>> page = FrontMatter.parse(b"---\ntitle: Old # mine\n# legend\ntags: [a]\n---\nBody\n")
>>> page.values["tags"], page.has("doi")
(['a'], False)
>>> page.set("doi", yaml_scalar("10.1/x"))
>>> page.set("title", yaml_scalar("ZeRO: yes"))
>>> print(page.render().decode(), end="")
---
title: "ZeRO: yes"
# legend
tags: [a]
doi: "10.1/x"
---
Body
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from typing import Any

import yaml

from pubharvest.errors import BadTarget

FENCE = "---"
TOML_FENCE = "+++"
# A value written plain (unquoted) starts with a letter and holds only letters, digits, spaces and
# punctuation no YAML parser reads as syntax; anything else is double-quoted.
_PLAIN = re.compile(r"[^\W\d_][\w .,;()/+\-!&=~%$@^']*")
# Words YAML 1.1 (go-yaml v2 included) reads as booleans or null when written plain
_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
# Characters a double-quoted scalar writes as an escape: controls, YAML 1.1's line breaks (NEL, LS,
# PS), the BOM, non-characters; a lone surrogate (no UTF-8 form) is written as U+FFFD
_ESCAPED = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\"\\\\]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SHORT_ESCAPES = {"\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}
# libyaml's loader where PyYAML has it (a page in 0.6 ms rather than 7; the same values and marks)
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# A key commented out where a key would stand (``#citation: '...'``): the user's choice to leave it out
_COMMENTED_KEY = re.compile(r"#\s*([A-Za-z_][\w-]*)\s*:")


def yaml_scalar(text: str) -> str:
    r"""``text`` as a YAML scalar every YAML parser reads back as that same string.

    >>> [yaml_scalar(t) for t in ("ZeRO-Offload, again", "no", "2020-01-01", "a: b", "#1", "say \"hi\"")]
    ['ZeRO-Offload, again', '"no"', '"2020-01-01"', '"a: b"', '"#1"', '"say \\"hi\\""']
    """
    text = _SURROGATE.sub("\ufffd", text)
    if _PLAIN.fullmatch(text) and not text.endswith(" ") and text.casefold() not in _RESERVED:
        return text
    return double_quoted(text)


def double_quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar, which any context reads back as that text."""
    return '"' + _ESCAPED.sub(_escape, _SURROGATE.sub("\ufffd", text)) + '"'


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def yaml_list(items: list[str]) -> str:
    """A block list of scalars, a line an item (``- name``), as the value after ``key:``.

    >>> yaml_list(["A B", "yes"])
    '\\n- A B\\n- "yes"'
    """
    return "".join(f"\n- {yaml_scalar(item)}" for item in items)


def yaml_flow_list(items: list[str]) -> str:
    """A one-line list of quoted scalars, ``["paper-conference"]`` (a plain scalar inside brackets is
    read by flow rules: ``[A?]`` does not parse)."""
    return "[" + ", ".join(double_quoted(item) for item in items) + "]"


@dataclass
class _Span:
    """The lines (0-based, end exclusive, within the front matter) a top-level key's item spans."""

    start: int
    end: int


@dataclass
class FrontMatter:
    """A Markdown file split into its front matter's lines and the rest, kept as bytes.

    ``values`` is the front matter as YAML reads it; ``set`` edits the lines; ``render`` gives the
    file back, byte-identical where nothing was set."""

    head: bytes  # the opening fence line, as written (a BOM, its line ending)
    lines: list[str]  # the front matter's lines, each with its line ending
    tail: bytes  # the closing fence line and the body, as written
    values: dict[str, Any]
    spans: dict[str, _Span]
    newline: str = "\n"
    editable: bool = True  # YAML; TOML front matter (``+++``, older Hugo Academic sites) is read, never edited

    @classmethod
    def parse(cls, data: bytes) -> FrontMatter:
        """The front matter of ``data``; ``BadTarget`` when it has none or it is not a mapping."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise BadTarget(f"not UTF-8 (byte {error.start})") from None
        all_lines = text.splitlines(keepends=True)
        fence = all_lines[0].lstrip("\ufeff").rstrip() if all_lines else ""
        if fence not in (FENCE, TOML_FENCE):
            raise BadTarget("no front matter: the file does not start with ---")
        close = next((i for i, line in enumerate(all_lines[1:], 1)
                      if line.rstrip() in ((FENCE, "...") if fence == FENCE else (TOML_FENCE,))), None)
        if close is None:
            raise BadTarget(f"the front matter has no closing {fence}")
        lines = all_lines[1:close]
        values, spans = _read(lines) if fence == FENCE else (_read_toml(lines), {})
        newline = "\r\n" if all_lines[0].endswith("\r\n") else "\n"
        return cls(all_lines[0].encode(), lines, "".join(all_lines[close:]).encode(), values, spans, newline,
                   editable=fence == FENCE)

    @classmethod
    def absent(cls, data: bytes) -> FrontMatter:
        """A file without front matter, as an empty one that is never edited (``render`` gives ``data``)."""
        return cls(data, [], b"", {}, {}, editable=False)

    def has(self, key: str) -> bool:
        """Whether the front matter holds ``key``, or holds it commented out (``#key: ...``)."""
        return key in self.values or any(
            (m := _COMMENTED_KEY.match(line)) and m.group(1) == key for line in self.lines)

    def set(self, key: str, value: str) -> None:
        """Write ``key: value`` (``value`` already YAML, ``yaml_scalar``'s or a list's) in place of
        the key's lines, or as new lines before the closing fence. TOML front matter is not edited."""
        if not self.editable:
            raise BadTarget("TOML front matter is read, not edited")
        new = [line + self.newline for line in f"{key}: {value}".replace(": \n", ":\n", 1).split("\n")]
        if key not in self.spans:
            if self.lines and not self.lines[-1].endswith("\n"):
                self.lines[-1] += self.newline
            start = len(self.lines)
            self.lines += new
            self.spans[key] = _Span(start, start + len(new))
            return
        span = self.spans[key]
        self.lines[span.start:span.end] = new
        shift = len(new) - (span.end - span.start)
        for other in self.spans.values():
            if other.start > span.start:
                other.start += shift
                other.end += shift
        span.end = span.start + len(new)

    def render(self) -> bytes:
        """The whole file: the fences and body as read, the front matter's lines as edited."""
        return self.head + "".join(self.lines).encode() + self.tail


def _read(lines: list[str]) -> tuple[dict[str, Any], dict[str, _Span]]:
    """The front matter's values, and the lines each top-level key spans (from its key to its
    value's last line, leaving out the blank and comment lines after it)."""
    text = "".join(lines)
    try:
        node = yaml.compose(text, Loader=_LOADER)
        values = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as error:
        # where the construct the parser gave up on began (an unclosed quote's line), else where it gave up
        mark = getattr(error, "context_mark", None) or getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise BadTarget(f"the front matter is not valid YAML{where}") from None
    if node is None:
        return {}, {}
    if not isinstance(node, yaml.MappingNode) or not isinstance(values, dict):
        raise BadTarget("the front matter is not a mapping of keys to values")
    spans: dict[str, _Span] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.value in spans:
            raise BadTarget(f"the front matter's key {key_node.value!r} is not a single plain key")
        end_mark = value_node.end_mark
        end = end_mark.line + (1 if end_mark.column > 0 else 0)
        while end > key_node.start_mark.line + 1 and _filler(lines[end - 1]):
            end -= 1
        spans[str(key_node.value)] = _Span(key_node.start_mark.line, end)
    return {str(k): v for k, v in values.items()}, spans


def _read_toml(lines: list[str]) -> dict[str, Any]:
    """The values of TOML front matter."""
    try:
        return tomllib.loads("".join(lines))
    except tomllib.TOMLDecodeError as error:
        raise BadTarget(f"the front matter is not valid TOML ({error})") from None


def _filler(line: str) -> bool:
    """A blank line, or a comment at the line's start: not part of the value before it (an indented
    line may be a block scalar's text)."""
    return not line.strip() or line.startswith("#")
