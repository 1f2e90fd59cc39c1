"""What changed in a store between two points of each profile's history (``pubharvest changes``).

A profile's history is its runs in the store, ordered by capture time (``taken_at``): each run either
got a record of the profile (``profile_runs``, with its listing, each paper's version and count) or
tried and got none (``run_failures``: blocked, refused, failed). Two of its runs are compared, and
what differs is a list of ``Change``. What cannot be told from the two runs is never a change:

- a paper one run lists and the other does not is ``gone_paper`` only when both runs listed the
  profile completely, ``new_paper`` only when the earlier one did; otherwise it is ``not_seen``;
- a run that got no record, or a drifted one (an ``untrusted`` warning: columns it could not read),
  is never one of the two: it is named in ``runs_skipped``, so it is evidence of nothing;
- a value that is gone (a venue, an e-mail domain, a count read as null) is not reported: pages drop
  values far more often than people do; a value filled in or changed is.

>>> from pubharvest.parsers.records import PageResult, Profile, Publication, PublicationIds
>>> from pubharvest.store import Store
>>> store = Store(":memory:")
>>> def page(*counts):
...     pubs = [Publication(title=f"T{i}", citations=c, ids=PublicationIds(scholar=f"U:{i}"))
...             for i, c in enumerate(counts)]
...     return PageResult(site="scholar", page="profile", profile=Profile(name="Ada"), publications=pubs)
>>> _ = store.save("r1", "U", page(5, 7), taken_at="2026-11-27T08:00:00Z")
>>> _ = store.save("r2", "U", page(9, 7, 1), taken_at="2026-12-04T08:00:00Z")
>>> [(c.kind, c.paper.title, c.before, c.after) for c in changes(store).changes]
[('new_paper', 'T2', None, 1), ('citations', 'T0', 5, 9)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

import msgspec

from pubharvest.parsers.records import Coauthor, PageResult, Profile, Publication
from pubharvest.parsers.warning_codes import Warn, untrusted

from .errors import PARSE_CODES, BadPoint, UnknownPerson
from .store import Store, _Sql, decoded, utc_text

# A value a change reports: a count, a text, a list of texts (authors, interests), or none.
Value = int | str | list[str] | None
# A run's standing in a profile's history. The first three got a record that can be compared.
Standing = Literal["complete", "partial", "shrunk", "drifted", "blocked", "refused", "failed"]
USABLE = ("complete", "partial", "shrunk")
# What a paper's version is compared on, as the field is named in a change.
PAPER_FIELDS: dict[str, Callable[[Publication], Value]] = {
    "title": lambda pub: pub.title, "venue": lambda pub: pub.venue, "year": lambda pub: pub.year,
    "authors": lambda pub: pub.authors or None, "doi": lambda pub: pub.ids.doi,
}
PROFILE_FIELDS: dict[str, Callable[[Profile], Value]] = {
    "affiliation": lambda profile: profile.affiliation, "email_domain": lambda profile: profile.email_domain,
    "interests": lambda profile: profile.interests or None,
}
METRICS = ("citations", "citations_since", "since_year", "h_index", "h_index_since", "i10_index", "i10_index_since")
# The order of a person's changes in a digest: the whole profile first, then its papers.
KINDS = ("metric", "citations_by_year", "new_paper", "gone_paper", "merged", "split", "citations", "field",
         "profile", "coauthor_added", "coauthor_removed")
# Failure codes that are the site refusing the page (the rest failed on our side or the network's).
_REFUSED = frozenset(PARSE_CODES) - {"blocked"} | {"robots_disallowed", "redirect_refused"}


class RunRef(msgspec.Struct, kw_only=True):
    """One run of one profile: its id, when its page was captured and what said so, and its standing:
    ``complete``, ``partial`` (paging stopped), ``shrunk`` (lost more than half its papers unexplained),
    ``drifted`` (an untrusted warning), or, for a run that got no record, ``blocked``, ``refused``, ``failed``."""

    id: str
    taken_at: str
    time_source: str | None = None
    standing: Standing


class ProfileRef(msgspec.Struct, kw_only=True):
    site: str
    id: str
    name: str | None = None


class PaperRef(msgspec.Struct, kw_only=True):
    """A paper as the store keys it (``id``: the site's own id, else a DOI, arXiv id, URL or hash), with
    the title and the ids its version gave."""

    id: str
    title: str | None = None
    scholar: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    scholar_clusters: list[str] = []


class Part(msgspec.Struct, kw_only=True):
    """One row of a merge or split, with its count in the run that listed it."""

    paper: PaperRef
    citations: int | None = None


class CoauthorRef(msgspec.Struct, kw_only=True):
    name: str
    scholar: str | None = None
    affiliation: str | None = None


class Change(msgspec.Struct, kw_only=True):
    """One thing that changed between ``from_run`` and ``to_run`` of ``profile``.

    ``kind``: ``new_paper`` / ``gone_paper`` (``before``/``after``: its count); ``merged`` (``paper``,
    the row that kept the merged count, absorbed the rows in ``parts``) / ``split`` (``paper`` was split
    into ``parts``), their counts summed in ``before`` and ``after``; ``citations`` (a paper's count);
    ``metric`` (``field``: citations, h_index, ... of the profile); ``citations_by_year`` (``field``: the
    year); ``field`` (a paper's title, venue, year, authors or doi); ``profile`` (affiliation,
    email_domain, interests); ``coauthor_added`` / ``coauthor_removed`` (``coauthor``).
    ``delta`` and ``percent`` (of ``before``; null when ``before`` is 0) for counts."""

    kind: Literal["new_paper", "gone_paper", "merged", "split", "citations", "metric", "citations_by_year", "field",
                  "profile", "coauthor_added", "coauthor_removed"]
    profile: ProfileRef
    from_run: RunRef
    to_run: RunRef
    paper: PaperRef | None = None
    field: str | None = None
    before: Value = None
    after: Value = None
    delta: int | None = None
    percent: float | None = None
    parts: list[Part] = []
    coauthor: CoauthorRef | None = None

    def size(self) -> int:
        """How big the change is, to put the biggest first: a count's change, a paper's count."""
        if self.delta is not None:
            return abs(self.delta)
        counts = [value for value in (self.after, self.before) if isinstance(value, int)]
        return counts[0] if counts else 0


class NotSeen(msgspec.Struct, kw_only=True):
    """A paper only one of the two runs listed, where the other's listing was incomplete: no evidence
    it came or went. ``seen_in``: the run that listed it (``from`` or ``to``)."""

    profile: ProfileRef
    paper: PaperRef
    citations: int | None
    seen_in: Literal["from", "to"]
    from_run: RunRef
    to_run: RunRef


class Skipped(msgspec.Struct, kw_only=True):
    """A run of a profile, within the compared stretch, that is evidence of nothing: it got no record
    (blocked, refused, failed) or a drifted one; ``code`` and ``message`` say why."""

    profile: ProfileRef
    run: RunRef
    code: str
    message: str


class Compared(msgspec.Struct, kw_only=True):
    profile: ProfileRef
    from_run: RunRef
    to_run: RunRef


class Uncompared(msgspec.Struct, kw_only=True):
    """A profile that has no two runs to compare in the stretch asked for, and why."""

    profile: ProfileRef
    reason: str


class ChangeReport(msgspec.Struct, kw_only=True):
    """``pubharvest changes --format json``: the two points asked for (``from``: ``--since`` as given,
    null for each profile's run before its last; ``to``: ``--until``, null for its latest), the runs
    compared per profile, and what changed, was not seen, or was skipped."""

    since: str | None = msgspec.field(default=None, name="from")
    until: str | None = msgspec.field(default=None, name="to")
    compared: list[Compared] = []
    uncompared: list[Uncompared] = []
    changes: list[Change] = []
    not_seen: list[NotSeen] = []
    runs_skipped: list[Skipped] = []


def changes_json_schema() -> dict[str, Any]:
    """The JSON Schema of ``ChangeReport`` (``pubharvest schema --changes``).

    >>> "gone_paper" in changes_json_schema()["$defs"]["Change"]["properties"]["kind"]["enum"]
    True
    """
    schema: dict[str, Any] = msgspec.json.schema(ChangeReport)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "pubharvest changes", **schema}


# ---- reading the store --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """One run's try at a profile, as ``RunRef`` with the failure's code and message (for a run that got none)."""

    ref: RunRef
    code: str = ""
    message: str = ""
    saved_at: str = ""  # when the store took it in: of two captures of one second, the later saved is the later

    @property
    def key(self) -> tuple[str, str, str]:
        """Its place in the history, as the store orders it: by capture time, then by when it was saved."""
        return self.ref.taken_at, self.saved_at or self.ref.taken_at, self.ref.id

    @property
    def usable(self) -> bool:
        return self.ref.standing in USABLE


@dataclass(frozen=True)
class Listed:
    """A paper in one run's listing: its count, its version's digest and stored record (either may be null)."""

    position: int
    citations: int | None
    digest: str | None
    record: str | None

    def publication(self) -> Publication:
        return decoded(self.record, Publication) if self.record else Publication()


@dataclass
class Side:
    """One of the two runs compared: the profile's record in it and its listing."""

    attempt: Attempt
    page: PageResult
    listing: dict[str, Listed]
    _pubs: dict[str, Publication] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.attempt.ref.standing == "complete"

    def publication(self, pub_id: str) -> Publication:
        if pub_id not in self._pubs:
            self._pubs[pub_id] = self.listing[pub_id].publication()
        return self._pubs[pub_id]

    def paper(self, pub_id: str, title_of: Callable[[str], str | None]) -> PaperRef:
        pub = self.publication(pub_id)
        title = pub.title if self.listing[pub_id].record else title_of(pub_id)
        return PaperRef(id=pub_id, title=title, scholar=pub.ids.scholar, doi=pub.ids.doi, arxiv=pub.ids.arxiv,
                        scholar_clusters=list(pub.ids.scholar_clusters))


class Point(msgspec.Struct, frozen=True):
    """``--since`` or ``--until``: a run id, or a time (UTC text as the store writes it)."""

    given: str
    run: str | None = None
    time: str | None = None


def point(store: Store, given: str, end_of_day: bool = False) -> Point:
    """What ``--since``/``--until`` ``given`` names in ``store``: a run of it, else a time (a date alone
    is its midnight, UTC; for ``--until`` the end of that day).

    >>> point(Store(":memory:"), "2026-12-04").time, point(Store(":memory:"), "2026-12-04", True).time
    ('2026-12-04T00:00:00.000000+00:00', '2026-12-04T23:59:59.999999+00:00')
    """
    db = _Sql(store.connection, store.dialect)
    time = store.time_column
    failures = " UNION ALL SELECT taken_at FROM run_failures WHERE run_id = ?" if "run_failures" in store.tables \
        else ""
    times = [when for (when,) in db.execute(f"SELECT {time} FROM profile_runs WHERE run_id = ?{failures}",
                                            (given, given) if failures else (given,)).fetchall()
             ] if "profile_runs" in store.tables else []
    if times:
        return Point(given, run=given, time=max(times))
    try:
        moment = datetime.fromisoformat(given.replace("Z", "+00:00"))
    except ValueError:
        raise BadPoint(f"{given!r} is no run of the store and no date or time (YYYY-MM-DD or "
                       "YYYY-MM-DDTHH:MM[:SS][+HH:MM])") from None
    if end_of_day and len(given.strip()) == 10:
        moment += timedelta(days=1, microseconds=-1)
    return Point(given, time=utc_text(moment.isoformat()))


def _attempts(store: Store, db: _Sql) -> dict[tuple[str, str], list[Attempt]]:
    """Every profile's runs, records and failures alike, oldest first."""
    found: dict[tuple[str, str], list[Attempt]] = {}
    if "profile_runs" not in store.tables:  # a store of schema 1, read-only: no history
        return found
    time = store.time_column
    source = "time_source" if time == "taken_at" else "NULL"
    columns = {column[0] for column in db.execute("SELECT * FROM profile_runs WHERE false").description or ()}
    trusted_column = "trusted" if "trusted" in columns else "0"  # schema 2: read from the record when needed
    rows = db.execute(f"SELECT site, profile_id, run_id, {time}, {source}, complete, {trusted_column}, saved_at "
                      "FROM profile_runs")
    for site, profile_id, run, taken_at, time_source, complete, trusted, saved_at in rows.fetchall():
        # not trusted: shrunk, or drifted (told apart by its warnings only if it may be compared: ``_drift_checked``)
        standing: Standing = "complete" if complete else "partial" if trusted else "shrunk"
        ref = RunRef(id=run, taken_at=taken_at, time_source=time_source, standing=standing)
        found.setdefault((site, profile_id), []).append(Attempt(ref, saved_at=saved_at))
    if "run_failures" in store.tables:
        for site, profile_id, run, taken_at, status, code, message in db.execute(
                "SELECT site, profile_id, run_id, taken_at, status, code, message FROM run_failures").fetchall():
            failure: Standing = "blocked" if code == "blocked" else "refused" if code in _REFUSED else "failed"
            ref = RunRef(id=run, taken_at=taken_at, time_source=None, standing=failure)
            found.setdefault((site, profile_id), []).append(Attempt(ref, code or status, message))
    for attempts in found.values():
        attempts.sort(key=lambda attempt: attempt.key)
    return found


def _record(db: _Sql, site: str, profile_id: str, run: str) -> PageResult:
    (record,) = db.execute("SELECT record FROM profile_runs WHERE site = ? AND profile_id = ? AND run_id = ?",
                           (site, profile_id, run)).fetchone()
    return decoded(record, PageResult)


def _listing(store: Store, db: _Sql, site: str, profile_id: str, run: str) -> dict[str, Listed]:
    """A run's listing of a profile, in page order, with each paper's count and version."""
    versioned = "publication_versions" in store.tables
    version = "r.version, v.record" if versioned else "NULL, NULL"
    versions = "LEFT JOIN publication_versions v ON v.digest = r.version " if versioned else ""
    rows = db.execute(
        f"SELECT r.publication_id, r.position, s.citations, {version} FROM run_publications r "
        "LEFT JOIN citation_snapshots s ON s.run_id = r.run_id AND s.site = r.site "
        f"AND s.publication_id = r.publication_id {versions}"
        "WHERE r.site = ? AND r.profile_id = ? AND r.run_id = ? ORDER BY r.position", (site, profile_id, run))
    return {pub_id: Listed(position, citations, digest, record)
            for pub_id, position, citations, digest, record in rows.fetchall()}


def _drift_check(db: _Sql, site: str, profile_id: str) -> Callable[[Attempt], Attempt]:
    return lambda attempt: _drift_checked(db, site, profile_id, attempt)


def _drift_checked(db: _Sql, site: str, profile_id: str, attempt: Attempt) -> Attempt:
    """A run not ``trusted`` (or of a schema 2 store, which does not say) told by the warnings its record
    kept: ``drifted`` (an untrusted code), ``shrunk``, or else ``partial``."""
    if attempt.ref.standing != "shrunk":
        return attempt
    warnings = _record(db, site, profile_id, attempt.ref.id).warnings
    drifted = [w for w in warnings if untrusted(w.code)]
    if drifted:
        ref = msgspec.structs.replace(attempt.ref, standing="drifted")
        return Attempt(ref, drifted[0].code, drifted[0].message, attempt.saved_at)
    if any(w.code == Warn.shrunk.name for w in warnings):
        return attempt
    return Attempt(msgspec.structs.replace(attempt.ref, standing="partial"), saved_at=attempt.saved_at)


# ---- choosing the two runs ----------------------------------------------------------------------------------


@dataclass
class Stretch:
    """The two runs of a profile to compare (or why there are none), and the runs between that are skipped."""

    first: Attempt | None
    last: Attempt | None
    skipped: list[Attempt]
    reason: str = ""


def _upto(attempts: Sequence[Attempt], where: Point | None) -> list[Attempt]:
    """The attempts at or before ``where`` (a run: this profile's attempt in it, else the run's latest capture time)."""
    if where is None:
        return list(attempts)
    if where.run is not None:
        own = [a for a in attempts if a.ref.id == where.run]
        if own:
            return [a for a in attempts if a.key <= own[0].key]
    assert where.time is not None
    return [a for a in attempts if a.ref.taken_at <= where.time]


def stretch(attempts: Sequence[Attempt], since: Point | None, until: Point | None,
            checked: Callable[[Attempt], Attempt]) -> Stretch:
    """The runs to compare: with ``since``, the last usable run at or before it and the last usable one after
    it up to ``until``; without, the latest run up to ``until`` (when it got no usable record, nothing is
    compared and it is skipped) and the last usable one before it. ``checked`` tells a drifted run from a
    shrunk one (it reads the run's record, so it is asked only of runs that may be chosen)."""
    window = _upto(attempts, until)
    if not window:
        return Stretch(None, None, [], "no run up to --until" if attempts else "no run in the store's history")
    if since is None:
        latest = checked(window[-1])
        if not latest.usable:
            return Stretch(None, latest, [latest], "its latest run got no record that can be compared")
        first, between = last_usable(window[:-1], checked)
        return Stretch(first, latest, between, "" if first else "no earlier run with a record to compare with")
    earlier = _upto(window, since)  # a prefix: both are in history order
    first, _ = last_usable(earlier, checked)
    later = [checked(a) for a in window[len(earlier):]]
    skipped = [a for a in later if not a.usable]
    last = next((a for a in reversed(later) if a.usable), None)
    if last is None:
        return Stretch(first, None, skipped, "no run with a record after --since")
    return Stretch(first, last, skipped, "" if first else "no run with a record at or before --since")


def last_usable(attempts: Sequence[Attempt], checked: Callable[[Attempt], Attempt]) -> tuple[Attempt | None,
                                                                                          list[Attempt]]:
    """The last of ``attempts`` that got a usable record, and the unusable ones after it."""
    after: list[Attempt] = []
    for attempt in reversed(attempts):
        attempt = checked(attempt)
        if attempt.usable:
            return attempt, after[::-1]
        after.append(attempt)
    return None, after[::-1]


def records_at(store: Store, where: Point) -> Iterator[tuple[tuple[str, str, str], PageResult]]:
    """Each profile's record as the store would have exported it at ``where`` (``metrics --store --at``):
    of its runs up to that point that got a record, a complete one before a partial one before a shrunk
    or drifted one, then the latest (``store._EXPORTED_RUN``); its papers as that run listed them, with
    that run's counts. Yields ``((site, profile id, run id), record)``; a profile with no such run, none."""
    db = _Sql(store.connection, store.dialect)
    for (site, profile_id), attempts in sorted(_attempts(store, db).items()):
        chosen = max((a for a in _upto(attempts, where) if a.usable), default=None, key=_export_rank)
        if chosen is not None:
            run = chosen.ref.id
            page = _record(db, site, profile_id, run)
            page.publications = [_listed_publication(db, site, pub_id, listed)
                                 for pub_id, listed in _listing(store, db, site, profile_id, run).items()]
            yield (site, profile_id, run), page


def _export_rank(attempt: Attempt) -> tuple[bool, bool, tuple[str, str, str]]:
    return attempt.ref.standing == "complete", attempt.ref.standing != "shrunk", attempt.key


def _listed_publication(db: _Sql, site: str, pub_id: str, listed: Listed) -> Publication:
    """A paper as one run listed it, with that run's count (a store before schema 4 kept no versions: the
    paper's latest record stands in for it)."""
    if listed.record is None:
        row = db.execute("SELECT record FROM publications WHERE site = ? AND publication_id = ?",
                         (site, pub_id)).fetchone()
        listed = Listed(listed.position, listed.citations, listed.digest, row[0] if row else None)
    return msgspec.structs.replace(listed.publication(), citations=listed.citations)


# ---- comparing ------------------------------------------------------------------------------------------------


@dataclass
class Thresholds:
    """A paper's count change is reported when it moved by at least ``citations`` and ``percent``."""

    citations: int = 1
    percent: float = 0.0

    def passes(self, delta: int, percent: float | None) -> bool:
        return abs(delta) >= self.citations and (percent is None or abs(percent) >= self.percent)


def percent_of(before: int, after: int) -> float | None:
    """The change from ``before`` to ``after`` in percent of ``before`` (one decimal), null from 0.

    >>> percent_of(80, 100), percent_of(3, 2), percent_of(0, 4)
    (25.0, -33.3, None)
    """
    return round((after - before) * 100 / before, 1) if before else None


@dataclass
class Comparison:
    """The two sides of one profile, and what the comparison found."""

    profile: ProfileRef
    before: Side
    after: Side
    thresholds: Thresholds
    titles: Callable[[str], str | None]
    changes: list[Change] = field(default_factory=list)
    not_seen: list[NotSeen] = field(default_factory=list)

    def change(self, kind: Any, **values: Any) -> None:
        self.changes.append(Change(kind=kind, profile=self.profile, from_run=self.before.attempt.ref,
                                   to_run=self.after.attempt.ref, **values))

    def count(self, kind: Any, before: int | None, after: int | None, **values: Any) -> None:
        """A count's change, with its delta and percent (when both counts are known and differ)."""
        if before is None or after is None or before == after:
            return
        self.change(kind, before=before, after=after, delta=after - before, percent=percent_of(before, after),
                    **values)

    def paper(self, side: Side, pub_id: str) -> PaperRef:
        return side.paper(pub_id, self.titles)


def compare(comparison: Comparison) -> Comparison:
    """Fill ``comparison`` with the changes between its two sides."""
    before, after = comparison.before, comparison.after
    gone = [pub_id for pub_id in before.listing if pub_id not in after.listing]
    new = [pub_id for pub_id in after.listing if pub_id not in before.listing]
    explained = _merges(comparison, gone, new) | _splits(comparison, gone, new)
    for pub_id in gone:
        if pub_id not in explained:
            _absent(comparison, before, pub_id, "from", "gone_paper", before.complete and after.complete)
    for pub_id in new:
        if pub_id not in explained:
            _absent(comparison, after, pub_id, "to", "new_paper", before.complete)
    for pub_id, listed in after.listing.items():
        if pub_id in before.listing and pub_id not in explained:
            _paper_changes(comparison, pub_id, before.listing[pub_id], listed)
    _profile_changes(comparison)
    return comparison


def _absent(comparison: Comparison, side: Side, pub_id: str, seen_in: Literal["from", "to"], kind: str,
            evidence: bool) -> None:
    """A paper only ``side`` lists: a change when the other listing is evidence of its absence, else not seen."""
    citations = side.listing[pub_id].citations
    paper = comparison.paper(side, pub_id)
    if evidence:
        comparison.change(kind, paper=paper, **({"before": citations} if seen_in == "from" else {"after": citations}))
    else:
        comparison.not_seen.append(NotSeen(profile=comparison.profile, paper=paper, citations=citations,
                                           seen_in=seen_in, from_run=comparison.before.attempt.ref,
                                           to_run=comparison.after.attempt.ref))


def _clusters(side: Side, pub_id: str) -> set[str]:
    return set(side.publication(pub_id).ids.scholar_clusters)


def _grouped(comparison: Comparison, whole: Side, whole_ids: Iterable[str], rows: Side, row_ids: list[str],
             kind: str) -> set[str]:
    """Scholar's merged versions: a row of ``whole`` whose clusters (its "Cited by" link's ``cites=``)
    hold every cluster of rows of ``rows`` only that side lists. Returns the ids explained."""
    explained: set[str] = set()
    for pub_id in whole_ids:
        clusters = _clusters(whole, pub_id)
        if len(clusters) < 2:
            continue
        parts = [row for row in row_ids if row != pub_id and row not in explained
                 and _clusters(rows, row) and _clusters(rows, row) <= clusters]
        if not parts:
            continue
        other = comparison.before if whole is comparison.after else comparison.after
        same = [pub_id] if pub_id in other.listing else []
        explained |= {*parts, pub_id}
        counts = [rows.listing[row].citations for row in same + parts]
        whole_count = whole.listing[pub_id].citations
        parts_count = sum(c for c in counts if c is not None) if None not in counts else None
        before, after = (parts_count, whole_count) if kind == "merged" else (whole_count, parts_count)
        comparison.change(kind, paper=comparison.paper(whole, pub_id), before=before, after=after,
                          delta=after - before if before is not None and after is not None else None,
                          percent=percent_of(before, after) if before is not None and after is not None else None,
                          parts=[Part(paper=comparison.paper(rows, row), citations=rows.listing[row].citations)
                                 for row in same + parts])
    return explained


def _merges(comparison: Comparison, gone: list[str], new: list[str]) -> set[str]:
    """Rows the earlier run listed apart that the later run shows as one row (the ``*`` mark)."""
    if not gone:
        return set()
    after = comparison.after
    return _grouped(comparison, after, list(after.listing), comparison.before, gone, "merged")


def _splits(comparison: Comparison, gone: list[str], new: list[str]) -> set[str]:
    """A merged row of the earlier run that the later run lists as rows of its own again."""
    if not new:
        return set()
    before = comparison.before
    return _grouped(comparison, before, list(before.listing), comparison.after, new, "split")


def _paper_changes(comparison: Comparison, pub_id: str, before: Listed, after: Listed) -> None:
    if before.citations is not None and after.citations is not None and before.citations != after.citations:
        delta = after.citations - before.citations
        if comparison.thresholds.passes(delta, percent_of(before.citations, after.citations)):
            comparison.count("citations", before.citations, after.citations,
                             paper=comparison.paper(comparison.after, pub_id))
    if before.digest == after.digest or before.record is None or after.record is None:
        return
    old, now = comparison.before.publication(pub_id), comparison.after.publication(pub_id)
    for name, value in PAPER_FIELDS.items():
        was, is_ = value(old), value(now)
        if is_ is not None and was != is_:
            comparison.change("field", paper=comparison.paper(comparison.after, pub_id), field=name,
                              before=was, after=is_)


def _profile_changes(comparison: Comparison) -> None:
    old, now = comparison.before.page.profile or Profile(), comparison.after.page.profile or Profile()
    for name in METRICS:
        comparison.count("metric", getattr(old.metrics, name), getattr(now.metrics, name), field=name)
    years = {bar.year: bar.citations for bar in old.citations_by_year}
    for bar in now.citations_by_year:
        comparison.count("citations_by_year", years.get(bar.year), bar.citations, field=str(bar.year))
    for name, value in PROFILE_FIELDS.items():
        was, is_ = value(old), value(now)
        if is_ is not None and was != is_:
            comparison.change("profile", field=name, before=was, after=is_)
    _coauthor_changes(comparison, old, now)


def _coauthor_key(coauthor: Coauthor) -> str:
    return coauthor.ids.scholar or " ".join(coauthor.name.casefold().split())


def _coauthor_changes(comparison: Comparison, old: Profile, now: Profile) -> None:
    """Co-authors added (unless the earlier box was cut short) and removed (unless the later one was cut
    short or is empty: a page without the box)."""
    def cut(side: Side) -> bool:
        return any(w.code == Warn.coauthors_partial.name for w in side.page.warnings)

    was = {_coauthor_key(c): c for c in old.coauthors}
    is_ = {_coauthor_key(c): c for c in now.coauthors}
    if not cut(comparison.before):
        for key in is_.keys() - was.keys():
            comparison.change("coauthor_added", coauthor=_coauthor_ref(is_[key]))
    if now.coauthors and not cut(comparison.after):
        for key in was.keys() - is_.keys():
            comparison.change("coauthor_removed", coauthor=_coauthor_ref(was[key]))


def _coauthor_ref(coauthor: Coauthor) -> CoauthorRef:
    return CoauthorRef(name=coauthor.name, scholar=coauthor.ids.scholar, affiliation=coauthor.affiliation)


# ---- the whole store ---------------------------------------------------------------------------------------------


def _names(db: _Sql) -> dict[tuple[str, str], str | None]:
    return {(site, profile_id): name for site, profile_id, name in
            db.execute("SELECT site, profile_id, name FROM profiles").fetchall()}


def chosen_profiles(keys: Iterable[tuple[str, str]], names: dict[tuple[str, str], str | None],
                    persons: Sequence[str]) -> list[tuple[str, str]]:
    """The profiles ``persons`` name (a profile id, ``site:id``, or a name, in any case), all when none;
    a person that names none raises ``UnknownPerson``.

    >>> keys = [("scholar", "U1"), ("msr", "ada")]
    >>> chosen_profiles(keys, {("scholar", "U1"): "Ada Lovelace"}, ["ada lovelace", "msr:ada"])
    [('msr', 'ada'), ('scholar', 'U1')]
    """
    keys = sorted(set(keys))
    if not persons:
        return keys
    chosen: set[tuple[str, str]] = set()
    for person in persons:
        wanted = " ".join(person.casefold().split())
        found = {key for key in keys if person in (key[1], f"{key[0]}:{key[1]}")
                 or " ".join((names.get(key) or "").casefold().split()) == wanted}
        if not found:
            raise UnknownPerson(f"--person {person!r}: no profile of the store has that id or name")
        chosen |= found
    return sorted(chosen)


def changes(store: Store, since: str | None = None, until: str | None = None, persons: Sequence[str] = (),
            thresholds: Thresholds | None = None) -> ChangeReport:
    """What changed in ``store`` between ``since`` and ``until`` (run ids or times; by default each
    profile's last run against the one before it), for the profiles ``persons`` name (all by default)."""
    db = _Sql(store.connection, store.dialect)
    since_point = point(store, since) if since else None
    until_point = point(store, until, end_of_day=True) if until else None
    attempts = _attempts(store, db)
    names = _names(db)
    report = ChangeReport(since=since, until=until)
    for site, profile_id in chosen_profiles(attempts.keys() | names.keys(), names, persons):
        profile = ProfileRef(site=site, id=profile_id, name=names.get((site, profile_id)))
        found = stretch(attempts.get((site, profile_id), []), since_point, until_point,
                        _drift_check(db, site, profile_id))
        report.runs_skipped += [Skipped(profile=profile, run=a.ref, code=a.code, message=a.message)
                                for a in found.skipped]
        if found.first is None or found.last is None:
            report.uncompared.append(Uncompared(profile=profile, reason=found.reason))
            continue
        report.compared.append(Compared(profile=profile, from_run=found.first.ref, to_run=found.last.ref))
        before, after = (Side(a, _record(db, site, profile_id, a.ref.id), _listing(store, db, site, profile_id,
                                                                                   a.ref.id))
                         for a in (found.first, found.last))
        done = compare(Comparison(profile, before, after, thresholds or Thresholds(), _title_reader(db, site)))
        report.changes += done.changes
        report.not_seen += done.not_seen
    return report


def _title_reader(db: _Sql, site: str) -> Callable[[str], str | None]:
    """A paper's title from the ``publications`` table (its latest record): for a store without versions."""
    def title(pub_id: str) -> str | None:
        row = db.execute("SELECT title FROM publications WHERE site = ? AND publication_id = ?",
                         (site, pub_id)).fetchone()
        return row[0] if row else None
    return title


# ---- writing ----------------------------------------------------------------------------------------------------


def by_person(report: ChangeReport) -> list[tuple[ProfileRef, list[Change]]]:
    """The changes grouped by profile, the profile with the biggest change in total citations first;
    each profile's changes in ``KINDS`` order, the biggest first within a kind."""
    groups: dict[tuple[str, str], list[Change]] = {}
    for change in report.changes:
        groups.setdefault((change.profile.site, change.profile.id), []).append(change)

    def weight(items: list[Change]) -> int:
        return sum(c.size() for c in items if c.kind == "metric" and c.field == "citations") or \
            sum(c.size() for c in items if c.kind == "citations")

    ordered = sorted(groups.values(), key=lambda items: (-weight(items), items[0].profile.name or "",
                                                         items[0].profile.id))
    return [(items[0].profile, sorted(items, key=lambda c: (KINDS.index(c.kind), -c.size()))) for items in ordered]


def summary_line(report: ChangeReport) -> str:
    """The digest's first line: how many changes of which kinds, for how many people, and what was skipped.

    >>> summary_line(ChangeReport())
    'No changes in 0 profiles compared.'
    """
    people = len({(c.profile.site, c.profile.id) for c in report.changes})
    kinds = [(kind, sum(c.kind == kind for c in report.changes)) for kind in KINDS]
    told = ", ".join(f"{n} {KIND_WORDS[kind][n != 1]}" for kind, n in kinds if n)
    compared = plural(len(report.compared), "profile")
    line = (f"{plural(len(report.changes), 'change')} for {people} of {compared} compared: {told}" if report.changes
            else f"No changes in {compared} compared")
    extra = [f"{plural(len(report.not_seen), 'paper')} not seen (an incomplete listing)"] if report.not_seen else []
    if report.uncompared:
        extra.append(f"{plural(len(report.uncompared), 'profile')} without two runs to compare")
    if report.runs_skipped:
        extra.append(f"{plural(len(report.runs_skipped), 'run')} skipped ("
                     + ", ".join(sorted({s.run.standing for s in report.runs_skipped})) + ")")
    return line + ("; " + "; ".join(extra) if extra else "") + "."


def plural(count: int, noun: str) -> str:
    """``1 paper``, ``2 papers``.

    >>> plural(1, "run"), plural(0, "run")
    ('1 run', '0 runs')
    """
    return f"{count:,} {noun}{'s' * (count != 1)}"


KIND_WORDS = {
    "metric": ("profile metric", "profile metrics"), "citations_by_year": ("year's count", "years' counts"),
    "new_paper": ("new paper", "new papers"), "gone_paper": ("paper gone", "papers gone"),
    "merged": ("merge", "merges"), "split": ("split", "splits"),
    "citations": ("paper's count", "papers' counts"), "field": ("paper field", "paper fields"),
    "profile": ("profile field", "profile fields"), "coauthor_added": ("co-author added", "co-authors added"),
    "coauthor_removed": ("co-author removed", "co-authors removed"),
}


def signed(value: int | float | None, suffix: str = "") -> str:
    """``+1,234`` / ``-5.5%``; empty for null.

    >>> signed(1234), signed(-5.5, "%"), signed(None)
    ('+1,234', '-5.5%', '')
    """
    return "" if value is None else f"{value:+,}{suffix}"


def shown(value: Value) -> str:
    """A value as the digest writes it.

    >>> shown(1234), shown(["A", "B"]), shown(None)
    ('1,234', 'A; B', '(none)')
    """
    if value is None:
        return "(none)"
    if isinstance(value, int):
        return f"{value:,}"
    return "; ".join(value) if isinstance(value, list) else value


def change_text(change: Change, quote: Callable[[str], str] = lambda text: text) -> str:
    """One change as a line of the digest (``quote`` escapes text taken from the pages)."""
    title = quote(change.paper.title or change.paper.id) if change.paper else ""
    moved = ", ".join(x for x in (signed(change.delta), signed(change.percent, "%")) if x)
    counts = f"{shown(change.before)} → {shown(change.after)}"
    if change.kind in ("metric", "citations_by_year"):
        label = change.field if change.kind == "metric" else f"citations in {change.field}"
        return f"{label}: {counts} ({moved})"
    if change.kind == "citations":
        percent = f" ({signed(change.percent, '%')})" if change.percent is not None else ""
        return f"{signed(change.delta)}{percent}: {title} ({counts})"
    if change.kind in ("new_paper", "gone_paper"):
        count = change.after if change.kind == "new_paper" else change.before
        return f"{KIND_WORDS[change.kind][0]}: {title} ({shown(count)} citations)"
    if change.kind in ("merged", "split"):
        parts = "; ".join(f"{quote(p.paper.title or p.paper.id)} ({shown(p.citations)})" for p in change.parts)
        verb = "merged from" if change.kind == "merged" else "split into"
        return f"{title} {verb} {parts}: {counts} citations"
    if change.kind == "field":
        return f"{change.field} of {title}: {quote(shown(change.before))} → {quote(shown(change.after))}"
    if change.kind == "profile":
        return f"{change.field}: {quote(shown(change.before))} → {quote(shown(change.after))}"
    assert change.coauthor is not None
    who = quote(change.coauthor.name) + (f" ({quote(change.coauthor.affiliation)})" if change.coauthor.affiliation
                                         else "")
    return f"{KIND_WORDS[change.kind][0]}: {who}"


def run_text(run: RunRef) -> str:
    return f"run {run.id} ({run.taken_at[:16].replace('T', ' ')} UTC, {run.standing})"


def person_heading(profile: ProfileRef) -> str:
    return f"{profile.name or profile.id} ({profile.site}:{profile.id})"


def digest_lines(report: ChangeReport, markdown: bool) -> Iterator[str]:
    """The ``text`` or ``md`` digest: the summary line, then each person's changes, biggest first, then
    the papers not seen and the runs skipped."""
    quote = _markdown_text if markdown else (lambda text: text)
    bullet = "- " if markdown else "  "
    yield summary_line(report)
    for profile, items in by_person(report):
        compared = items[0]
        yield ""
        heading = person_heading(profile)
        yield f"## {quote(heading)}" if markdown else heading
        if markdown:
            yield ""
        yield f"{bullet}{run_text(compared.from_run)} → {run_text(compared.to_run)}"
        for change in items:
            yield bullet + change_text(change, quote)
    not_seen = [f"{quote(person_heading(item.profile))}: {quote(item.paper.title or item.paper.id)} (listed only by "
                f"the {item.seen_in} run; {run_text(item.to_run if item.seen_in == 'from' else item.from_run)})"
                for item in report.not_seen]
    skipped = [f"{quote(person_heading(s.profile))}: {run_text(s.run)}: {s.code}: {quote(s.message)}"
               for s in report.runs_skipped]
    for title, lines in (("Not seen (a listing was incomplete: no evidence they came or went)", not_seen),
                         ("Runs skipped (evidence of nothing)", skipped)):
        if lines:
            yield ""
            yield f"## {title}" if markdown else title
            if markdown:
                yield ""
            yield from (bullet + line for line in lines)


def _markdown_text(text: str) -> str:
    """Text from a page, safe inside a Markdown line (its punctuation escaped, no line breaks).

    >>> _markdown_text("*Deep* [learning] <b>")
    '\\\\*Deep\\\\* \\\\[learning\\\\] &lt;b&gt;'
    """
    text = " ".join(text.split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join("\\" + char if char in "\\`*_{}[]#+!|~" else char for char in text)


def json_lines(report: ChangeReport) -> Iterator[bytes]:
    """``--format jsonl``: each change, then each paper not seen (``"kind": "not_seen"``) and each run
    skipped (``"kind": "run_skipped"``), one object a line."""
    for change in report.changes:
        yield msgspec.json.encode(change)
    for kind, items in (("not_seen", report.not_seen), ("run_skipped", report.runs_skipped)):
        for item in items:
            yield msgspec.json.encode({"kind": kind, **msgspec.to_builtins(item)})


def formatted(report: ChangeReport, fmt: str) -> str:
    """The report in ``fmt``: ``json``, ``jsonl``, ``md`` or ``text``."""
    if fmt == "json":
        return msgspec.json.format(msgspec.json.encode(report), indent=2).decode() + "\n"
    if fmt == "jsonl":
        return "".join(line.decode() + "\n" for line in json_lines(report))
    return "\n".join(digest_lines(report, markdown=fmt == "md")) + "\n"


# ---- the report's section ---------------------------------------------------------------------------------------
