"""The ``bib`` target: the user's own ``.bib`` file, updated in place.

Each entry is matched to a merged paper (``matching.match_entries``: by DOI, arXiv id or Scholar id,
else title and year). A matched entry gains the fields the records add and it lacks
(``google_scholar_id``, the PUBID half of Scholar's ``UID:PUBID``, as al-folio wants it; ``doi``;
``eprint`` with ``archiveprefix = {arXiv}``) and the one field pubharvest owns, ``COUNT_FIELD``
(``pubharvest_citations = {412 (scholar, 2026-12-04)}``: the count, the site it is from, the date),
which is updated when the count or date changes. A value the entry holds is never changed: one that
differs from the records is a conflict in the summary. Entries no paper matches, entries without a
key, and every byte outside those fields stay as they were. ``--add-missing`` appends the papers
no entry stands for, as pubharvest's BibTeX writer writes them, in the file's style (not a Scholar
row whose title is a list of names).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import msgspec

from pubharvest.parsers.identifiers import normal_arxiv
from pubharvest.parsers.text import title_key

from ..bibtex import bibtex_entry, field_text
from ..errors import BadTarget
from ..keys import Keys
from ..merge import MergedProfile, Paper
from . import FileChange, SyncOptions, SyncPlan
from .bibfile import BibDocument, Entry, Field
from .matching import EntryFacts, entry_id, match_entries

COUNT_FIELD = "pubharvest_citations"
# the fields pubharvest fills when an entry lacks them, in the order they are added
ID_FIELDS = ("google_scholar_id", "doi", "eprint", "archiveprefix")
_PUBID = re.compile(r"[\w-]+", re.A)  # written as it is (al-folio looks it up verbatim), never escaped
_TAG = re.compile(r"<[^>]*>")


class BibTarget:
    """A ``.bib`` file (PATH is the file; a new one is made only with ``--add-missing``)."""

    name = "bib"

    def plan(self, root: Path, papers: Sequence[Paper], profiles: Sequence[MergedProfile],
             options: SyncOptions) -> SyncPlan:
        plan = SyncPlan()
        before = read_bib(root)
        after = synced_bib(before or b"", papers, options, plan)
        if before is not None or after:
            plan.changes.append(FileChange(root, before, after))
        return plan


def read_bib(path: Path) -> bytes | None:
    """The bytes of the ``.bib`` at ``path`` (None: no such file); ``BadTarget`` for a folder or what cannot be read."""
    if path.is_dir():
        raise BadTarget(f"{path} is a folder; the bib target syncs one .bib file (al-folio syncs a site's folder)")
    return read_target_file(path)


def read_target_file(path: Path) -> bytes | None:
    """The bytes of a target's file (None: no such file); ``BadTarget`` when it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise BadTarget(f"{path} cannot be read: {error.strerror or error}") from None


def synced_bib(data: bytes, papers: Sequence[Paper], options: SyncOptions, plan: SyncPlan) -> bytes:
    """``data`` (a ``.bib`` file's bytes) with its matched entries' fields filled from ``papers`` (and, with
    ``options.add_missing``, the papers no entry stands for appended); ``plan`` gets the summary."""
    doc = BibDocument.parse(data)
    keyed = [entry for entry in doc.entries() if entry.key is not None]
    plan.unmatched += [f"(no key) at line {doc.line_of(e.start)}" for e in doc.entries() if e.key is None]
    additions: dict[Entry, list[tuple[str, str]]] = {}
    updates: dict[Field, str] = {}
    matched = match_entries([entry_facts(doc, entry) for entry in keyed], papers)
    for entry, paper in zip(keyed, matched, strict=True):
        if paper is None:
            plan.unmatched.append(str(entry.key))
            continue
        plan.matched.append((str(entry.key), paper.key))
        additions[entry] = entry_changes(doc, entry, paper, options, updates, plan.conflicts)
    taken = {id(paper) for paper in matched if paper is not None}
    rest = sorted((p for p in papers if id(p) not in taken), key=paper_order)
    appended: list[str] = []
    if options.add_missing:
        keys = Keys()
        keys.used.update(e.key for e in keyed if e.key)
        plan.missing += [paper.key for paper in rest if not addable(paper)]
        for paper in filter(addable, rest):
            key = keys.key(msgspec.structs.replace(paper, key=""))
            appended.append(new_entry(paper, key, options))
            plan.added.append(key)
    else:
        plan.missing += [paper.key for paper in rest]
    return doc.edited(additions, updates, appended) if additions or updates or appended else data


def addable(paper: Paper) -> bool:
    """Whether ``--add-missing`` adds the paper: not when each of its rows has a list of names for a title
    (a Scholar row the parser flagged ``title_looks_like_authors``), which no one wants in a .bib."""
    return not all("title_looks_like_authors" in source.flags for source in paper.sources)


def paper_order(paper: Paper) -> tuple[int, str, str]:
    """Papers added in a fixed order, whatever the inputs' order: newest first, then by title."""
    return (-(paper.year or 0), title_key(paper.title), paper.key)


def entry_facts(doc: BibDocument, entry: Entry) -> EntryFacts:
    """What matching reads of an entry: its DOI, arXiv id (``eprint`` or al-folio's ``arxiv``), Scholar id,
    title (LaTeX and HTML read as text) and year."""
    ids: dict[str, str] = {}
    if doi := doc.literal(entry.field("doi")):
        ids["doi"] = doi
    if arxiv := arxiv_of(doc, entry):
        ids["arxiv"] = arxiv
    if scholar := doc.literal(entry.field("google_scholar_id")):
        ids["scholar"] = scholar
    year = doc.literal(entry.field("year"))
    return EntryFacts(ids=ids, title=plain_title(doc.literal(entry.field("title"))),
                      year=int(year) if year and year.strip().isdigit() else None)


def arxiv_of(doc: BibDocument, entry: Entry) -> str | None:
    """The entry's arXiv id: al-folio's ``arxiv`` field, or an ``eprint`` that is one."""
    for name in ("arxiv", "eprint"):
        value = (doc.literal(entry.field(name)) or "").strip()
        if normal_arxiv(value.removeprefix("arXiv:").removeprefix("arxiv:")):
            return value
    return None


@lru_cache(maxsize=4096)
def plain_title(title: str | None) -> str | None:
    """A title's LaTeX and HTML read as text (what ``title_key`` compares)."""
    if not title:
        return None
    from pylatexenc.latex2text import LatexNodes2Text  # only when a title is read: it is slow to import

    text = _TAG.sub("", title)
    try:
        return str(LatexNodes2Text(math_mode="verbatim").latex_to_text(text))
    except Exception:  # pylatexenc gives up on some malformed LaTeX; the braces are dropped by title_key anyway
        return text


def wanted_ids(paper: Paper) -> list[tuple[str, str]]:
    """The id fields the records give for ``paper``, in ``ID_FIELDS`` order, values as they are written."""
    found = []
    if paper.ids.scholar and _PUBID.fullmatch(pubid := paper.ids.scholar.rsplit(":", 1)[-1]):
        found.append(("google_scholar_id", pubid))
    if paper.ids.doi:
        found.append(("doi", paper.ids.doi))
    if paper.ids.arxiv:
        found += [("eprint", paper.ids.arxiv), ("archiveprefix", "arXiv")]
    return found


def count_value(paper: Paper, as_of: str | None) -> str | None:
    """``COUNT_FIELD``'s value: ``412 (scholar, 2026-12-04)``; None when no source gives a count.

    The count is the latest fetched source's (a job's records), else the highest of the sources';
    the site is that source's (of equal counts, the first site by name).
    """
    count = paper.citations_latest if paper.citations_latest is not None else paper.citations_max
    if count is None:
        return None
    site = min(s.site for s in paper.sources if s.citations == count)
    return f"{count} ({site}, {as_of})" if as_of else f"{count} ({site})"


def entry_changes(doc: BibDocument, entry: Entry, paper: Paper, options: SyncOptions,
                  updates: dict[Field, str], conflicts: list[str]) -> list[tuple[str, str]]:
    """The fields to add to ``entry`` (and, into ``updates``, its owned field's new value); a value the
    entry holds that differs from the records goes to ``conflicts``."""
    added: list[tuple[str, str]] = []
    wanted = wanted_ids(paper)
    has_eprint = entry.field("eprint") is not None
    for name, value in wanted:
        have = entry.field(name)
        if name == "archiveprefix":
            if not has_eprint and entry.field("eprinttype") is None and have is None:
                added.append((name, value))
            continue
        if have is None:
            added.append((name, value if name == "google_scholar_id" else field_text(name, value)))
        elif not same_id(name, doc.literal(have), value):
            conflicts.append(f"{entry.key}: {name}: kept {doc.value_text(have)}, the records say {value}")
    if (count := count_value(paper, options.as_of)) is not None:
        have = entry.field(COUNT_FIELD)
        if have is None:
            added.append((COUNT_FIELD, count))
        elif doc.value_text(have) != "{" + count + "}":
            updates[have] = count
    return added


def same_id(name: str, have: str | None, value: str) -> bool:
    """Whether the entry's literal ``have`` is the id ``value`` (DOIs and arXiv ids as matching spells them)."""
    if have is None:  # a macro or a concatenation: not ours to judge
        return True
    kind = {"google_scholar_id": "scholar", "eprint": "arxiv"}.get(name, name)
    return entry_id(kind, have) == entry_id(kind, value) if kind in ("doi", "arxiv", "scholar") else have == value


def new_entry(paper: Paper, key: str, options: SyncOptions) -> str:
    """The entry ``--add-missing`` appends for ``paper``: pubharvest's writer's, with the Scholar id and count."""
    text = bibtex_entry(paper, key)
    extra = [(name, value) for name, value in wanted_ids(paper) if name == "google_scholar_id"]
    if (count := count_value(paper, options.as_of)) is not None:
        extra.append((COUNT_FIELD, count))
    lines = "".join(f"\n  {name} = {{{value}}}," for name, value in extra)
    return text[:-2] + lines + "\n}" if text.endswith("\n}") else text
