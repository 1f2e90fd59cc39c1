"""Synthetic page results of a university's faculty on three sites, for the merge and export benches.

    >>> pages = list(faculty_pages(1000))
    >>> sum(len(result.publications) for _, result in pages) >= 1000
    True

Each of the papers is listed on one to three sites (Scholar for nearly all, MSR and Elamur for some),
on the profile page of its first author on each site, the way the real pages differ:

- Scholar lower-cases some titles, cuts long ones with ``…`` and gives initials ("J Ren"), no ids;
- MSR writes titles as published, full names, a DOI for some, a report number for a few;
- Elamur writes titles with other punctuation and spacing, an arXiv id for some;
- one source in twenty is a year off (a preprint's year beside the proceedings' year);
- a few short titles ("Introduction", "Overview") name different papers of different years.

Deterministic for a given size and seed, and generated page by page (a million records never sit
in memory at once).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from pubharvest.parsers.records import PageResult, Profile, Publication, PublicationIds

SITES = ("scholar", "msr", "elamur")
# P(a paper is listed on the site): on average 1.7 listings per paper
LISTED = {"scholar": 0.92, "msr": 0.38, "elamur": 0.42}
PAPERS_PER_PERSON = 120
_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "sa", "do", "gu", "fe", "hi", "jo", "wy")
_SHORT_TITLES = ("Introduction", "Overview", "Preface", "Editorial", "Keynote", "Panel discussion")
_VENUES = ("NeurIPS", "ICML", "SC", "OSDI", "Nature", "Communications of the ACM", "arXiv preprint")


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))


def _vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    return [_word(rng) for _ in range(size)]


def _title(rng: random.Random, words: list[str]) -> str:
    if rng.random() < 0.01:
        return rng.choice(_SHORT_TITLES)
    picked = [rng.choice(words) for _ in range(rng.randint(4, 11))]
    picked[0] = picked[0].capitalize()
    if rng.random() < 0.4:
        picked[0] = picked[0].upper() + ":"
    return " ".join(picked)


def _person(rng: random.Random, words: list[str]) -> tuple[str, str]:
    given, family = _word(rng).capitalize(), _word(rng).capitalize()
    return f"{given} {family}", f"{given[0]} {family}"


def _variant(site: str, title: str, rng: random.Random) -> str:
    """The title as ``site`` writes it."""
    if site == "scholar":
        if rng.random() < 0.3:
            title = title[0] + title[1:].lower()
        if len(title) > 60 and rng.random() < 0.25:
            title = title[:rng.randint(40, 55)].rstrip() + " …"
        return title
    if site == "elamur" and rng.random() < 0.5:
        return title.replace(": ", " - ").replace(" ", "  ", 1)
    return title


def _listing(site: str, paper: dict, rng: random.Random) -> Publication:
    authors = [full if site != "scholar" else short for full, short in paper["authors"]]
    year = paper["year"] + (1 if rng.random() < 0.05 else 0)
    ids = PublicationIds()
    if site == "msr":
        ids.doi = paper["doi"] if rng.random() < 0.6 else None
        ids.report_number = paper["report"]
    elif site == "elamur":
        ids.arxiv = paper["arxiv"] if rng.random() < 0.7 else None
        ids.doi = paper["doi"] if rng.random() < 0.2 else None
    return Publication(title=_variant(site, paper["title"], rng), authors=authors,
                       authors_truncated=site == "scholar" and len(authors) > 5, venue=paper["venue"],
                       year=year, citations=rng.randint(0, 500) if site != "msr" else None, ids=ids)


def _paper(rng: random.Random, words: list[str], number: int, people: list[tuple[str, str]]) -> dict:
    year = rng.randint(1995, 2025)
    return {
        "title": _title(rng, words), "year": year, "venue": rng.choice(_VENUES),
        "authors": rng.sample(people, rng.randint(1, 6)),
        "doi": f"10.{1000 + number % 9000}/p{number}" if rng.random() < 0.5 else None,
        "arxiv": f"{year % 100:02d}{rng.randint(1, 12):02d}.{number % 100000:05d}" if rng.random() < 0.4 else None,
        "report": f"MSR-TR-{year}-{number % 1000}" if rng.random() < 0.03 else None,
    }


def faculty_pages(publications: int, seed: int = 15) -> Iterator[tuple[str, PageResult]]:
    """``(input name, page result)`` pairs holding at least ``publications`` listings in all."""
    rng = random.Random(seed)
    words = _vocabulary(rng)
    expected = sum(LISTED.values())
    papers_needed = int(publications / expected) + 1
    listed, number, person = 0, 0, 0
    while listed < publications:
        count = min(PAPERS_PER_PERSON, papers_needed - number) if number < papers_needed else PAPERS_PER_PERSON
        own = _person(rng, words)
        people = [own] + [_person(rng, words) for _ in range(8)]
        papers = [_paper(rng, words, number + i, people) for i in range(count)]
        for paper in papers:
            paper["authors"] = [own] + [a for a in paper["authors"] if a != own]
        number += count
        for site in SITES:
            pubs = [_listing(site, paper, rng) for paper in papers if rng.random() < LISTED[site]]
            listed += len(pubs)
            if pubs:
                profile = Profile(name=own[0] if site != "scholar" else own[1], url=f"https://{site}.example/p{person}")
                yield f"{site}/p{person}", PageResult(site=site, page="publication_list", profile=profile,
                                                      url=profile.url, publications=pubs)
        person += 1
