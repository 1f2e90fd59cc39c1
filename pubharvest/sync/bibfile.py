r"""A user's ``.bib`` file as spans of its own text, so that a field can be set or added in one entry
without touching any other byte: comments, ``@string`` and ``@preamble`` blocks, ``@comment``\ s,
spacing, braces, quotes, line ends (CRLF or not, per entry), a byte order mark, Jekyll's ``---``
front matter and bytes that are not UTF-8 all come back as they were.

An entry's fields keep their exact source text; values are never expanded (``@string`` macros, ``#``
concatenations stay as written). A field added follows the entry's own style: its indentation, the
spacing around ``=`` (aligned ``=`` columns too), the case of its field names, its line end, and
whether the last field ends with a comma.

>>> doc = BibDocument.parse(b"% mine\n@string{acm = {ACM}}\n@article{k1,\n    title  = {A},\n    year   = 2020\n}\n")
>>> entry = doc.entries()[0]
>>> entry.key, [f.name for f in entry.fields], doc.literal(entry.field("year"))
('k1', ['title', 'year'], '2020')
>>> print(doc.edited({entry: [("doi", "10.1/x")]}).decode(), end="")
% mine
@string{acm = {ACM}}
@article{k1,
    title  = {A},
    year   = 2020,
    doi    = {10.1/x}
}
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import BadTarget

BOM = b"\xef\xbb\xbf"
_AT_BLOCK = re.compile(r"@[ \t]*([A-Za-z][\w-]*)\s*([{(])")
_KEY = re.compile(r"[^\s,{}()=\"#%]+")
_NAME = re.compile(r"[^\s,{}()=\"#%]+")
_BARE = re.compile(r"[^\s,{}()=\"#%]+")  # a number or a macro name
_FRONT_MATTER = re.compile(r"---[ \t]*\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|$)", re.S)
_CLOSE = {"{": "}", "(": ")"}
_INDENT, _EQUALS = "  ", " = "


@dataclass(frozen=True, eq=False)
class Field:
    """One ``name = value`` of an entry, as offsets into the document's text."""

    name: str  # as written
    start: int
    name_end: int
    value_start: int
    value_end: int
    comma_end: int | None  # just after the comma that follows the value; None when none does

    @property
    def lower(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, eq=False)
class Entry:
    """``@type{key, fields}``: ``start`` is its ``@``, ``close`` the offset of its closing delimiter."""

    type: str
    key: str | None  # None: an entry without a key (kept, never edited)
    start: int
    body_start: int  # just after the opening delimiter
    key_end: int  # after the key (and its comma, when one follows)
    key_comma: bool
    close: int
    fields: list[Field] = field(default_factory=list)

    def field(self, name: str) -> Field | None:
        """The first field named ``name`` (any case)."""
        return next((f for f in self.fields if f.lower == name.lower()), None)


@dataclass
class BibDocument:
    """A ``.bib`` file's text (decoded with ``surrogateescape``: any byte comes back) and its entries."""

    text: str
    bom: bool
    blocks: list[tuple[str, int, int]]  # (kind, start, end): "text", "string", "preamble", "comment", "entry"
    _entries: list[Entry]

    @classmethod
    def parse(cls, data: bytes) -> BibDocument:
        """The document of ``data``; ``BadTarget`` (with the line) when it is no BibTeX."""
        if b"\x00" in data[:8192]:
            raise BadTarget("a binary file, not a .bib")
        bom = data.startswith(BOM)
        text = data[len(BOM) if bom else 0:].decode("utf-8", "surrogateescape")
        return _Parser(text).document(bom)

    def entries(self) -> list[Entry]:
        return list(self._entries)

    def source(self, start: int, end: int) -> str:
        return self.text[start:end]

    def value_text(self, f: Field) -> str:
        """The value exactly as written (``{A}``, ``"A"``, ``2020``, ``acm # " 2020"``)."""
        return self.text[f.value_start:f.value_end]

    def literal(self, f: Field | None) -> str | None:
        """The value of one braced or quoted piece, or a bare number, without its delimiters; None for
        a macro or a concatenation (never expanded), or no field."""
        if f is None:
            return None
        value = self.value_text(f)
        if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"')) and _one_piece(value):
            return value[1:-1]
        return value if value.isdigit() else None

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def to_bytes(self, text: str | None = None) -> bytes:
        return (BOM if self.bom else b"") + (self.text if text is None else text).encode("utf-8", "surrogateescape")

    def edited(self, additions: Mapping[Entry, Sequence[tuple[str, str]]] = {},
               updates: Mapping[Field, str] = {}, appended: Sequence[str] = ()) -> bytes:
        """The file with each field of ``updates`` given a new value (``{value}``), the ``(name, value)``
        pairs of ``additions`` added to their entries in each entry's style, and the entries of
        ``appended`` (``@type{key, ...}`` text, a field a line) at the end in the file's style; every
        other byte as it was."""
        edits = [(f.value_start, f.value_end, "{" + value + "}") for f, value in updates.items()]
        for entry, pairs in additions.items():
            if pairs:
                edits.append(_addition(self.text, entry, pairs))
        text = self.text
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        if appended:
            text += _appended(self.text, text, self._entries, appended)
        return self.to_bytes(text)


def _one_piece(value: str) -> bool:
    """Whether a delimited value is one piece (``{a} # {b}`` is two)."""
    if value[0] == '"':
        return '"' not in value[1:-1].replace('\\"', "") or _balanced_quote_end(value) == len(value) - 1
    depth = 0
    for at, char in enumerate(value):
        depth += (char == "{") - (char == "}")
        if depth == 0:
            return at == len(value) - 1
    return False


def _balanced_quote_end(value: str) -> int:
    depth = 0
    for at in range(1, len(value)):
        char = value[at]
        depth += (char == "{") - (char == "}")
        if char == '"' and depth == 0:
            return at
    return -1


class _Parser:
    """BibTeX's lexical rules, as bibtex and biber read a file: outside an ``@`` block everything is a
    comment; ``%`` starts a comment line there and between fields; values are braced (balanced),
    quoted (braces balanced inside), numbers or macro names, joined by ``#``."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def document(self, bom: bool) -> BibDocument:
        blocks: list[tuple[str, int, int]] = []
        entries: list[Entry] = []
        text = self.text
        if front := _FRONT_MATTER.match(text):  # Jekyll's front matter (al-folio's papers.bib opens with one)
            blocks.append(("text", 0, front.end()))
            self.pos = front.end()
        text_start = self.pos
        while self.pos < len(text):
            char = text[self.pos]
            if char == "%":
                self._skip_line()
                continue
            match = _AT_BLOCK.match(text, self.pos) if char == "@" else None
            if match is None:
                self.pos += 1
                continue
            if self.pos > text_start:
                blocks.append(("text", text_start, self.pos))
            kind = match.group(1).lower()
            start, self.pos = self.pos, match.end()
            if kind in ("comment", "string", "preamble"):
                self._balanced(match.group(2))
                blocks.append((kind, start, self.pos))
            else:
                entries.append(self._entry(match.group(1), start, match.group(2)))
                blocks.append(("entry", start, self.pos))
            text_start = self.pos
        if text_start < len(text):
            blocks.append(("text", text_start, len(text)))
        return BibDocument(text, bom, blocks, entries)

    def _fail(self, what: str, at: int | None = None) -> BadTarget:
        line = self.text.count("\n", 0, self.pos if at is None else at) + 1
        return BadTarget(f"not BibTeX that bibtex or biber reads: line {line}: {what}")

    def _skip_line(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end + 1

    def _skip_space(self, comments: bool = True) -> None:
        text = self.text
        while self.pos < len(text):
            if text[self.pos].isspace():
                self.pos += 1
            elif comments and text[self.pos] == "%":
                self._skip_line()
            else:
                return

    def _balanced(self, opener: str) -> None:
        """Move past the block whose opening delimiter was just read."""
        start, closer, depth = self.pos - 1, _CLOSE[opener], 1
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            self.pos += 1
            if char == opener or (opener == "(" and char == "{"):
                depth += 1
            elif char == closer or (opener == "(" and char == "}"):
                depth -= 1
                if depth == 0:
                    return
        raise self._fail("a block that never closes (unbalanced braces)", start)

    def _entry(self, kind: str, start: int, opener: str) -> Entry:
        text, closer = self.text, _CLOSE[opener]
        body_start = self.pos
        self._skip_space()
        key: str | None = None
        key_end, key_comma = body_start, False
        if (match := _KEY.match(text, self.pos)) is not None:
            after = self.pos
            self.pos = match.end()
            self._skip_space()
            if self.pos < len(text) and text[self.pos] == "=":  # no key: that was a field's name
                self.pos = after
            else:
                key, key_end = match.group(), match.end()
                if self.pos < len(text) and text[self.pos] == ",":
                    self.pos += 1
                    key_end, key_comma = self.pos, True
                elif self.pos >= len(text) or text[self.pos] != closer:
                    raise self._fail(f"a comma after the key {key!r} expected")
        fields: list[Field] = []
        while True:
            self._skip_space()
            if self.pos >= len(text):
                raise self._fail(f"entry {key or kind!r} never closes", start)
            if text[self.pos] == closer:
                self.pos += 1
                return Entry(kind, key, start, body_start, key_end, key_comma, self.pos - 1, fields)
            fields.append(self._field(closer, key or kind))

    def _field(self, closer: str, entry: str) -> Field:
        text = self.text
        match = _NAME.match(text, self.pos)
        if match is None:
            raise self._fail(f"a field name expected in entry {entry!r}")
        start, name_end = self.pos, match.end()
        self.pos = name_end
        self._skip_space()
        if self.pos >= len(text) or text[self.pos] != "=":
            raise self._fail(f"'=' expected after {match.group()!r} in entry {entry!r}")
        self.pos += 1
        self._skip_space()
        value_start = self.pos
        self._piece(entry)
        value_end = self.pos
        while True:
            self._skip_space()
            if self.pos < len(text) and text[self.pos] == "#":
                self.pos += 1
                self._skip_space()
                self._piece(entry)
                value_end = self.pos
                continue
            break
        if self.pos < len(text) and text[self.pos] == ",":
            self.pos += 1
            return Field(match.group(), start, name_end, value_start, value_end, self.pos)
        if self.pos < len(text) and text[self.pos] == closer:
            return Field(match.group(), start, name_end, value_start, value_end, None)
        raise self._fail(f"',' or the entry's end expected after field {match.group()!r} of {entry!r}")

    def _piece(self, entry: str) -> None:
        text = self.text
        if self.pos >= len(text):
            raise self._fail(f"a value expected in entry {entry!r}")
        char = text[self.pos]
        if char == "{":
            self.pos += 1
            self._balanced("{")
        elif char == '"':
            start, depth = self.pos, 0
            self.pos += 1
            while self.pos < len(text) and not (text[self.pos] == '"' and depth == 0):
                depth += (text[self.pos] == "{") - (text[self.pos] == "}")
                self.pos += 1
            if self.pos >= len(text):
                raise self._fail("a quoted value that never closes", start)
            self.pos += 1
        elif match := _BARE.match(text, self.pos):
            self.pos = match.end()
        else:
            raise self._fail(f"a value expected in entry {entry!r}")


# --- the style of an entry, and what is added in it --------------------------------------------


@dataclass(frozen=True)
class Style:
    """How an entry lays out its fields: what a field added to it is written with."""

    newline: str = "\n"
    indent: str = _INDENT  # before a field's name on its line; for a one-line entry, the separator
    equals: str = _EQUALS  # between the name and its value (after padding for aligned columns)
    column: int | None = None  # the names padded to this width: the entry aligns its "=" signs
    trailing_comma: bool = True
    upper: bool = False  # the field names are written in capitals
    one_line: bool = False

    def line(self, name: str, value: str) -> str:
        return f"{self.name(name)}{self.equals}{{{value}}}"

    def name(self, name: str) -> str:
        """``name`` in the entry's case, padded to its column of "=" signs."""
        name = name.upper() if self.upper else name
        if self.column is None:
            return name
        return name.ljust(self.column) if len(name) < self.column else name + " "


def entry_style(text: str, entry: Entry) -> Style:
    """The style ``entry`` (in the document ``text``) writes its fields in; the defaults when it has none."""
    own = text[entry.start:entry.close + 1]
    newline = "\r\n" if "\r\n" in own else "\n"
    fields = entry.fields
    if not fields:
        return Style(newline=newline)
    last = fields[-1]
    lined = [f for f in fields if _line_prefix(text, f.start).strip() == ""]
    one_line = "\n" not in text[entry.body_start:last.start]
    names = [f.name for f in fields]
    upper = all(n.upper() == n for n in names) and any(n.lower() != n for n in names)
    trailing = last.comma_end is not None
    equals = text[last.name_end:last.value_start]
    if one_line or not lined:
        gap = text[fields[-2].comma_end or fields[-2].value_end:last.start] if len(fields) > 1 else " "
        return Style(newline, gap if gap.strip() == "" and gap else " ", (equals.strip() and equals) or "=",
                     trailing_comma=trailing, upper=upper, one_line=True)
    indent = _line_prefix(text, lined[-1].start)
    column = _aligned_column(text, lined)
    if column is not None:
        equals = text[last.name_end:last.value_start].lstrip(" \t")
    return Style(newline, indent, equals, column, trailing, upper)


def _line_prefix(text: str, at: int) -> str:
    """What stands on ``at``'s line before it."""
    return text[text.rfind("\n", 0, at) + 1:at]


def _aligned_column(text: str, lined: Sequence[Field]) -> int | None:
    """The width names are padded to when the fields on their own lines put "=" at one offset from
    their names' start, with padding that differs (``title  = {...}``, ``year   = 2020``); else None."""
    equals_at = [text.index("=", f.name_end) for f in lined]
    offsets = {at - f.start for f, at in zip(lined, equals_at, strict=True)}
    gaps = {text[f.name_end:at] for f, at in zip(lined, equals_at, strict=True)}
    return offsets.pop() if len(lined) > 1 and len(offsets) == 1 and len(gaps) > 1 else None


def _addition(text: str, entry: Entry, pairs: Sequence[tuple[str, str]]) -> tuple[int, int, str]:
    """The edit ``(start, end, new text)`` that adds ``pairs`` to ``entry`` in its style."""
    style = entry_style(text, entry)
    lead = style.indent if style.one_line else style.newline + style.indent
    lines = [lead + style.line(name, value) for name, value in pairs]
    if not entry.fields:
        at = entry.key_end
        new = ("" if entry.key_comma else ",") + ",".join(lines) + ","
        return at, at, new + ("" if "\n" in text[at:entry.close] else style.newline)
    last = entry.fields[-1]
    if last.comma_end is None:
        return last.value_end, last.value_end, "".join("," + line for line in lines)
    at = _line_end(text, last.comma_end, entry.close) if not style.one_line else last.comma_end
    return at, at, "".join(line + "," for line in lines)


def _line_end(text: str, at: int, close: int) -> int:
    """Where to add after a comma at ``at``: the end of its line when the rest of the line is blank or a
    ``%`` comment (which stays with the field it follows), else ``at``."""
    end = text.find("\n", at, close + 1)
    if end < 0:
        return at
    rest = text[at:end].rstrip("\r")
    if rest.strip() == "" or rest.lstrip().startswith("%"):
        return end - 1 if text[end - 1] == "\r" and end - 1 >= at else end
    return at


def _appended(source: str, text: str, entries: Sequence[Entry], appended: Sequence[str]) -> str:
    """The text that adds the entries ``appended`` (pubharvest's writer's layout: ``@type{key,``, a
    field a line, ``}``) after ``text`` (the file once edited), in the style of the file's last entry
    with fields (``entries`` are offsets into ``source``, the file as read), a blank line before each."""
    styled = next((e for e in reversed(entries) if e.fields and e.key is not None), None)
    style = entry_style(source, styled) if styled else Style(newline=_file_newline(source))
    if style.one_line:  # a file of one-line entries: new entries take the usual layout
        style = Style(newline=style.newline)
    newline = style.newline
    if not text.strip():
        lead = "" if not text or text.endswith("\n") else newline
    else:
        blank = text.endswith(("\n\n", "\r\n\r\n"))
        lead = "" if blank else newline if text.endswith("\n") else newline * 2
    return lead + newline.join(_restyled(entry, style) + newline for entry in appended)


def _restyled(entry: str, style: Style) -> str:
    """An entry of pubharvest's writer with its field lines in ``style``."""
    doc = _Parser(entry).document(False)
    parsed = doc.entries()[0]
    head = entry[:parsed.key_end]
    lines = [style.newline + style.indent + _field_line(doc, f, style) for f in parsed.fields]
    commas = [","] * len(lines)
    if lines and not style.trailing_comma:
        commas[-1] = ""
    return head + "".join(line + comma for line, comma in zip(lines, commas, strict=True)) + style.newline + "}"


def _field_line(doc: BibDocument, f: Field, style: Style) -> str:
    return f"{style.name(f.name)}{style.equals}{doc.value_text(f)}"


def _file_newline(text: str) -> str:
    counts = Counter("\r\n" if text[at - 1:at] == "\r" else "\n" for at in _newlines(text))
    return counts.most_common(1)[0][0] if counts else "\n"


def _newlines(text: str) -> list[int]:
    return [m.start() for m in re.finditer("\n", text)]
