"""The store: profiles, publications, and a citation snapshot per publication per run, in SQLite
or, for many workers writing into one database, in PostgreSQL (``Store("postgresql://...")``).

Rows are upserted by ``(site, id)``, so a weekly job keeps one row per profile and publication
while ``citation_snapshots`` grows by one row per publication per run: how citations grew.
The SQL is kept portable (``INSERT ... ON CONFLICT ... DO UPDATE``, no SQLite-only types); the
two databases differ only in what ``_Dialect`` covers: connecting, placeholders, transactions.

>>> store = Store(":memory:")
>>> from pubharvest.parsers.records import PageResult, Profile, Publication, PublicationIds
>>> page = PageResult(site="scholar", page="profile", profile=Profile(name="A"), publications=[
...     Publication(title="T", citations=3, ids=PublicationIds(scholar="U:P"))])
>>> store.save("run1", "U", page)
>>> [r.publications[0].citations for r in store.profiles()], store.citation_history()[0]["citations"]
([3], 3)
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import msgspec

from pubharvest.parsers.records import PageResult, Publication, from_json, to_json
from pubharvest.scrapers.job import DEFAULT_STORE

from .errors import StoreError
from .identifiers import id_value

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
)

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
_UPSERT_SNAPSHOT = """INSERT INTO citation_snapshots (run_id, site, publication_id, citations, taken_at)
    VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (run_id, site, publication_id) DO UPDATE SET citations = excluded.citations,
        taken_at = excluded.taken_at"""



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

    def connect(self, location: str | Path):
        if str(location) != ":memory:":
            Path(location).parent.mkdir(parents=True, exist_ok=True)
        # A job saves from its writer thread, one save at a time.
        return sqlite3.connect(str(location), check_same_thread=False)

    def sql(self, statement: str) -> str:
        return statement

    @contextmanager
    def transaction(self, connection):
        with connection:
            yield _Sql(connection, self)

    def create_schema(self, connection) -> None:
        with self.transaction(connection) as db:
            for statement in SCHEMA:
                db.execute(statement)


class _Postgres(_Dialect):
    """PostgreSQL through psycopg 3 (the ``scrapy`` extra): ``%s`` placeholders, explicit transactions."""

    name = "postgresql"

    def connect(self, location: str | Path):
        try:
            import psycopg
        except ImportError:
            raise StoreError("a PostgreSQL store needs psycopg: pip install 'pubharvest[scrapy]'") from None
        try:
            return psycopg.connect(str(location), autocommit=True, connect_timeout=10)
        except psycopg.Error as error:
            where = without_password(str(location))
            raise StoreError(f"cannot open the store at {where}: {_first_line(error)}") from None

    def sql(self, statement: str) -> str:
        return statement.replace("?", "%s")  # no statement here holds a literal "?" or "%"

    @contextmanager
    def transaction(self, connection):
        import psycopg

        try:
            with connection.transaction():
                yield _Sql(connection, self)
        except psycopg.Error as error:
            raise StoreError(f"the store ({connection.info.dsn}) failed: {_first_line(error)}") from error

    def create_schema(self, connection) -> None:
        with self.transaction(connection) as db:
            # workers starting together would race on CREATE TABLE IF NOT EXISTS (a unique violation
            # in pg_type); one advisory lock for the length of this transaction serialises them
            db.execute("SELECT pg_advisory_xact_lock(7303652)")
            for statement in SCHEMA:
                db.execute(statement)


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

    def __init__(self, connection, dialect: _Dialect) -> None:
        self.connection, self.dialect = connection, dialect

    def execute(self, statement: str, parameters: tuple = ()):
        return self.connection.execute(self.dialect.sql(statement), parameters)


class Store:
    """A store in SQLite (a path) or PostgreSQL (a ``postgresql://`` URL); ``save`` is one transaction
    per profile, so a crash leaves none half-saved."""

    def __init__(self, path: str | Path = DEFAULT_STORE) -> None:
        if "://" in str(path) and not is_database_url(path):
            raise StoreError(f"{path}: a store is an SQLite file or a postgresql:// URL")
        self.dialect = _Postgres() if is_database_url(path) else _Dialect()
        self.connection = self.dialect.connect(path)
        self.dialect.create_schema(self.connection)

    def close(self) -> None:
        self.connection.close()

    def save(self, run: str, fallback_id: str, result: PageResult) -> None:
        """Upsert a profile's record and its publications, and snapshot their citations for ``run``."""
        now = datetime.now(timezone.utc).isoformat(timespec="microseconds")
        site, profile_id = result.site, profile_key(result, fallback_id)
        profile = msgspec.structs.replace(result, publications=[])
        name = result.profile.name if result.profile else None
        with self.dialect.transaction(self.connection) as db:
            db.execute(_UPSERT_PROFILE, (site, profile_id, name, result.url, to_json(profile).decode(), run, run, now))
            db.execute("DELETE FROM profile_publications WHERE site = ? AND profile_id = ?", (site, profile_id))
            for position, pub in _in_key_order(site, result.publications):
                pub_id = publication_key(site, pub)
                db.execute(_UPSERT_PUBLICATION, (site, pub_id, pub.title, pub.year, pub.citations,
                                                 to_json(pub).decode(), run, now))
                db.execute("INSERT INTO profile_publications (site, profile_id, publication_id, position) "
                           "VALUES (?, ?, ?, ?) ON CONFLICT (site, profile_id, publication_id) DO NOTHING",
                           (site, profile_id, pub_id, position))
                db.execute(_UPSERT_SNAPSHOT, (run, site, pub_id, pub.citations, now))

    def profiles(self) -> Iterator[PageResult]:
        """Every stored profile as a ``PageResult``, with its publications in page order."""
        db = _Sql(self.connection, self.dialect)
        rows = db.execute("SELECT site, profile_id, record FROM profiles ORDER BY site, profile_id")
        for site, profile_id, record in rows.fetchall():
            pubs = db.execute(
                "SELECT p.record FROM profile_publications l JOIN publications p "
                "ON p.site = l.site AND p.publication_id = l.publication_id "
                "WHERE l.site = ? AND l.profile_id = ? ORDER BY l.position", (site, profile_id))
            result = from_json(record)
            result.publications = [msgspec.json.decode(r, type=Publication) for (r,) in pubs.fetchall()]
            yield result

    def citation_history(self) -> list[dict[str, Any]]:
        """One row per publication per run: ``{site, publication_id, run_id, taken_at, citations}``."""
        rows = _Sql(self.connection, self.dialect).execute(
            "SELECT site, publication_id, run_id, taken_at, citations FROM citation_snapshots "
            "ORDER BY site, publication_id, taken_at, run_id")
        keys = ("site", "publication_id", "run_id", "taken_at", "citations")
        return [dict(zip(keys, row)) for row in rows.fetchall()]


def _in_key_order(site: str, publications: list[Publication]) -> list[tuple[int, Publication]]:
    """``(position, publication)`` sorted by key (stable: a repeated key keeps its first position first).

    Two workers saving profiles that share publications then lock those rows in one order, so
    PostgreSQL never sees them deadlock.
    """
    return sorted(enumerate(publications), key=lambda row: publication_key(site, row[1]))


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
