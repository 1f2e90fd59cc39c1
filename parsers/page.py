"""Turning input bytes into a ``Document``: decoding, and refusing the 403 page any site may send.

>>> doc = Document.from_input(b"<html><body>hi</body></html>")
>>> doc.encoding, doc.is_html
('utf-8', True)
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import re
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING

from pubharvest.errors import MAX_INPUT_BYTES, Binary, Blocked, Empty, TooLarge, Truncated, Undecodable

from .records import PageWarning
from .warning_codes import Warn

if TYPE_CHECKING:
    from lxml import etree
    from parsel import Selector

__all__ = ["Document", "Decoded", "WebEncoding", "html_selector", "html_root_streamed", "utf8_pieces", "gunzip",
           "html_root_read", "WHOLE_TREE_BYTES", "closes_html", "held_page",
           "decode", "decode_page", "declared_charset", "header_charset", "web_encoding", "refuse_forbidden"]

_BINARY_MAGIC = (b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x7fELF", b"BZh", b"\xfd7zXZ")
_HTML_START = re.compile(r"<(?:!doctype\s+html|html|head|body|div|table|tr|span|meta|title)\b", re.I)


def closes_html(text: str) -> bool:
    """Whether the last 4 KB of ``text`` hold ``</html>`` in any case, as ``"</html>" in text[-4096:].lower()``
    says, without lower-casing 4 KB (slow for text that is not ASCII): no character but these seven ASCII ones
    lower-cases to any of them, and only U+0130 lower-cases to more than one character.

    >>> closes_html("<p>é</p></HTML> "), closes_html("</ht ml>"), closes_html("<</html>")
    (True, False, True)
    """
    tail = text[-4096:]
    at = tail.find("</")
    while at >= 0:
        if tail[at + 2:at + 7].lower() == "html>":
            return True
        at = tail.find("</", at + 2)
    return False


@dataclass
class Document:
    """One input page: its text, where it came from, and lazily its parsed HTML tree."""

    text: str
    url: str | None = None
    raw: bytes | None = field(default=None, repr=False)  # the UTF-8 bytes of ``text``, when at hand
    sha256: str = ""
    encoding: str = "utf-8"
    kind: str | None = None  # the page kind the registry detected, so a parser need not sniff twice
    warnings: list[PageWarning] = field(default_factory=list)  # doubts about the whole page (its decoding)
    _selector: Selector | None = field(default=None, repr=False)
    _found: dict[str, bool] = field(default_factory=dict, repr=False)

    @classmethod
    def from_input(cls, data: bytes | str, url: str | None = None, charset: str | None = None) -> Document:
        """Decode ``data`` (bytes of any encoding, gzip, or already text; ``charset``: the one an HTTP header
        gave). Raises ``Empty``/``Binary``/``Undecodable``."""
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if raw[:2] == b"\x1f\x8b":
            raw = gunzip(raw)
        digest = hashlib.sha256(raw).hexdigest()
        held = held_page(raw)
        if held is not None:  # a browser's single-file save: the page it holds, which names its own charset
            raw, url, charset = held[0], url or held[1], held[2] or charset
        if isinstance(data, str) and held is None:
            decoded = Decoded(data, "utf-8")
        else:
            decoded = _decoded_or_refused(raw, charset)
        if not decoded.text or decoded.text.isspace():  # (``strip`` would copy a page that ends in a newline)
            raise Empty("the input is empty" if not raw else "the input holds only whitespace")
        text, utf8 = decoded.text.lstrip("\ufeff"), raw if decoded.exact_utf8 else None
        line_url, text, utf8 = _without_url_line(text, utf8)
        return cls(text=text, url=url or line_url, raw=utf8, sha256=digest, encoding=decoded.encoding,
                   warnings=[PageWarning(code=code, message=message) for code, message in decoded.warnings])

    def contains(self, marker: str) -> bool:
        """Whether the page holds the ASCII ``marker`` anywhere (each marker searched once, and not at all when
        a marker found before answers: a page without ``gsc_prf_in`` has no ``id="gsc_prf_in"``, and one with
        ``id="gsc_prf_in"`` has ``gsc_prf_in``).

        >>> doc = Document.from_input("<p id=a>x</p>")
        >>> doc.contains("gsc_"), doc.contains('id="gsc_prf_in"'), doc.contains("<p id=a>"), doc.contains("id=a")
        (False, False, True, True)
        """
        found = self._found.get(marker)
        if found is None:
            found = self._found[marker] = self._known(marker)
        return found

    def _known(self, marker: str) -> bool:
        for known, held in self._found.items():
            if held and marker in known:
                return True
            if not held and known in marker:
                return False
        return marker in self.text

    def contains_any(self, core: str, markers: Iterable[str]) -> bool:
        """Whether the page holds any of ``markers``, each of which holds ``core``: one scan for ``core``
        rules them all out on a page without it.

        >>> Document.from_input("<p id='gsc_x'>").contains_any("gsc_", ('id="gsc_x"', "id='gsc_x'"))
        True
        """
        return self.contains(core) and any(self.contains(marker) for marker in markers)

    @cached_property
    def is_html(self) -> bool:
        start = self.text[:4096]
        return start.lstrip().startswith("<") and bool(_HTML_START.search(start))

    @property
    def selector(self) -> Selector:
        """The page as a parsel ``Selector`` (parsed once, on first use)."""
        if self._selector is None:
            self._selector = html_selector(self.text, self.raw)
        return self._selector

    @cached_property
    def head(self) -> str:
        """The first 16 KB of the text, lower-cased: enough to classify a page cheaply."""
        return self.text[:16384].lower()

    @cached_property
    def is_cut(self) -> bool:
        """Whether an HTML document (a doctype, ``<html>`` or ``<head>``: not a fragment) stops before
        its end: no ``</html>`` in its last 4 KB. (Google leaves out the ``<html>`` start tag.)"""
        head = self.head[:4096]
        document = "<!doctype" in head or "<html" in head or "<head" in head
        return document and not closes_html(self.text)

    def stated_urls(self) -> list[str]:
        """Where the page says it came from, lower-cased: the URL given with it, then its canonical
        link, ``og:url``, ``<base href>`` and a browser's ``saved from url=`` comment in its head."""
        stated = (next(url for url in found.groups() if url) for found in _STATED_URL.finditer(self.head))
        return [*([self.url.lower()] if self.url else []), *stated]


# A page a browser's single-file save holds (``held_page``): its bytes (the save's own coding undone), the
# address it was saved from and the charset the save names for it.
HeldPage = tuple[bytes, str | None, str | None]


def held_page(raw: bytes) -> HeldPage | None:
    """The page a browser's single-file save holds (MHTML, Safari's Web Archive); None for any other input."""
    if raw[:1].isalpha():  # MIME fields open an MHTML file; pages open with "<", a BOM, "#", "|" or "{"
        from . import mhtml

        if mhtml.is_mhtml(raw):
            return mhtml.saved_page(raw)
    if raw.startswith(b"bplist00") or b"<!DOCTYPE plist" in raw[:512]:
        from . import webarchive

        if webarchive.is_webarchive(raw):
            return webarchive.main_resource(raw)
    return None


def _decoded_or_refused(raw: bytes, charset: str | None) -> Decoded:
    """``decode_page(raw, charset)``; a codec's own error, which its rules should leave none of, is ``Undecodable``
    rather than a bare ``UnicodeError``."""
    try:
        return decode_page(raw, charset)
    except (UnicodeError, LookupError) as error:
        raise Undecodable(f"the bytes could not be read as text ({type(error).__name__}: {error})") from None


# A page's own URL in its head: <link rel="canonical" href=...>, <meta property="og:url" content=...>,
# <base href=...>, and the "<!-- saved from url=(0065)http://... -->" comment browsers write.
_STATED_URL = re.compile(r"""<link[^>]*\brel=["']?canonical["']?[^>]*\bhref=["']?([^"'\s>]+)"""
                         r"""|<meta[^>]*\bproperty=["']?og:url["']?[^>]*\bcontent=["']?([^"'\s>]+)"""
                         r"""|<base[^>]*\bhref=["']?([^"'\s>]+)|saved from url=\(\d+\)(\S+?)\s*-->""")
_URL_LINE = re.compile(r"[ \t]*(https?://[^\s<>\"]+)[ \t]*\r?\n")


def _without_url_line(text: str, utf8: bytes | None) -> tuple[str | None, str, bytes | None]:
    """The URL on a page's first line, as some saving tools write it before the page, and the page
    without that line (its text, and its UTF-8 bytes when at hand); ``(None, text, utf8)`` otherwise.

    >>> _without_url_line("https://scholar.google.com/citations?user=x\\r\\n<html>", b"")[:2]
    ('https://scholar.google.com/citations?user=x', '<html>')
    """
    line = _URL_LINE.match(text)
    if line is None or not text[line.end():].lstrip("\ufeff \t\r\n").startswith("<"):
        return None, text, utf8
    rest = text[line.end():].lstrip("\ufeff")
    return line.group(1), rest, utf8[utf8.index(b"\n") + 1:].removeprefix(codecs.BOM_UTF8) if utf8 else utf8


_PARSERS = threading.local()


def _thread_parser() -> etree.HTMLParser:
    """This thread's lxml HTML parser for UTF-8 input (lxml parsers must not be shared across threads)."""
    from lxml import etree

    parser: etree.HTMLParser | None = getattr(_PARSERS, "html", None)
    if parser is None:
        parser = _PARSERS.html = etree.HTMLParser(encoding="utf-8", huge_tree=True)
    return parser


def html_selector(text: str, utf8: bytes | None = None) -> Selector:
    """A parsel ``Selector`` over ``text`` parsed by lxml's plain HTML parser.

    Plain ``lxml.etree`` elements, not ``lxml.html`` ones: the latter's per-element class lookup
    runs Python code for every element touched, which dominates on pages of thousands of rows.
    """
    from lxml import etree
    from parsel import Selector

    parser = _thread_parser()
    root = etree.fromstring(utf8 if utf8 is not None else text.encode("utf-8", "surrogatepass"), parser)
    _refuse_cut_tree(parser.error_log)
    if root is None:
        root = etree.fromstring(b"<html></html>", parser)
    return Selector(root=root, type="html")


def utf8_pieces(text: str, utf8: bytes | None = None, size: int = 1 << 20) -> Iterator[bytes]:
    """The UTF-8 bytes of ``text`` (``utf8``, when it is at hand: those bytes already), ``size`` at a time,
    so that the whole text is never encoded at once.

    >>> list(utf8_pieces("aé", size=1)), list(utf8_pieces("", b"abc", size=2))
    ([b'a', b'\\xc3\\xa9'], [b'ab', b'c'])
    """
    if utf8 is not None:
        for start in range(0, len(utf8), size):
            yield utf8[start:start + size]
        return
    for start in range(0, len(text), size):
        yield text[start:start + size].encode("utf-8", "surrogatepass")


# Pages up to this size are parsed into one whole tree (lxml's fastest path: a profile page of 100 rows is
# a few hundred KB); past it, where a whole tree would cost memory (8-9 bytes a byte), they are streamed.
WHOLE_TREE_BYTES = 8 << 20


def html_root_read(text: str, utf8: bytes | None, tag: str, on_end: Callable[[etree._Element], None],
                   wrap: tuple[bytes, bytes] = (b"", b"")) -> etree._Element:
    """The root of the HTML page ``text`` (``utf8``: its UTF-8 bytes, when at hand) between the bytes of
    ``wrap``, each ``tag`` element handed to ``on_end`` as it closes, in the order it closes, as
    ``html_root_streamed`` hands them: by that streamed reading past ``WHOLE_TREE_BYTES``, else from one
    whole tree, which gives the same tree and the same calls in less time."""
    from lxml import etree

    def streamed() -> etree._Element:
        return html_root_streamed(chain([wrap[0]], utf8_pieces(text, utf8), [wrap[1]]), tag, on_end)

    if (len(utf8) if utf8 is not None else len(text)) > WHOLE_TREE_BYTES:
        return streamed()
    parser = _thread_parser()
    body = utf8 if utf8 is not None else text.encode("utf-8", "surrogatepass")
    try:
        root = etree.fromstring(b"".join((wrap[0], body, wrap[1])) if wrap[0] or wrap[1] else body, parser)
    except etree.XMLSyntaxError:  # no element at all (a page of comments): what the streamed reading says of it
        return streamed()
    if root is None:
        return etree.fromstring(b"<html></html>", etree.HTMLParser())
    if _depth_error(parser.error_log) is not None:  # the message the streamed reading gives such a page
        raise Truncated(_TOO_DEEP)
    for element in _in_closing_order(root, tag):
        on_end(element)
    return root


def _in_closing_order(root: etree._Element, tag: str) -> list[etree._Element]:
    """The ``tag`` elements of ``root``'s document in the order they close: the document order, unless one holds
    another (then ``iterwalk``'s end events, which cost several times more on a page of a few hundred elements)."""
    from lxml import etree

    if _nested(tag)(root):
        return [element for _, element in etree.iterwalk(root, events=("end",), tag=tag)]
    return list(root.iter(tag))


@functools.cache
def _nested(tag: str) -> etree.XPath:
    from lxml import etree

    return etree.XPath(f"boolean(//{tag}//{tag})")


def html_root_streamed(pieces: Iterable[bytes], tag: str, on_end: Callable[[etree._Element], None]) -> etree._Element:
    """The root of the HTML in ``pieces`` (UTF-8 bytes), parsed as ``html_selector`` parses it but by lxml's pull
    parser: each ``tag`` element is handed to ``on_end`` as soon as it closes, which may read it and clear it, so
    that the tree never holds all of them (a page of 100,000 rows).

    A page nested deeper than libxml2 allows is ``Truncated``, as with ``html_selector``.
    """
    from lxml import etree

    parser = etree.HTMLPullParser(events=("end",), tag=tag, encoding="utf-8", huge_tree=True)
    for piece in pieces:
        parser.feed(piece)
        _hand_over(parser, on_end)
    root = parser.close()
    _hand_over(parser, on_end)
    if root is None:
        return etree.fromstring(b"<html></html>", etree.HTMLParser())
    _refuse_halted_tree(root)
    return root


def _hand_over(parser: etree.HTMLPullParser, on_end: Callable[[etree._Element], None]) -> None:
    """Each element that closed since the last call, to ``on_end``."""
    from lxml import etree

    for _, element in parser.read_events():
        if isinstance(element, etree._Element):
            on_end(element)


_MAX_DEPTH = 2048  # libxml2's limit on nested elements, even with its huge-tree option
_TOO_DEEP = (f"the page is nested too deep for the HTML parser, which stops after {_MAX_DEPTH} nested elements and "
             "would lose the rest")


def _refuse_halted_tree(root: etree._Element) -> None:
    """Raise ``Truncated`` when libxml2's push parser stopped at its depth limit. It logs no error, but the
    elements it had open when it stopped are then the tree's last ones, each inside the one before, that deep
    (a page that closes its deep nesting ends with a shallow element)."""
    depth, element = 1, root
    while len(element) and depth < _MAX_DEPTH:
        element, depth = element[-1], depth + 1
    if depth >= _MAX_DEPTH:
        raise Truncated(_TOO_DEEP)


def _refuse_cut_tree(errors: etree._ListErrorLog) -> None:
    """Raise ``Truncated`` when libxml2 stopped building the tree: a page nested deeper than it allows (2048
    elements with its huge-tree option) loses everything after that point, which must never pass silently."""
    error = _depth_error(errors)
    if error is not None:
        raise Truncated(f"the page is nested too deep for the HTML parser, which would cut it at line {error.line}"
                        f" ({error.message.strip()})")


def _depth_error(errors: etree._ListErrorLog) -> etree._LogEntry | None:
    """libxml2's error saying it stopped building the tree at its depth limit, if it logged one."""
    from lxml import etree

    return next((error for error in errors if error.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT
                 or "excessive depth" in error.message.lower()), None)


def gunzip(raw: bytes | Iterable[bytes], limit: int = MAX_INPUT_BYTES) -> bytes:
    """The decompressed bytes of a gzip stream (``raw``, or its chunks as they are read), members
    joined. Decompressed a bounded step at a time: past ``limit`` bytes it is ``TooLarge``, having
    held no more than that (a bomb of zeros stops there). A damaged or cut stream is ``Truncated``.

    >>> import gzip
    >>> gunzip(gzip.compress(b"ab") + gzip.compress(b"c"))
    b'abc'
    >>> gunzip(gzip.compress(bytes(1000)), limit=999)
    Traceback (most recent call last):
    pubharvest.errors.TooLarge: too_large: the input decompresses to more than 999 bytes
    """
    out, inflater = bytearray(), zlib.decompressobj(wbits=31)
    for chunk in [raw] if isinstance(raw, (bytes, bytearray, memoryview)) else raw:
        pending = bytes(chunk)
        while pending:
            if inflater.eof:  # the next member, after any zero padding
                if not (pending := pending.lstrip(b"\0")):
                    break
                inflater = zlib.decompressobj(wbits=31)
            try:  # max_length > 0 always: out never exceeds limit here
                out += inflater.decompress(pending, limit + 1 - len(out))
            except zlib.error as exc:
                raise Truncated(f"the gzip stream is damaged or cut short ({exc})") from None
            if len(out) > limit:
                raise TooLarge(f"the input decompresses to more than {limit} bytes")
            pending = inflater.unconsumed_tail or inflater.unused_data
    if not inflater.eof:
        raise Truncated("the gzip stream is damaged or cut short (it stops before its end)")
    return bytes(out)


def decode(raw: bytes, charset: str | None = None) -> tuple[str, str]:
    """Text and encoding name of ``raw`` by the rules of ``decode_page`` (its warnings dropped).

    >>> decode("café".encode("cp1252"))
    ('café', 'windows-1252')
    >>> decode('<meta charset="iso-8859-1">Gödel'.encode("utf-8"))[0][-5:]
    'Gödel'
    """
    decoded = decode_page(raw, charset)
    return decoded.text, decoded.encoding


@dataclass(frozen=True)
class Decoded:
    """A page's text, the encoding it was read in, and what was doubtful about that (``(code, message)``)."""

    text: str
    encoding: str
    warnings: tuple[tuple[str, str], ...] = ()
    exact_utf8: bool = False  # the input bytes are exactly the UTF-8 of ``text`` (lxml may parse them as they are)
    invalid: int = 0  # bytes the encoding could not read, each a U+FFFD in ``text``


@dataclass(frozen=True)
class WebEncoding:
    """An encoding a page may declare: its name, the Python codec that reads it as browsers do (None: one
    pubharvest cannot read), and whether it is stateful (ISO-2022: 7-bit bytes whose meaning escapes switch)."""

    name: str
    codec: str | None
    stateful: bool = False


# The labels of the WHATWG Encoding Standard (encoding.spec.whatwg.org, "Names and labels"), lower-cased, to
# the codec that reads each as browsers do: latin-1 and ascii as windows-1252, gb2312 and gbk as GB18030,
# Shift_JIS as windows-31j, EUC-KR as windows-949, Big5 with HKSCS. A declared UTF-16 label reads as UTF-8, as in
# browsers (a declaration that could be read is in ASCII-compatible bytes); UTF-16 bytes are found by their BOM or
# their NULs. The standard maps ISO-2022-KR, ISO-2022-CN and HZ to its "replacement" encoding (no text at all),
# which guards a browser's scripts; pubharvest renders nothing and reads them as declared when their bytes are
# 7-bit, as it also reads ISO-2022-JP-1/2/3/2004, which no browser reads. Any other label (utf-7, utf-32, idna,
# punycode, base64, rot13, x-user-defined, a misspelling) is no page encoding: ignored, with ``charset_unsupported``.
_ENCODINGS: tuple[tuple[WebEncoding, str], ...] = (
    (WebEncoding("utf-8", "utf-8"), "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8 "
                                    "unicodefffe utf-16be csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff "
                                    "utf-16 utf-16le"),
    (WebEncoding("ibm866", "cp866"), "866 cp866 csibm866 ibm866"),
    (WebEncoding("iso-8859-2", "iso8859_2"), "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 "
                                             "iso_8859-2:1987 l2 latin2"),
    (WebEncoding("iso-8859-3", "iso8859_3"), "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 "
                                             "iso_8859-3:1988 l3 latin3"),
    (WebEncoding("iso-8859-4", "iso8859_4"), "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 "
                                             "iso_8859-4:1988 l4 latin4"),
    (WebEncoding("iso-8859-5", "iso8859_5"), "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 "
                                             "iso_8859-5 iso_8859-5:1988"),
    (WebEncoding("iso-8859-6", "iso8859_6"), "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 "
                                             "iso-8859-6 iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 "
                                             "iso_8859-6 iso_8859-6:1987"),
    (WebEncoding("iso-8859-7", "iso8859_7"), "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 "
                                             "iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek"),
    (WebEncoding("iso-8859-8", "iso8859_8"), "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 "
                                             "iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual "
                                             "csiso88598i iso-8859-8-i logical"),
    (WebEncoding("iso-8859-10", "iso8859_10"), "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6"),
    (WebEncoding("iso-8859-13", "iso8859_13"), "iso-8859-13 iso8859-13 iso885913"),
    (WebEncoding("iso-8859-14", "iso8859_14"), "iso-8859-14 iso8859-14 iso885914"),
    (WebEncoding("iso-8859-15", "iso8859_15"), "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9"),
    (WebEncoding("iso-8859-16", "iso8859_16"), "iso-8859-16"),
    (WebEncoding("koi8-r", "koi8_r"), "cskoi8r koi koi8 koi8-r koi8_r"),
    (WebEncoding("koi8-u", "koi8_u"), "koi8-ru koi8-u"),
    (WebEncoding("macintosh", "mac_roman"), "csmacintosh mac macintosh x-mac-roman"),
    (WebEncoding("windows-874", "cp874"), "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874"),
    (WebEncoding("windows-1250", "cp1250"), "cp1250 windows-1250 x-cp1250"),
    (WebEncoding("windows-1251", "cp1251"), "cp1251 windows-1251 x-cp1251"),
    (WebEncoding("windows-1252", "cp1252"), "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 "
                                            "iso-ir-100 iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 "
                                            "us-ascii windows-1252 x-cp1252"),
    (WebEncoding("windows-1253", "cp1253"), "cp1253 windows-1253 x-cp1253"),
    (WebEncoding("windows-1254", "cp1254"), "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
                                            "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254"),
    (WebEncoding("windows-1255", "cp1255"), "cp1255 windows-1255 x-cp1255"),
    (WebEncoding("windows-1256", "cp1256"), "cp1256 windows-1256 x-cp1256"),
    (WebEncoding("windows-1257", "cp1257"), "cp1257 windows-1257 x-cp1257"),
    (WebEncoding("windows-1258", "cp1258"), "cp1258 windows-1258 x-cp1258"),
    (WebEncoding("x-mac-cyrillic", "mac_cyrillic"), "x-mac-cyrillic x-mac-ukrainian"),
    (WebEncoding("gb18030", "gb18030"), "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 "
                                        "x-gbk gb18030"),
    (WebEncoding("big5", "big5hkscs"), "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    (WebEncoding("euc-jp", "euc_jp"), "cseucpkdfmtjapanese euc-jp x-euc-jp"),
    (WebEncoding("shift_jis", "cp932"), "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis"),
    (WebEncoding("euc-kr", "cp949"), "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 "
                                     "ksc5601 ksc_5601 windows-949"),
    # the stateful ones (ISO-2022-JP's JIS X 0201 katakana, which browsers read, is in Python's _ext codec)
    (WebEncoding("iso-2022-jp", "iso2022_jp_ext", stateful=True), "csiso2022jp iso-2022-jp"),
    (WebEncoding("iso-2022-jp-1", "iso2022_jp_1", stateful=True), "iso-2022-jp-1"),
    (WebEncoding("iso-2022-jp-2", "iso2022_jp_2", stateful=True), "csiso2022jp2 iso-2022-jp-2"),
    (WebEncoding("iso-2022-jp-3", "iso2022_jp_3", stateful=True), "iso-2022-jp-3"),
    (WebEncoding("iso-2022-jp-2004", "iso2022_jp_2004", stateful=True), "iso-2022-jp-2004"),
    (WebEncoding("iso-2022-kr", "iso2022_kr", stateful=True), "csiso2022kr iso-2022-kr"),
    (WebEncoding("hz-gb-2312", "hz", stateful=True), "hz-gb-2312"),
    (WebEncoding("iso-2022-cn", None, stateful=True), "iso-2022-cn iso-2022-cn-ext"),  # no Python codec
)
_LABELS: dict[str, WebEncoding] = {label: encoding for encoding, labels in _ENCODINGS for label in labels.split()}
_ISO_2022_JP = _LABELS["iso-2022-jp"]
# What switches a stateful encoding away from ASCII: an escape sequence, shift out (SO), HZ's "~{".
_SHIFTS = re.compile(rb"[\x1b\x0e]|~\{")
# ISO-2022-JP's escape sequences into JIS X 0208 (ESC $ @, ESC $ B) and JIS X 0201 (ESC ( J, ESC ( I).
_JIS_ESCAPES = re.compile(rb"\x1b(?:\$[@B]|\([JI])")


def web_encoding(label: str) -> WebEncoding | None:
    """The encoding a declared charset ``label`` names, as browsers read it; None for a label of no page encoding.

    >>> web_encoding(" Latin1 ").name, web_encoding("SJIS").codec, web_encoding("utf-7"), web_encoding("idna")
    ('windows-1252', 'cp932', None, None)
    """
    return _LABELS.get(label.strip().lower())


# A page with invalid bytes is still in the encoding it declares when they are few: at most this many, or at
# most 1% of its non-ASCII bytes. UTF-8 it does not declare needs, besides, at least as many valid multi-byte
# sequences as invalid bytes (a Latin-1 page forms a valid sequence only by accident, "ß" + no-break space, far
# more rarely than an invalid byte).
FEW_INVALID = 8
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"),
)
# UTF-16 and UTF-32 without a BOM, told by the NULs of their first two characters when these are ASCII (a page
# starts with "<", a blank or its URL), as XML's appendix F tells them: "<\0h\0" is UTF-16-LE.
_UNMARKED = (
    (re.compile(rb"[\x01-\x7f]\0\0\0[\x01-\x7f]\0\0\0"), "utf-32-le"),
    (re.compile(rb"\0\0\0[\x01-\x7f]\0\0\0[\x01-\x7f]"), "utf-32-be"),
    (re.compile(rb"[\x01-\x7f]\0[\x01-\x7f]\0"), "utf-16-le"),
    (re.compile(rb"\0[\x01-\x7f]\0[\x01-\x7f]"), "utf-16-be"),
)
_DECLARED = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)|\A\s*<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)""", re.I)
_NON_ASCII = bytes(range(128, 256))


def decode_page(raw: bytes, charset: str | None = None) -> Decoded:
    """Decode a saved page: a BOM wins, then UTF-16 or UTF-32 told by their NULs; then a stateful charset declared
    (ISO-2022-JP) over 7-bit bytes; then UTF-8 when the bytes are UTF-8 or nearly so, whatever charset the page
    declares; then the declared charset; then windows-1252. ``charset`` is the one an HTTP header gave, which
    outranks the page's own declaration. Raises ``Binary``, or ``Undecodable`` for a stateful charset pubharvest
    cannot read (ISO-2022-CN).

    Saved pages often declare a charset their bytes are not in (a script decoded Google's ISO-8859-1 page and
    wrote UTF-8), so the bytes outrank the declaration; each doubt is a warning.

    >>> decode_page('<meta charset="iso-8859-1">Gödel'.encode("utf-8")).warnings[0][0]
    'charset_mismatch'
    >>> page = decode_page("7α-hydroxylase ".encode("utf-8") + bytes([0xFF]))
    >>> page.text == "7α-hydroxylase \\ufffd", page.warnings
    (True, (('invalid_bytes', '1 byte is not UTF-8 (the first at offset 16): read as U+FFFD'),))
    >>> decode_page('<meta charset="iso-2022-jp"><p>山田</p>'.encode("iso2022_jp")).text[-9:]
    '<p>山田</p>'
    """
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            # the bytes after the BOM only: lxml must not be handed ``raw`` as UTF-8 with its BOM
            return _checked_text(replace(_unicode_decoded(raw[len(bom):], codec), exact_utf8=False))
    if any(raw.startswith(magic) for magic in _BINARY_MAGIC):
        raise Binary("the input is binary data, not a saved page")
    unmarked = next((codec for pattern, codec in _UNMARKED if pattern.match(raw)), None)
    if unmarked is not None:
        return _checked_text(_unicode_decoded(raw, unmarked))
    if b"\x00" in raw[:4096]:
        raise Binary("the input is binary data, not a saved page")
    label = charset or declared_charset(raw)
    encoding = web_encoding(label) if label else None
    if label is not None and encoding is None:
        return _checked_text(_unsupported(_sniffed(raw, None, None), label))
    return _checked_text(_sniffed(raw, label, encoding))


def _sniffed(raw: bytes, label: str | None, encoding: WebEncoding | None) -> Decoded:
    """``raw`` read by the rules of ``decode_page`` after its BOM and NULs, ``label`` declared (naming ``encoding``)."""
    codec = encoding.codec if encoding is not None and not encoding.stateful else None
    return (_as_stateful(raw, label, encoding) or _as_utf8(raw, label, codec) or _as_declared(raw, label, codec)
            or _as_windows_1252(raw, label, codec))


def _unsupported(decoded: Decoded, label: str) -> Decoded:
    """``decoded`` (read as if no charset were declared) with a ``charset_unsupported`` warning for ``label``,
    which says it all: no ``charset_guessed`` besides."""
    said = (Warn.charset_unsupported.name,
            f"the page declares charset {label}, which is no encoding of web pages: ignored, read as "
            f"{'UTF-8' if decoded.encoding == 'utf-8' else decoded.encoding}")
    rest = tuple(warning for warning in decoded.warnings if warning[0] != Warn.charset_guessed.name)
    return replace(decoded, warnings=(said, *rest))


def declared_charset(raw: bytes) -> str | None:
    """The charset the page declares in its first 4 KB (meta charset, http-equiv or XML declaration), as written.

    >>> declared_charset(b'<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1">')
    'ISO-8859-1'
    >>> declared_charset(b'<?xml version="1.0" encoding="Shift_JIS"?><html>'), declared_charset(b"<p>")
    ('Shift_JIS', None)
    """
    found = _DECLARED.search(raw[:4096])
    return None if found is None else (found.group(1) or found.group(2)).decode("ascii")


_CONTENT_TYPE_CHARSET = re.compile(r"""charset\s*=\s*["']?([\w.:-]+)""", re.I)


def header_charset(content_type: str | bytes | None) -> str | None:
    """The charset an HTTP ``Content-Type`` header names, as written; None when it names none.

    >>> header_charset('text/html; charset="Shift_JIS"'), header_charset(b"text/html"), header_charset(None)
    ('Shift_JIS', None, None)
    """
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    found = _CONTENT_TYPE_CHARSET.search(content_type or "")
    return None if found is None else found.group(1)


def _unicode_decoded(raw: bytes, codec: str) -> Decoded:
    """``raw`` (after any BOM) read in ``codec``; for UTF-16 and UTF-32, a file cut inside a character (an odd
    byte, half a surrogate pair) is read up to its last whole character, with a ``truncated`` warning."""
    unit = 4 if codec.startswith("utf-32") else 2 if codec.startswith("utf-16") else 1
    cut = len(raw) % unit
    if unit == 2 and len(raw) - cut >= 2:
        last = raw[len(raw) - cut - 2:len(raw) - cut]
        cut += 2 if 0xD8 <= (last[1] if codec.endswith("le") else last[0]) <= 0xDB else 0  # a lead surrogate
    decoded = _decoded_with(raw[:len(raw) - cut], codec, codec)
    if not cut:
        return decoded
    said = (Warn.truncated.name, f"the file stops inside a character: its last {cut} byte{'s' * (cut != 1)} "
                                 f"{'are' if cut != 1 else 'is'} part of a {codec.upper()} character, left out")
    return replace(decoded, warnings=(*decoded.warnings, said))


def _as_stateful(raw: bytes, label: str | None, encoding: WebEncoding | None) -> Decoded | None:
    """A stateful charset over 7-bit bytes: the one declared (ISO-2022-JP, -KR, HZ), or ISO-2022-JP when nothing
    is declared and the bytes hold its escape sequences (``charset_guessed``); else None. A stateful charset
    pubharvest has no codec for is ``Undecodable`` once its bytes shift away from ASCII."""
    if not raw.isascii():
        return None
    guessed = encoding is None and label is None and _JIS_ESCAPES.search(raw) is not None
    if guessed:
        encoding = _ISO_2022_JP
    if encoding is None or not encoding.stateful:
        return None
    if encoding.codec is None:
        if _SHIFTS.search(raw):
            raise Undecodable(f"the page declares charset {label}, which pubharvest cannot decode, and its bytes "
                              "leave ASCII for it: nothing is read rather than the wrong text")
        return None  # plain ASCII, which every stateful charset starts in
    decoded = _decoded_with(raw, encoding.codec, encoding.name)
    if not _few_invalid(raw, decoded):
        if guessed:
            return None
        mismatch = (Warn.charset_mismatch.name, f"the page declares charset {label} but its bytes are not in it: "
                                                "read as ASCII")
        return Decoded(raw.decode("ascii"), "utf-8", (mismatch,), exact_utf8=True)
    if guessed:
        doubt = (Warn.charset_guessed.name, "the page declares no charset and its bytes hold ISO-2022-JP escape "
                                            "sequences: read as ISO-2022-JP")
        return replace(decoded, warnings=(doubt, *decoded.warnings))
    return decoded


def _as_utf8(raw: bytes, label: str | None, codec: str | None) -> Decoded | None:
    """UTF-8 when the bytes are UTF-8, or nearly (a few invalid bytes, read as U+FFFD); else None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        decoded = _decoded_with(raw, "utf-8", "utf-8")
        if not _few_invalid(raw, decoded, declared=codec == "utf-8"):
            return None
    else:
        decoded = Decoded(text, "utf-8", exact_utf8=True)
    if label is None or codec == "utf-8" or raw.isascii():
        return decoded
    mismatch = (Warn.charset_mismatch.name, f"the page declares charset {label} but its bytes are UTF-8: read as UTF-8")
    return Decoded(decoded.text, "utf-8", (mismatch, *decoded.warnings), decoded.exact_utf8)


def _as_declared(raw: bytes, label: str | None, codec: str | None) -> Decoded | None:
    """The declared charset, when the bytes are in it (but for a few invalid bytes, read as U+FFFD); else None."""
    if label is None or codec is None or codec == "utf-8":
        return None
    encoding = web_encoding(label)
    decoded = _decoded_with(raw, codec, encoding.name if encoding is not None else codec)
    return decoded if _few_invalid(raw, decoded) else None


def _as_windows_1252(raw: bytes, label: str | None, codec: str | None) -> Decoded:
    """The last resort, as browsers have it: windows-1252 (no detector: its guesses vary with what is installed)."""
    decoded = _decoded_with(raw, "cp1252", "windows-1252")
    if label is None:
        doubt = (Warn.charset_guessed.name,
                 "the page declares no charset and its bytes are not UTF-8: read as windows-1252")
    else:
        doubt = (Warn.charset_mismatch.name, f"the page declares charset {label} but its bytes are neither that nor "
                                             "UTF-8: read as windows-1252")
    return Decoded(decoded.text, decoded.encoding, (doubt, *decoded.warnings))


def _decoded_with(raw: bytes, codec: str, name: str) -> Decoded:
    """``raw`` read with ``codec``, each byte it cannot read as U+FFFD, with an ``invalid_bytes`` warning then."""
    try:
        return Decoded(raw.decode(codec), name, exact_utf8=codec == "utf-8")
    except UnicodeDecodeError as exc:
        first = exc.start
    text = raw.decode(codec, _FFFD_PER_BYTE)
    invalid = len(text) - len(raw.decode(codec, "ignore"))  # both handlers are given the same byte ranges
    count = f"{invalid} byte is" if invalid == 1 else f"{invalid} bytes are"
    message = f"{count} not {name.upper()} (the first at offset {first}): read as U+FFFD"
    return Decoded(text, name, ((Warn.invalid_bytes.name, message),), invalid=invalid)


def _fffd_per_byte(error: UnicodeError) -> tuple[str, int]:
    r"""A U+FFFD for each byte a codec cannot read (an ASCII byte too: inside ISO-2022's two-byte mode, or a UTF-16
    code unit), without two passes of a regular expression over the whole text.

    >>> b"a\xe2\x82b\xff".decode("utf-8", _FFFD_PER_BYTE), b"<\0\0\xd8".decode("utf-16-le", _FFFD_PER_BYTE)
    ('a\ufffd\ufffdb\ufffd', '<\ufffd\ufffd')
    """
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return "\ufffd" * (error.end - error.start), error.end


_FFFD_PER_BYTE = "pubharvest.fffd_per_byte"
codecs.register_error(_FFFD_PER_BYTE, _fffd_per_byte)


def _few_invalid(raw: bytes, decoded: Decoded, declared: bool = True) -> bool:
    """Whether the bytes ``decoded`` could not read are few enough for its encoding to be the right one; UTF-8
    the page does not declare needs, besides, at least as many valid multi-byte sequences as invalid bytes."""
    non_ascii_bytes = len(raw) - len(raw.translate(None, _NON_ASCII))
    if not declared:  # each valid multi-byte sequence is one non-ASCII character
        sequences = len(decoded.text) - (len(raw) - non_ascii_bytes) - decoded.invalid
        if sequences < decoded.invalid:
            return False
    return decoded.invalid <= FEW_INVALID or decoded.invalid * 100 <= non_ascii_bytes


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f]")


def _checked_text(decoded: Decoded) -> Decoded:
    """``decoded`` itself, unless its text is mostly control characters: then ``Binary``."""
    if _control_share(decoded.text) > 0.05:
        raise Binary("the input is binary data, not a saved page")
    return decoded


def _control_share(text: str) -> float:
    sample = text[:4096]
    return len(_CONTROL.findall(sample)) / max(len(sample), 1)


def refuse_forbidden(doc: Document) -> None:
    """Raise ``Blocked`` for a "403 Forbidden" page, whatever site sent it (a site's own CAPTCHA and
    sign-in pages are its module's ``refuse``; the registry asks both before any site parser runs).

    >>> refuse_forbidden(Document.from_input(b"<html><title>Error 403 (Forbidden)!!1</title></html>"))
    Traceback (most recent call last):
    ...
    pubharvest.errors.Blocked: blocked: the site answered 403 Forbidden: this client is refused; wait before retrying
    """
    if not doc.is_html:
        return
    head = doc.head
    if "<title>error 403 (forbidden)" in head or "your client does not have permission" in head:
        raise Blocked("the site answered 403 Forbidden: this client is refused; wait before retrying")
