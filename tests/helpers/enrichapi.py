"""Stand-ins of Crossref and OpenAlex for the enrichment tests and benchmark: two ``FakeSite``s (two
hosts, so that each has its own pace) serving the corpus's recorded answers by path, and the
options that point a run at them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakesite import FakeSite
from recorded import RAW, Recorded, exchanges

from pubharvest.enrich import AnswerCache, EnrichOptions, enrich_options

CONTACT = "enrich-tests@example.org"
# Headers of a recorded answer that the stand-in sends again (not its length or transfer coding: the
# body is sent whole, decoded)
_KEPT = ("content-type", "location", "retry-after")


@dataclass
class Api:
    crossref: FakeSite
    openalex: FakeSite
    raw: Path

    def serve(self, service: str, pattern: str, recorded: Recorded) -> None:
        """Answer every path matching ``pattern`` with ``recorded`` (status, headers, body)."""
        site = getattr(self, service)
        name = f"{service}:{pattern}"
        headers = [(k, v) for k, v in recorded.headers.items() if k in _KEPT]
        site.answer(name, recorded.status, headers, recorded.body)
        site.route(pattern, name)

    def serve_file(self, service: str, pattern: str, file: str, index: int = 0) -> Recorded:
        recorded = exchanges(self.raw / file)[index]
        self.serve(service, pattern, recorded)
        return recorded

    def options(self, services: str = "crossref,openalex", **settings: Any) -> EnrichOptions:
        """Options asking the stand-ins, no cache unless ``cache`` is given."""
        settings.setdefault("cache", None)
        return enrich_options(services, CONTACT, environ={},
                              base_urls={"crossref": self.crossref.url, "openalex": self.openalex.url}, **settings)

    def requests(self) -> list[str]:
        """Every path asked of either stand-in, Crossref's first."""
        return self.crossref.paths() + self.openalex.paths()


@contextmanager
def stand_ins(corpus: Path) -> Iterator[Api]:
    with ExitStack() as stack:
        yield Api(stack.enter_context(FakeSite()), stack.enter_context(FakeSite()), corpus / RAW)


def cache_at(path: Path) -> AnswerCache:
    return AnswerCache.of_store(path)
