"""A parse worker of ``parsepool``: ``python -m pubharvest.scrapers.parseworker`` parses each page framed on
its standard input and answers on its standard output, until its input ends. It imports the parsers and
nothing of the job (no HTTP client, no event loop), so that it starts in a fraction of the job's time.

A frame is a 4-byte big-endian length, then its bytes: a page is msgpack ``(body, url, charset)``; an
answer is ``R`` and the record as msgpack, or ``E`` and the page's ``PubharvestError`` pickled (any other
exception made the page's named error first, as ``Engine.parse_page`` names it).
"""

from __future__ import annotations

import pickle
import sys
from typing import BinaryIO

import msgspec

from pubharvest.errors import PubharvestError
from pubharvest.parsers import parse

HEAD = 4  # bytes of a frame's length
RECORD, ERROR = b"R", b"E"  # the first byte of an answer: a record, or the page's error
ENCODER = msgspec.msgpack.Encoder()
_DECODE_PAGE = msgspec.msgpack.Decoder(tuple[bytes, str, str | None])


def serve(source: BinaryIO, sink: BinaryIO) -> None:
    """A worker: parse each page framed on ``source``, answer each on ``sink``, until ``source`` ends."""
    while True:
        head = source.read(HEAD)
        if len(head) < HEAD:
            return  # the job closed the pool, or its process is gone
        body, url, charset = _DECODE_PAGE.decode(source.read(int.from_bytes(head, "big")))
        try:
            answer = RECORD + ENCODER.encode(parse(body, url=url, charset=charset))
        except PubharvestError as error:
            answer = ERROR + pickle.dumps(error)
        except Exception as error:
            from .engine import named_error  # (not imported before: the job's modules are a worker's slowest start)

            answer = ERROR + pickle.dumps(named_error(error, f"parsing {url}"))
        sink.write(len(answer).to_bytes(HEAD, "big") + answer)
        sink.flush()


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
