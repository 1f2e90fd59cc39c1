"""Turning input bytes into a ``Document``: decoding, and refusing the 403 page any site may send.

>>> doc = Document.from_input(b"<html><body>hi</body></html>")
>>> doc.encoding, doc.is_html
('utf-8', True)
"""

from __future__ import annotations

import codecs
import hashlib
import re
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

from pubharvest.errors import MAX_INPUT_BYTES, Binary, Blocked, Empty, TooLarge, Truncated

from .records import PageWarning
from .warning_codes import Warn

if TYPE_CHECKING:
    from lxml import etree
    from parsel import Selector

__all__ = ["Document", "Decoded", "html_selector", "html_root_streamed", "utf8_pieces", "gunzip", "decode",
           "decode_page", "declared_charset", "refuse_forbidden"]

_BINARY_MAGIC = (b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x7fELF", b"BZh", b"\xfd7zXZ")
_HTML_START = re.compile(r"<(?:!doctype\s+html|html|head|body|div|table|tr|span|meta|title)\b", re.I)


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
    def from_input(cls, data: bytes | str, url: str | None = None) -> Document:
        """Decode ``data`` (bytes of any encoding, gzip, or already text). Raises ``Empty``/``Binary``."""
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if raw[:2] == b"\x1f\x8b":
            raw = gunzip(raw)
        digest = hashlib.sha256(raw).hexdigest()
        decoded = Decoded(data, "utf-8") if isinstance(data, str) else decode_page(raw)
        if not decoded.text.strip():
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
        return document and "</html>" not in self.text[-4096:].lower()

    def stated_urls(self) -> list[str]:
        """Where the page says it came from, lower-cased: the URL given with it, then its canonical
        link, ``og:url``, ``<base href>`` and a browser's ``saved from url=`` comment in its head."""
        stated = (next(url for url in found.groups() if url) for found in _STATED_URL.finditer(self.head))
        return [*([self.url.lower()] if self.url else []), *stated]


# A page's own URL in its head: <link rel="canonical" href=...>, <meta property="og:url" content=...>,
# <base href=...>, and the "<!-- saved from url=(0065)http://... -->" comment browsers write.
_STATED_URL = re.compile(r"""<link[^>]*\brel=["']?canonical["']?[^>]*\bhref=["']?([^"'\s>]+)"""
                         r"""|<meta[^>]*\bproperty=["']?og:url["']?[^>]*\bcontent=["']?([^"'\s>]+)"""
                         r"""|<base[^>]*\bhref=["']?([^"'\s>]+)|saved from url=\(\d+\)(\S+?)\s*-->""")
_URL_LINE = re.compile(r"[ \t]*(https?://[^\s<>\"]+)[ \t]*\r?\n")


def _without_url_line(text: str, utf8: bytes | None) -> tuple[str | None, str, bytes | None]:
    """The URL on a page's first line, as some saving tools write it before the page, and the page
    without that line (its text, and its UTF-8 bytes when at hand); ``(None, text, utf8)`` otherwise.

    >>> _without_url_line("https://scholar.google.com/citations?user=x\r\n<html>", b"")[:2]
    ('https://scholar.google.com/citations?user=x', '<html>')
    """
    line = _URL_LINE.match(text)
    if line is None or not text[line.end():].lstrip("\ufeff \t\r\n").startswith("<"):
        return None, text, utf8
    rest = text[line.end():].lstrip("\ufeff")
    return line.group(1), rest, utf8[utf8.index(b"\n") + 1:].removeprefix(codecs.BOM_UTF8) if utf8 else utf8


_PARSERS = threading.local()


def html_selector(text: str, utf8: bytes | None = None) -> Selector:
    """A parsel ``Selector`` over ``text`` parsed by lxml's plain HTML parser.

    Plain ``lxml.etree`` elements, not ``lxml.html`` ones: the latter's per-element class lookup
    runs Python code for every element touched, which dominates on pages of thousands of rows.
    """
    from lxml import etree
    from parsel import Selector

    parser = getattr(_PARSERS, "html", None)
    if parser is None:  # one parser per thread: lxml parsers must not be shared across threads
        parser = _PARSERS.html = etree.HTMLParser(encoding="utf-8", huge_tree=True)
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


def _refuse_halted_tree(root: etree._Element) -> None:
    """Raise ``Truncated`` when libxml2's push parser stopped at its depth limit. It logs no error, but the
    elements it had open when it stopped are then the tree's last ones, each inside the one before, that deep
    (a page that closes its deep nesting ends with a shallow element)."""
    depth, element = 1, root
    while len(element) and depth < _MAX_DEPTH:
        element, depth = element[-1], depth + 1
    if depth >= _MAX_DEPTH:
        raise Truncated(f"the page is nested too deep for the HTML parser, which stops after {_MAX_DEPTH} nested "
                        "elements and would lose the rest")


def _refuse_cut_tree(errors: etree._ListErrorLog) -> None:
    """Raise ``Truncated`` when libxml2 stopped building the tree: a page nested deeper than it allows (2048
    elements with its huge-tree option) loses everything after that point, which must never pass silently."""
    from lxml import etree

    for error in errors:
        if error.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT or "excessive depth" in error.message.lower():
            raise Truncated(f"the page is nested too deep for the HTML parser, which would cut it at line {error.line}"
                            f" ({error.message.strip()})")


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


def decode(raw: bytes) -> tuple[str, str]:
    """Text and encoding name of ``raw`` by the rules of ``decode_page`` (its warnings dropped).

    >>> decode("café".encode("cp1252"))
    ('café', 'windows-1252')
    >>> decode('<meta charset="iso-8859-1">Gödel'.encode("utf-8"))[0][-5:]
    'Gödel'
    """
    decoded = decode_page(raw)
    return decoded.text, decoded.encoding


@dataclass(frozen=True)
class Decoded:
    """A page's text, the encoding it was read in, and what was doubtful about that (``(code, message)``)."""

    text: str
    encoding: str
    warnings: tuple[tuple[str, str], ...] = ()
    exact_utf8: bool = False  # the input bytes are exactly the UTF-8 of ``text`` (lxml may parse them as they are)
    invalid: int = 0  # bytes the encoding could not read, each a U+FFFD in ``text``


# A page with invalid bytes is still in the encoding it declares when they are few: at most this many, or at
# most 1% of its non-ASCII bytes. UTF-8 it does not declare needs, besides, at least as many valid multi-byte
# sequences as invalid bytes (a Latin-1 page forms a valid sequence only by accident, "ß" + no-break space, far
# more rarely than an invalid byte).
FEW_INVALID = 8
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"),
)
_DECLARED = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)|\A\s*<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)""", re.I)
# Labels that mean another codec in browsers (the WHATWG Encoding standard): latin-1 and ascii pages are read as
# windows-1252, gb2312 and gbk as gb18030, and a meta tag saying utf-16 (read without a BOM) as utf-8.
_WHATWG = {"latin_1": "cp1252", "iso8859-1": "cp1252", "ascii": "cp1252", "gb2312": "gb18030", "gbk": "gb18030",
           "utf-16": "utf-8", "utf-16-le": "utf-8", "utf-16-be": "utf-8"}
_NON_ASCII = bytes(range(128, 256))


def decode_page(raw: bytes) -> Decoded:
    """Decode a saved page: a BOM wins; then UTF-8 when the bytes are UTF-8 or nearly so, whatever charset the
    page declares; then the declared charset; then windows-1252. Raises ``Binary``.

    Saved pages often declare a charset their bytes are not in (a script decoded Google's ISO-8859-1 page and
    wrote UTF-8), so the bytes outrank the declaration; each doubt is a warning.

    >>> decode_page('<meta charset="iso-8859-1">Gödel'.encode("utf-8")).warnings[0][0]
    'charset_mismatch'
    >>> page = decode_page("7α-hydroxylase ".encode("utf-8") + bytes([0xFF]))
    >>> page.text == "7α-hydroxylase \\ufffd", page.warnings
    (True, (('invalid_bytes', '1 byte is not UTF-8 (the first at offset 16): read as U+FFFD'),))
    """
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            # the bytes after the BOM only: lxml must not be handed ``raw`` as UTF-8 with its BOM
            return _checked_text(replace(_decoded_with(raw[len(bom):], encoding, encoding), exact_utf8=False))
    if any(raw.startswith(magic) for magic in _BINARY_MAGIC) or b"\x00" in raw[:4096]:
        raise Binary("the input is binary data, not a saved page")
    label = declared_charset(raw)
    codec = _codec(label) if label else None
    decoded = _as_utf8(raw, label, codec) or _as_declared(raw, label, codec) or _as_windows_1252(raw, label, codec)
    return _checked_text(decoded)


def declared_charset(raw: bytes) -> str | None:
    """The charset the page declares in its first 4 KB (meta charset, http-equiv or XML declaration), as written.

    >>> declared_charset(b'<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1">')
    'ISO-8859-1'
    >>> declared_charset(b'<?xml version="1.0" encoding="Shift_JIS"?><html>'), declared_charset(b"<p>")
    ('Shift_JIS', None)
    """
    found = _DECLARED.search(raw[:4096])
    return None if found is None else (found.group(1) or found.group(2)).decode("ascii")


def _codec(label: str) -> str | None:
    """The Python codec a browser would read a declared ``label`` with; None for a label of no text codec."""
    try:
        info = codecs.lookup(label)
    except LookupError:
        return None
    if not getattr(info, "_is_text_encoding", True):
        return None
    return _WHATWG.get(info.name, info.name)


def _encoding_name(codec: str) -> str:
    """A codec's usual name: ``cp1252`` -> ``windows-1252``, ``euc_jp`` -> ``euc-jp``."""
    return re.sub(r"^cp(125\d)$", r"windows-\1", codec).replace("_", "-")


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
    decoded = _decoded_with(raw, codec, _encoding_name(codec))
    return decoded if _few_invalid(raw, decoded) else None


def _as_windows_1252(raw: bytes, label: str | None, codec: str | None) -> Decoded:
    """The last resort, as browsers have it: windows-1252 (no detector: its guesses vary with what is installed)."""
    decoded = _decoded_with(raw, "cp1252", "windows-1252")
    if label is None:
        doubt = (Warn.charset_guessed.name,
                 "the page declares no charset and its bytes are not UTF-8: read as windows-1252")
    elif codec is None:
        doubt = (Warn.charset_guessed.name, f"the page declares charset {label}, which is no known text encoding, "
                                            "and its bytes are not UTF-8: read as windows-1252")
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
    """A U+FFFD for each byte a codec cannot read: what ``surrogateescape`` and then replacing its escapes gives
    (it refuses an ASCII byte too), without two passes of a regular expression over the whole text.

    >>> b"a\xe2\x82b\xff".decode("utf-8", _FFFD_PER_BYTE)
    'a\ufffd\ufffdb\ufffd'
    """
    if not isinstance(error, UnicodeDecodeError) or min(error.object[error.start:error.end]) < 0x80:
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
    pubharvest.errors.Blocked: the site answered 403 Forbidden: this client is refused; wait before retrying
    """
    if not doc.is_html:
        return
    head = doc.head
    if "<title>error 403 (forbidden)" in head or "your client does not have permission" in head:
        raise Blocked("the site answered 403 Forbidden: this client is refused; wait before retrying")
