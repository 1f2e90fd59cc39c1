"""``--enrich crossref,openalex`` on 1,000 papers against local stand-ins serving recorded answers:
the per-host limits held (the shortest gap between two requests to a host as the client sent them,
beside the interval its rate allows, and the most requests the stand-in received in any one
second), the run's time beside the least time those limits allow (the floor), and a second run
answered from the store alone (goal: zero requests).

    PUBHARVEST_CORPUS=../shared/research python bench/bench_enrich.py [--papers 1000] [--rates 25,50]

The stand-ins (``tests/helpers/fakesite.py``, each in a process of its own, one host each) serve the
corpus's recorded Crossref and OpenAlex answers for the VQF paper (``enrichment/raw/``), each
paper's copy with its own DOI (``10.5555/bench-N`` in place of ``10.1145/3448016.3452841``), so
that every paper is asked about once and matched by DOI. The stand-in's receiving times are
shown too, but on a shared 2-core machine its threads wait for a core, so that two requests can be
logged closer than they were sent: the count per second is the host's view that jitter leaves
alone. Not a timed test: it prints figures and verdicts, and asserts nothing.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import os
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "helpers"), str(ROOT / "bench")]

from enrichapi import Api, stand_ins  # noqa: E402
from figures import verdict  # noqa: E402
from recorded import RAW, exchanges  # noqa: E402

from pubharvest.enrich import AnswerCache, enrich  # noqa: E402
from pubharvest.parsers.records import PageResult, Profile, Publication, PublicationIds  # noqa: E402

RECORDED = {"crossref": ("front-matter__commonmeta-py__crossref_works_doi_3_incl_acm_proceedings.yaml", 2),
            "openalex": ("front-matter__commonmeta-py__openalex_works_doi_acm_proceedings.yaml", 0)}
DOI = "10.1145/3448016.3452841"
PATHS = {"crossref": "/works/10[.]5555/bench-{n}", "openalex": "/works/https://doi[.]org/10[.]5555/bench-{n}"}
GOAL_FLOOR_RATIO = 1.25  # the run's time at most this times the least the limits allow


def pages(papers: int, per_page: int = 100) -> list[PageResult]:
    """Profile pages of ``per_page`` papers each: the VQF paper as a Scholar row gives it, DOI ``10.5555/bench-N``."""
    found = []
    for start in range(0, papers, per_page):
        found.append(PageResult(site="scholar", page="profile", profile=Profile(name="Prashant Pandey"), publications=[
            Publication(title="Vector quotient filters: Overcoming the time/space trade-off in filter design",
                        authors=["P Pandey", "A Conway"], year=2021, ids=PublicationIds(doi=f"10.5555/bench-{n}"))
            for n in range(start, min(papers, start + per_page))]))
    return found


def gaps(times: list[float]) -> float:
    return min(b - a for a, b in itertools.pairwise(sorted(times)))


def busiest_second(times: list[float]) -> int:
    """The most requests the host received within any one second: what a rate limit counts."""
    ordered = sorted(times)
    return max(bisect.bisect_right(ordered, start + 1.0) - index for index, start in enumerate(ordered))


@dataclass
class Run:
    wall: float
    received: dict[str, list[float]]  # when the stand-in logged each request, by service
    sent: dict[str, list[float]]  # when the client sent each (its ``request`` event)
    enriched: int
    warnings: int


def run_once(api: Api, store: Path, papers: int, rates: dict[str, float]) -> Run:
    """One enrichment of ``papers`` papers, its answers kept in ``store``."""
    logged = {service: len(getattr(api, service).log) for service in rates}
    ports = {getattr(api, service).url.rpartition(":")[2]: service for service in rates}
    sent: dict[str, list[float]] = {service: [] for service in rates}

    def note(event: str, **details: object) -> None:
        if event == "request":  # the client's own clock, as each request leaves
            sent[ports[str(details["url"]).split("/")[2].rpartition(":")[2]]].append(time.monotonic())

    cache = AnswerCache.of_store(store)
    records = pages(papers)
    started = time.perf_counter()
    enrich(records, api.options(cache=cache, rates=rates, concurrency=16), on_event=note)
    wall = time.perf_counter() - started
    cache.close()
    return Run(wall, {s: [t for t, _, _ in getattr(api, s).log[logged[s]:]] for s in rates}, sent,
               sum(p.ids.openalex is not None and p.publisher is not None for r in records for p in r.publications),
               sum(len(r.warnings) for r in records))


def serve(api: Api, corpus: Path, papers: int) -> None:
    """Each paper's recorded answers, its DOI in place of the recorded one, at its own path."""
    for service, (file, index) in RECORDED.items():
        recorded = exchanges(corpus / RAW / file)[index]
        site = getattr(api, service)
        for n in range(papers):
            body = recorded.body
            for slash in ("/", "\\/"):  # as written, and as JSON may escape it
                body = body.replace(DOI.replace("/", slash).encode(), f"10.5555{slash}bench-{n}".encode())
            site.answer(f"{n}", 200, [("Content-Type", "application/json")], body)
            site.route(PATHS[service].format(n=n), f"{n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--rates", default="25,50", help="requests per second: Crossref's,OpenAlex's")
    args = parser.parse_args()
    corpus = Path(os.environ.get("PUBHARVEST_CORPUS", ""))
    if not (corpus / RAW).is_dir():
        sys.exit("set PUBHARVEST_CORPUS=../shared/research: the stand-ins serve its recorded answers")
    rates = dict(zip(("crossref", "openalex"), map(float, args.rates.split(",")), strict=True))
    with stand_ins(corpus) as api, tempfile.TemporaryDirectory() as folder:
        print(f"serving {args.papers} recorded answers per service ...", flush=True)
        serve(api, corpus, args.papers)
        store = Path(folder) / "store.sqlite"
        first, second = run_once(api, store, args.papers, rates), run_once(api, store, args.papers, rates)
        kept = sqlite3.connect(store).execute("SELECT COUNT(*) FROM enrich_answers").fetchone()[0]
    floor = max(len(first.received[s]) / rates[s] for s in rates)
    print(f"load average {os.getloadavg()[0]:.1f}; run 1: {args.papers} papers, {first.enriched} enriched "
          f"(OpenAlex id and publisher), {first.warnings} warnings, {first.wall:.1f} s")
    for service, times in first.received.items():
        interval, rate = 1 / rates[service], rates[service]
        own, busiest = gaps(first.sent[service]), busiest_second(times)
        print(f"  {service}: {len(times)} requests at {rate:g}/s (interval {interval * 1000:.1f} ms): shortest gap as "
              f"sent {own * 1000:.1f} ms: {verdict(own >= interval)}; most received in one second {busiest} "
              f"(limit {rate:g}, +1 for the second's edges): {verdict(busiest <= rate + 1)}; shortest gap as "
              f"received {gaps(times) * 1000:.1f} ms (the stand-in's own scheduling on a shared machine)")
    print(f"  time {first.wall:.1f} s, floor {floor:.1f} s (the requests of the busiest host at its rate): "
          f"{first.wall / floor:.2f}x, goal <= {GOAL_FLOOR_RATIO}x: {verdict(first.wall / floor <= GOAL_FLOOR_RATIO)}")
    requests = sum(len(times) for times in second.received.values())
    print(f"run 2 (answers from the store, {kept} kept): {requests} requests, {second.enriched} enriched, "
          f"{second.wall:.2f} s, {second.wall / first.wall:.3f}x run 1: "
          f"{verdict(requests == 0 and second.enriched == first.enriched)}")


if __name__ == "__main__":
    main()
