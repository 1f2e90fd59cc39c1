"""A page saved by Safari as a Web Archive (``.webarchive``): a property list, binary or XML, whose
``WebMainResource`` holds the page's bytes, the address it came from and its text encoding, beside the
``WebSubresources`` (images, style sheets) and ``WebSubframeArchives`` (frames) it drew on.

>>> import plistlib
>>> saved = plistlib.dumps({"WebMainResource": {"WebResourceData": b"<p>caf\\xc3\\xa9</p>",
...     "WebResourceURL": "https://x.org/a", "WebResourceMIMEType": "text/html",
...     "WebResourceTextEncodingName": "UTF-8", "WebResourceFrameName": ""}}, fmt=plistlib.FMT_BINARY)
>>> is_webarchive(saved), main_resource(saved)
(True, (b'<p>caf\\xc3\\xa9</p>', 'https://x.org/a', 'UTF-8'))
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pubharvest.errors import Unrecognised

from .text import web_address

if TYPE_CHECKING:
    from .page import HeldPage

_XML_PLIST = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<\?xml[^>]*>\s*<!DOCTYPE plist\b")


def is_webarchive(raw: bytes) -> bool:
    """Whether ``raw`` is a property list naming a ``WebMainResource`` near its start or end (a binary
    list keeps its keys after the data, an XML one before)."""
    plist = raw.startswith(b"bplist00") or bool(_XML_PLIST.match(raw[:512]))
    return plist and (b"WebMainResource" in raw[:4096] or b"WebMainResource" in raw[-4096:])


def main_resource(raw: bytes) -> HeldPage:
    """The page a Web Archive holds. Raises ``Unrecognised`` when the list cannot be read (a file cut short:
    a binary list's index is at its end) or holds no page."""
    import plistlib
    from xml.parsers.expat import ExpatError

    try:
        archive = plistlib.loads(raw)
    except (plistlib.InvalidFileException, ExpatError, ValueError, TypeError, IndexError, OverflowError, KeyError,
            RecursionError) as error:
        raise Unrecognised(f"a Safari Web Archive that cannot be read (cut short or damaged: {error})") from None
    main = archive.get("WebMainResource") if isinstance(archive, dict) else None
    page = main.get("WebResourceData") if isinstance(main, dict) else None
    if not isinstance(main, dict) or not isinstance(page, bytes) or not page.strip():
        raise Unrecognised("a Safari Web Archive that holds no page")
    url, encoding = main.get("WebResourceURL"), main.get("WebResourceTextEncodingName")
    return page, web_address(url), encoding if isinstance(encoding, str) and encoding else None
