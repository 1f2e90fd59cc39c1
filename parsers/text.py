"""Small text helpers shared by the site parsers.

>>> clean("  Deep\\u00a0 learning \\n at  scale ")
'Deep learning at scale'
>>> to_int("18.747"), to_int(""), to_int("1,234*")
(18747, None, 1234)
"""

from __future__ import annotations

import contextlib
import functools
import gc
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import urljoin

if TYPE_CHECKING:
    from pylatexenc.latex2text import LatexNodes2Text

__all__ = [
    "clean", "clean_or_none", "to_int", "leading_int", "find_year", "MONTHS", "iso_date",
    "find_isbn", "find_report_number", "strip_braces", "clean_title", "without_cut_mark", "split_names",
    "is_initials",
    "title_key", "absolute_url", "web_address", "paused_gc", "findall_from",
]

# Bidi controls, and the invisible characters that carry nothing in a name or title: zero-width
# space, soft hyphen, byte-order mark (zero-width joiners stay: Persian and Indic text needs them).
_BIDI = dict.fromkeys([0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200B, 0x00AD, 0xFEFF])
# A variation selector that follows no character it could select (a space, the start): left over
# from an emoji or a glyph variant Scholar dropped.
_SELECTORS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
_STRAY_SELECTOR = re.compile(rf"(?:(?<=\s)|^)[{_SELECTORS}]+")
# Any character ``clean`` drops: text without one (nearly all) skips both passes.
_INVISIBLE = re.compile(f"[{''.join(map(chr, _BIDI))}{_SELECTORS}]")
_DIGITS = re.compile(r"\d+")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_ISBN = re.compile(r"\b(97[89][-\s]?(?:\d[-\s]?){9}\d|(?:\d[-\s]?){9}[\dXx])\b")
_REPORT = re.compile(r"\bMSR-TR-\d{4}-\d+\b")
_NOT_WORD = re.compile(r"[\W_]+")
# ASCII that is no letter or digit, deleted by ``bytes.translate`` (5x faster than ``str.translate``'s table)
_ASCII_NOT_WORD = bytes(c for c in range(128) if not chr(c).isalnum())
# Scholar writes a title's LaTeX with a space after each backslash: "{\\ it Planck}", "$\\ to\\ mathrm {J}$".
_SPACED_COMMAND = re.compile(r"\\ (?=[A-Za-z])")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z\"'`^~=.]")  # a command word or an accent
_BARE_PERCENT = re.compile(r"(?<!\\)%")


def clean(text: str | None) -> str:
    """Text without bidi marks and invisible characters, all whitespace runs made single spaces.

    >>> clean("Grundgleichungen\u2026\u201d \ufe01"), clean("\ufeffzero\u200bwidth soft\u00adhyphen")
    ('Grundgleichungen…”', 'zerowidth softhyphen')
    """
    if not text:
        return ""
    if not text.isascii() and _INVISIBLE.search(text):
        text = _STRAY_SELECTOR.sub("", text.translate(_BIDI))
    return " ".join(text.split())


def clean_or_none(text: str | None) -> str | None:
    """Like ``clean`` but ``None`` for text that is empty once cleaned."""
    return clean(text) or None


def to_int(text: str | None) -> int | None:
    """The integer in ``text`` with any grouping (``18,747``, ``18.747``, ``18 747``) removed; None if none."""
    if text is None:
        return None
    if text.isdigit():
        return int(text)
    digits = "".join(_DIGITS.findall(text))
    return int(digits) if digits else None


def leading_int(text: str | None) -> int | None:
    """The first run of digits (with grouping) in ``text``: ``"10 articles"`` -> 10."""
    if not text:
        return None
    match = re.search(r"\d[\d,.\u00a0\u202f ]*", text)
    return to_int(match.group()) if match else None


def find_year(text: str | None) -> int | None:
    """The first plausible four-digit year in ``text``."""
    match = _YEAR.search(text or "")
    return int(match.group(1)) if match else None


MONTHS: tuple[str, ...] = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                           "october", "november", "december")
# The months of the languages dates in words come in (English, Spanish, German, French, Portuguese, Italian,
# Dutch); a name shared by two languages means the same month in both.
_MONTH_NAMES = (MONTHS,
                ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
                 "noviembre", "diciembre"),
                ("januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober",
                 "november", "dezember"),
                ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
                 "novembre", "décembre"),
                ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
                 "novembro", "dezembro"),
                ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
                 "ottobre", "novembre", "dicembre"),
                ("januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober",
                 "november", "december"))
_MONTH_NUMBERS = {name: number for names in _MONTH_NAMES for number, name in enumerate(names, 1)}


def month_number(name: str) -> int | None:
    """The month a name says in any language of ``_MONTH_NAMES``, or None.

    >>> month_number("November"), month_number("noviembre"), month_number("März"), month_number("Brumaire")
    (11, 11, 3, None)
    """
    return _MONTH_NUMBERS.get(name.lower())


def iso_date(year: int | str, month: str | None = None, day: int | str | None = None) -> str | None:
    """An ISO date as precise as the parts given, from an English month name; None for an unknown month.

    >>> iso_date(2024, "May"), iso_date("2026", "November", 2), iso_date(2021), iso_date(2021, "Mai")
    ('2024-05', '2026-11-02', '2021', None)
    """
    if month is None:
        return str(year)
    if month.lower() not in MONTHS:
        return None
    date = f"{year}-{MONTHS.index(month.lower()) + 1:02d}"
    return f"{date}-{int(day):02d}" if day is not None else date


def find_isbn(text: str | None) -> str | None:
    match = _ISBN.search(text or "")
    return match.group(1) if match else None


def find_report_number(text: str | None) -> str | None:
    match = _REPORT.search(text or "")
    return match.group() if match else None


def strip_braces(text: str) -> str:
    """BibTeX protective braces removed: ``{Zero-offload}: ...`` -> ``Zero-offload: ...``."""
    return text.replace("{", "").replace("}", "")


def clean_title(text: str) -> str:
    """A title without inline markup, LaTeX commands or BibTeX braces; a LaTeX symbol becomes its
    character, and a command never joins the words around it.

    >>> clean_title("Die {\\\\ it Planck} sche  {Zero-offload}")
    'Die Planck sche Zero-offload'
    >>> clean_title("Decay $B\\\\ to\\\\ mathrm {J}/\\\\psi$ at 50% of {\\\\'o}")
    'Decay B→J/ψ at 50% of ó'
    """
    if "\\" in text and (_LATEX_COMMAND.search(text) or "\\ " in text):  # both need a backslash
        text = _latex_to_text(_BARE_PERCENT.sub(r"\\%", _SPACED_COMMAND.sub(r"\\", text)))
    return clean(strip_braces(text))


def _latex_to_text(text: str) -> str:
    """LaTeX rendered as plain Unicode text by pylatexenc (only called for text with a command)."""
    try:
        return str(_latex_renderer().latex_to_text(text))
    except Exception:  # pylatexenc gives up on some malformed input: keep the text as written
        return text


@functools.cache
def _latex_renderer() -> LatexNodes2Text:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


_CUT_MARK = re.compile(r"[\s,]*(?:\.\.\.|…)$")


def without_cut_mark(text: str) -> tuple[str, bool]:
    """``text`` without the mark Scholar puts where it cut it short (``...`` in 2014–2017, ``…``
    later, after a space or a no-break space), and whether it had one.

    >>> without_cut_mark("Journal of High Performance Computing Applications 27 (3 ..."), without_cut_mark("ab…")
    (('Journal of High Performance Computing Applications 27 (3', True), ('ab', True))
    >>> without_cut_mark("Deep learning")
    ('Deep learning', False)
    """
    if not text.endswith(("...", "…")):
        return text, False
    return _CUT_MARK.sub("", text), True


_ET_AL = ("et al.", "et al")
_AND = ("and", "&")


def split_names(text: str | None) -> tuple[list[str], bool]:
    """Names of a comma-separated author list, and whether the list was cut (``...``, ``et al.``).

    >>> split_names("A Fan, C Akiki, ...")
    (['A Fan', 'C Akiki'], True)
    >>> split_names("E Demir, T Van Woensel, and et al."), split_names("A Fan and B Li")
    ((['E Demir', 'T Van Woensel'], True), (['A Fan and B Li'], False))
    >>> split_names("")
    ([], False)
    """
    names = [part.strip() for part in clean(text).split(",")]
    # Only the list's end can be cut ("..., ...", "... et al.") or joined by "and".
    last, truncated = without_cut_mark(names[-1])
    for tail in _ET_AL:
        if last.endswith(tail):
            last, truncated = last[: -len(tail)].strip(), True
            break
    words = last.split(" ")
    if words[0].lower() in _AND:  # ", and B Li"
        words = words[1:]
    if truncated and words and words[-1].lower() in _AND:  # "B Li & …"
        words = words[:-1]
    names[-1] = " ".join(words)
    return [name for name in names if name], truncated


def is_initials(word: str) -> bool:
    """Whether ``word`` is a run of one to four capital initials, perhaps hyphenated, as Scholar
    writes a given name: ``RY``, ``J-P``; not ``Ann``, nor ``J.`` (dotted initials are not Scholar's).

    >>> is_initials("RY"), is_initials("J-P"), is_initials("Ann"), is_initials("J."), is_initials("ABCDE")
    (True, True, False, False, False)
    """
    letters = word.replace("-", "")  # "J-P Dupont"
    return 1 <= len(letters) <= 4 and letters.isalpha() and letters.isupper()


def absolute_url(href: str | None, base: str) -> str | None:
    """``href`` made absolute against ``base`` (a page's URL, or an origin such as ``https://host``);
    None when there is no href.

    >>> absolute_url("/citations?user=x", "https://scholar.google.com"), absolute_url(" ", "https://a.org")
    ('https://scholar.google.com/citations?user=x', None)
    >>> absolute_url("b/c", "https://a.org/x/y"), absolute_url("https://c.org/p", "https://a.org/")
    ('https://a.org/x/b/c', 'https://c.org/p')
    """
    href = (href or "").strip()
    if not href:
        return None
    if href.startswith(("https://", "http://")):
        return href
    origin = base.count("/") == 2
    if origin and href.startswith("/") and not href.startswith("//"):
        return base + href  # the common case on pages of thousands of rows, without urljoin's cost
    return urljoin(base + "/" if origin else base, href)


_WEB_ADDRESS = re.compile(r"https?://\S+$")


def web_address(value: object) -> str | None:
    """``value`` when it is a web address (``http`` or ``https``, no space in it), else None: what a single-file
    save names as the address of the page it holds, when it names one.

    >>> web_address("https://x.org/a"), web_address("cid:frame-1@mhtml.blink"), web_address(None)
    ('https://x.org/a', None, None)
    """
    return value if isinstance(value, str) and _WEB_ADDRESS.match(value) else None


def title_key(title: str | None) -> str:
    """A normalised title for matching: lower case, letters and digits only.

    >>> title_key("Deep  Nets_: {GPU} 2"), title_key("Gödel’s Straße"), title_key(None)
    ('deepnetsgpu2', 'gödelsstrasse', '')
    """
    # Whitespace, bidi marks and braces are none of them letters or digits: the one pass drops them.
    if not title:
        return ""
    folded = title.casefold()
    # ASCII: the same characters deleted from its bytes, ten times as fast as the expression.
    return folded.encode().translate(None, _ASCII_NOT_WORD).decode() if folded.isascii() else _NOT_WORD.sub("", folded)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Python's cycle collector off within the block, as it was on leaving it. Parsing a large page or
    merging many makes hundreds of thousands of small objects and no cycles, and each collection
    would walk them all again while more are made (a quarter to a third of the time).

    >>> import gc
    >>> with paused_gc():
    ...     gc.isenabled()
    False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def findall_from(pattern: re.Pattern[str], literal: str, text: str) -> list[str]:
    """``pattern.findall(text)`` for a pattern of at most one group whose every match begins with ``literal``:
    ``str.find`` jumps from one ``literal`` to the next, where ``re`` would try a match at every character
    (several times slower over a page whose text is not all ASCII).

    >>> page = "x a=1 a=b a=a=22 a="
    >>> findall_from(re.compile(r"a=(\\d+)"), "a=", page), re.findall(r"a=(\\d+)", page)
    (['1', '22'], ['1', '22'])
    """
    found, start = [], text.find(literal)
    while start >= 0:
        match = pattern.match(text, start)
        if match is None:
            start = text.find(literal, start + 1)
            continue
        found.append(match.group(1) or "" if pattern.groups else match.group())
        start = text.find(literal, max(match.end(), start + 1))
    return found
