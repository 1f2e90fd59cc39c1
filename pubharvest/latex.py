r"""Text as LaTeX that pdflatex reads with ``\usepackage[T1]{fontenc}`` and ``\usepackage[utf8]{inputenc}``
(BibTeX values): TeX's special characters escaped, its ligatures broken, and each other character
written in the first of these forms that holds:

1. invisible (format characters such as zero-width spaces and joiners, bidi controls, the BOM and
   the soft hyphen; variation selectors; control characters): left out, a tab or newline as a space;
2. a character inputenc declares under T1 (Latin-1, Latin Extended-A, dashes, quotes, ...): as it is,
   UTF-8 (``pubharvest.texchars.INPUTENC``, read from LaTeX itself);
3. pylatexenc's LaTeX form, unless that form needs a package (``texchars.NO_LATEX_FORM``):
   ``α`` -> ``{\ensuremath{\alpha}}``, ``≤`` -> ``{\ensuremath{\leq}}``;
4. a Latin letter with accents LaTeX has commands for: ``ḳ`` -> ``{\d{k}}``, ``ệ`` -> ``{\^{\d{e}}}``;
5. a letter of a script T1 cannot typeset (CJK, Cyrillic, Hebrew, Arabic, ...): as it is, real text
   that biber, XeLaTeX and LuaLaTeX read, and pdflatex with that script's package (``CJKutf8``, T2A);
6. anything else, transliterated by anyascii (``ə`` -> ``e``), or left out when it has no ASCII form.

>>> escape("Sørensen, Đorđević, Straße: α-synuclein ≤ 5\ufe0f ḳ")
'Sørensen, Đorđević, Straße: {\\ensuremath{\\alpha}}-synuclein {\\ensuremath{\\leq}} 5 {\\d{k}}'
>>> escape("50% of R&D_1 {x} ~ $5")
'50\\% of R\\&D\\_1 \\textbraceleft{}x\\textbraceright{} \\textasciitilde{} \\$5'
>>> escape("``Zur'' 1--2"), escape("深度\u200b学习")
("`{}`Zur'{}' 1-{}-2", '深度学习')
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata

from anyascii import anyascii
from pylatexenc.latexencode import UnicodeToLatexEncoder

from .texchars import INPUTENC, NO_LATEX_FORM

# Braces become commands rather than \{ \}: BibTeX counts escaped braces too, so one alone would
# leave the value unbalanced.
_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
    "$": r"\$", "&": r"\&", "%": r"\%", "#": r"\#",
    "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))
# TeX ligatures a title can hold by accident: `` '' -- --- << >> !` ?` (quotes, dashes, guillemets)
# Any character ``escape`` changes or breaks a ligature at: text without one is written as it is.
# One negated class of the printable ASCII that is written as it is: a class alone is scanned by the
# regex engine's fast loop, where an alternation is tried at every character (3-4x slower).
_NEEDS_ESCAPE = re.compile("[^" + re.escape("".join(
    char for char in map(chr, range(0x20, 0x7f)) if char not in _SPECIAL and char not in "`'<>-")) + "]")
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=`)(?=`)|(?<=')(?=')|(?<=<)(?=<)|(?<=>)(?=>)|(?<=[!?])(?=`)")
_LIGATURE_PAIR = re.compile(r"--|``|''|<<|>>|[!?]`")  # where _LIGATURE matches: one plain scan, most text has none
# What is not printable ASCII: a letter with the combining marks that follow it, or one character
_NOT_ASCII = re.compile(r"[A-Za-z][\u0300-\u036f]+|[^\x20-\x7e]")
# LaTeX's text accent commands (those T1 typesets), by the combining mark each one puts on its letter
ACCENTS = {
    "\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u", "\u0307": ".",
    "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0323": "d", "\u0327": "c", "\u0328": "k",
    "\u0331": "b",
}
_VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef\u034f]")  # and the grapheme joiner
# Scripts whose letters pdflatex's T1 and its maths fonts can set, in some form above
_TYPESET_SCRIPTS = frozenset({"LATIN", "GREEK", "COMBINING", "MODIFIER"})
_ENCODER = UnicodeToLatexEncoder(non_ascii_only=True, unknown_char_policy="keep",
                                 replacement_latex_protection="braces-all", unknown_char_warning=False)


def escape(text: str) -> str:
    """``text`` as LaTeX that prints as written (see the module's rules)."""
    if not _NEEDS_ESCAPE.search(text):
        return text
    ascii_escaped = _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], text)
    if _LIGATURE_PAIR.search(ascii_escaped):
        ascii_escaped = _LIGATURE.sub("{}", ascii_escaped)
    if ascii_escaped.isascii() and ascii_escaped.isprintable():
        return ascii_escaped
    return _NOT_ASCII.sub(lambda m: latex_form(m.group()), unicodedata.normalize("NFC", ascii_escaped))


def is_invisible(char: str) -> bool:
    """Format and control characters, variation selectors: nothing to print, and errors to pdflatex."""
    return unicodedata.category(char) in ("Cf", "Cc") or bool(_VARIATION_SELECTORS.fullmatch(char))


def in_ranges(char: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    index = bisect.bisect_right(ranges, (ord(char), 0x10FFFF)) - 1
    return index >= 0 and ranges[index][0] <= ord(char) <= ranges[index][1]


def is_other_script(char: str) -> bool:
    """A letter or mark of a script T1 cannot typeset (kept as it is: rule 5)."""
    script = unicodedata.name(char, "").split(" ")[0]
    return unicodedata.category(char)[0] in "LM" and script not in _TYPESET_SCRIPTS and not is_invisible(char)


@functools.lru_cache(maxsize=1 << 12)
def latex_form(cluster: str) -> str:
    """One character (or a letter with its combining marks) as LaTeX: the first rule that holds."""
    if cluster in "\t\n\r":
        return " "
    if len(cluster) == 1:
        if is_invisible(cluster):
            return ""
        if in_ranges(cluster, INPUTENC):
            return cluster
        form = _pylatexenc_form(cluster)
        if form is not None:
            return form
    accented = accent_form(unicodedata.normalize("NFD", cluster))
    if accented is not None:
        return accented
    if len(cluster) == 1 and is_other_script(cluster):
        return cluster
    return escape(anyascii(cluster))


def _pylatexenc_form(char: str) -> str | None:
    if in_ranges(char, NO_LATEX_FORM):
        return None
    form = _ENCODER.unicode_to_latex(char)
    return None if form == char else form


def accent_form(decomposed: str) -> str | None:
    r"""An ASCII letter with marks LaTeX has accents for, as nested accent commands, else None.

    >>> accent_form("e\u0323\u0302"), accent_form("o\u031b")
    ('{\\^{\\d{e}}}', None)
    """
    base, marks = decomposed[:1], decomposed[1:]
    if not (base.isascii() and base.isalpha() and marks) or any(mark not in ACCENTS for mark in marks):
        return None
    for mark in marks:
        base = f"\\{ACCENTS[mark]}{{{base}}}"
    return "{" + base + "}"
