"""What the site targets (``hugo``, ``academicpages``) share: a site's pages read as front matter,
matched to papers, and filled with the fields they lack.

The rule that never loses an edit: a synced field is written only where a page lacks it (or holds it
commented out, ``#citation: ...``: the user's choice to leave it out). A value a page has is the
user's, whoever wrote it first, and stays as it is; a record's correction reaches a page whose line
the user deletes. New pages are written for papers no page stands for with ``--add-missing``, as
the ``bib`` target appends entries (and, as it does, not for a Scholar row whose title is a list of
names).

>>> slug("rajbhandari2020zeroa"), slug("anonfoo"), slug("Ovtcharov2015_x")
('rajbhandari-2020-zeroa', 'anonfoo', 'ovtcharov-2015-x')
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pubharvest.parsers.identifiers import arxiv_in_url, doi_in_url

from ..errors import BadTarget
from ..merge import Paper
from . import FileChange, SyncOptions, SyncPlan
from .bib import addable
from .frontmatter import FENCE, FrontMatter, yaml_scalar
from .matching import EntryFacts, entry_id, match_entries

_YEAR = re.compile(r"(\d{4})(?!\d)")

# the key that holds a paper's Scholar id (al-folio's name for it in a .bib): the id that tells apart
# the papers of a profile that share a title and year
SCHOLAR_KEY = "google_scholar_id"
# A synced field: its key and its value as YAML (None: the record has none)
Field = tuple[str, str | None]


@dataclass
class Page:
    """One of the site's pages: its file, its bytes and its front matter."""

    path: Path
    before: bytes
    front: FrontMatter


def slug(key: str) -> str:
    """A paper's key as a folder or file name, as academic's ``slugify(ID)``: letters and digits
    apart, ``_`` and ``.`` as hyphens, lower case."""
    text = re.sub(r"[._:\s]+", "-", key)
    text = re.sub(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])", "-", text)
    text = re.sub(r"[^\w-]+", "", text, flags=re.ASCII).lower()
    return re.sub(r"-{2,}", "-", text).strip("-") or "paper"


def read_page(path: Path, root: Path) -> Page:
    """The page at ``path`` (a file without front matter is no page: it matches nothing); ``BadTarget``
    naming it (from ``root``, the site's) when it cannot be read or its front matter cannot: nothing of
    the site is written then."""
    try:
        data = path.read_bytes()
        if not data.lstrip(b"\xef\xbb\xbf").startswith((b"---", b"+++")):
            return Page(path, data, FrontMatter.absent(data))  # no page (Jekyll copies it as it is): unmatched
        return Page(path, data, FrontMatter.parse(data))
    except OSError as error:
        raise BadTarget(f"{path.relative_to(root)}: cannot be read ({error.strerror})") from None
    except BadTarget as error:
        raise BadTarget(f"{path.relative_to(root)}: {error.message}") from None


def page_facts(values: dict[str, Any], link_keys: Iterable[str]) -> EntryFacts:
    """What matching reads of a page: its DOI (bare, else the one a link names: a resolver's or a publisher's
    address, ``parsers.identifiers.doi_in_url``), an arXiv id from its links (``paperurl``, ``url_pdf``,
    ``links``), its title and the year of its date."""
    ids = {kind: value.strip() for kind, key in (("doi", "doi"), ("scholar", SCHOLAR_KEY))
           if isinstance(value := values.get(key), str) and value.strip()}
    for url in _page_urls(values, link_keys):
        if "doi" not in ids and (doi := doi_in_url(url)):
            ids["doi"] = doi
        if "arxiv" not in ids and (arxiv := arxiv_in_url(url)):
            ids["arxiv"] = arxiv
    title = values.get("title")
    return EntryFacts(ids=ids, title=str(title) if title is not None else None, year=page_year(values.get("date")))


def _page_urls(values: dict[str, Any], link_keys: Iterable[str]) -> list[str]:
    urls = [value for key in link_keys if isinstance(value := values.get(key), str)]
    links = values.get("links")
    if isinstance(links, list):
        urls += [link["url"] for link in links if isinstance(link, dict) and isinstance(link.get("url"), str)]
    return [url.strip() for url in urls]


def page_year(value: object) -> int | None:
    """The year of a front matter's ``date``: a YAML date or timestamp, an int (``date: 2023``) or text."""
    if isinstance(value, datetime.date):
        return value.year
    match = _YEAR.match(str(value)) if isinstance(value, int | str) else None
    return int(match[1]) if match else None


def full_date(paper: Paper) -> str | None:
    """The paper's date as ``YYYY-MM-DD``, a month or day the record lacks as ``01`` (both sites
    need a whole date: Hugo and Jekyll sort and name pages by it, and refuse a date that is none);
    the year alone when the date is no real day; None without a year.

    >>> [full_date(Paper(key="k", year=2021, date=date, sources=[])) for date in ("2021-06", "2021-02-30", None)]
    ['2021-06-01', '2021-01-01', '2021-01-01']
    """
    for text in (paper.date, str(paper.year) if paper.year else None):
        if text and re.fullmatch(r"\d{4}(-\d\d){0,2}", text):
            parts = [int(part) for part in text.split("-")] + [1, 1]
            try:
                return datetime.date(parts[0], parts[1], parts[2]).isoformat()
            except ValueError:  # month 13, February 30, year 0
                continue
    return None


CUT_AUTHORS = "et al."  # the last author of a cut list (academic's importer writes " others", a name)


def shown_authors(paper: Paper) -> list[str]:
    """The authors as a page lists them: a cut list ends in ``et al.``."""
    return [*paper.authors, CUT_AUTHORS] if paper.authors and paper.authors_truncated else paper.authors


def shown_venue(paper: Paper) -> str | None:
    """The venue as written, with ``…`` where the page cut it."""
    return f"{paper.venue}…" if paper.venue and paper.venue_truncated else paper.venue


def new_page(fields: Iterable[Field]) -> bytes:
    """A new page: front matter of ``fields`` (those with a value, in order) and no body."""
    front = FrontMatter.parse(f"{FENCE}\n{FENCE}\n".encode())
    fill(front, fields)
    return front.render()


def fill(front: FrontMatter, fields: Iterable[Field]) -> None:
    """Add each field the front matter lacks (or holds commented out); keep every value it has. TOML
    front matter is left as it is (read to match the page, so that no second page is added)."""
    if not front.editable:
        return
    for key, value in fields:
        if value is not None and not front.has(key):
            front.set(key, value)


def free_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``, ... when a page of the site already has it."""
    chosen, n = name, 1
    while chosen in taken:
        n += 1
        chosen = f"{name}-{n}"
    taken.add(chosen)
    return chosen


def scholar_field(paper: Paper) -> Field:
    """``google_scholar_id``, the paper's Scholar id (``UID:PUBID``) when it has one."""
    return SCHOLAR_KEY, yaml_scalar(paper.ids.scholar) if paper.ids.scholar else None


def plan_pages(pages: Sequence[Page], papers: Sequence[Paper], options: SyncOptions, root: Path,
               facts: Callable[[Page], EntryFacts], update: Callable[[Page, Paper], list[FileChange]],
               create: Callable[[Paper], list[FileChange]], name: Callable[[Page], str]) -> SyncPlan:
    """The plan of a site: each page matched to a paper and ``update``\\ d, each paper no page
    stands for ``create``\\ d with ``--add-missing`` (else listed as missing)."""
    plan = SyncPlan()
    matches = _by_names(pages, papers, match_entries([facts(page) for page in pages], papers), name)
    matched = set()
    for page, paper in zip(pages, matches, strict=True):
        shown = page.path.relative_to(root).as_posix()
        if paper is None:
            plan.unmatched.append(shown)
            continue
        matched.add(id(paper))
        plan.matched.append((shown, paper.key))
        plan.conflicts += id_conflicts(shown, page.front.values, paper)
        plan.changes += update(page, paper)
    for paper in sorted((p for p in papers if id(p) not in matched), key=lambda p: p.key):
        if options.add_missing and addable(paper):
            plan.added.append(paper.key)
            plan.changes += create(paper)
        else:
            plan.missing.append(paper.key)
    plan.changes = [change for change in plan.changes if change.before != change.after]
    plan.changes.sort(key=lambda change: str(change.path))
    return plan


def id_conflicts(shown: str, values: dict[str, Any], paper: Paper) -> list[str]:
    """``page: key: kept X, the records say Y`` for each id the page holds that is not the record's
    (a DOI and a Scholar id, as matching spells them): the page keeps its value.

    >>> from pubharvest.parsers.records import PublicationIds
    >>> paper = Paper(key="k", ids=PublicationIds(doi="10.1145/A", scholar="U:P"), sources=[])
    >>> id_conflicts("p.md", {"doi": "https://doi.org/10.1145/a", "google_scholar_id": "Q"}, paper)
    ['p.md: google_scholar_id: kept Q, the records say U:P']
    """
    found = []
    for kind, key, wanted in (("doi", "doi", paper.ids.doi), ("scholar", SCHOLAR_KEY, paper.ids.scholar)):
        have = values.get(key)
        if wanted and isinstance(have, str) and have.strip() and entry_id(kind, have) != entry_id(kind, wanted):
            found.append(f"{shown}: {key}: kept {have.strip()}, the records say {wanted}")
    return found


def _by_names(pages: Sequence[Page], papers: Sequence[Paper], matches: list[Paper | None],
              name: Callable[[Page], str]) -> list[Paper | None]:
    """``matches``, with each page left unmatched (its title fits two papers: a profile listing one
    paper twice) given the unmatched paper whose key it is named after (``slug``), as this target
    named it."""
    taken = {id(paper) for paper in matches if paper is not None}
    by_slug = {slug(paper.key): paper for paper in papers if id(paper) not in taken}
    return [by_slug.pop(name(page), None) if paper is None and page.front.values else paper
            for page, paper in zip(pages, matches, strict=True)]
