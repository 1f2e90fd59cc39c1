"""Whether a work a service found is the paper a page lists: every check must pass before anything
of it is taken (docs/enrich.md, "How a match is accepted").

- the titles agree: merge's normalised titles (``title_key``: lower case, letters and digits) at
  least ``MIN_TITLE_SIMILARITY`` alike (a title the page cut short is compared with as much of the
  other), with or without the work's subtitle, and with the same numbers ("Part 1" is not "Part 2");
- the first authors agree: the same family name, and the same first initial where both give one
  (``names.name_key``, as merge equates "J Ren" and "Jie Ren");
- the years are at most one apart (an online-first year before the issue's);
- the types fit: the work is a paper, a book, a chapter, a thesis or a report, and of the page's
  kind when the page says one.

A search (``method`` ``query``) needs all four; a DOI the page gave (``doi``) needs the title only,
and the work's other values that differ from the page's are differences, not reasons to refuse.

>>> page = Claim(title="ZeRO: memory optimizations toward training trillion parameter models",
...              first_author="S Rajbhandari", year=2020, kind="paper-conference")
>>> work = Claim(title="ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
...              first_author="Samyam Rajbhandari", year=2020, kind="proceedings-article")
>>> judge(page, work, "query")
Verdict(accepted=True, score=1.0, reason=None)
>>> judge(page, Claim(work.title, "Samyam Rajbhandari", 2023, "proceedings-article"), "query").reason
"the work's year 2023 is more than one from the page's 2020"
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from pubharvest.names import name_key
from pubharvest.parsers.text import title_key

MIN_TITLE_SIMILARITY = 0.9
MAX_YEAR_GAP = 1
MIN_MAIN_TITLE = 15  # letters and digits a title before its colon needs to be compared alone ("ZeRO" is not)
# The kinds of work, by the names the page (CSL), Crossref and OpenAlex give them; a work of a kind
# not listed (a peer review, a figure, a data set, a journal issue...) is never a paper's match.
KINDS = {
    "paper": {"article", "article-journal", "paper-conference", "article-magazine", "article-newspaper",
              "journal-article", "proceedings-article", "posted-content", "preprint", "conference-paper", "review",
              "letter"},
    "book": {"book", "monograph", "edited-book", "reference-book"},
    "chapter": {"chapter", "book-chapter", "book-section", "book-part", "reference-entry"},
    "thesis": {"thesis", "dissertation"},
    "report": {"report"},
}
_NUMBERS = re.compile(r"[0-9]+|\b(?:i{1,3}|iv|vi{0,3}|ix|xi{0,3})\b")
FITTING = {"book": {"book", "chapter"}, "chapter": {"book", "chapter"}}  # Scholar lists chapters as books


@dataclass(frozen=True)
class Claim:
    """What one side says of a work: title (with any subtitle apart), first author, year, kind."""

    title: str | None
    first_author: str | None
    year: int | None
    kind: str | None
    subtitle: str | None = None
    title_cut: bool = False  # the page cut the title short


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    score: float  # the titles' similarity, 0 to 1
    reason: str | None = None  # why not, when not accepted


def kind_of(name: str | None) -> str | None:
    """The kind (``KINDS``) a type name stands for, or None.

    >>> kind_of("proceedings-article"), kind_of("dissertation"), kind_of("peer-review"), kind_of(None)
    ('paper', 'thesis', None, None)
    """
    return next((kind for kind, names in KINDS.items() if name in names), None)


def title_similarity(page: Claim, work: Claim) -> float:
    """How alike the two titles are (0 to 1), the work's with and without its subtitle, and the page's
    without its subtitle when the work gives none (and what is left is long enough to say something).

    >>> title_similarity(Claim("Deep nets", None, None, None), Claim("Deep Nets", None, None, None))
    1.0
    >>> title_similarity(Claim("Vector quotient filters: overcoming", None, None, None, title_cut=True),
    ...                  Claim("Vector Quotient Filters", None, None, None, "Overcoming the Time/Space Trade-Off"))
    1.0
    >>> title_similarity(Claim("Vector quotient filters: overcoming the trade-off", None, None, None),
    ...                  Claim("Vector Quotient Filters", None, None, None))
    1.0
    >>> title_similarity(Claim("ZeRO: memory optimizations", None, None, None), Claim("ZeRO", None, None, None))
    0.296
    """
    mine = title_key(page.title)
    if not mine:
        return 0.0
    forms = [title_key(work.title)]
    if work.subtitle:
        forms.append(title_key(f"{work.title} {work.subtitle}"))
    best = 0.0
    for theirs in filter(None, forms):
        if page.title_cut:
            theirs = theirs[:len(mine)]
        best = max(best, SequenceMatcher(None, mine, theirs, autojunk=False).ratio())
    main = title_key((page.title or "").partition(": ")[0])
    if not work.subtitle and main != mine and len(main) >= MIN_MAIN_TITLE:  # the work's title lacks the subtitle
        best = max(best, SequenceMatcher(None, main, forms[0], autojunk=False).ratio())
    return round(best, 3)


def judge(page: Claim, work: Claim, method: str) -> Verdict:
    """Whether ``work`` (found by ``method``: ``doi`` or ``query``) is the paper ``page`` describes."""
    score = title_similarity(page, work)
    if score < MIN_TITLE_SIMILARITY:
        return Verdict(False, score, f"the titles differ (similarity {score:.2f}, at least "
                                     f"{MIN_TITLE_SIMILARITY} needed): {_shown(work.title)}")
    mine, theirs = title_numbers(page.title), title_numbers(work.title)
    if mine != theirs and not (page.title_cut and theirs[:len(mine)] == mine):
        return Verdict(False, score, f"the titles' numbers differ ({' '.join(mine) or 'none'} on the page, "
                                     f"{' '.join(theirs) or 'none'} in the work): {_shown(work.title)}")
    if method == "doi":
        return Verdict(True, score)
    reason = _kind_misfit(page, work) or _author_misfit(page, work) or _year_misfit(page, work)
    return Verdict(reason is None, score, reason)


def title_numbers(title: str | None) -> list[str]:
    """The numbers of a title, Arabic or Roman, in order: what tells "Part 1" from "Part 2" and "GPT-3"
    from "GPT-4", which the titles' similarity alone would take for one paper.

    >>> title_numbers("Paper 1 of AAAA"), title_numbers("Deep Learning, Part II: 3D nets"), title_numbers(None)
    (['1'], ['ii', '3'], [])
    """
    return _NUMBERS.findall((title or "").casefold())


def _kind_misfit(page: Claim, work: Claim) -> str | None:
    theirs, mine = kind_of(work.kind), kind_of(page.kind)
    if theirs is None:
        return f"the work is a {work.kind or 'work of no type'}, not a paper, book, chapter, thesis or report"
    if mine is not None and theirs not in FITTING.get(mine, {mine}):
        return f"the work is a {work.kind}, the page's a {page.kind}"
    return None


def _author_misfit(page: Claim, work: Claim) -> str | None:
    if not page.first_author:
        return "the page names no author to compare"
    if not work.first_author:
        return "the work names no author to compare"
    (mine, my_initial), (theirs, their_initial) = name_key(page.first_author), name_key(work.first_author)
    if mine != theirs or (my_initial and their_initial and my_initial != their_initial):
        return f"the work's first author {work.first_author!r} is not the page's {page.first_author!r}"
    return None


def _year_misfit(page: Claim, work: Claim) -> str | None:
    if page.year is None or work.year is None:
        return "no year to compare" if page.year is None else "the work gives no year"
    if abs(page.year - work.year) > MAX_YEAR_GAP:
        return f"the work's year {work.year} is more than one from the page's {page.year}"
    return None


def _shown(title: str | None) -> str:
    if not title:
        return "(no title)"
    return repr(title if len(title) <= 80 else title[:80] + "...")
