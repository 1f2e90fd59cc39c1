"""``--enrich crossref,openalex``: DOIs, OpenAlex ids, open access, citation counts per year and
authors' ORCID ids from Crossref and OpenAlex, each value with its provenance (docs/enrich.md).

- ``enrich(results, options) -> results``: what ``parse``, ``merge``, ``sync``, scrape jobs and
  ``store add`` call; ``enrich_options(...)`` makes the options from ``--enrich`` and ``--contact``;
- ``client``: the requests (the scraper's ``Fetcher``: pacing, retries, Retry-After, ceilings);
- ``cache``: the answers kept in the store's database; ``verify``: when a found work is the paper;
- ``crossref``, ``openalex``: each service's requests and answers; ``run``: one run over the papers.
"""

from __future__ import annotations

from .cache import AnswerCache
from .options import SERVICES, EnrichOptions, enrich_options
from .run import Stats, enrich, enrich_async

__all__ = ["AnswerCache", "EnrichOptions", "SERVICES", "Stats", "enrich", "enrich_async", "enrich_options"]
