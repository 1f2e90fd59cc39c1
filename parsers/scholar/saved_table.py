"""A profile table copied as text: "| title authors venue, year | citations | year |" rows, the
three parts of the first cell run together, then the sidebar's co-author lines run together."""

from __future__ import annotations

import re

from ..numbers import Cells
from ..page import Document
from ..records import Coauthor, PageResult, Profile, Publication
from ..text import clean, clean_or_none, clean_title, is_initials
from ..warning_codes import Warn
from ._base import DOMAIN
from .identity import SITE
from .rows import NAME_WORD, SeenLines, fill_authors_and_venue

_TABLE_ROW = re.compile(r"^\|(?P<cell>.+)\|\s*(?P<cites>[\d,.\s\u00a0]*)(?P<merged>\*?)\s*\|\s*(?P<year>\d{4})?\s*\|$")
_PARTICLES = frozenset("van von der den de del della di da dos das du la le ten ter bin al el st "
                       "Van Von Der Den De Del Della Di Da Dos Das Du La Le Ten Ter Bin Al El Abd Abu Ben St.".split())
_ELLIPSIS = frozenset({"...", "…"})
_GLUE = re.compile(r"(?<=[a-z\u00df-\u00ff])(?<!Mc)(?=[A-Z\u00c0-\u00de])")


def looks_like_saved_table(text: str) -> bool:
    """Whether ``text`` is Scholar's publication table saved as ``| … | n | year |`` lines."""
    if not _may_start_row(text):
        return False  # no line starts with "|": no row, found without splitting a big page into lines
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    rows = sum(1 for line in lines if _TABLE_ROW.match(line))
    return rows > 0 and rows * 2 >= len(lines)


def _may_start_row(text: str) -> bool:
    """Whether some line of ``text`` (as ``str.splitlines`` cuts it) starts with ``|`` once stripped."""
    at = text.find("|")
    while at >= 0:
        start = at
        while start and text[start - 1].isspace():
            start -= 1
        if not start or len((text[start:at] + "|").splitlines()) > 1:
            return True
        at = text.find("|", at + 1)
    return False


def parse_saved_table(doc: Document) -> PageResult:
    result = PageResult(site=SITE.name, page="publication_list", url=doc.url)
    trailing: list[str] = []
    cells = Cells()
    seen = SeenLines()
    for line in (line.strip() for line in doc.text.splitlines()):
        row = _TABLE_ROW.match(line)
        if row:
            result.publications.append(_table_row_publication(row, result, cells, seen))
            trailing.clear()  # lines between rows, or a header, are not the sidebar
        elif line and not set(line) <= set("|-: "):
            trailing.append(line)
    cut = _row_cut_short(trailing)
    if cut is not None:
        result.warn(Warn.truncated, f"the text stops inside the row after row {len(result.publications)}: "
                                    f"{cut[:80]!r}; the rows before it were read")
    glued = [_coauthor_from_glued_text(line) for line in trailing]
    for line, coauthor in zip(trailing, glued, strict=True):
        if coauthor is None:
            result.warn(Warn.ignored_line, f"a line after the table is not a co-author: {line[:80]!r}")
    result.profile = Profile(coauthors=[c for c in glued if c is not None])
    cells.report(result)
    return result


def _row_cut_short(trailing: list[str]) -> str | None:
    """The text's last line, taken from ``trailing``, when it is the start of a row: a bar, then no closing bar
    or fewer than a row's three cells. A line of three cells or more that is no row (a header) is left."""
    last = trailing[-1] if trailing else ""
    if last.startswith("|") and (not last.endswith("|") or last.count("|") < 4):
        return trailing.pop()
    return None


def _table_row_publication(row: re.Match[str], result: PageResult, cells: Cells, seen: SeenLines) -> Publication:
    number = len(result.publications) + 1
    year = cells.year(row.group("year"), f"row {number} year") if row.group("year") else None
    title, authors_text, venue = split_title_authors_venue(clean(row.group("cell")))
    pub = Publication(title=clean_title(title), year=year, date=str(year) if year else None,
                      citations=cells.count(row.group("cites"), f"row {number} citations", empty=0))
    if row.group("merged"):
        pub.flags.append("merged_citations")
    fill_authors_and_venue(pub, authors_text, venue, seen)
    if not authors_text:
        result.warn(Warn.unsplit_row, f"no author list found in row {len(result.publications) + 1}; "
                                      "the whole cell is kept as the title")
    if "title_looks_like_authors" in pub.flags:
        result.warn(Warn.title_looks_like_authors,
                    f"row {len(result.publications) + 1}: the title looks like an author list: {pub.title!r}")
    return pub


def split_title_authors_venue(cell: str) -> tuple[str, str, str]:
    """Title, author list and venue of one run-together cell; the venue loses its appended year.

    The author list is Scholar's: initials then family name ("RY Aminabadi"), comma-separated,
    perhaps ending in "...". The split takes the longest such run that starts after the title.

    >>> split_title_authors_venue("Deep nets K Lee, A van de Berg, ... Nature 3 (1), 2-9, 2020")
    ('Deep nets', 'K Lee, A van de Berg, ...', 'Nature 3 (1), 2-9')
    """
    words = cell.split(" ")
    best: tuple[tuple[int, int, int], int, int] | None = None
    for start in range(1, len(words)):
        end = _author_run_end(words, start)
        if end is None:
            continue
        names = sum(1 for w in words[start:end] if is_initials(w))
        score = (names, int(words[end - 1] in _ELLIPSIS), int(words[start] not in {"A", "I"}))
        if best is None or score > best[0]:
            best = (score, start, end)
    if best is None:
        return re.sub(r",\s*(?:\d{4}|0)$", "", cell), "", ""
    _, start, end = best
    venue = re.sub(r"(?:^|,\s*)(?:\d{4}|0)$", "", " ".join(words[end:])).strip()
    return " ".join(words[:start]), " ".join(words[start:end]).rstrip(","), venue


def _author_run_end(words: list[str], start: int) -> int | None:
    """Index after the author run starting at ``words[start]``, or None if no name starts there."""
    position, found = start, False
    while position < len(words):
        name = _name_end(words, position)
        if name is None:
            break
        position, found = name, True
        if not words[position - 1].endswith(","):
            return position
        if position < len(words) and words[position] in _ELLIPSIS:
            return position + 1
    return position if found else None


def _name_end(words: list[str], start: int) -> int | None:
    """Index after one "initials family" name at ``words[start]``, or None."""
    if not is_initials(words[start]):
        return None
    # Bounded by a comma, a family name may have up to three words ("T Le Scao,", "EM Abd Allah,").
    for end in range(start + 1, min(start + 4, len(words))):
        if not _is_family_word(words[end].rstrip(",")):
            break
        if words[end].endswith(","):
            return end + 1
    # The last name of the list runs into the venue: particles, then one word.
    end = start + 1
    while end < len(words) and words[end] in _PARTICLES:
        end += 1
    if end < len(words) and _is_family_word(words[end].rstrip(",")):
        return end + 1
    return None


def _looks_like_person(text: str) -> bool:
    words = text.split()
    return 2 <= len(words) <= 5 and all(w[0].isupper() for w in words)


def _is_family_word(word: str) -> bool:
    return word in _PARTICLES or bool(
        word and word[0].isupper() and any(c.islower() for c in word) and NAME_WORD.match(word))


def _coauthor_from_glued_text(line: str) -> Coauthor | None:
    """A co-author from the sidebar text saved without separators; None for a line that is
    neither run-together parts nor a bare name (a heading, a button label).

    >>> c = _coauthor_from_glued_text("He YuxiongSnowflakeVerified email at snowflake.com")
    >>> c.name, c.affiliation, c.email_domain
    ('He Yuxiong', 'Snowflake', 'snowflake.com')
    """
    parts = _GLUE.split(clean(line))
    domain = DOMAIN.findall(parts[-1]) if len(parts) > 1 else []
    if domain:
        parts = parts[:-1]
    if len(parts) == 1 and not domain and not _looks_like_person(parts[0]):
        return None
    return Coauthor(name=parts[0].strip(), affiliation=clean_or_none("".join(parts[1:])),
                    email_domain=domain[-1].lower() if domain else None)
