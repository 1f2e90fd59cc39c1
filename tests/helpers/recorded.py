"""The recorded Crossref and OpenAlex answers of the research corpus (``enrichment/raw/``), read as they
were recorded: vcrpy cassettes (``interactions:``, gzip bodies as ``!!binary``), R and Ruby VCR
cassettes (``http_interactions:``) and raw JSON bodies. They stay in the corpus; tests serve them
from the stand-in server (``fakesite.py``) and never copy them into the repository.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

RAW = "enrichment/raw"


@dataclass(frozen=True)
class Recorded:
    """One recorded exchange: what was asked and what came back (the body decoded from its gzip)."""

    uri: str
    status: int
    headers: dict[str, str]
    body: bytes


def exchanges(path: Path) -> list[Recorded]:
    """Every exchange of the cassette at ``path``, in order."""
    data = yaml.safe_load(path.read_bytes())
    return [_exchange(item) for item in data.get("interactions") or data.get("http_interactions") or []]


def body(path: Path, index: int = 0) -> bytes:
    """The body of exchange ``index`` of a cassette, or the whole file of a raw JSON body."""
    if path.suffix == ".json":
        return path.read_bytes()
    return exchanges(path)[index].body


def json_body(path: Path, index: int = 0) -> dict:
    return json.loads(body(path, index))


def _exchange(item: dict) -> Recorded:
    response = item["response"]
    status = response["status"]
    code = int(status["code"] if isinstance(status, dict) and "code" in status
               else status["status_code"] if isinstance(status, dict) else status)
    headers = {k.lower(): (v[0] if isinstance(v, list) else v) for k, v in (response.get("headers") or {}).items()}
    raw = response["body"]["string"] if isinstance(response["body"], dict) else response["body"]
    data = raw if isinstance(raw, bytes) else (raw or "").encode("utf-8")
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
        headers.pop("content-encoding", None)
    return Recorded(item["request"]["uri"], code, headers, data)
