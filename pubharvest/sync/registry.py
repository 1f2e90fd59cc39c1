"""The sync targets by name, each imported only when asked for (``target``).

>>> sorted(TARGETS)
['academicpages', 'al-folio', 'bib', 'hugo']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from . import Target

# name -> "module:class" of the target, a module of this package
TARGETS: dict[str, str] = {
    "bib": "pubharvest.sync.bib:BibTarget",
    "al-folio": "pubharvest.sync.alfolio:AlFolioTarget",
    "hugo": "pubharvest.sync.hugo:HugoTarget",
    "academicpages": "pubharvest.sync.academicpages:AcademicPagesTarget",
}


def target(name: str) -> Target:
    """A new target of the kind ``name`` (one of ``TARGETS``); ``KeyError`` for any other name."""
    module, _, cls = TARGETS[name].partition(":")
    return cast("Target", getattr(importlib.import_module(module), cls)())
