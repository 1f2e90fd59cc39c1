"""Every warning a record can carry, declared once: the member's name is the code written in the
records (``PageWarning.code``), its value says what the code means. A warning is something odd
that was still parsed; its message says where and why.

>>> Warn.partial.name, Warn.partial.value.meaning
('partial', 'the page holds part of a longer list: the rest is on other pages')
>>> lacks_part("details_missing"), lacks_part("partial"), lacks_part("no_such_code")
(True, False, False)
"""

from __future__ import annotations

from enum import Enum, unique
from typing import NamedTuple

__all__ = ["Meaning", "Warn", "codes", "lacks_part", "untrusted"]


class Meaning(NamedTuple):
    """What a warning code means; ``lacks_part``: the record lacks a part its page should give, a
    warning a record completed from that page keeps; ``untrusted``: the page's rows cannot be taken
    for its listing, so a record carrying it is kept as history and never replaces a stored one."""

    meaning: str
    lacks_part: bool = False
    untrusted: bool = False


@unique
class Warn(Enum):
    """The warning codes, by what they are about."""

    # the page as a whole
    charset_guessed = Meaning("the page declares no charset and is not UTF-8: read as windows-1252 (ISO-2022-JP when "
                              "it holds its escapes)")
    charset_unsupported = Meaning("the page declares a charset that is no encoding of web pages (utf-7, idna, ...): "
                                  "ignored")
    charset_mismatch = Meaning("the page's bytes are not in the charset it declares: they were read as another")
    invalid_bytes = Meaning("some bytes are not in the page's encoding: each was read as U+FFFD")
    truncated = Meaning("the page stops before its end; what was saved was read")
    partial = Meaning("the page holds part of a longer list: the rest is on other pages")
    past_end = Meaning("the page holds no rows: it starts past the last row of the list")
    shrunk = Meaning("the record lists fewer publications than an earlier run of the same target")
    legacy_layout = Meaning("a page in a layout older than the one pubharvest reads in full: some parts are not on it")
    meta_fallback = Meaning("a field missing from the page's markup was read from its meta tags")
    url_missing = Meaning("the page states no URL of its kind (no canonical link)", lacks_part=True)
    dates_differ = Meaning("two parts of the page come from snapshots of different dates")
    # the profile
    profile_unreadable = Meaning("a part of the profile the page shows could not be read: that field is null")
    name_missing = Meaning("the page names no person", lacks_part=True)
    ids_disagree = Meaning("the page's links name different identities for its owner")
    id_conflict = Meaning("the page gives two values of one kind of id (a DOI, an arXiv id): the first is kept, "
                          "the other noted")
    affiliation_unparsed = Meaning("an affiliation's place or years could not be read")
    unknown_marker = Meaning("an affiliation carries a kind marker pubharvest does not know")
    coauthors_partial = Meaning("the page shows only the first co-authors; the full list is on its own page")
    coauthors_unreadable = Meaning("a part of the co-author list could not be read")
    coauthors_missing = Meaning("the full co-author list could not be fetched", lacks_part=True)
    histogram_unreadable = Meaning("a part of the citations-per-year chart could not be read")
    value_out_of_range = Meaning("a number outside 64 bits, which no store column holds: it was stored as null")
    number_unreadable = Meaning("a number cell is not plainly a whole count or a year (a decimal, a sign, 1.2K, a "
                                "word, a dash): that field is null")
    count_mismatch = Meaning("a count the page states differs from the number of items it lists")
    # the publications
    rows_unreadable = Meaning("some publication rows lack a part every row has: that field is null")
    column_unreadable = Meaning("a part every publication row of this layout has was read on no row: "
                                "the page's markup has drifted", untrusted=True)
    lines_swapped = Meaning("a row's author line reads as a venue and its venue line as names: the two were swapped "
                            "back")
    row_count = Meaning("the row range the page states differs from the number of rows read")
    duplicate_rows = Meaning("the page lists the same publication in more than one row")
    unsplit_row = Meaning("a saved-table row's title, authors and venue could not be told apart")
    ignored_line = Meaning("a line of the saved text is neither a row nor a co-author; it was skipped")
    title_looks_like_authors = Meaning("a publication's title reads as a list of author names")
    title_may_hold_venue = Meaning("a publication's title may hold its venue: no known title or venue to split by")
    publication_unreadable = Meaning("a part of a publication's own page could not be read: that field is null")
    fields_by_shape = Meaning("field labels pubharvest does not know: fields were read by their place and shape")
    summary_missing = Meaning("a publication page has no abstract", lacks_part=True)
    details_missing = Meaning("a publication's own page could not be fetched: its listing row is kept",
                              lacks_part=True)
    post_without_title = Meaning("posts without a title were skipped")
    # listings and groupings of one paper (Microsoft Research, Elamur Research)
    listings_disagree = Meaning("two listings of one paper say different things: the first is kept")
    listings_unreadable = Meaning("some listings of a section gave no paper: they were skipped")
    listings_incomplete = Meaning("some listings lack a part their shape always has: they were kept")
    unknown_section = Meaning("a section pubharvest does not know: it was skipped")
    unknown_grouping = Meaning("a grouping of papers that is not by year, area or type")
    groupings_disagree = Meaning("papers listed in one grouping are missing from another")
    group_heading_missing = Meaning("a group of papers has no heading of its own")
    group_names_lost = Meaning("the saved text lost the group headings: groups are numbered in page order")
    year_group_mismatch = Meaning("a paper's date differs from the year group it is listed under")
    # search results
    search_unreadable = Meaning("a part of the search page could not be read")
    # records read back (``merge``, ``report``)
    lone_surrogate = Meaning("a record file held lone UTF-16 surrogates (an escaped \\ud800, half a character): "
                             "each was read as U+FFFD")
    # enrichment (``--enrich``: docs/enrich.md)
    enrich_failed = Meaning("a service gave no usable answer about a paper (no JSON, too large, an error): the "
                            "page's values stay")
    enrich_differs = Meaning("a service's matched work says otherwise than the page (DOI, year, ORCID): the page's "
                             "value stays")


def codes() -> list[str]:
    """Every warning code, in catalogue order."""
    return list(Warn.__members__)


def lacks_part(code: str) -> bool:
    """Whether ``code`` says the record lacks a part its page should give (False for a code not in the catalogue)."""
    member = Warn.__members__.get(code)
    return member is not None and member.value.lacks_part


def untrusted(code: str) -> bool:
    """Whether a record carrying ``code`` is never to replace a stored record (False for a code not in the catalogue).

    >>> untrusted("column_unreadable"), untrusted("partial")
    (True, False)
    """
    member = Warn.__members__.get(code)
    return member is not None and member.value.untrusted
