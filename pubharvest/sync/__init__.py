"""``pubharvest sync``: keep a publication list right where it lives (a ``.bib`` file, an al-folio,
HugoBlox or academicpages site) from merged records.

A target reads what is at its path and says what should change, as whole files: a ``SyncPlan`` of
``FileChange`` values. It never writes; ``pubharvest.sync.apply`` does, each file atomically, and
``--dry-run`` prints the same plan as a unified diff. A target owns a few fields of each file it
syncs and leaves every other byte of what the user wrote as it was, so planning twice from the same
records gives no change the second time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..merge import MergedProfile, Paper


@dataclass(frozen=True)
class SyncOptions:
    """What the command line says beyond the target and its path."""

    add_missing: bool = False  # append papers no entry or file stands for
    as_of: str | None = None  # the ISO date the records' counts are from (the newest page's), never "now"


@dataclass(frozen=True)
class FileChange:
    """One file of the target: its bytes before (None: it is new) and after."""

    path: Path
    before: bytes | None
    after: bytes


@dataclass
class SyncPlan:
    """What a target would do: the files to write and, for the summary, what was matched to what."""

    changes: list[FileChange] = field(default_factory=list)
    matched: list[tuple[str, str]] = field(default_factory=list)  # (the user's entry or file, the paper's key)
    unmatched: list[str] = field(default_factory=list)  # the user's entries no paper matched: left alone
    added: list[str] = field(default_factory=list)  # papers' keys given a new entry or file
    missing: list[str] = field(default_factory=list)  # papers' keys with no entry, not added
    conflicts: list[str] = field(default_factory=list)  # "entry: field: kept X, the records say Y": never changed


class Target(Protocol):
    """A place a publication list lives."""

    name: str

    def plan(self, root: Path, papers: Sequence[Paper], profiles: Sequence[MergedProfile],
             options: SyncOptions) -> SyncPlan:
        """The changes that bring what is at ``root`` in line with ``papers``; reads, never writes."""
        ...
