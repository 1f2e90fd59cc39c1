"""The same paper listed twice: one rule for every site, one warning code.

A page may list a paper more than once (MSR's featured item and its by-year / area / type
accordions, Elamur's *Papers* and *All works*), and a scraper that fetches a profile page by page
may see a row twice (Scholar's list shifting between two fetches). ``distinct`` keeps each paper
once, in the order of its first listing:

- two listings are the same paper when they carry the same id on the page's site (``own_id``), or,
  when one of them has no such id, the same normalised title (``text.title_key``); two
  *different* ids are never merged on their titles (a report and the conference paper may share one);
- a later listing fills what the first lacks; where both say something and differ, text and
  lists keep the fuller value (the longer; the first on a tie), numbers and the type keep the
  first, and a ``listings_disagree`` warning names the paper, the field and both values;
- groupings, links, flags and cluster ids are collected from every listing; the provenance of an id
  comes with the id (``records.Provenance``).

>>> from .records import PageResult, Publication, PublicationIds
>>> result = PageResult(site="msr", page="publication_list")
>>> pubs = distinct([Publication(title="Deep Nets", venue="SC", ids=PublicationIds(msr="deep-nets")),
...                  Publication(title="Deep Nets", venue="SC'23")], result)
>>> len(pubs), pubs[0].venue, pubs[0].ids.msr
(1, "SC'23", 'deep-nets')
>>> [(w.code, w.message) for w in result.warnings]
[('listings_disagree', 'the listings of \\'Deep Nets\\' disagree on the venue: kept "SC\\'23", not \\'SC\\'')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from operator import attrgetter
from typing import Any

from pubharvest.errors import LayoutChanged

from .records import PageResult, Publication, PublicationIds
from .text import title_key
from .warning_codes import Warn

__all__ = ["distinct", "absorb", "check_listings"]


# Fields a later listing fills or disputes, in the order disagreements are reported. Each flag
# follows its list or text (a cut author list is the list's property, not the paper's).
_FULLER = ("title", "authors", "venue", "date", "publisher", "summary", "url")
_FIRST = ("year", "citations")
_FOLLOWS = {"authors": "authors_truncated", "venue": "venue_truncated"}
_COLLECTED = ("author_links", "links", "flags")
_FACETS = ("years", "research_areas", "types")
_SETTLED = _FULLER + _FIRST
_settled_of = attrgetter(*_SETTLED)
_ID_FIELDS = PublicationIds.__struct_fields__
_ids_of = attrgetter(*_ID_FIELDS)


def distinct(listings: Iterable[Publication], result: PageResult) -> list[Publication]:
    """Each paper of ``listings`` once, in order of first listing; later listings are absorbed into
    the first (see the module's rule), disagreements warned on ``result``, whose ``site`` names the ids."""
    kept: list[Publication] = []
    said = _said(result)
    own = _own_id(result.site)
    by_id: dict[str, Publication] = {}
    by_title: dict[str, Publication] = {}
    for pub in listings:
        ident = own(pub.ids)
        first = by_id.get(ident) if ident else None
        key = ""
        if first is None:
            key = title_key(pub.title)
            same_title = by_title.get(key)
            if same_title is not None and not (ident and own(same_title.ids)):
                first = same_title
        if first is None:
            kept.append(pub)
            if ident:
                by_id[ident] = pub
            if key:
                by_title.setdefault(key, pub)
            continue
        title = first.title
        absorb(first, pub, result, said)
        if first_id := own(first.ids):
            by_id[first_id] = first
        # A title the first listing already had is indexed already: a key is computed only for a new one.
        if first.title != title and (key := title_key(first.title)):
            by_title.setdefault(key, first)
    return kept


@cache
def _own_id(site: str) -> Callable[[PublicationIds], str | None]:
    """``records.own_id`` for ``site``, with the choice of field made once rather than per listing."""
    if site in PublicationIds.__struct_fields__ and getattr(PublicationIds(), site) is None:
        return attrgetter(site)  # a field of its own, holding one id
    return lambda ids: ids.other.get(site)


def absorb(first: Publication, other: Publication, result: PageResult, said: set[str] | None = None) -> None:
    """Merge ``other``, a later listing of the same paper, into ``first``, warning on ``result``
    where the two disagree (once per message: ``said`` holds the messages already given).

    Most fields of a listing are empty or say what the first said: those are passed over before any
    settling (the fields are read in one call each, ``attrgetter`` of them all)."""
    said = _said(result) if said is None else said
    for name, mine, theirs in zip(_SETTLED, _settled_of(first), _settled_of(other), strict=True):
        if theirs is None or mine == theirs:
            continue
        value = _settle(first.title, name, mine, theirs, result, said)
        if value is not mine:
            setattr(first, name, value)
            if name in _FOLLOWS:
                setattr(first, _FOLLOWS[name], getattr(other, _FOLLOWS[name]))
    _absorb_ids(first, other.ids, result, said)
    if other.provenance:
        _absorb_provenance(first, other)
    if other.type is not None and other.type != first.type:
        first.type = _settle(first.title, "type", first.type, other.type, result, said)
    for name in _COLLECTED:
        if more := getattr(other, name):
            _collect(getattr(first, name), more)
    for facet in _FACETS:
        if more := getattr(other.facets, facet):
            _collect(getattr(first.facets, facet), more)


def _absorb_ids(first: Publication, other: PublicationIds, result: PageResult, said: set[str]) -> None:
    ids = first.ids
    for name, mine, theirs in zip(_ID_FIELDS, _ids_of(ids), _ids_of(other), strict=True):
        if not theirs or mine == theirs:  # nothing to add: no id, an empty list or mapping, the same
            continue
        if isinstance(mine, list):
            _collect(mine, theirs)
        elif isinstance(mine, dict):
            for site, value in theirs.items():
                mine[site] = _settle(first.title, site, mine.get(site), value, result, said)
        else:
            setattr(ids, name, _settle(first.title, name, mine, theirs, result, said))


def _absorb_provenance(first: Publication, other: Publication) -> None:
    """The accounts of ``other``'s ids that ``first`` kept (the same value), where ``first`` has none of its own."""
    told = {p.field for p in first.provenance if p.accepted}
    for item in other.provenance:
        kind = item.field.removeprefix("ids.")
        if item.accepted and item.field not in told and getattr(first.ids, kind, None) == item.value:
            first.provenance.append(item)
            told.add(item.field)


def _settle(title: str | None, field: str, mine: Any, theirs: Any, result: PageResult, said: set[str]) -> Any:
    """The value ``first`` keeps: its own, else the other's; when both differ, the fuller text or
    list (the first on a tie) or the first number or type, with a warning."""
    if theirs is None or theirs == [] or theirs == "" or mine == theirs:
        return mine
    if mine is None or mine == [] or mine == "":
        return theirs
    fuller = isinstance(mine, (str, list)) and field != "type" and len(theirs) > len(mine)
    kept, dropped = (theirs, mine) if fuller else (mine, theirs)
    _warn_once(result, _disagreement(title, field, kept, dropped), said)
    return kept


def _disagreement(title: str | None, field: str, kept: Any, dropped: Any) -> str:
    if field == "type":
        return f"{title!r} is listed under two types: kept {kept!r}, not {dropped!r}"
    return f"the listings of {title!r} disagree on the {field}: kept {kept!r}, not {dropped!r}"


def _said(result: PageResult) -> set[str]:
    return {warning.message for warning in result.warnings}


def _warn_once(result: PageResult, message: str, said: set[str]) -> None:
    """A third listing repeats what one of the first two said: one warning each."""
    if message not in said:
        said.add(message)
        result.warn(Warn.listings_disagree, message)


def _collect(values: list[Any], more: Iterable[Any]) -> None:
    values.extend(value for value in more if value not in values)


def check_listings(result: PageResult, section: str, total: int, unreadable: Sequence[int], missing: str,
                   incomplete: Sequence[int] = (), lacking: str = "") -> None:
    """The invariant of a list of listings: every listing gives a paper.

    All ``total`` listings of ``section`` unreadable is ``LayoutChanged`` naming what is ``missing``;
    some unreadable is a ``listings_unreadable`` warning with their numbers (1-based, page order);
    listings read but ``lacking`` a part are a ``listings_incomplete`` warning.

    >>> result = PageResult(site="msr", page="publication_list")
    >>> check_listings(result, "by year", 3, [2], "a title")
    >>> result.warnings[0].message
    'listing 2 of 3 in by year could not be read (no a title): skipped'
    >>> check_listings(result, "by year", 3, [1, 2, 3], "a title")
    Traceback (most recent call last):
    pubharvest.errors.LayoutChanged: layout_changed: all 3 listings in by year are unreadable (no a title)
    """
    if total and len(unreadable) == total:
        raise LayoutChanged(f"all {total} listings in {section} are unreadable (no {missing})")
    if unreadable:
        result.warn(Warn.listings_unreadable, f"{_numbered(unreadable)} of {total} in {section} could not be read "
                                f"(no {missing}): skipped")
    if incomplete:
        result.warn(Warn.listings_incomplete, f"{_numbered(incomplete)} of {total} in {section} lack {lacking}")


def _numbered(numbers: Sequence[int]) -> str:
    """``listing 2``, ``listings 1, 4, 9``; at most 20 numbers, then how many more."""
    shown = ", ".join(map(str, numbers[:20])) + (f" and {len(numbers) - 20} more" if len(numbers) > 20 else "")
    return f"listing{'s' if len(numbers) > 1 else ''} {shown}"
