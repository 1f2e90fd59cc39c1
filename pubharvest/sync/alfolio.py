"""The ``al-folio`` target: an al-folio site's ``_bibliography/papers.bib`` (synced as the ``bib``
target syncs a file) and ``_data/citations.yml``, the file its ``bin/update_scholar_citations.py``
writes and its citation badges read.

``citations.yml`` is written as that script writes it (``yaml.dump(data, width=1000, sort_keys=True)``):

.. code-block:: yaml

    metadata:
      last_updated: '2026-12-04'       # the date of the records' counts (SyncOptions.as_of)
    papers:
      Yamada12AAAAJ:u5HHmVD_uO8C:      # <scholar_userid>:<pub id>
        citations: 1100
        title: BERT-style pretraining for Japanese legal texts
        year: '2023'                   # a string; 'Unknown Year' when Scholar shows none

Papers are those of the site's Scholar profile (``scholar_userid`` in ``_data/socials.yml``, else in
``_config.yml``, else the one profile the records' Scholar ids name), with that profile's row's count,
title and year. Papers the file holds that the records do not show are kept: the file is the site's
history, and a paper Scholar stopped listing still has a badge on the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from ..errors import BadTarget
from ..merge import MergedProfile, Paper, SourceRecord
from . import FileChange, SyncOptions, SyncPlan
from .bib import read_bib, read_target_file, synced_bib

BIB = Path("_bibliography/papers.bib")
CITATIONS = Path("_data/citations.yml")
CONFIGS = (Path("_data/socials.yml"), Path("_config.yml"))  # where the theme's versions keep scholar_userid
FRONT_MATTER = b"---\n---\n"  # al-folio's papers.bib opens with it, so that Jekyll reads the file
UNKNOWN_YEAR = "Unknown Year"


class AlFolioTarget:
    """An al-folio site: PATH is its root folder."""

    name = "al-folio"

    def plan(self, root: Path, papers: Sequence[Paper], profiles: Sequence[MergedProfile],
             options: SyncOptions) -> SyncPlan:
        if not root.is_dir():
            raise BadTarget(f"{root} is not a folder; the al-folio target syncs a site's root folder")
        if options.as_of is None:
            raise BadTarget("the records carry no date for their counts (saved pages): give --as-of YYYY-MM-DD")
        plan = SyncPlan()
        bib_path = root / BIB
        before = read_bib(bib_path)
        after = synced_bib(before if before is not None else FRONT_MATTER, papers, options, plan)
        if before is not None or plan.added:
            plan.changes.append(FileChange(bib_path, before, after))
        user = scholar_user(root, papers)
        if user is not None:
            path = root / CITATIONS
            old = read_target_file(path)
            plan.changes.append(FileChange(path, old, citations_yaml(old, user, papers, options.as_of)))
        return plan


def scholar_user(root: Path, papers: Sequence[Paper]) -> str | None:
    """The site's Scholar user id: its configuration's ``scholar_userid``, else the one profile the papers'
    Scholar ids name (None when they name none or several)."""
    for config in CONFIGS:
        data = load_yaml(read_target_file(root / config), root / config)
        if isinstance(data, dict) and isinstance(user := data.get("scholar_userid"), str) and user.strip():
            return user.strip()
    users = {value.split(":", 1)[0] for value in scholar_ids(papers) if ":" in value}
    return users.pop() if len(users) == 1 else None


def scholar_ids(papers: Sequence[Paper]) -> set[str]:
    return {s.ids.scholar for paper in papers for s in paper.sources if s.ids.scholar}


def load_yaml(data: bytes | None, path: Path) -> Any:
    """The YAML document ``data`` (None: no file); ``BadTarget`` when it is not YAML."""
    if data is None:
        return None
    try:
        return yaml.safe_load(data)
    except yaml.YAMLError as error:
        raise BadTarget(f"{path} is not YAML: {str(error).splitlines()[0]}") from None


def citations_yaml(old: bytes | None, user: str, papers: Sequence[Paper], as_of: str) -> bytes:
    """``citations.yml`` with the rows of ``user``'s profile from ``papers`` and every other paper ``old``
    holds, dated ``as_of``, dumped as al-folio's updater dumps it."""
    data = load_yaml(old, CITATIONS)
    if data is not None and not (isinstance(data, dict) and isinstance(data.get("papers", {}), dict)):
        raise BadTarget(f"{CITATIONS} is not al-folio's citations file (metadata:, papers:)")
    kept = dict((data or {}).get("papers") or {})
    kept.update(citation_rows(user, papers))
    return yaml.dump({"metadata": {"last_updated": as_of}, "papers": kept}, width=1000, sort_keys=True).encode()


def citation_rows(user: str, papers: Sequence[Paper]) -> dict[str, dict[str, Any]]:
    """``{"<user>:<pub id>": {citations, title, year}}`` for each row of ``user``'s profile the papers' sources hold."""
    latest: dict[str, SourceRecord] = {}
    prefix = f"{user}:"
    for paper in papers:
        for source in paper.sources:
            pub_id = source.ids.scholar
            if pub_id and pub_id.startswith(prefix) and source.site == "scholar":
                # the row seen last (a job's latest fetch; of saved pages, the higher count), whatever the inputs' order
                if pub_id not in latest or _recency(source) > _recency(latest[pub_id]):
                    latest[pub_id] = source
    return {pub_id: {"citations": source.citations or 0, "title": source.title or "Unknown Title",
                     "year": str(source.year) if source.year else UNKNOWN_YEAR} for pub_id, source in latest.items()}


def _recency(source: SourceRecord) -> tuple[str, int, str, int]:
    return (source.fetched_at or "", source.citations or 0, source.title or "", source.year or 0)
