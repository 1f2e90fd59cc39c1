"""``pubharvest.frames(results)``: the records as named pandas DataFrames, and those as Parquet files.

>>> from pubharvest import frames, parse
>>> tables = frames(parse(open("fixtures/scholar/003_9ea93ed9343d2054.txt", "rb").read()))
>>> sorted(tables)
['citations_by_year', 'coauthors', 'profiles', 'publications']
>>> tables["publications"][["year", "citations"]].dtypes.astype(str).tolist()
['Int64', 'Int64']

The tables and their columns are those of ``pubharvest.tables``; pandas (and, for Parquet, pyarrow)
come with ``pip install 'pubharvest[pandas]'`` and are imported only here, when called.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import msgspec

from pubharvest.parsers.records import PageResult

from .errors import BadRecords, MissingDependency
from .merge import MergeResult
from .output import TEMP_MARK
from .recordfiles import record_of
from .tables import MERGED_TABLES, METRIC_TABLES, PAGE_TABLES, TABLES, Column, Result, columns_of

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from .metrics import MetricsResult  # imported where used: it costs other commands' start

__all__ = ["frames", "frame", "frame_of", "write_parquet", "results_of", "arrow_schema"]

_INSTALL = "pip install 'pubharvest[pandas]'"


def frames(results: Any) -> dict[str, pd.DataFrame]:
    """The tables of ``results``, by name: ``profiles``, ``publications``, ``citations_by_year`` and
    ``coauthors`` from page results, ``papers`` and ``paper_sources`` when a merge is among them, and
    ``metrics``, ``metric_gaps`` and ``metric_years`` when figures (``pubharvest.metrics.metrics``) are.

    ``results``: a ``PageResult``, a ``MergeResult`` or a ``MetricsResult``, an iterable of them (what ``parse`` gives,
    records decoded from JSON or JSON Lines, a WARC's, ``Store.profiles()``), ``(name, result)``
    pairs (what ``merge`` takes), their JSON as dicts, or a ``pubharvest.store.Store``. A page result
    given as its JSON is checked by the rule ``merge`` reads record files by (``recordfiles.record_of``):
    one that is not as the schema states is ``BadRecords`` naming the record and the field.
    """
    from .metrics import MetricsResult

    _pandas()  # before reading anything: the one-line install hint, not an error half-way
    items = results_of(results)
    names = PAGE_TABLES + (MERGED_TABLES if any(isinstance(item, MergeResult) for item in items) else ())
    names += METRIC_TABLES if any(isinstance(item, MetricsResult) for item in items) else ()
    return {name: frame(name, items) for name in names}


def frame(name: str, results: list[Result]) -> pd.DataFrame:
    """One table (a name in ``pubharvest.tables.TABLES``) of ``results``, with the dtypes its columns'
    kinds name: nullable ``Int64`` and ``boolean``, ``category``, ``string``; lists stay lists."""
    table = TABLES[name]
    return frame_of(table.columns, [row for result in results for row in table.rows(result)])


def frame_of(columns: list[Column], rows: list[Any]) -> pd.DataFrame:
    """The DataFrame of ``rows``, one column per ``columns``, with the dtypes their kinds name."""
    _pandas()
    import pandas as pd

    return pd.DataFrame({column.name: _series(column, [column.cell(row) for row in rows])
                         for column in columns}, index=pd.RangeIndex(len(rows)))


def _series(column: Column, values: list[Any]) -> pd.Series:
    import pandas as pd  # imported by frame_of already

    if column.kind == "category":
        known = column.categories() if column.categories else ()
        categories = [*known, *sorted({v for v in values if v is not None} - set(known))]
        return pd.Series(pd.Categorical(values, categories=categories))
    if column.kind in ("strings", "ints"):
        return pd.Series(values, dtype=object)
    dtypes = {"string": "string", "int": "Int64", "float": "Float64", "bool": "boolean"}
    return pd.Series(values, dtype=dtypes[column.kind])


def results_of(results: Any) -> list[Result]:
    """``results`` as a list of page results and merges (see ``frames`` for what it may be)."""
    from .metrics import MetricsResult
    from .store import Store

    if isinstance(results, (PageResult, MergeResult, MetricsResult, dict, Store)):
        results = [results]
    try:
        items = list(results)
    except TypeError:
        raise BadRecords(f"frames() takes page results or merges, not {type(results).__name__}") from None
    found: list[Result] = []
    for index, item in enumerate(items):
        if isinstance(item, tuple) and len(item) == 2:  # (input name, result), as merge takes them
            item = item[1]
        if isinstance(item, Store):
            found += item.profiles()
        elif isinstance(item, dict):
            found.append(_decoded(item, f"record {index + 1}"))
        elif isinstance(item, (PageResult, MergeResult, MetricsResult)):
            found.append(item)
        else:
            raise BadRecords(f"frames() takes page results or merges, not {type(item).__name__}")
    return found


def _decoded(item: dict[str, Any], where: str) -> Result:
    """A page result, merge or set of figures from its JSON (as ``json.loads`` gives it); ``where`` names
    it in an error."""
    from .metrics import MetricsResult

    kind: type[MergeResult] | type[MetricsResult]
    if {"profiles", "papers"} <= item.keys():
        kind = MergeResult
    elif {"by", "people"} <= item.keys():
        kind = MetricsResult
    else:
        return record_of(item, where)
    try:
        return msgspec.convert(item, type=kind)
    except msgspec.ValidationError as error:
        raise BadRecords(f"{where}: not a valid {kind.__name__}: {error}") from None


def _pandas() -> ModuleType:
    """pandas, imported; when it is not installed, ``MissingDependency`` with the one-line install hint."""
    try:
        import pandas
    except ImportError:
        raise MissingDependency(f"pubharvest.frames needs pandas: {_INSTALL}") from None
    return pandas


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise MissingDependency(f"Parquet needs pyarrow: {_INSTALL}") from None
    return pyarrow, pyarrow.parquet


def arrow_schema(name: str) -> pa.Schema:
    """The Parquet schema of one table (``tables.columns_of``): the same for every file, even an empty
    table's, so that DuckDB or polars read a folder of runs as one."""
    pa, _ = _pyarrow()
    types = {"string": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(),
             "category": pa.dictionary(pa.int32(), pa.string()), "strings": pa.list_(pa.string()),
             "ints": pa.list_(pa.int64())}
    return pa.schema([pa.field(column.name, types[column.kind]) for column in columns_of(name)])


def write_parquet(folder: str | os.PathLike[str], tables: Mapping[str, pd.DataFrame]) -> list[Path]:
    """Write each table as ``FOLDER/<name>.parquet`` (each file whole: written beside, then renamed);
    returns the paths written. The folder is made when missing."""
    pa, parquet = _pyarrow()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in tables.items():
        path = folder / f"{name}.parquet"
        tmp = folder / f".{path.name}{TEMP_MARK}{os.getpid()}"
        try:
            parquet.write_table(pa.Table.from_pandas(table, schema=arrow_schema(name), preserve_index=False), tmp)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        written.append(path)
    return written


def write_results_parquet(folder: str | os.PathLike[str], results: Iterable[Any]) -> list[Path]:
    """``write_parquet`` of ``frames(results)``."""
    return write_parquet(folder, frames(results))
