"""Numbers read by their shape: a count is what is plainly a non-negative whole number, in any one
script's decimal digits, with any one grouping separator between groups of three; a year is four
such digits in a plausible range. Anything else (a decimal, a sign, an exponent, ``1.2K``, a word,
a dash, ``N/A``) is no number: the field is null and the cell is named in a warning.

>>> read_count("18,747"), read_count("18.747"), read_count("١٢٬٣٤٥"), read_count("1 234 567")
(18747, 18747, 12345, 1234567)
>>> read_count("1.2K"), read_count("12.5"), read_count("1e3"), read_count("-5"), read_count("N/A"), read_count("²")
(None, None, None, None, None, None)
>>> read_year("2007"), read_year("20O7"), read_year("207")
(2007, None, None)
>>> count_in("10 articles"), count_in("Cited by 1 234"), count_in("1.2K citations"), count_in("Cited by -5")
(10, 1234, None, None)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from .records import MAX_COUNT, YEARS, PageResult
from .warning_codes import Warn

__all__ = ["read_count", "read_year", "count_in", "why_not_count", "digits_count", "digits_year", "Cells", "MAX_COUNT",
           "YEARS"]

# Between groups of three: comma, full stop, space, no-break and thin spaces, apostrophes (Swiss), Arabic thousands.
_SEPARATORS = frozenset(",. \u00a0\u202f\u2009'\u2019\u066c")
# A word holding a digit, and the groups of three after it that spaces set apart ("1 234 567").
_NUMBER_WORD = re.compile(r"\S*\d\S*(?:[ \u00a0\u202f\u2009]\d{3}(?!\S))*")
_BRACKETS = "()[]\uff08\uff09"  # with the fullwidth parentheses of CJK pages
_LABEL_END = re.compile("^.*[:\uff1a]")  # "label:5", with an ASCII or a fullwidth colon


# The counts pages almost always hold: ASCII digits, ungrouped or in groups of three set apart by one ASCII
# separator of ``_SEPARATORS``. ``_groups`` reads these too, one character at a time.
_ASCII_COUNT = re.compile(r"\d+|\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{3})+|\d{1,3}(?: \d{3})+|\d{1,3}(?:'\d{3})+",
                          re.ASCII)
_ASCII_SEPARATORS = str.maketrans("", "", ",. '")


def _plain_count(text: str) -> int | None:
    """The count ``text`` (stripped) is when it is written in ASCII digits as ``why_not_count`` allows and is
    no larger than any count can be; None otherwise (for ``why_not_count`` to say why, or to read it).

    >>> _plain_count("18,747"), _plain_count("1 234"), _plain_count("1,2345"), _plain_count("١٢"), _plain_count("")
    (18747, 1234, None, None, None)
    """
    if not text.isascii() or _ASCII_COUNT.fullmatch(text) is None:
        return None
    value = int(text.translate(_ASCII_SEPARATORS))
    return value if value <= MAX_COUNT else None


def digits_count(text: str | None) -> int | None:
    """The count ``text`` is when it is nothing but ASCII digits, as almost every cell is; None for any other
    text (``read_count`` reads those). A shortcut a page with hundreds of cells takes before ``Cells.count``.

    >>> digits_count("0123"), digits_count("1,234"), digits_count(""), digits_count("١٢")
    (123, None, None, None)
    """
    if text and text.isdigit() and text.isascii():
        value = int(text)
        return value if value <= MAX_COUNT else None
    return None


def digits_year(text: str | None) -> int | None:
    """The year ``text`` is when it is four ASCII digits of a year in ``YEARS``; None for any other text
    (``read_year`` reads those).

    >>> digits_year("2007"), digits_year(" 2007"), digits_year("1066")
    (2007, None, None)
    """
    if text and len(text) == 4 and text.isdigit() and text.isascii():
        value = int(text)
        return value if value in YEARS else None
    return None


def why_not_count(text: str) -> str | None:
    """Why ``text`` (stripped) is not plainly a count, or None when it is one.

    >>> why_not_count("1,234"), why_not_count("1,2345"), why_not_count("1٢3"), why_not_count("")
    (None, 'its digit groups are not of three', 'it mixes digits of different scripts', 'it is empty')
    """
    if not text:
        return "it is empty"
    groups, separator = _groups(text)
    if groups is None:
        return "it is not a whole number written in digits"
    if separator is not None and (not 1 <= len(groups[0]) <= 3 or any(len(g) != 3 for g in groups[1:])):
        return "its digit groups are not of three"
    zeros = {ord(c) - unicodedata.decimal(c) for group in groups for c in group}
    if len(zeros) > 1:
        return "it mixes digits of different scripts"
    if _value(groups) > MAX_COUNT:
        return f"it is larger than {MAX_COUNT}, more than any count can be"
    return None


def _groups(text: str) -> tuple[list[str] | None, str | None]:
    """The digit groups of ``text`` and the one separator between them (None when there is none), or
    ``(None, None)`` when it holds anything but decimal digits and one kind of separator."""
    groups, separator, current = [], None, ""
    for char in text:
        if char.isdecimal():
            current += char
        elif char in _SEPARATORS and current and separator in (None, char):
            groups.append(current)
            separator, current = char, ""
        else:
            return None, None
    if not current:
        return None, None
    return [*groups, current], separator


def _value(groups: list[str]) -> int:
    value = 0
    for char in "".join(groups):
        value = value * 10 + unicodedata.decimal(char)
    return value


def read_count(text: str | None) -> int | None:
    """The count ``text`` plainly is, or None."""
    if text is None:
        return None
    text = text.strip()
    plain = _plain_count(text)
    if plain is not None:
        return plain
    return None if why_not_count(text) else _value(_groups(text)[0] or [])


def read_year(text: str | None) -> int | None:
    """The year ``text`` plainly is (four digits in ``YEARS``), or None."""
    text = (text or "").strip()
    value = read_count(text) if len(text) == 4 else None
    return value if value in YEARS else None


def count_in(text: str | None) -> int | None:
    """The one count written in ``text`` as a word of its own, whatever label is around it (``"10 articles"``,
    ``"Cited by 5"``, ``"(5)"``, a label and a colon before it), or None: when no word, or more than one, holds digits.

    >>> count_in("\u88ab\u5f15\u7528\u6b21\u6570\uff1a5"), count_in("Cited by 3 of 4")
    (5, None)
    """
    words = _NUMBER_WORD.findall(text or "")
    return read_count(_LABEL_END.sub("", words[0]).strip(_BRACKETS)) if len(words) == 1 else None


@dataclass
class Cells:
    """The numbers of one page read cell by cell: a cell that is not plainly a number is null and is
    remembered, so that one warning names them all.

    >>> cells, result = Cells(), PageResult(site="scholar", page="rows")
    >>> cells.count("1.2K", "row 3 citations"), cells.year("2019", "row 3 year"), cells.count("", "row 4 citations", 0)
    (None, 2019, 0)
    >>> cells.report(result); result.warnings[0].message
    "row 3 citations: '1.2K' is not a number (it is not a whole number written in digits): that field is null"
    """

    unread: list[tuple[str, str, str]] = field(default_factory=list)  # (cell, text, why)

    def count(self, text: str | None, cell: str, empty: int | None = None) -> int | None:
        """The count in ``text``; ``empty`` for a cell with no text at all (Scholar's empty cited-by cell is 0)."""
        plain = digits_count(text)
        if plain is not None:
            return plain
        stripped = (text or "").strip()
        if not stripped and empty is not None:
            return empty
        plain = _plain_count(stripped)
        if plain is not None:
            return plain
        why = why_not_count(stripped)
        if why is None:
            return _value(_groups(stripped)[0] or [])
        self.unread.append((cell, stripped, why))
        return None

    def year(self, text: str | None, cell: str) -> int | None:
        plain = digits_year(text)
        if plain is not None:
            return plain
        stripped = (text or "").strip()
        year = read_year(stripped)
        if year is None:
            self.unread.append((cell, stripped, f"it is not a year from {YEARS.start} to {YEARS.stop - 1}"))
        return year

    def count_in(self, text: str | None, cell: str) -> int | None:
        """The one count in ``text`` (``count_in``), remembered as unread when there is none (a missing
        element, None, is no cell)."""
        if text is None:
            return None
        value = count_in(text)
        if value is None:
            self.unread.append((cell, text.strip()[:40], "it holds no one whole number"))
        return value

    def report(self, result: PageResult, limit: int = 10) -> None:
        """One ``number_unreadable`` warning on ``result`` naming the cells that were no number (the first
        ``limit``)."""
        if not self.unread:
            return
        named = "; ".join(f"{cell}: {text!r} is not a number ({why})" for cell, text, why in self.unread[:limit])
        more = f"; and {len(self.unread) - limit} more cells" if len(self.unread) > limit else ""
        result.warn(Warn.number_unreadable, f"{named}{more}: that field is null")
        self.unread.clear()
