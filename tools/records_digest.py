"""Every page's records, warnings or refusal as one line each: the before/after check of a speed change.

    python tools/records_digest.py OUT.jsonl [--variants]      # fixtures/ and $PUBHARVEST_CORPUS
    python tools/records_digest.py --compare BEFORE.jsonl AFTER.jsonl

Run it once with the code before a change and once after (a second checkout or virtualenv), then compare:
the pages whose records, warnings or refusal differ are listed and the exit status is 1. ``--variants`` adds
cut and enlarged copies of each HTML page, so that the streamed and whole-tree readings are both compared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec

from pubharvest.errors import ParseError
from pubharvest.parsers import parse

PAGE_SUFFIXES = {".html", ".htm", ".txt", ".md", ".markdown", ".mhtml", ".xhtml", ".json"}  # JSON: MSR faceted search


def page_paths() -> Iterator[Path]:
    """Every page file under fixtures/ and the corpus, in a stable order."""
    roots = [Path("fixtures")]
    corpus = os.environ.get("PUBHARVEST_CORPUS")
    if corpus:
        roots.append(Path(corpus))
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix.lower() in PAGE_SUFFIXES:
                yield path


def variants(data: bytes) -> Iterator[tuple[str, bytes]]:
    """The page as it is, then (for HTML) cut at two thirds and with its body repeated three times."""
    yield "", data
    if b"<html" not in data[:4096].lower():
        return
    yield "#cut", data[: len(data) * 2 // 3]
    body_at = data.lower().find(b"<body")
    end_at = data.lower().rfind(b"</body")
    if 0 <= body_at < end_at:
        body = data[body_at:end_at]
        yield "#enlarged", data[:body_at] + body * 3 + data[end_at:]


def digest(data: bytes) -> str:
    """The sha256 of the page's records and warnings as JSON, or its refusal's code and message."""
    try:
        result = parse(data)
    except ParseError as error:
        return f"refused {error.code}: {error.message}"
    return hashlib.sha256(msgspec.json.encode(result)).hexdigest()


def write_digests(out: Path, with_variants: bool) -> int:
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for path in page_paths():
            data = path.read_bytes()
            for suffix, variant in variants(data) if with_variants else [("", data)]:
                handle.write(json.dumps({"page": f"{path}{suffix}", "digest": digest(variant)}) + "\n")
                count += 1
    print(f"{count} pages digested into {out}")
    return 0


def read_digests(path: Path) -> dict[str, str]:
    with path.open(encoding="utf-8") as handle:
        return {row["page"]: row["digest"] for row in map(json.loads, handle)}


def compare(before_path: Path, after_path: Path) -> int:
    before, after = read_digests(before_path), read_digests(after_path)
    differ = sorted(page for page in before.keys() | after.keys() if before.get(page) != after.get(page))
    for page in differ:
        print(f"{page}: {before.get(page, '(absent)')} -> {after.get(page, '(absent)')}")
    print(f"{len(before.keys() & after.keys())} pages in both, {len(differ)} differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--variants", action="store_true")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give OUT.jsonl or --compare BEFORE AFTER")
    return write_digests(args.out, args.variants)


if __name__ == "__main__":
    sys.exit(main())
