"""The store: profiles, publications, which publications each profile listed in each run, and a
citation snapshot per publication per run, in SQLite or, for many workers writing into one
database, in PostgreSQL (``Store("postgresql://...")``).

History is kept, never replaced: every run's record of a profile (``profile_runs``) and the
publications it listed (``run_publications``) stay, so a bad run cannot erase a good one.
``profiles`` and ``profile_publications`` hold each profile's latest *complete* record and its
listing (the latest record when none is complete), which is what ``store export`` gives: a record
is complete unless it says it is ``partial`` or ``shrunk`` (it lost more than half of the
publications of the profile's previous run without the page saying so; a shrink seen twice in a
row is not one). A ``partial`` record (paging stopped: a profile longer than one page) is compared
with the profile's previous partial run, and among incomplete records a shrunk or untrusted one
never replaces a trusted one (``docs/scraping.md``, "The store"). Publications are upserted by
``(site, id)`` (their latest record), and
``citation_snapshots`` grows by one row per publication per run: how citations grew.
The SQL is kept portable (``INSERT ... ON CONFLICT ... DO UPDATE``, no SQLite-only types); the
two databases differ only in what ``_Dialect`` covers: connecting, placeholders, transactions.

>>> store = Store(":memory:")
>>> from pubharvest.parsers.records import PageResult, Profile, Publication, PublicationIds
>>> page = PageResult(site="scholar", page="profile", profile=Profile(name="A"), publications=[
...     Publication(title="T", citations=3, ids=PublicationIds(scholar="U:P"))])
>>> store.save("run1", "U", page)
>>> [r.publications[0].citations for r in store.profiles()], store.citation_history()[0]["citations"]
([3], 3)
>>> store.save("run2", "U", msgspec.structs.replace(page, publications=[])).code
'shrunk'
>>> [len(r.publications) for r in store.profiles()]
[1]
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timezone
from operator import itemgetter
from pathlib import Path
from typing import Any, Protocol, TypeVar

import msgspec
import msgspec.inspect

from pubharvest.parsers.records import PageResult, PageWarning, Publication, id_value, to_json
from pubharvest.parsers.warning_codes import Warn, untrusted

from .errors import OutOfRange, StoreError

_Struct = TypeVar("_Struct", bound=msgspec.Struct)
# The values of one statement's placeholders, in order.
Parameters = Sequence[object]


class Cursor(Protocol):
    """What the store reads of a query's cursor, in sqlite3 as in psycopg (rows are tuples)."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    @property
    def description(self) -> Sequence[Sequence[Any]] | None: ...

    def executemany(self, statement: str, rows: Iterable[Parameters], /) -> object: ...


class Connection(Protocol):
    """What the store asks of a database connection, in sqlite3 as in psycopg."""

    def execute(self, statement: str, parameters: Parameters = ..., /) -> Cursor: ...

    def cursor(self) -> Cursor: ...

    def close(self) -> None: ...

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS profiles (
        site TEXT NOT NULL, profile_id TEXT NOT NULL, name TEXT, url TEXT, record TEXT NOT NULL,
        first_run TEXT NOT NULL, last_run TEXT NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (site, profile_id))""",
    """CREATE TABLE IF NOT EXISTS publications (
        site TEXT NOT NULL, publication_id TEXT NOT NULL, title TEXT, year INTEGER, citations INTEGER,
        record TEXT NOT NULL, last_run TEXT NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (site, publication_id))""",
    """CREATE TABLE IF NOT EXISTS profile_publications (
        site TEXT NOT NULL, profile_id TEXT NOT NULL, publication_id TEXT NOT NULL, position INTEGER NOT NULL,
        PRIMARY KEY (site, profile_id, publication_id))""",
    """CREATE TABLE IF NOT EXISTS citation_snapshots (
        run_id TEXT NOT NULL, site TEXT NOT NULL, publication_id TEXT NOT NULL, citations INTEGER,
        taken_at TEXT NOT NULL, PRIMARY KEY (run_id, site, publication_id))""",
    # schema 2: history. Rows here are never deleted by a later run.
    """CREATE TABLE IF NOT EXISTS profile_runs (
        site TEXT NOT NULL, profile_id TEXT NOT NULL, run_id TEXT NOT NULL, record TEXT NOT NULL,
        publications INTEGER NOT NULL, complete INTEGER NOT NULL, saved_at TEXT NOT NULL,
        partial INTEGER NOT NULL DEFAULT 0, trusted INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (site, profile_id, run_id))""",
    """CREATE TABLE IF NOT EXISTS run_publications (
        site TEXT NOT NULL, profile_id TEXT NOT NULL, run_id TEXT NOT NULL, publication_id TEXT NOT NULL,
        position INTEGER NOT NULL, PRIMARY KEY (site, profile_id, run_id, publication_id))""",
    """CREATE TABLE IF NOT EXISTS store_meta (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL)""",
    # schema 4: what each run said of each publication (its record without the count, which the
    # snapshots hold), stored once per distinct record; targets a run tried and got no record of; and
    # the saved pages ``store add`` took in (by hash: the same bytes twice add nothing).
    """CREATE TABLE IF NOT EXISTS publication_versions (
        digest TEXT NOT NULL PRIMARY KEY, site TEXT NOT NULL, publication_id TEXT NOT NULL, record TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS run_failures (
        site TEXT NOT NULL, profile_id TEXT NOT NULL, run_id TEXT NOT NULL, taken_at TEXT NOT NULL,
        status TEXT NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL, PRIMARY KEY (site, profile_id, run_id))""",
    """CREATE TABLE IF NOT EXISTS added_pages (
        sha256 TEXT NOT NULL PRIMARY KEY, run_id TEXT NOT NULL, site TEXT NOT NULL, profile_id TEXT NOT NULL,
        added_at TEXT NOT NULL)""",
)
# schema 3: profile_runs.partial (paging stopped) and .trusted (neither shrunk nor untrusted)
# schema 4: profile_runs.taken_at (when the page was captured, which orders a profile's history) and
# .time_source (what said so), run_publications.version (a publication_versions digest)
SCHEMA_VERSION = 4
# The columns of ``Store.citation_history``, in order.
HISTORY_KEYS = ("site", "publication_id", "run_id", "taken_at", "citations", "title", "profile_id", "profile_name")
# The tables a store of any version has: a file without them is not a pubharvest store.
STORE_TABLES = frozenset({"profiles", "publications", "profile_publications"})
# A store of schema 1 kept one listing per profile (its last run's): it becomes that run's history.
_MIGRATIONS_TO_2 = (
    """INSERT INTO profile_runs (site, profile_id, run_id, record, publications, complete, saved_at)
        SELECT p.site, p.profile_id, p.last_run, p.record,
            (SELECT count(*) FROM profile_publications l WHERE l.site = p.site AND l.profile_id = p.profile_id),
            1, p.updated_at
        FROM profiles p WHERE true ON CONFLICT (site, profile_id, run_id) DO NOTHING""",
    """INSERT INTO run_publications (site, profile_id, run_id, publication_id, position)
        SELECT l.site, l.profile_id, p.last_run, l.publication_id, l.position
        FROM profile_publications l JOIN profiles p ON p.site = l.site AND p.profile_id = l.profile_id
        WHERE true ON CONFLICT (site, profile_id, run_id, publication_id) DO NOTHING""",
)
# Columns schema 3 added to a table of schema 2 (a table created by this version has them already).
_RUN_COLUMNS = {"partial": "INTEGER NOT NULL DEFAULT 0", "trusted": "INTEGER NOT NULL DEFAULT 1"}
_RUN_COLUMNS_4 = {"profile_runs": {"taken_at": "TEXT", "time_source": "TEXT"}, "run_publications": {"version": "TEXT"}}
# Warnings that make a record incomplete: it is kept, but does not replace a complete one in the export
# (besides these, every code the catalogue marks ``untrusted``: drifted markup).
INCOMPLETE = frozenset({Warn.partial.name, Warn.shrunk.name})
# What an INTEGER column holds in SQLite and PostgreSQL (BIGINT): a count outside it is stored as null.
INT64 = range(-2**63, 2**63)

_UPSERT_PROFILE = """INSERT INTO profiles (site, profile_id, name, url, record, first_run, last_run, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (site, profile_id) DO UPDATE SET name = excluded.name, url = excluded.url,
        record = excluded.record, last_run = excluded.last_run, updated_at = excluded.updated_at"""
_UPSERT_PUBLICATION = """INSERT INTO publications
        (site, publication_id, title, year, citations, record, last_run, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (site, publication_id) DO UPDATE SET title = excluded.title, year = excluded.year,
        citations = excluded.citations, record = excluded.record, last_run = excluded.last_run,
        updated_at = excluded.updated_at"""
_INSERT_PUBLICATION = _UPSERT_PUBLICATION.split("ON CONFLICT")[0] + "ON CONFLICT (site, publication_id) DO NOTHING"
_UPSERT_SNAPSHOT = """INSERT INTO citation_snapshots (run_id, site, publication_id, citations, taken_at)
    VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (run_id, site, publication_id) DO UPDATE SET citations = excluded.citations,
        taken_at = excluded.taken_at"""
_UPSERT_RUN = """INSERT INTO profile_runs
        (site, profile_id, run_id, record, publications, complete, saved_at, partial, trusted, taken_at, time_source)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (site, profile_id, run_id) DO UPDATE SET record = excluded.record,
        publications = excluded.publications, complete = excluded.complete, saved_at = excluded.saved_at,
        partial = excluded.partial, trusted = excluded.trusted, taken_at = excluded.taken_at,
        time_source = excluded.time_source"""
# The run a record is compared with: any earlier run of the profile, or for a partial record the
# previous partial one (the same first pages; a complete run always wins over partial ones anyway).
_PREVIOUS_RUN = """SELECT run_id, publications FROM profile_runs WHERE site = ? AND profile_id = ? AND run_id <> ?
    AND partial >= ? AND taken_at <= ? ORDER BY taken_at DESC, saved_at DESC, run_id DESC LIMIT 1"""
_EXPORTED_RUN = """SELECT run_id FROM profile_runs WHERE site = ? AND profile_id = ?
    ORDER BY complete DESC, trusted DESC, taken_at DESC, saved_at DESC, run_id DESC LIMIT 1"""


_DATABASE_URL = re.compile(r"postgres(ql)?://", re.IGNORECASE)


def is_database_url(location: str | Path) -> bool:
    """Whether a store location names a PostgreSQL server rather than an SQLite file.

    >>> is_database_url("postgresql://harvest@db.example.org/pubharvest"), is_database_url("store.sqlite")
    (True, False)
    """
    return bool(_DATABASE_URL.match(str(location)))


class _Dialect:
    """SQLite: the SQL as written, ``with connection`` as the transaction."""

    name = "sqlite"

    def connect(self, location: str | Path, readonly: bool = False) -> Connection:
        if readonly:  # the URI form: nothing is ever written, not even a journal or an empty file
            if not Path(location).is_file():
                raise StoreError(f"{location}: no such store")
            try:
                return sqlite3.connect(Path(location).resolve().as_uri() + "?mode=ro", uri=True)
            except sqlite3.OperationalError as error:  # no such file, or one that cannot be read
                raise StoreError(f"{location}: cannot open the store ({_first_line(error)})") from None
        if str(location) != ":memory:":
            Path(location).parent.mkdir(parents=True, exist_ok=True)
        # A job saves from its writer thread, one save at a time.
        return sqlite3.connect(str(location), check_same_thread=False)

    def tables(self, connection: Connection) -> set[str]:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return {name for (name,) in rows}

    def sql(self, statement: str) -> str:
        return statement

    @contextmanager
    def transaction(self, connection: Connection) -> Iterator[_Sql]:
        assert isinstance(connection, sqlite3.Connection)
        with connection:
            yield _Sql(connection, self)

    @contextmanager
    def group(self, connection: Connection) -> Iterator[None]:
        """One transaction around several (each a ``savepoint``): one commit, so one set of fsyncs, for all."""
        assert isinstance(connection, sqlite3.Connection)
        connection.commit()  # anything sqlite3 began implicitly
        connection.execute("BEGIN")  # explicit: a SAVEPOINT outside a transaction would commit on RELEASE
        try:
            yield
        except BaseException:
            connection.rollback()
            raise
        connection.commit()

    @contextmanager
    def savepoint(self, connection: Connection) -> Iterator[_Sql]:
        """A transaction within ``group``: undone alone when it fails, committed with the group."""
        connection.execute("SAVEPOINT one_record")
        try:
            yield _Sql(connection, self)
        except BaseException:
            connection.execute("ROLLBACK TO one_record")
            connection.execute("RELEASE one_record")
            raise
        connection.execute("RELEASE one_record")

    def create_schema(self, connection: Connection) -> None:
        try:
            problems = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise StoreError(f"damaged ({' '.join(problems[0].split())}): not written into")
            with self.transaction(connection) as db:
                writable_check(db, self.tables(connection), foreign_check=True)
                _create_schema(db)
        except sqlite3.DatabaseError as error:  # random bytes, a cut file, a damaged page
            raise StoreError(f"not a readable pubharvest store ({_first_line(error)}): not written into") from None


def _create_schema(db: _Sql) -> None:
    """The tables, and an older store's rows carried into the history tables (once, in this transaction)."""
    for statement in SCHEMA:
        db.execute(statement)
    row = db.execute("SELECT value FROM store_meta WHERE name = 'schema'").fetchone()
    version = 0 if row is None else schema_number(row[0])
    if version < 2:
        for statement in _MIGRATIONS_TO_2:
            db.execute(statement)
    if version < 3:
        _add_run_standing(db)
    if version < 4:
        _add_capture_times(db)
    if version < SCHEMA_VERSION:
        db.execute("INSERT INTO store_meta (name, value) VALUES ('schema', ?) "
                   "ON CONFLICT (name) DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))


def _add_run_standing(db: _Sql) -> None:
    """Schema 3: ``partial`` and ``trusted`` on every stored run, read from the warnings its record kept."""
    columns = {column[0] for column in db.execute("SELECT * FROM profile_runs WHERE false").description or ()}
    for name, kind in _RUN_COLUMNS.items():
        if name not in columns:
            db.execute(f"ALTER TABLE profile_runs ADD COLUMN {name} {kind}")
    rows = db.execute("SELECT site, profile_id, run_id, record FROM profile_runs").fetchall()
    db.executemany("UPDATE profile_runs SET partial = ?, trusted = ? WHERE site = ? AND profile_id = ? AND run_id = ?",
                   [(*run_standing(_stored_warnings(record)), site, profile_id, run)
                    for site, profile_id, run, record in rows])


def _add_capture_times(db: _Sql) -> None:
    """Schema 4: a run's capture time (an older store's runs: when they were saved) and publication versions."""
    for table, columns in _RUN_COLUMNS_4.items():
        present = {column[0] for column in db.execute(f"SELECT * FROM {table} WHERE false").description or ()}
        for name, kind in columns.items():
            if name not in present:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
    db.execute("UPDATE profile_runs SET taken_at = saved_at, time_source = 'saved' WHERE taken_at IS NULL")


def _stored_warnings(record: str) -> list[PageWarning]:
    try:
        return decoded(record, PageResult).warnings
    except (msgspec.ValidationError, msgspec.DecodeError):  # unreadable: the column defaults stand
        return []


def run_standing(warnings: Sequence[PageWarning]) -> tuple[int, int]:
    """``(partial, trusted)`` of a run's record: whether its paging stopped, and whether it is
    neither ``shrunk`` nor marked by an untrusted warning (drifted markup).

    >>> run_standing([PageWarning(code="partial", message="")]), run_standing([PageWarning(code="shrunk", message="")])
    ((1, 1), (0, 0))
    """
    codes = {w.code for w in warnings}
    trusted = Warn.shrunk.name not in codes and not any(untrusted(code) for code in codes)
    return int(Warn.partial.name in codes), int(trusted)


def schema_number(value: object) -> int:
    """A stored schema version as a number (versions are compared as numbers: 10 is newer than 2).

    >>> schema_number("10") > schema_number("2")
    True
    """
    try:
        return int(str(value).strip())
    except ValueError:
        raise StoreError(f"its schema version {value!r} is not a number: a damaged or foreign store") from None


def writable_check(db: _Sql, tables: set[str], foreign_check: bool) -> None:
    """Raise ``StoreError`` unless a job may write into the store: written by a newer pubharvest (a
    schema version above ours), or (SQLite) a database whose tables are not pubharvest's."""
    if foreign_check and tables and not STORE_TABLES <= tables:
        raise StoreError(f"not a pubharvest store (it holds other tables: {', '.join(sorted(tables)[:5])}): "
                         "not written into; give the job a store file of its own")
    if "store_meta" in tables:
        version = db.execute("SELECT value FROM store_meta WHERE name = 'schema'").fetchone()
        if version is not None and schema_number(version[0]) > SCHEMA_VERSION:
            raise StoreError(f"written by a newer pubharvest (schema {version[0]}; this version writes schema "
                             f"{SCHEMA_VERSION}): not written into; upgrade pubharvest to use it")


class _Postgres(_Dialect):
    """PostgreSQL through psycopg 3 (the ``scrapy`` extra): ``%s`` placeholders, explicit transactions."""

    name = "postgresql"

    def connect(self, location: str | Path, readonly: bool = False) -> Connection:
        try:
            import psycopg
        except ImportError:
            raise StoreError("a PostgreSQL store needs psycopg: pip install 'pubharvest[scrapy]'") from None
        try:
            connection = psycopg.connect(str(location), autocommit=True, connect_timeout=10)
            if readonly:
                connection.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            return connection
        except psycopg.Error as error:
            where = without_password(str(location))
            raise StoreError(f"cannot open the store at {where}: {_first_line(error)}") from None

    def tables(self, connection: Connection) -> set[str]:
        rows = connection.execute("SELECT table_name FROM information_schema.tables "
                                  "WHERE table_schema = current_schema()").fetchall()
        return {name for (name,) in rows}

    def sql(self, statement: str) -> str:
        return statement.replace("?", "%s")  # no statement here holds a literal "?" or "%"

    @contextmanager
    def group(self, connection: Connection) -> Iterator[None]:
        import psycopg

        assert isinstance(connection, psycopg.Connection)
        try:
            with connection.transaction():
                yield
        except psycopg.Error as error:  # beginning or committing the group: the database went away
            raise StoreError(f"the store ({connection.info.dsn}) failed: {_first_line(error)}") from error

    @contextmanager
    def savepoint(self, connection: Connection) -> Iterator[_Sql]:
        with self.transaction(connection) as db:  # psycopg makes a transaction within one a savepoint
            yield db

    @contextmanager
    def transaction(self, connection: Connection) -> Iterator[_Sql]:
        import psycopg

        assert isinstance(connection, psycopg.Connection)
        try:
            with connection.transaction():
                yield _Sql(connection, self)
        except psycopg.DataError as error:  # this record's values (a NUL in text, a number out of range), rolled back
            raise OutOfRange(f"the store cannot hold a value of this record: {_first_line(error)}") from error
        except psycopg.Error as error:
            raise StoreError(f"the store ({connection.info.dsn}) failed: {_first_line(error)}") from error

    def create_schema(self, connection: Connection) -> None:
        with self.transaction(connection) as db:
            # workers starting together would race on CREATE TABLE IF NOT EXISTS (a unique violation
            # in pg_type); one advisory lock for the length of this transaction serialises them
            db.execute("SELECT pg_advisory_xact_lock(7303652)")
            writable_check(db, self.tables(connection), foreign_check=False)
            _create_schema(db)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def without_password(url: str) -> str:
    """``url`` with its password masked, for messages.

    >>> without_password("postgresql://harvest:secret@db/pubharvest"), without_password("redis://:pw@q:6379/0")
    ('postgresql://harvest:***@db/pubharvest', 'redis://:***@q:6379/0')
    """
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


class _Sql:
    """A connection that speaks the SQL written here (``?`` placeholders) in its dialect."""

    def __init__(self, connection: Connection, dialect: _Dialect) -> None:
        self.connection, self.dialect = connection, dialect

    def execute(self, statement: str, parameters: Parameters = ()) -> Cursor:
        return self.connection.execute(self.dialect.sql(statement), parameters)

    def executemany(self, statement: str, rows: list[Parameters]) -> None:
        """``statement`` once per row, in order, in one call (sqlite3 and psycopg both batch it)."""
        if rows:
            self.connection.cursor().executemany(self.dialect.sql(statement), rows)


class Store:
    """A store in SQLite (a path) or PostgreSQL (a ``postgresql://`` URL); ``save`` is one transaction
    per profile, so a crash leaves none half-saved. ``readonly=True`` (``store export``) opens an
    existing store without writing anything into it, and refuses a file that is not one."""

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        if "://" in str(path) and not is_database_url(path):
            raise StoreError(f"{path}: a store is an SQLite file or a postgresql:// URL")
        self.dialect = _Postgres() if is_database_url(path) else _Dialect()
        self.connection = self.dialect.connect(path, readonly)
        self._grouped = False
        try:
            if readonly:
                self.tables = self._checked_tables(path)
            else:
                self.dialect.create_schema(self.connection)
                self.tables = self.dialect.tables(self.connection)
        except StoreError as error:
            self.connection.close()
            where = without_password(str(path))
            if error.message.startswith(("cannot open", "the store (", where)):
                raise
            raise StoreError(f"{where}: {error.message}") from None
        except BaseException:
            self.connection.close()
            raise

    def _checked_tables(self, path: str | Path) -> set[str]:
        where = without_password(str(path))
        try:
            tables = self.dialect.tables(self.connection)
        except sqlite3.Error as error:  # random bytes, a damaged header
            raise StoreError(f"{where}: not a readable pubharvest store ({_first_line(error)})") from None
        if not STORE_TABLES <= tables:
            raise StoreError(f"{where}: not a pubharvest store (no {', '.join(sorted(STORE_TABLES - tables))} table)")
        return tables

    def close(self) -> None:
        self.connection.close()

    @contextmanager
    def group(self) -> Iterator[None]:
        """Saves within it share one transaction, each its own savepoint (a failed save is undone alone):
        a job's writer saves the targets that end together with one commit, before its journal says
        any of them is done."""
        with self.dialect.group(self.connection):
            self._grouped = True
            try:
                yield
            finally:
                self._grouped = False

    def _transaction(self) -> AbstractContextManager[_Sql]:
        return (self.dialect.savepoint if self._grouped else self.dialect.transaction)(self.connection)

    @property
    def time_column(self) -> str:
        """The ``profile_runs`` column that orders a profile's history: ``taken_at`` (schema 4), or in an
        older store opened read-only, ``saved_at``."""
        return "taken_at" if "publication_versions" in self.tables else "saved_at"

    def save(self, run: str, fallback_id: str, result: PageResult, taken_at: str | None = None,
             time_source: str | None = None) -> PageWarning | None:
        """Keep a profile's record for ``run``: its listing in the history, its publications upserted
        with their citations snapshotted; it becomes the exported record unless a complete one is
        stored and it is not, or it is shrunk or untrusted and a trusted one is stored. Returns the
        ``shrunk`` warning when the record has one.

        ``taken_at`` is when the page was captured (ISO UTC), which orders the profile's history, and
        ``time_source`` what said so; by default the record's own fetch time (``fetched``), else now (``saved``).
        """
        now = datetime.now(timezone.utc).isoformat(timespec="microseconds")
        fetched = result.source.fetched_at if result.source else None
        time_source = time_source or ("given" if taken_at else "fetched" if fetched else "saved")
        taken_at = utc_text(taken_at or fetched or now)
        result = within_int64(result)
        site, profile_id = result.site, profile_key(result, fallback_id)
        name = result.profile.name if result.profile else None
        keyed = _in_key_order(site, result.publications)
        texts = [stored_texts(pub) for _, _, pub in keyed]  # (record, version) of each, from one encoding
        versions = [(version_digest(version), site, pub_id, version)
                    for (_, pub_id, _), (_, version) in zip(keyed, texts, strict=True)]
        with self._transaction() as db:
            partial = run_standing(result.warnings)[0]
            previous = db.execute(_PREVIOUS_RUN, (site, profile_id, run, partial, taken_at)).fetchone()
            shrunk = shrink_warning(result, previous)
            warnings = result.warnings + ([shrunk] if shrunk else [])
            profile = to_json(msgspec.structs.replace(result, publications=[], warnings=warnings)).decode()
            complete = not any(w.code in INCOMPLETE or untrusted(w.code) for w in warnings)
            db.execute(_UPSERT_RUN, (site, profile_id, run, profile, len(result.publications), int(complete), now,
                                     *run_standing(warnings), taken_at, time_source))
            db.execute("DELETE FROM run_publications WHERE site = ? AND profile_id = ? AND run_id = ?",
                       (site, profile_id, run))  # this run's own listing, when a crash made it redo the target
            db.execute("DELETE FROM run_failures WHERE site = ? AND profile_id = ? AND run_id = ?",
                       (site, profile_id, run))  # a rerun that got the record after all
            # a statement per table for all rows (three round trips per publication were a fifth of a job's time)
            trusted = not any(untrusted(w.code) for w in warnings)  # drifted rows never replace a good record
            db.executemany(_UPSERT_PUBLICATION if trusted else _INSERT_PUBLICATION,
                           [(site, pub_id, pub.title, pub.year, pub.citations, record, run, now)
                            for (_, pub_id, pub), (record, _) in zip(keyed, texts, strict=True)])
            db.executemany("INSERT INTO publication_versions (digest, site, publication_id, record) "
                           "VALUES (?, ?, ?, ?) ON CONFLICT (digest) DO NOTHING", list(dict.fromkeys(versions)))
            db.executemany("INSERT INTO run_publications (site, profile_id, run_id, publication_id, position, "
                           "version) VALUES (?, ?, ?, ?, ?, ?) "
                           "ON CONFLICT (site, profile_id, run_id, publication_id) DO NOTHING",
                           [(site, profile_id, run, pub_id, position, version[0])
                            for (position, pub_id, _), version in zip(keyed, versions, strict=True)])
            db.executemany(_UPSERT_SNAPSHOT, [(run, site, pub_id, pub.citations, taken_at) for _, pub_id, pub in keyed])
            if db.execute(_EXPORTED_RUN, (site, profile_id)).fetchone() == (run,):
                db.execute(_UPSERT_PROFILE, (site, profile_id, name, result.url, profile, run, run, now))
                db.execute("DELETE FROM profile_publications WHERE site = ? AND profile_id = ?", (site, profile_id))
                db.execute("INSERT INTO profile_publications (site, profile_id, publication_id, position) "
                           "SELECT site, profile_id, publication_id, position FROM run_publications "
                           "WHERE site = ? AND profile_id = ? AND run_id = ? "
                           "ON CONFLICT (site, profile_id, publication_id) DO NOTHING", (site, profile_id, run))
        return shrunk

    def save_failure(self, run: str, site: str, profile_id: str, status: str, code: str, message: str,
                     taken_at: str | None = None) -> None:
        """Keep that ``run`` tried a profile and got no record of it (blocked, refused, failed): it is
        named in the history (``pubharvest changes``), never taken as a profile that lost its papers."""
        taken_at = utc_text(taken_at or datetime.now(timezone.utc).isoformat())
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM profile_runs WHERE site = ? AND profile_id = ? AND run_id = ?",
                          (site, profile_id, run)).fetchone() is None:
                db.execute("INSERT INTO run_failures (site, profile_id, run_id, taken_at, status, code, message) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (site, profile_id, run_id) DO UPDATE SET "
                           "taken_at = excluded.taken_at, status = excluded.status, code = excluded.code, "
                           "message = excluded.message", (site, profile_id, run, taken_at, status, code, message))

    def holds(self, site: str, profile_id: str, run: str, pages: Sequence[str]) -> bool:
        """Whether the store holds this capture already: every page hash in ``pages`` was added before, or
        ``run`` (a job's, read back from its archive) has a record of the profile."""
        db = _Sql(self.connection, self.dialect)
        if db.execute("SELECT 1 FROM profile_runs WHERE site = ? AND profile_id = ? AND run_id = ?",
                      (site, profile_id, run)).fetchone() is not None:
            return True
        if not pages:  # nothing to look up (and ``IN ()`` is no SQL PostgreSQL takes)
            return False
        known = {sha for (sha,) in db.execute(
            f"SELECT sha256 FROM added_pages WHERE sha256 IN ({', '.join('?' * len(pages))})", list(pages)).fetchall()}
        return known >= set(pages)

    def keep_pages(self, pages: Sequence[str], run: str, site: str, profile_id: str) -> None:
        """Note the hashes of the pages ``store add`` took in for ``run``."""
        now = datetime.now(timezone.utc).isoformat(timespec="microseconds")
        with self._transaction() as db:
            db.executemany("INSERT INTO added_pages (sha256, run_id, site, profile_id, added_at) "
                           "VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING",
                           [(sha, run, site, profile_id, now) for sha in pages])

    def profiles(self) -> Iterator[PageResult]:
        """Every stored profile's exported record as a ``PageResult``, with its publications in page order.

        Fields a newer version added to a stored record are left out; a record that cannot be read
        even so raises ``StoreError`` naming it.
        """
        return (result for _, result in self.keyed_profiles())

    def keyed_profiles(self) -> Iterator[tuple[tuple[str, str], PageResult]]:
        """``profiles()`` with each one's ``(site, profile id)``, in that order."""
        db = _Sql(self.connection, self.dialect)
        rows = db.execute("SELECT site, profile_id, record FROM profiles ORDER BY site, profile_id")
        for site, profile_id, record in rows.fetchall():
            pubs = db.execute(
                "SELECT p.record FROM profile_publications l JOIN publications p "
                "ON p.site = l.site AND p.publication_id = l.publication_id "
                "WHERE l.site = ? AND l.profile_id = ? ORDER BY l.position", (site, profile_id))
            try:
                result = decoded(record, PageResult)
                result.publications = [decoded(r, Publication) for (r,) in pubs.fetchall()]
            except (msgspec.ValidationError, msgspec.DecodeError) as error:
                raise StoreError(f"the stored record of {site}:{profile_id} cannot be read: {error}") from None
            yield (site, profile_id), result

    def citation_history(self) -> list[dict[str, Any]]:
        """One row per publication per run and profile listing it in that run: ``{site, publication_id,
        run_id, taken_at, citations, title, profile_id, profile_name}`` (the profile as the run listed it;
        an older store without run listings: the profile listing it now)."""
        if "run_publications" in self.tables:
            # two runs captured in one second (a job's fetch times are whole seconds): in the order saved
            listed = "run_publications l ON l.run_id = s.run_id AND "
            saved = ("LEFT JOIN profile_runs r ON r.site = l.site AND r.profile_id = l.profile_id "
                     "AND r.run_id = l.run_id ", "r.saved_at")
        else:  # a schema 1 store opened read-only
            listed, saved = "profile_publications l ON ", ("", "s.run_id")
        rows = _Sql(self.connection, self.dialect).execute(
            "SELECT s.site, s.publication_id, s.run_id, s.taken_at, s.citations, u.title, l.profile_id, p.name "
            "FROM citation_snapshots s "
            "LEFT JOIN publications u ON u.site = s.site AND u.publication_id = s.publication_id "
            f"LEFT JOIN {listed}l.site = s.site AND l.publication_id = s.publication_id "
            "LEFT JOIN profiles p ON p.site = l.site AND p.profile_id = l.profile_id "
            f"{saved[0]}ORDER BY s.site, s.publication_id, s.taken_at, {saved[1]}, s.run_id, l.profile_id")
        return [dict(zip(HISTORY_KEYS, row, strict=True)) for row in rows.fetchall()]

    def listings(self, site: str, profile_id: str) -> list[tuple[str, bool, list[str]]]:
        """A profile's history: ``(run id, complete, publication ids in page order)`` per run, oldest first."""
        if "profile_runs" not in self.tables:  # a schema 1 store opened read-only: its one listing
            return []
        db = _Sql(self.connection, self.dialect)
        runs = db.execute("SELECT run_id, complete FROM profile_runs WHERE site = ? AND profile_id = ? "
                          "ORDER BY taken_at, saved_at, run_id", (site, profile_id)).fetchall()
        return [(run, bool(complete), [pub for (pub,) in db.execute(
            "SELECT publication_id FROM run_publications WHERE site = ? AND profile_id = ? AND run_id = ? "
            "ORDER BY position", (site, profile_id, run)).fetchall()]) for run, complete in runs]


def shrink_warning(result: PageResult, previous: tuple[str, int] | None) -> PageWarning | None:
    """A ``shrunk`` warning when ``result`` lists fewer than half the publications of the
    ``previous`` run ``(run id, count)`` it is compared with (for a partial record, the previous
    partial run) and the page does not account for it: no stated total (``metrics.works``) equal
    to what it lists.

    >>> shrink_warning(PageResult(site="scholar", page="profile"), ("r1", 12)).message
    'lists 0 publications where run r1 listed 12: kept, but not exported while that record stands'
    >>> shrink_warning(PageResult(site="scholar", page="profile", publications=[Publication()]), ("r1", 2)) is None
    True
    """
    if previous is None:
        return None
    run, before = previous
    count = len(result.publications)
    works = result.profile.metrics.works if result.profile else None
    if count * 2 >= before or works == count:
        return None
    return PageWarning(code=Warn.shrunk.name, message=f"lists {count} publications where run {run} listed {before}: "
                                              "kept, but not exported while that record stands")


_LONG_NUMBER = re.compile(rb"[:,\[]-?\d{19,}[,\]}]")  # a JSON number of more digits than any of 64 bits
_DIGITS_AS_NINES = bytes(57 if 48 <= byte <= 57 else 32 for byte in range(256))  # every digit a 9, the rest blank
_LONG_RUN = b"9" * 19


def has_long_number(data: bytes) -> bool:
    """Whether JSON ``data`` holds a number of more digits than any of 64 bits; digits in a text (an id, a
    URL: Scholar's cluster ids have 19 or 20) are no JSON number. Runs of 19 digits are found in one pass in
    C, and the pattern is tried only around each (on a 100-row record, a tenth of the pattern's time).

    >>> has_long_number(b'{"n":12345678901234567890}'), has_long_number(b'{"u":"x?cites=12345678901234567890"}')
    (True, False)
    >>> has_long_number(b'{"u":"x?cites=12345678901234567890","n":[1,-12345678901234567890]}')
    True
    """
    runs = data.translate(_DIGITS_AS_NINES)
    at = runs.find(_LONG_RUN)  # the start of a run: a 9 before it would have been found first
    while at >= 0:
        end = runs.find(b" ", at)
        end = len(runs) if end < 0 else end
        if _LONG_NUMBER.search(data, max(0, at - 2), end + 1):
            return True
        at = runs.find(_LONG_RUN, end)
    return False


def within_int64(result: PageResult) -> PageResult:
    """``result`` with every number outside 64 bits (what a database column holds) as null, with a
    ``value_out_of_range`` warning naming each; ``result`` itself when it has none (the usual case).

    >>> r = within_int64(PageResult(site="scholar", page="profile", publications=[Publication(citations=2**64)]))
    >>> r.publications[0].citations, r.warnings[0].code
    (None, 'value_out_of_range')
    >>> digits = PageResult(site="scholar", page="profile", publications=[Publication(title="9" * 25, citations=2)])
    >>> within_int64(digits) is digits
    True
    """
    if not has_long_number(to_json(result)):
        return result
    found: list[str] = []
    data = _nulled(msgspec.to_builtins(result), "", found)
    record = msgspec.convert(data, PageResult)
    record.warnings += [PageWarning(code=Warn.value_out_of_range.name,
                                    message=f"{where} is outside what a store holds (64 bits): stored as null")
                        for where in found]
    return record


def _nulled(value: Any, where: str, found: list[str]) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value not in INT64:
        found.append(where.lstrip("."))
        return None
    if isinstance(value, dict):
        return {key: _nulled(item, f"{where}.{key}", found) for key, item in value.items()}
    if isinstance(value, list):
        return [_nulled(item, f"{where}[{index}]", found) for index, item in enumerate(value)]
    return value


def decoded(data: str | bytes, kind: type[_Struct]) -> _Struct:
    """A stored record as ``kind``, leaving out fields this version does not know (a newer version's).

    >>> decoded('{"title": "T", "added_later": 1}', Publication).title
    'T'
    """
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.ValidationError:
        return msgspec.convert(known_fields(msgspec.json.decode(data), msgspec.inspect.type_info(kind)), kind)


def known_fields(value: Any, info: msgspec.inspect.Type) -> Any:
    """``value`` (decoded JSON) without the struct fields that ``info`` does not name, at every depth."""
    inspect = msgspec.inspect
    if isinstance(info, inspect.UnionType):
        shapes = [t for t in info.types if isinstance(t, (inspect.StructType, inspect.ListType, inspect.DictType))]
        return known_fields(value, shapes[0]) if len(shapes) == 1 else value
    if isinstance(info, inspect.StructType) and isinstance(value, dict):
        fields = {f.encode_name: f.type for f in info.fields}
        return {key: known_fields(item, fields[key]) for key, item in value.items() if key in fields}
    if isinstance(info, inspect.ListType) and isinstance(value, list):
        return [known_fields(item, info.item_type) for item in value]
    if isinstance(info, inspect.DictType) and isinstance(value, dict):
        return {key: known_fields(item, info.value_type) for key, item in value.items()}
    return value


def utc_text(value: str) -> str:
    """An ISO time as the store writes every capture time (UTC, microseconds), so that times compare as text;
    a time without a zone is taken as UTC.

    >>> utc_text("2024-03-05T10:12:33Z"), utc_text("2024-03-05T11:12:33+01:00") == utc_text("2024-03-05T10:12:33")
    ('2024-03-05T10:12:33.000000+00:00', True)
    """
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def version_record(pub: Publication) -> str:
    """What a run said of a publication besides its count (which ``citation_snapshots`` holds), as stored JSON."""
    return to_json(msgspec.structs.replace(pub, citations=None)).decode()


def version_digest(record: str) -> str:
    """The key of a stored publication version: the hash of its JSON.

    >>> version_digest('{"title":"T"}') == version_digest('{"title":"T"}') != version_digest('{"title":"U"}')
    True
    """
    return hashlib.sha256(record.encode()).hexdigest()[:32]


def stored_texts(pub: Publication) -> tuple[str, str]:
    """A publication's stored JSON and its version's (``version_record``: the same without its count), from
    one encoding: the count is the first ``"citations"`` member (no field before it, nor ``Author`` or
    ``Ids`` within them, has one), so the version is the record with that member's value made null.

    >>> from pubharvest.parsers.records import YearCitations
    >>> pub = Publication(title='"citations":7,', citations=7,
    ...                   citations_by_year=[YearCitations(year=2020, citations=7)])
    >>> stored_texts(pub)[1] == version_record(pub) and stored_texts(pub)[0] == to_json(pub).decode()
    True
    """
    record = to_json(pub)
    if pub.citations is None:
        text = record.decode()
        return text, text
    member = b',"citations":%d,' % pub.citations
    at = record.find(member)
    if at < 0:  # not as expected (a field order changed): encode the version apart
        return record.decode(), version_record(pub)
    return record.decode(), (record[:at] + b',"citations":null,' + record[at + len(member):]).decode()


def _in_key_order(site: str, publications: list[Publication]) -> list[tuple[int, str, Publication]]:
    """``(position, key, publication)`` sorted by key (a repeated key keeps its first position first),
    each key worked out once.

    Two workers saving profiles that share publications then lock those rows in one order, so
    PostgreSQL never sees them deadlock.
    """
    keyed = [(position, publication_key(site, pub), pub) for position, pub in enumerate(publications)]
    keyed.sort(key=itemgetter(1))  # stable: a repeated key keeps its positions in order
    return keyed


def profile_key(result: PageResult, fallback: str) -> str:
    """The profile's id on its site, else ``fallback`` (the job's target id or URL)."""
    own = id_value(result.profile.ids, result.site) if result.profile else None
    return own or fallback


def publication_key(site: str, pub: Publication) -> str:
    """A publication's id on ``site``: the site's own, else a DOI/arXiv/URL, else a hash of title and year."""
    ids = pub.ids
    own = id_value(ids, site)
    if own:
        return own
    for prefix, value in (("doi:", ids.doi), ("arxiv:", ids.arxiv), ("url:", pub.url)):
        if value:
            return prefix + value
    return "title:" + hashlib.sha256(f"{pub.title}|{pub.year}".encode()).hexdigest()[:16]
