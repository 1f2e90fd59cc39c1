"""A page saved as MHTML, a browser's "Webpage, single file" (Chrome's and Edge's ``.mhtml``, Internet
Explorer's ``.mht``): a MIME ``multipart/related`` message whose root part is the page, in quoted-printable
or base64, beside its images, style sheets and frames.

>>> saved = (b"From: <Saved by Blink>\\r\\nSnapshot-Content-Location: https://x.org/a\\r\\nMIME-Version: 1.0\\r\\n"
...          b'Content-Type: multipart/related;\\r\\n\\ttype="text/html";\\r\\n\\tboundary="B"\\r\\n\\r\\n--B\\r\\n'
...          b"Content-Type: text/html\\r\\nContent-Transfer-Encoding: quoted-printable\\r\\n"
...          b"Content-Location: https://x.org/a\\r\\n\\r\\n<p class=3D\\"x\\">caf=C3=A9</p>\\r\\n--B--\\r\\n")
>>> is_mhtml(saved), saved_page(saved)
(True, (b'<p class="x">caf\\xc3\\xa9</p>', 'https://x.org/a', None))
"""

from __future__ import annotations

import binascii
import re
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from pubharvest.errors import Unrecognised

from .text import web_address

if TYPE_CHECKING:
    from email.message import Message

    from .page import HeldPage

_HEAD_BYTES = 16384  # a browser writes a few hundred bytes of headers before the first part
_HEADERS_END = re.compile(rb"\r?\n\r?\n")
_HEADER_LINE = re.compile(rb"[!-9;-~]+:[^\r\n]*|[ \t][^\r\n]*")  # a field, or the folded rest of one
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/]")
_MULTIPART_RELATED = re.compile(rb"^content-type:[ \t]*multipart/related\b", re.IGNORECASE | re.MULTILINE)


def is_mhtml(raw: bytes) -> bool:
    """Whether ``raw`` opens with MIME header fields, up to a blank line, one of which says ``multipart/related``."""
    if not _HEADER_LINE.match(raw, 0, 80) or raw[:1] in b" \t":  # most pages: "<", a BOM, "#", "|", "{"
        return False
    head = raw[:_HEAD_BYTES]
    end = _HEADERS_END.search(head)
    if end is None or not _MULTIPART_RELATED.search(head, 0, end.start()):
        return False
    return all(_HEADER_LINE.fullmatch(line) for line in head[:end.start()].splitlines())


def saved_at(raw: bytes) -> datetime | None:
    """When the browser saved the MHTML file ``raw``: its ``Date`` field (UTC when it names no zone), or None.

    >>> saved_at(b"Date: Fri, 4 Dec 2026 10:11:12 +0100\\nContent-Type: multipart/related\\n\\n")
    datetime.datetime(2026, 12, 4, 10, 11, 12, tzinfo=datetime.timezone(datetime.timedelta(seconds=3600)))
    """
    from email.parser import BytesHeaderParser
    from email.policy import compat32
    from email.utils import parsedate_to_datetime

    end = _HEADERS_END.search(raw, 0, _HEAD_BYTES)
    date = BytesHeaderParser(policy=compat32).parsebytes(raw[:end.start()] if end else b"").get("Date")
    try:
        moment = parsedate_to_datetime(str(date))
    except (TypeError, ValueError):  # no Date, or none a calendar has
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def saved_page(raw: bytes) -> HeldPage:
    """The page an MHTML file holds: the part its ``start`` parameter names, else its first HTML part.
    Raises ``Unrecognised`` when it holds no HTML page."""
    from email.parser import BytesParser
    from email.policy import compat32

    message = BytesParser(policy=compat32).parsebytes(raw)
    parts = [part for part in message.walk() if part.get_content_type() == "text/html"]
    start = message.get_param("start")
    root = [part for part in parts if isinstance(start, str) and part.get("Content-ID", "").strip() == start.strip()]
    for part in [*root, *parts]:
        page = _body(part)
        if page.strip():
            return page, _saved_from(part, message), part.get_content_charset()
    raise Unrecognised("an MHTML file (a browser's \"single file\" save) that holds no HTML page")


def _body(part: Message) -> bytes:
    """A part's bytes, its transfer encoding undone. Base64 cut short (a file that stops early) gives the bytes
    of its whole quanta and what a padded last one holds, where ``email`` hands back the base64 text itself."""
    if str(part.get("Content-Transfer-Encoding", "")).strip().lower() != "base64":
        page = part.get_payload(decode=True)  # quoted-printable undone; 7bit, 8bit and binary as they came
        return page if isinstance(page, bytes) else b""
    letters = _NOT_BASE64.sub(b"", str(part.get_payload()).encode("ascii", "ignore"))
    letters = letters[:len(letters) - 1] if len(letters) % 4 == 1 else letters  # one letter holds no byte
    return binascii.a2b_base64(letters + b"=" * (-len(letters) % 4))


def _saved_from(part: Message, message: Message) -> str | None:
    """The address the page was saved from: its part's ``Content-Location``, else Chrome's
    ``Snapshot-Content-Location`` (a frame's part is named ``cid:``, no address)."""
    for location in (part.get("Content-Location"), message.get("Snapshot-Content-Location")):
        address = web_address(location.strip()) if isinstance(location, str) else None
        if address:
            return address
    return None
