"""A ``SyncPlan`` shown (``diff``) or carried out (``apply``).

Each file is written to a temporary file beside it (``output.temporary_beside``, as ``-o``'s are),
flushed to disk and renamed over it, so a file is either as it was or as it should be, whatever
stops the run; its mode (and owner, where allowed) is kept. Before anything is written every file is
checked against the bytes it was planned from: a file that changed since (an editor saved it) is
refused whole (``TargetChanged``), never overwritten.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import TargetChanged
from ..output import temporary_beside
from . import FileChange, SyncPlan


def diff(plan: SyncPlan, root: Path | None = None) -> str:
    """A unified diff of every file ``plan`` changes, named relative to ``root`` (``a/``, ``b/`` prefixes;
    a new file from ``/dev/null``).

    >>> print(diff(SyncPlan([FileChange(Path("/s/x.bib"), b"a\\nb\\n", b"a\\nc\\n")]), Path("/s")), end="")
    --- a/x.bib
    +++ b/x.bib
    @@ -1,2 +1,2 @@
     a
    -b
    +c
    """
    return "".join(_file_diff(change, _shown(change.path, root)) for change in changed(plan.changes))


def changed(changes: Iterable[FileChange]) -> list[FileChange]:
    """The changes that change something, by path."""
    return sorted((c for c in changes if c.before != c.after), key=lambda c: str(c.path))


def _shown(path: Path, root: Path | None) -> str:
    if root is not None:
        with contextlib.suppress(ValueError):
            return path.relative_to(root).as_posix()
    return path.as_posix()


def _file_diff(change: FileChange, name: str) -> str:
    before = _lines(change.before or b"")
    after = _lines(change.after)
    lines = difflib.unified_diff(before, after, "/dev/null" if change.before is None else f"a/{name}", f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _lines(data: bytes) -> list[str]:
    # keep "\r" visible at line ends (a CRLF file's added line shows that it is CRLF too)
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def apply(plan: SyncPlan) -> list[Path]:
    """Write every file ``plan`` changes, each atomically; the paths written. Raises ``TargetChanged``
    (before writing any) when a file's bytes are no longer those it was planned from."""
    changes = changed(plan.changes)
    for change in changes:
        check_unchanged(change)
    for change in changes:
        write_atomically(change.path, change.after)
    return [change.path for change in changes]


def check_unchanged(change: FileChange) -> None:
    """Raise ``TargetChanged`` when ``change.path`` does not hold ``change.before`` (None: no file)."""
    try:
        now: bytes | None = change.path.read_bytes()
    except FileNotFoundError:
        now = None
    if now != change.before:
        what = "was created" if change.before is None else "was removed" if now is None else "was edited"
        raise TargetChanged(f"{change.path} {what} while the sync ran; not overwritten (run it again)")


def write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data``: a temporary file beside it, flushed and renamed over it; parent folders
    made; the old file's mode and owner kept. A symbolic link's target is what is replaced."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    with temporary_beside(target) as (fd, tmp):
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Flush the folder's entry of a renamed file to disk (where the system allows opening a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
