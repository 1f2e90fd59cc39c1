"""The answers of Crossref and OpenAlex kept in the store, so that a second run asks nothing it knows.

One table, ``enrich_answers``, in the store's own database (the SQLite file or PostgreSQL server a
``Store`` opens), keyed by service and by what was asked (the path and query, without the contact):
an answer (200, its JSON body) or a "no such work" (404, no body). Failures (a timeout, a 5xx,
an answer that is no JSON, one too large) are not kept: a later run asks again.

>>> cache = AnswerCache.in_memory()
>>> cache.get("crossref", "/works/10.1/x") is None
True
>>> cache.put("crossref", "/works/10.1/x", 404, None, "2026-12-04T10:00:00+00:00"); cache.flush()
>>> cache.get("crossref", "/works/10.1/x")
Cached(status=404, body=None, fetched_at='2026-12-04T10:00:00+00:00')
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["AnswerCache", "Cached", "CREATE"]

CREATE = ("CREATE TABLE IF NOT EXISTS enrich_answers (service TEXT NOT NULL, key TEXT NOT NULL, "
          "status INTEGER NOT NULL, body TEXT, fetched_at TEXT NOT NULL, PRIMARY KEY (service, key))")
_FLUSH_EVERY = 200  # answers kept in memory before they are written (and committed) together


class Cached(NamedTuple):
    status: int
    body: bytes | None
    fetched_at: str


class AnswerCache:
    """Answers by ``(service, key)``, read from and written to ``connection`` (sqlite3 or psycopg);
    ``placeholder`` is the driver's parameter mark (``?`` for sqlite3, ``%s`` for psycopg)."""

    def __init__(self, connection: Any, placeholder: str = "?", owned: Any = None) -> None:
        self.connection, self.mark = connection, placeholder
        self.owned = owned  # what to close with the cache (a Store it opened), if anything
        self.pending: list[tuple[str, str, int, str | None, str]] = []
        self.known: dict[tuple[str, str], Cached] = {}
        with self._transaction():
            self.connection.execute(CREATE)

    @classmethod
    def in_memory(cls) -> AnswerCache:
        return cls(sqlite3.connect(":memory:"))

    @classmethod
    def of_store(cls, location: str | Path) -> AnswerCache:
        """The cache in the store at ``location`` (an SQLite file, or a ``postgresql://`` URL), opened as
        a ``Store`` opens it, its schema made when new."""
        from pubharvest.store import Store, is_database_url

        store = Store(location)
        return cls(store.connection, "%s" if is_database_url(location) else "?", owned=store)

    def get(self, service: str, key: str) -> Cached | None:
        if (service, key) in self.known:
            return self.known[(service, key)]
        row = self.connection.execute(
            f"SELECT status, body, fetched_at FROM enrich_answers WHERE service = {self.mark} AND key = {self.mark}",
            (service, key)).fetchone()
        if row is None:
            return None
        status, body, fetched_at = row
        return Cached(int(status), None if body is None else body.encode("utf-8"), fetched_at)

    def put(self, service: str, key: str, status: int, body: bytes | None, fetched_at: str) -> None:
        """Keep an answer: ``body`` is JSON (UTF-8), or None for a 404."""
        text = None if body is None else body.decode("utf-8")
        self.known[(service, key)] = Cached(status, body, fetched_at)
        self.pending.append((service, key, status, text, fetched_at))
        if len(self.pending) >= _FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        marks = ", ".join([self.mark] * 5)
        with self._transaction():
            for row in self.pending:
                self.connection.execute(
                    f"INSERT INTO enrich_answers (service, key, status, body, fetched_at) VALUES ({marks}) "
                    "ON CONFLICT (service, key) DO UPDATE SET status = excluded.status, body = excluded.body, "
                    "fetched_at = excluded.fetched_at", row)
        self.pending.clear()
        self.known.clear()

    def close(self) -> None:
        self.flush()
        if self.owned is not None:
            self.owned.close()

    def _transaction(self) -> Any:
        """sqlite3's ``with connection`` commits; psycopg's autocommit connection has ``transaction()``."""
        return self.connection if isinstance(self.connection, sqlite3.Connection) else self.connection.transaction()
