"""One enrichment run over page results: each paper asked of each service in turn, by its DOI, else
by a search whose candidates must pass ``verify.judge``; what is taken fills only what the page
left empty, each value with its ``Provenance``; a value the page gives that the service contradicts
stays, with an ``enrich_differs`` warning. ORCID ids of authors go only to people the page itself
shows (its profile, its co-authors, a paper's linked authors), never to a new person.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType

import httpx
import msgspec

from pubharvest.names import name_key
from pubharvest.parsers.identifiers import normal_doi
from pubharvest.parsers.records import Ids, PageResult, Provenance, Publication
from pubharvest.parsers.warning_codes import Warn
from pubharvest.scrapers.engine import Event

from . import crossref, openalex
from .client import Answer, Asker, EnrichFailed, user_agent
from .options import EnrichOptions
from .verify import Verdict, judge
from .work import Work, page_claim

MODULES: dict[str, ModuleType] = {"crossref": crossref, "openalex": openalex}


@dataclass
class Found:
    """A work a service matched to a paper: how (``doi`` or ``query``), where and how well."""

    service: str
    work: Work
    method: str
    answer: Answer
    score: float

    def provenance(self, name: str, value: object, accepted: bool = True, reason: str | None = None) -> Provenance:
        return Provenance(field=name, value=str(value), source=self.service, method=self.method,
                          where=self.answer.url, score=self.score, date=self.answer.date, accepted=accepted,
                          reason=reason)


@dataclass
class Stats:
    """What a run did: requests sent, answers read from the cache, papers matched per service."""

    requests: int = 0
    cached: int = 0
    matched: dict[str, int] = field(default_factory=lambda: defaultdict(int))


# People's ORCID ids as the matched works' authorships give them: by name key, (ORCID, where found)
Sightings = dict[tuple[str, str], list[tuple[str, Found]]]


def enrich(results: Sequence[PageResult], options: EnrichOptions, transport: httpx.AsyncBaseTransport | None = None,
           on_event: Event | None = None) -> Sequence[PageResult]:
    """``results`` with what Crossref and OpenAlex add (changed in place, and returned): the function
    ``parse``, ``merge``, ``sync`` and ``store add`` call with ``--enrich``. ``on_event`` hears the
    requests as a scrape job's progress does (``request``, ``retry``, ``wait``...)."""
    asyncio.run(enrich_async(results, options, transport, on_event))
    return results


async def enrich_async(results: Sequence[PageResult], options: EnrichOptions,
                       transport: httpx.AsyncBaseTransport | None = None, on_event: Event | None = None) -> Stats:
    async with open_asker(options, transport, on_event) as asker:
        return await enrich_with(asker, results)


@contextlib.asynccontextmanager
async def open_asker(options: EnrichOptions, transport: httpx.AsyncBaseTransport | None = None,
                     on_event: Event | None = None) -> AsyncIterator[Asker]:
    """An ``Asker`` on its own httpx client, closed (and the cache flushed) on leaving."""
    limits = httpx.Limits(max_connections=len(options.base_urls), max_keepalive_connections=4)
    async with httpx.AsyncClient(headers={"User-Agent": user_agent(options.contact)}, timeout=options.timeout,
                                 limits=limits, follow_redirects=False, transport=transport) as client:
        try:
            yield Asker(options, client, resolve=transport is None, on_event=on_event)
        finally:
            if options.cache is not None:
                options.cache.flush()


async def enrich_with(asker: Asker, results: Sequence[PageResult]) -> Stats:
    """Enrich every paper of ``results`` through ``asker`` (``options.concurrency`` papers at once)."""
    stats = Stats()
    slots = asyncio.Semaphore(asker.options.concurrency)
    sightings: list[Sightings] = [defaultdict(list) for _ in results]

    async def one(index: int, pub: Publication) -> None:
        async with slots:
            await enrich_paper(asker, results[index], pub, sightings[index], stats)

    await asyncio.gather(*(one(i, pub) for i, result in enumerate(results) for pub in result.publications))
    for result, seen in zip(results, sightings, strict=True):
        attach_people(result, seen)
    stats.requests = asker.requests
    return stats


async def enrich_paper(asker: Asker, result: PageResult, pub: Publication, seen: Sightings, stats: Stats) -> None:
    """Ask each service about ``pub`` in turn; OpenAlex is asked by the DOI Crossref matched, if any."""
    doi = normal_doi(pub.ids.doi)
    for service in asker.options.services:
        try:
            found = await find(asker.ask, service, result, pub, doi, asker.options.rows, stats)
        except EnrichFailed as error:
            result.warn(Warn.enrich_failed, f"{_shown(pub)}: {error.message}")
            continue
        if found is None:
            continue
        stats.matched[service] += 1
        take(result, pub, found)
        note_authors(pub, found, seen)
        doi = doi or found.work.doi


Ask = Callable[[str, str], Awaitable[Answer]]


async def find(ask: Ask, service: str, result: PageResult, pub: Publication, doi: str | None, rows: int,
               stats: Stats | None = None) -> Found | None:
    """The work ``service`` matches to ``pub``: by ``doi`` when there is one (a 404 is no match, and
    no search follows: the DOI names the paper), else the one search candidate that passes; each
    candidate looked at and refused goes into ``pub.provenance``."""
    module = MODULES[service]
    method = "doi" if doi else "query"
    key = module.doi_key(doi) if doi else module.query_key(pub, rows)
    if key is None:
        return None
    answer = await ask(service, key)
    if stats is not None and answer.cached:
        stats.cached += 1
    if answer.status == 404:
        return None
    works = module.works(answer.json(), method)
    page = page_claim(pub)
    verdicts = [(work, judge(page, work.claim, method)) for work in works]
    passing = _sole(page.year, page.kind, [(w, v) for w, v in verdicts if v.accepted])
    for work, verdict in verdicts:
        if passing is not None and work is passing[0]:
            break
        reason = verdict.reason or f"{len([v for _, v in verdicts if v.accepted])} works fit equally well"
        rejected = Found(service, work, method, answer, verdict.score)
        pub.provenance.append(rejected.provenance(*_what_it_names(work), accepted=False, reason=reason))
        if method == "doi":
            result.warn(Warn.enrich_differs, f"{_shown(pub)}: the page's DOI {doi} names another work at "
                                             f"{service}: {reason}; nothing of it was taken")
    if passing is None:
        return None
    return Found(service, passing[0], method, answer, passing[1].score)


def _sole(year: int | None, kind: str | None, passing: list[tuple[Work, Verdict]]) -> tuple[Work, Verdict] | None:
    """The one candidate of those that passed: when several do (a preprint and its journal version), the
    one of the page's very year, then of its very type; None when that still leaves more than one work."""
    narrowers: list[Callable[[Work], bool]] = [lambda w: w.claim.year == year, lambda w: w.values.get("type") == kind]
    for narrower in narrowers:
        if len(passing) > 1 and any(narrower(w) for w, _ in passing):
            passing = [(w, v) for w, v in passing if narrower(w)]
    distinct = {w.doi or w.openalex or id(w) for w, _ in passing}
    return passing[0] if len(distinct) == 1 else None


def _what_it_names(work: Work) -> tuple[str, str]:
    """The field and value a candidate would have given: its DOI, else its OpenAlex id, else its title."""
    if work.doi:
        return "ids.doi", work.doi
    if work.openalex:
        return "ids.openalex", work.openalex
    return "title", work.claim.title or ""


def take(result: PageResult, pub: Publication, found: Found) -> None:
    """Fill what ``pub`` leaves empty from ``found``, each value with its provenance; a value the page gives
    that the work contradicts is kept, with ``enrich_differs``."""
    work = found.work
    if work.doi:
        _take_id(result, pub, found, "doi", work.doi, normal_doi(pub.ids.doi))
    if work.openalex:
        _take_id(result, pub, found, "openalex", work.openalex, pub.ids.openalex)
    for name, value in work.values.items():
        have = getattr(pub, name)
        if have is None or have == "":
            if name == "date" and pub.year is not None and not str(value).startswith(str(pub.year)):
                continue  # a date of another year than the page's: the year's difference is told once, below
            setattr(pub, name, value)
            pub.provenance.append(found.provenance(name, value))
        elif name == "year" and have != value:
            differs(result, pub, found, name, value, have)
    if work.open_access is not None and pub.open_access is None:
        pub.open_access = work.open_access
        pub.provenance.append(found.provenance("open_access", work.open_access.status or work.open_access.is_oa))
    if work.cited_by is not None:
        pub.cited_by.append(msgspec.structs.replace(work.cited_by, date=found.answer.date))
        pub.provenance.append(found.provenance("cited_by", work.cited_by.citations))


def _take_id(result: PageResult, pub: Publication, found: Found, kind: str, value: str, have: str | None) -> None:
    if have is None:
        setattr(pub.ids, kind, value)
        pub.provenance.append(found.provenance(f"ids.{kind}", value))
    elif have == value:
        pub.provenance.append(found.provenance(f"ids.{kind}", value))  # confirmed
    else:
        differs(result, pub, found, f"ids.{kind}", value, have)


def differs(result: PageResult, pub: Publication, found: Found, name: str, value: object, have: object) -> None:
    """The page says ``have`` where the service says ``value``: the page's stays; a warning and a refused provenance."""
    reason = f"the page gives {have}"
    pub.provenance.append(found.provenance(name, value, accepted=False, reason=reason))
    result.warn(Warn.enrich_differs, f"{_shown(pub)}: {found.service} gives {name} {value}, the page {have}: "
                                     "the page's is kept")


def note_authors(pub: Publication, found: Found, seen: Sightings) -> None:
    """Keep the ORCID ids of the matched work's authors for the people the page shows (``attach_people``);
    a name two authors of the work share says nothing. A paper's own linked authors get theirs here."""
    keys = [name_key(name) for name, _ in found.work.authors]
    for (_, orcid), key in zip(found.work.authors, keys, strict=True):
        if orcid and key[1] and keys.count(key) == 1:
            seen[key].append((orcid, found))
    for index, link in enumerate(pub.author_links):
        orcids = {orcid for orcid, where in seen.get(name_key(link.name), []) if where.work is found.work}
        if len(orcids) == 1:
            _attach(pub.provenance, link.ids, f"author_links[{index}].ids.orcid", link.name, orcids.pop(), found,
                    None)


def attach_people(result: PageResult, seen: Sightings) -> None:
    """Give the page's person and co-authors the ORCID id the matched works agree on (by name key; never
    a new person); ids that disagree are refused, each with why."""
    profile = result.profile
    if profile is None:
        return
    people = [("ids.orcid", profile.name, profile.ids)] if profile.name else []
    people += [(f"coauthors[{i}].ids.orcid", c.name, c.ids) for i, c in enumerate(profile.coauthors)]
    for path, name, ids in people:
        sightings = seen.get(name_key(name or ""), [])
        orcids = sorted({orcid for orcid, _ in sightings})
        if len(orcids) > 1:
            for orcid, found in sightings:
                profile.provenance.append(found.provenance(path, orcid, accepted=False, reason=(
                    f"the matched papers give {name} different ORCID ids: {', '.join(orcids)}")))
        elif orcids:
            _attach(profile.provenance, ids, path, name or "", orcids[0], sightings[0][1], result)


def _attach(provenance: list[Provenance], ids: Ids, field: str, name: str, orcid: str, found: Found,
            result: PageResult | None) -> None:
    if ids.orcid is None:
        ids.orcid = orcid
        provenance.append(found.provenance(field, orcid))
    elif ids.orcid != orcid:
        provenance.append(found.provenance(field, orcid, accepted=False, reason=f"the page gives {ids.orcid}"))
        if result is not None:
            result.warn(Warn.enrich_differs, f"{name}: {found.service} gives ORCID {orcid}, the page "
                                             f"{ids.orcid}: the page's is kept")


def _shown(pub: Publication) -> str:
    title = pub.title or "(a paper without a title)"
    return repr(title if len(title) <= 60 else title[:60] + "...")

