"""Turning input bytes into a ``Document``: decoding, and refusing the 403 page any site may send.

>>> doc = Document.from_input(b"<html><body>hi</body></html>")
>>> doc.encoding, doc.is_html
('utf-8', True)
"""

from __future__ import annotations

import hashlib
import re
import threading
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from pubharvest.errors import MAX_INPUT_BYTES, Binary, Blocked, Empty, TooLarge, Truncated

if TYPE_CHECKING:
    from parsel import Selector

__all__ = ["Document", "html_selector", "gunzip", "decode", "refuse_forbidden"]

_BINARY_MAGIC = (b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x7fELF", b"BZh", b"\xfd7zXZ")
_HTML_START = re.compile(r"<(?:!doctype\s+html|html|head|body|div|table|tr|span|meta|title)\b", re.I)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w-]+)""", re.I)


@dataclass
class Document:
    """One input page: its text, where it came from, and lazily its parsed HTML tree."""

    text: str
    url: str | None = None
    raw: bytes | None = field(default=None, repr=False)  # the UTF-8 bytes of ``text``, when at hand
    sha256: str = ""
    encoding: str = "utf-8"
    kind: str | None = None  # the page kind the registry detected, so a parser need not sniff twice
    _selector: Selector | None = field(default=None, repr=False)
    _found: dict[str, bool] = field(default_factory=dict, repr=False)

    @classmethod
    def from_input(cls, data: bytes | str, url: str | None = None) -> Document:
        """Decode ``data`` (bytes of any encoding, gzip, or already text). Raises ``Empty``/``Binary``."""
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if raw[:2] == b"\x1f\x8b":
            raw = gunzip(raw)
        digest = hashlib.sha256(raw).hexdigest()
        if isinstance(data, str):
            text, encoding = data, "utf-8"
        else:
            text, encoding = decode(raw)
        if not text.strip():
            raise Empty("the input is empty" if not raw else "the input holds only whitespace")
        as_is = encoding == "utf-8" and not isinstance(data, str) and not raw.startswith(b"\xef\xbb\xbf")
        utf8 = raw if as_is else None
        return cls(text=text.lstrip("\ufeff"), url=url, raw=utf8, sha256=digest, encoding=encoding)

    def contains(self, marker: str) -> bool:
        """Whether the page holds the ASCII ``marker`` anywhere (each marker searched once)."""
        found = self._found.get(marker)
        if found is None:
            found = self._found[marker] = marker in self.text
        return found

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
    if root is None:
        root = etree.fromstring(b"<html></html>", parser)
    return Selector(root=root, type="html")


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
    """Text and encoding name of ``raw``: BOM, then a declared charset, then UTF-8, then a guess.

    >>> decode("café".encode("cp1252"))
    ('café', 'windows-1252')
    """
    if any(raw.startswith(magic) for magic in _BINARY_MAGIC) or b"\x00" in raw[:4096]:
        if not (raw.startswith((b"\xff\xfe", b"\xfe\xff"))):
            raise Binary("the input is binary data, not a saved page")
    declared = _META_CHARSET.search(raw[:4096])
    candidates = ["utf-8"] if declared is None else [declared.group(1).decode("ascii", "replace")]
    if candidates[0].lower() in ("utf-8", "utf8") and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:  # the common case, without the cost of a guessing decoder
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            if _control_share(text) > 0.05:
                raise Binary("the input is binary data, not a saved page")
            return text, "utf-8"
    from bs4 import UnicodeDammit

    # utf-8 then windows-1252 before any installed detector's guess: charset_normalizer (which
    # Scrapy and requests pull in) guesses cp1250 or utf-16 for short Western pages
    dammit = UnicodeDammit(raw, known_definite_encodings=candidates, user_encodings=["utf-8", "windows-1252"],
                           is_html=True)
    if dammit.unicode_markup is None:
        raise Binary("the input could not be decoded as text in any known encoding")
    text = dammit.unicode_markup
    if _control_share(text) > 0.05:
        raise Binary("the input is binary data, not a saved page")
    encoding = (dammit.original_encoding or "utf-8").lower()
    return text, "utf-8" if encoding == "ascii" else encoding


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f]")


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
