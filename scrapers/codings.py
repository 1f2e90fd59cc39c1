"""A response body decoded as its ``Content-Encoding`` says, with a ceiling on the DECODED bytes.

httpx's own decoders hand each network chunk to ``decompress()`` whole, so an 8 KB brotli body
or a 16 KB ``gzip, gzip`` body becomes gigabytes in one call, before anything can count it. Here
every decoder gives at most ``PIECE`` bytes per step (zlib's ``max_length``, brotli's
``output_buffer_limit``), the decoders of a stack (``gzip, gzip``) are chained lazily, and the
caller counts what comes out: a bomb stops at the cap plus one piece, in memory too.

>>> import gzip
>>> decoded([gzip.compress(gzip.compress(b"hello"))], "gzip, gzip", cap=100)
b'hello'
>>> try:
...     decoded([b"plain"], "gzip", cap=100)
... except BadCoding as error:
...     print(error)
the body is not gzip as its Content-Encoding says (Error -3 while decompressing data: incorrect header check)
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

PIECE = 64 * 1024  # the most any decoder gives at once


class BadCoding(ValueError):
    """A body that does not decode as its ``Content-Encoding`` says, or a coding we cannot decode."""


class TooLargeDecoded(ValueError):
    """The decoded body passed the cap."""


class DecodedBody:
    """A body fed chunk by chunk as it arrives, decoded as ``content_encoding`` says, kept while within ``cap``.

    ``feed`` raises ``TooLargeDecoded`` once the decoded bytes pass ``cap`` (having held at most
    ``cap`` plus one piece) and ``BadCoding`` when a coding does not decode; ``end`` gives the body.
    """

    def __init__(self, content_encoding: str | None, cap: int) -> None:
        self.stages = [_DECODERS[coding]() for coding in reversed(codings(content_encoding))]  # last applied first
        self.cap, self.size = cap, 0
        self.pieces: list[bytes] = []

    def feed(self, chunk: bytes) -> None:
        for piece in _through(self.stages, chunk):
            self._keep(piece)

    def end(self) -> bytes:
        for index, stage in enumerate(self.stages):
            for piece in stage.end():
                for out in _through(self.stages[index + 1:], piece):
                    self._keep(out)
        return b"".join(self.pieces)

    def _keep(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size > self.cap:
            self.pieces.clear()
            raise TooLargeDecoded(f"more than {self.cap} bytes once decoded")
        if piece:
            self.pieces.append(piece)


def decoded(chunks: Iterable[bytes], content_encoding: str | None, cap: int) -> bytes:
    """The whole body of ``chunks`` decoded (see ``DecodedBody``)."""
    body = DecodedBody(content_encoding, cap)
    for chunk in chunks:
        body.feed(chunk)
    return body.end()


def accepted() -> str:
    """An ``Accept-Encoding`` naming the codings this installation decodes (brotli is optional)."""
    import importlib.util

    return "gzip, deflate" + (", br" if importlib.util.find_spec("brotli") else "")


def codings(content_encoding: str | None) -> list[str]:
    """The codings of a ``Content-Encoding`` header, in the order they were applied (identity dropped).

    >>> codings("gzip, br"), codings(None), codings(" identity ")
    (['gzip', 'br'], [], [])
    """
    names = [part.strip().lower() for part in (content_encoding or "").split(",")]
    names = [_ALIASES.get(name, name) for name in names if name and name != "identity"]
    unknown = next((name for name in names if name not in _DECODERS), None)
    if unknown is not None:
        raise BadCoding(f"the body is in Content-Encoding {unknown[:40]!r}, which pubharvest cannot decode")
    return names


class _Decoder(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...

    def end(self) -> Iterator[bytes]: ...


def _through(stages: Sequence[_Decoder], data: bytes) -> Iterator[bytes]:
    """``data`` through each of ``stages`` in turn, a piece at a time."""
    if not stages:
        yield data
        return
    for piece in stages[0].feed(data):
        yield from _through(stages[1:], piece)


class _Zlib:
    """gzip (members one after another, as RFC 1952 allows) or zlib-wrapped/raw deflate."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.decoder: Any = None
        self.first = True

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            while data:
                if self.decoder is None or self.decoder.eof:
                    if self.decoder is not None and self.name != "gzip":
                        return  # bytes after the end of a deflate stream: ignored, as browsers do
                    self.decoder = zlib.decompressobj(self._wbits(data))
                piece = self.decoder.decompress(data, PIECE)
                data = self.decoder.unused_data if self.decoder.eof else self.decoder.unconsumed_tail
                yield piece
        except zlib.error as error:
            raise BadCoding(f"the body is not {self.name} as its Content-Encoding says ({error})") from None

    def end(self) -> Iterator[bytes]:
        if self.decoder is not None and not self.decoder.eof:
            raise BadCoding(f"the body is not {self.name} as its Content-Encoding says (it stops early)")
        return iter(())

    def _wbits(self, data: bytes) -> int:
        if self.name == "gzip":
            return zlib.MAX_WBITS | 16
        # deflate is zlib-wrapped by the standard and raw from some servers: the first two bytes tell which
        wrapped = len(data) >= 2 and (data[0] & 0x0F) == 8 and ((data[0] << 8) | data[1]) % 31 == 0
        return zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS


class _Brotli:
    def __init__(self) -> None:
        try:
            import brotli  # type: ignore[import-untyped, unused-ignore]  # typed in some releases only
        except ImportError:
            raise BadCoding("the body is brotli (br) and the brotli package is not installed") from None
        self.module: Any = brotli
        self.decoder: Any = brotli.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            yield self.decoder.process(data, output_buffer_limit=PIECE)
            while not self.decoder.can_accept_more_data():
                yield self.decoder.process(b"", output_buffer_limit=PIECE)
        except self.module.error as error:
            raise BadCoding(f"the body is not br as its Content-Encoding says ({error})") from None

    def end(self) -> Iterator[bytes]:
        if not self.decoder.is_finished():
            raise BadCoding("the body is not br as its Content-Encoding says (it stops early)")
        return iter(())


class _Zstd:
    def __init__(self) -> None:
        self.module: Any = _zstd_module()
        self.decoder: Any = self.module.ZstdDecompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            while True:
                if self.decoder.eof:  # a body may hold several frames: what follows one starts the next
                    data = self.decoder.unused_data + data
                    if not data:
                        return
                    self.decoder = self.module.ZstdDecompressor()
                elif not data and self.decoder.needs_input:
                    return
                yield self.decoder.decompress(data, PIECE)
                data = b""
        except self.module.ZstdError as error:
            raise BadCoding(f"the body is not zstd as its Content-Encoding says ({error})") from None

    def end(self) -> Iterator[bytes]:
        if not self.decoder.eof:
            raise BadCoding("the body is not zstd as its Content-Encoding says (it stops early)")
        return iter(())


def _zstd_module() -> Any:
    """Python 3.14's zstd module, else its backport (which ships no types: both are looked up by name)."""
    for name in ("compression.zstd", "backports.zstd"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise BadCoding("the body is zstd and no zstd decoder is installed")


_ALIASES = {"x-gzip": "gzip"}
_DECODERS: dict[str, Callable[[], _Decoder]] = {
    "gzip": lambda: _Zlib("gzip"), "deflate": lambda: _Zlib("deflate"), "br": _Brotli, "zstd": _Zstd,
}
