"""Pages saved as a browser's single-file save (MHTML, Safari's Web Archive), for the tests of reading them."""

from __future__ import annotations

import base64
import plistlib
import quopri
import random
from collections.abc import Iterator

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def part(headers: list[str], body: bytes, newline: bytes) -> bytes:
    return newline.join(h.encode() for h in headers) + newline + newline + body + newline


def wrapped(page: bytes, url: str, *, coding: str = "quoted-printable", newline: bytes = b"\r\n",
            charset: str | None = None, frame_first: bool = False,
            date: str = "Sat, 5 Dec 2026 05:00:00 -0000") -> bytes:
    """``page`` as a browser's single-file save: a frame (an HTML page of its own) and an image beside it."""
    if coding == "quoted-printable":
        body = quopri.encodestring(page).replace(b"\n", newline)
    elif coding == "base64":
        body = base64.encodebytes(page).replace(b"\n", newline)
    else:  # 8bit, binary: the page's own bytes
        body = page
    kind = "text/html" + (f"; charset={charset}" if charset else "")
    main_part = part([f"Content-Type: {kind}", "Content-ID: <page@mhtml>", f"Content-Transfer-Encoding: {coding}",
                      f"Content-Location: {url}"], body, newline)
    frame = part(["Content-Type: text/html", "Content-ID: <frame@mhtml>", "Content-Transfer-Encoding: quoted-printable",
                  "Content-Location: cid:frame@mhtml"], b"<html><body>an ad</body></html>", newline)
    image = part(["Content-Type: image/png", "Content-Transfer-Encoding: base64",
                  "Content-Location: https://example.org/a.png"], base64.encodebytes(PNG).replace(b"\n", newline),
                 newline)
    parts = [frame, main_part, image] if frame_first else [main_part, frame, image]
    start = '\tstart="<page@mhtml>";' if frame_first else None
    head = ["From: <Saved by Blink>", f"Snapshot-Content-Location: {url}", "Subject: a page",
            f"Date: {date}", "MIME-Version: 1.0", "Content-Type: multipart/related;",
            '\ttype="text/html";', *([start] if start else []), '\tboundary="----MultipartBoundary--x7----"']
    return (newline.join(h.encode() for h in head) + newline + newline
            + b"".join(b"------MultipartBoundary--x7----" + newline + p for p in parts)
            + b"------MultipartBoundary--x7------" + newline)


def web_archive(page: bytes, url: str, encoding: str | None = "UTF-8", binary: bool = True) -> bytes:
    """``page`` as Safari saves it: its main resource, an image and a frame beside it, a property list."""
    def resource(data: bytes, address: str, mime: str) -> dict[str, object]:
        return {"WebResourceData": data, "WebResourceURL": address, "WebResourceMIMEType": mime,
                **({"WebResourceTextEncodingName": encoding} if encoding and mime == "text/html" else {})}
    archive = {"WebMainResource": {**resource(page, url, "text/html"), "WebResourceFrameName": ""},
               "WebSubresources": [resource(PNG, "https://example.org/a.png", "image/png")],
               "WebSubframeArchives": [{"WebMainResource": resource(b"<html>an ad</html>", "about:blank",
                                                                    "text/html")}]}
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY if binary else plistlib.FMT_XML)


def damaged_copies(saved: bytes, seed: int | str, start: int = 0, likely: bytes = b"") -> Iterator[bytes]:
    """300 copies of ``saved``, each with 1 to 8 bytes from ``start`` on overwritten at random (a bad disk, a bad
    copy): by any byte, or by one of ``likely`` (the characters its format turns on)."""
    chance = random.Random(seed)
    for _ in range(300):
        damaged = bytearray(saved)
        for _ in range(chance.randint(1, 8)):
            damaged[chance.randrange(start, len(damaged))] = chance.choice([chance.randrange(256), *likely])
        yield bytes(damaged)
