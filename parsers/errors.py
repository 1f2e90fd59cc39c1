"""Every error the parsers raise: one family, told apart by ``code``.

>>> try:
...     raise Blocked("CAPTCHA page")
... except ParseError as e:
...     print(e.code, e.message)
blocked CAPTCHA page
"""

from __future__ import annotations


class ParseError(Exception):
    """A page that is not what it should be. ``code`` names the outcome; ``message`` says why."""

    code: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Empty(ParseError):
    """The input has no content at all (zero bytes or only whitespace)."""

    code = "empty"


class Binary(ParseError):
    """The input is not text (an image, a PDF, a zip, ...)."""

    code = "binary"


class Truncated(ParseError):
    """The input stops before the page does (a download or save cut short)."""

    code = "truncated"


class Blocked(ParseError):
    """The site answered with a CAPTCHA, an "unusual traffic" or a 403 page instead of content."""

    code = "blocked"


class NotFoundOrPrivate(ParseError):
    """The site redirected to a sign-in page or said the profile does not exist."""

    code = "not_found_or_private"


class Unrecognised(ParseError):
    """The input is not a page of any site (or kind of page) pubharvest knows."""

    code = "unrecognised"


class LayoutChanged(ParseError):
    """The page is of a known site but lacks the structure its parser relies on."""

    code = "layout_changed"


CODES: tuple[str, ...] = tuple(
    cls.code for cls in (Empty, Binary, Truncated, Blocked, NotFoundOrPrivate, Unrecognised, LayoutChanged)
)
