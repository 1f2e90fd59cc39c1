"""Record files read back as inputs (``merge``, ``report``): JSON or JSON Lines of page results,
checked against the record schema, its types and what it states beyond them (``minimum``,
``maximum``, ``pattern``: counts, years, dates, DOIs, ORCID iDs).

A file that claims to be records (its objects have ``site`` and ``page``) and is not valid is
refused whole with one line naming the record (or line) and the field; JSON nested deeper than a
reader follows is ``too_deep``. Lone UTF-16 surrogates (an escaped ``\\ud800``, which a browser's
``JSON.stringify`` writes for half a character and no UTF-8 text can hold) are read as U+FFFD with
a ``lone_surrogate`` warning. A BOM is dropped, UTF-16 and UTF-32 (with a BOM) read as UTF-8.

>>> [r.site for r in page_results(b'{"site": "msr", "page": "publication_list"}')]
['msr']
>>> page_results(b'[{"site": "msr", "page": "rows", "publications": [{"citations": -1}]}]')
Traceback (most recent call last):
pubharvest.errors.BadRecords: bad_records: record 1, publications[0].citations: -1 is below the schema's minimum, 0
>>> page_results(b'<html>') is None  # not records: a page
True
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from pubharvest.errors import BadRecords, TooDeep, Unrecognised
from pubharvest.parsers.records import PageResult
from pubharvest.parsers.warning_codes import Warn

__all__ = ["page_results", "as_utf8"]

# Longest first: the UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, ""),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# An escaped backslash (so that the ``u`` after it is no escape), a surrogate pair, or a lone surrogate.
_SURROGATE_ESCAPES = re.compile(rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                                rb"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_ESCAPE = 6  # the length of one escape: a pair is twice that, an escaped backslash 2
_CLAIMS_RECORDS = (re.compile(rb'"site"\s*:'), re.compile(rb'"page"\s*:'))
_CLAIM_SPAN = 1 << 16  # where a file that is not JSON must show ``site`` and ``page`` to be taken for records
_BYTE_AT = re.compile(r"\(byte (\d+)\)$")
_MAX_SHOWN = 60  # characters of a refused value quoted in its line
# A check of one value at a path: the one line of what is wrong with it, or None.
Check = Callable[[Any, str], "str | None"]


def page_results(data: bytes) -> list[PageResult] | None:
    """The page results in ``data`` when it is a file of records (a JSON array, one object, or JSON
    Lines), each checked against the schema; None when it is no record file (a page, to be parsed).

    Raises ``BadRecords`` naming the record and the field that is not valid, ``TooDeep`` for JSON
    nested deeper than records are, ``Unrecognised`` for the output of ``merge``.
    """
    text = as_utf8(data)
    if text.lstrip()[:1] not in (b"[", b"{"):
        return None
    text, repaired = _without_lone_surrogates(text)
    try:
        results, lines = _typed(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):  # say which record, or not records
        explained = _explained(text)
        if explained is None:
            return None
        results, lines = explained
    for index, result in enumerate(results):
        if why := _result_check()(result, ""):
            raise BadRecords(f"{_where(index, lines, text)}, {why.lstrip('.')}")
    if repaired:
        _warn_repaired(results)
    return results


def as_utf8(data: bytes) -> bytes:
    """``data`` without its BOM, and in UTF-8 when the BOM says UTF-16 or UTF-32 (PowerShell's ``>``
    writes UTF-16); ``data`` itself when it has no BOM or does not decode as its BOM says.

    >>> as_utf8(b"\\xef\\xbb\\xbf[]"), as_utf8("[1]".encode("utf-16"))
    (b'[]', b'[1]')
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            if not codec:
                return data[len(bom):]
            try:
                return data.decode(codec).encode("utf-8")
            except UnicodeError:  # cut, or half a character: the page reader names it
                return data
    return data


def _without_lone_surrogates(text: bytes) -> tuple[bytes, int]:
    """``text`` with each escaped lone surrogate as an escaped U+FFFD, and how many there were.

    >>> _without_lone_surrogates(rb'"Sp\\ud800ices \\ud83d\\ude00 \\\\ud800"')
    (b'"Sp\\\\ufffdices \\\\ud83d\\\\ude00 \\\\\\\\ud800"', 1)
    """
    count = 0

    def repaired(match: re.Match[bytes]) -> bytes:
        nonlocal count
        if len(match[0]) != _LONE_ESCAPE:
            return match[0]
        count += 1
        return rb"\ufffd"

    if rb"\u" not in text:
        return text, 0
    return _SURROGATE_ESCAPES.sub(repaired, text), count


@functools.cache
def _decoders() -> tuple[msgspec.json.Decoder[list[PageResult] | PageResult], msgspec.json.Decoder[PageResult]]:
    """Decoders of a JSON document of page results (an array or one) and of one page result a line."""
    return msgspec.json.Decoder(list[PageResult] | PageResult), msgspec.json.Decoder(PageResult)


def _typed(text: bytes) -> tuple[list[PageResult], bool]:
    """The page results in ``text`` decoded straight into records (no dicts in between: a third of
    the time and memory), and whether it is JSON Lines; msgspec's error when anything is wrong."""
    document, lines = _decoders()
    try:
        decoded = document.decode(text)
    except msgspec.DecodeError:
        return lines.decode_lines(text), True
    return (decoded if isinstance(decoded, list) else [decoded]), False


def _explained(text: bytes) -> tuple[list[PageResult], bool] | None:
    """The records of a file that ``_typed`` refused, read value by value to name what is wrong: None
    when it holds no records (a page), else ``BadRecords`` for the first record that is not valid."""
    found = _values(text)
    if found is None:
        return None
    values, lines = found
    if not any(_is_record(value) for value in values):
        if len(values) == 1 and isinstance(values[0], dict) and {"profiles", "papers"} <= values[0].keys():
            raise Unrecognised("the output of `pubharvest merge`: merge reads pages and page results")
        return None
    results: list[PageResult] = []
    for index, value in enumerate(values):
        try:
            results.append(msgspec.convert(value, PageResult))
        except msgspec.ValidationError as error:
            raise BadRecords(f"{_where(index, lines, text)}{_field_error(error)}") from None
    return results, lines


def _is_record(value: Any) -> bool:
    return isinstance(value, dict) and {"site", "page"} <= value.keys()


def _values(text: bytes) -> tuple[list[Any], bool] | None:
    """The JSON values of ``text`` (an array's items, the one value, or a value a line) and whether it is
    JSON Lines; None when it is not JSON and does not claim to be records."""
    try:
        document = _untyped(text, "the file")
    except msgspec.DecodeError as error:
        return _line_values(text, error)
    return (document if isinstance(document, list) else [document]), False


def _untyped(text: bytes, where: str) -> Any:
    try:
        return msgspec.json.decode(text)
    except RecursionError:
        raise TooDeep(f"{where}: JSON nested deeper than records go") from None


def _line_values(text: bytes, error: msgspec.DecodeError) -> tuple[list[Any], bool] | None:
    """The values of JSON Lines, ``BadRecords`` naming a line that is not JSON among lines of records;
    for one document that is not JSON, ``BadRecords`` when it claims to be records, else None."""
    numbered = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    values: list[Any] = []
    for number, line in numbered if len(numbered) > 1 else ():
        try:
            values.append(_untyped(line, f"line {number}"))
        except msgspec.DecodeError as line_error:
            if not values:  # the first line is no JSON: one document (pretty-printed) that is not JSON
                break
            if not any(map(_is_record, values)):
                return None
            raise BadRecords(f"line {number}: not JSON: {_decode_reason(line_error, line)}") from None
    else:
        if values:
            return values, True
    if all(pattern.search(text[:_CLAIM_SPAN]) for pattern in _CLAIMS_RECORDS):
        raise BadRecords(f"not JSON: {_decode_reason(error, text)}")
    return None


def _decode_reason(error: msgspec.DecodeError, text: bytes) -> str:
    """msgspec's reason, with the line and column of the byte it names.

    >>> _decode_reason(msgspec.DecodeError("JSON is malformed: invalid character (byte 5)"), b'[1,\\n x]')
    'invalid character at line 2, column 2'
    """
    reason = str(error).removeprefix("JSON is malformed: ")
    if reason == "Input data was truncated":
        return "the file stops inside a value (cut short)"
    if match := _BYTE_AT.search(reason):
        offset = int(match[1])
        line = text.count(b"\n", 0, offset) + 1
        column = offset - (text.rfind(b"\n", 0, offset) + 1) + 1
        return f"{reason[:match.start()].rstrip()} at line {line}, column {column}"
    return reason


def _where(index: int, lines: bool, text: bytes) -> str:
    """``record N`` (counted from 1) of a JSON document; ``line N`` of JSON Lines (blank lines counted,
    though they hold no record).

    >>> _where(1, False, b"[]"), _where(1, True, b'{}\\n\\n{}')
    ('record 2', 'line 3')
    """
    if not lines:
        return f"record {index + 1}"
    numbers = [number for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    return f"line {numbers[index]}"


def _field_error(error: msgspec.ValidationError) -> str:
    """``, field: reason`` from msgspec's ``Reason - at `$.field` ``, without the backquotes.

    >>> _field_error(msgspec.ValidationError("Expected `int | null`, got `str` - at `$.publications[0].year`"))
    ', publications[0].year: expected int | null, got str'
    """
    reason, _, path = str(error).partition(" - at `$")
    reason = reason.replace("`", "")
    reason = reason[:1].lower() + reason[1:]
    field = path.rstrip("`").lstrip(".")
    return f", {field}: {reason}" if field else f": {reason}"


@functools.cache
def _result_check() -> Check:
    """The check of a ``PageResult`` against what the schema states beyond types, built once from the model."""
    return _check_of(msgspec.inspect.type_info(PageResult)) or _nothing_wrong


def _nothing_wrong(value: Any, path: str) -> str | None:
    return None


def _check_of(info: msgspec.inspect.Type) -> Check | None:
    """The check of values of type ``info``, or None when the schema states nothing about them."""
    inspect = msgspec.inspect
    if isinstance(info, inspect.Metadata):
        return _bounds_check(info.extra_json_schema or {}, _check_of(info.type))
    if isinstance(info, inspect.UnionType):
        return _any_of([check for member in info.types if (check := _check_of(member))])
    if isinstance(info, inspect.ListType):
        return _items_check(_check_of(info.item_type))
    if isinstance(info, inspect.DictType):
        return _values_check(_check_of(info.value_type))
    if isinstance(info, inspect.StructType):
        return _struct_check(info)
    return None


def _any_of(checks: list[Check]) -> Check | None:
    """Each of a union's checks applies to its own kind of value and passes others: the first line any gives."""
    if not checks:
        return None
    if len(checks) == 1:
        return checks[0]
    return lambda value, path: next((why for check in checks if (why := check(value, path))), None)


def _items_check(item: Check | None) -> Check | None:
    if item is None:
        return None
    return lambda value, path: (next((why for index, one in enumerate(value) if (why := item(one, f"{path}[{index}]"))),
                                     None) if isinstance(value, list) else None)


def _values_check(each: Check | None) -> Check | None:
    if each is None:
        return None
    return lambda value, path: (next((why for key, one in value.items() if (why := each(one, f"{path}.{key}"))),
                                     None) if isinstance(value, dict) else None)


def _struct_check(info: msgspec.inspect.StructType) -> Check | None:
    fields = [(field.name, check) for field in info.fields if (check := _check_of(field.type))]
    if not fields:
        return None
    kind = info.cls

    def within_bounds(value: Any, path: str) -> str | None:
        if not isinstance(value, kind):
            return None
        return next((why for name, one in fields if (why := one(getattr(value, name), f"{path}.{name}"))), None)

    return within_bounds


def _bounds_check(bounds: dict[str, Any], inner: Check | None) -> Check:
    """The check of ``minimum`` and ``maximum`` (on integers) and ``pattern`` (on strings)."""
    low, high, pattern = bounds.get("minimum"), bounds.get("maximum"), bounds.get("pattern")
    shape = re.compile(pattern) if pattern else None

    def check(value: Any, path: str) -> str | None:
        if isinstance(value, int) and not isinstance(value, bool):
            if low is not None and value < low:
                return f"{path}: {value} is below the schema's minimum, {low}"
            if high is not None and value > high:
                return f"{path}: {value} is above the schema's maximum, {high}"
        elif isinstance(value, str) and shape is not None and not shape.search(value):
            shown = value if len(value) <= _MAX_SHOWN else value[:_MAX_SHOWN] + "…"
            return f"{path}: {shown!r} is not of the shape the schema states ({pattern})"
        return inner(value, path) if inner else None

    return check


def _warn_repaired(results: list[PageResult]) -> None:
    """A ``lone_surrogate`` warning on each record that holds U+FFFD, naming its fields."""
    for result in results:
        fields = list(_replaced_fields(msgspec.to_builtins(result), ""))
        if fields:
            shown = ", ".join(fields[:5]) + (f" and {len(fields) - 5} more" if len(fields) > 5 else "")
            result.warn(Warn.lone_surrogate, f"lone surrogates read as U+FFFD in {shown}")


def _replaced_fields(value: Any, path: str) -> Iterator[str]:
    """The paths of the strings (keys too) in ``value`` holding U+FFFD."""
    if isinstance(value, str):
        if "\ufffd" in value:
            yield path.lstrip(".") or "the record"
    elif isinstance(value, dict):
        for key, item in value.items():
            if "\ufffd" in key:
                yield f"{path}.{key}".lstrip(".") + " (its name)"
            yield from _replaced_fields(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _replaced_fields(item, f"{path}[{index}]")
