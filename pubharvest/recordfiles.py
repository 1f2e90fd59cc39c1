"""Record files read back as inputs (``merge``, ``report``): JSON or JSON Lines of page results,
checked against the record schema, its types and what it states beyond them (``minimum``,
``maximum``, ``pattern``: counts, years, dates, DOIs, ORCID iDs).

A file that claims to be records (its objects have ``site`` and ``page``) and is not valid is
refused whole with one line naming the record (or line) and the field: a wrong type, a value out of
the schema's bounds, a day not on the calendar, a warning code not in the catalogue, a key given
twice in one object (JSON leaves which one counts to the reader), a whole number of any length;
JSON nested deeper than a reader follows is ``too_deep``. ``record_of`` is the same rule for one
record given as a dict (``pubharvest.frames``). Lone UTF-16 surrogates (an escaped ``\\ud800``, which a browser's
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
import datetime
import functools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import msgspec

from pubharvest.errors import BadRecords, TooDeep, Unrecognised
from pubharvest.parsers.records import DATE_PATTERN, MAX_COUNT, YEARS, PageResult
from pubharvest.parsers.text import paused_gc
from pubharvest.parsers.warning_codes import Warn, codes

__all__ = ["page_results", "record_of", "checked", "as_utf8", "line_record"]

# Longest first: the UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, ""),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# An escaped backslash (so that the ``u`` after it is no escape), a surrogate pair, or a lone surrogate.
_SURROGATE_ESCAPES = re.compile(rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                                rb"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_ESCAPE = 6  # the length of one escape: a pair is twice that, an escaped backslash 2
_UNICODE_ESCAPE = re.compile(rb"\\u")  # searched by ``re``: ``bytes.__contains__`` takes 3x as long for two bytes
_CLAIMS_RECORDS = (re.compile(rb'"site"\s*:'), re.compile(rb'"page"\s*:'))
_CLAIM_SPAN = 1 << 16  # where a file that is not JSON must show ``site`` and ``page`` to be taken for records
_BYTE_AT = re.compile(r"\(byte (\d+)\)$")
_MAX_SHOWN = 60  # characters of a refused value quoted in its line
T = TypeVar("T")
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
        with paused_gc():  # the records' lists would be walked again and again as they are made (a tenth of the time)
            results, lines = _typed(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):  # say which record, or not records
        explained = _explained(text)
        if explained is None:
            return None
        results, lines = explained
    for index, result in enumerate(results):
        if why := _invalid(result):  # where it is, only then: counting lines for every record is quadratic
            raise BadRecords(f"{_where(index, lines, text)}, {why}")
    if not _as_written(text, results, lines):
        _refuse_duplicate_keys(text, lines)
    if repaired:
        _warn_repaired(results)
    return results


def line_record(line: bytes) -> PageResult | None:
    """The page result of one line of JSON Lines when ``page_results`` would read it as it is: its types
    and what the schema states beyond them hold, and the line is byte for byte the record's own encoding
    (so no key is given twice, and no escaped lone surrogate needs repairing). None for any other line:
    the caller then reads the whole file with ``page_results``, which says what is wrong, if anything.

    >>> line = msgspec.json.encode(PageResult(site="msr", page="rows"))
    >>> line_record(line).site, line_record(line.replace(b'"rows"', b'"rows","page":"rows"'))
    ('msr', None)
    """
    try:
        result = _decoders()[1].decode(line)
        if _invalid(result) is None and _encoder().encode(result) == line:
            return result
    except (msgspec.DecodeError, msgspec.ValidationError, msgspec.EncodeError, RecursionError, UnicodeError):
        pass
    return None


@functools.cache
def _encoder() -> msgspec.json.Encoder:
    return msgspec.json.Encoder()


def checked(result: PageResult, where: str) -> PageResult:
    """``result`` itself when it is as the schema states beyond its types (bounds, shapes, calendar days,
    warning codes); else ``BadRecords`` naming ``where`` (``record 3``) and the field."""
    if why := _invalid(result):
        raise BadRecords(f"{where}, {why}")
    return result


def _invalid(result: PageResult) -> str | None:
    """``field: what is wrong with it`` for the first field of ``result`` not as the schema states, or None.
    The compiled test says whether anything is wrong (a tenth of the time); only then does the check that
    names the field walk the record."""
    if _compiled_test()(result):
        return None
    why = _result_check()(result, "")
    return why.lstrip(".") if why else None


def record_of(value: Any, where: str) -> PageResult:
    """The page result ``value`` (its JSON as dicts, as ``json.loads`` gives it) stands for, by the rule
    record files are read by: its types, then ``checked``; a lone surrogate in a string read as U+FFFD
    with a ``lone_surrogate`` warning. ``BadRecords`` naming ``where`` and the field otherwise.

    >>> record_of({"site": "msr", "page": "rows", "publications": [{"year": 1066}]}, "record 2")
    Traceback (most recent call last):
    pubharvest.errors.BadRecords: bad_records: record 2, publications[0].year: 1066 is below the schema's minimum, 1500
    """
    value, repaired = _value_without_lone_surrogates(value)
    try:
        result = msgspec.convert(value, PageResult)
    except msgspec.ValidationError as error:
        raise BadRecords(f"{where}{_field_error(error)}") from None
    checked(result, where)
    if repaired:
        _warn_repaired([result])
    return result


def _value_without_lone_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` with each lone surrogate in its strings (keys too) as U+FFFD, and how many strings held one;
    ``value`` itself when msgspec encodes it as UTF-8, which it refuses to for a lone surrogate (one pass in C)."""
    try:
        msgspec.json.encode(value)
    except Exception:  # a surrogate; else what the conversion names (a number past 64 bits, no JSON value)
        return _walked_without_lone_surrogates(value)
    return value, 0


def _walked_without_lone_surrogates(value: Any) -> tuple[Any, int]:
    if isinstance(value, str):
        # through UTF-16, which pairs a high and a low surrogate into one character and reads each lone one as U+FFFD
        fixed = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace") if _has_surrogate(value) \
            else value
        return fixed, int(fixed is not value)
    if isinstance(value, dict):
        pairs = [(_walked_without_lone_surrogates(k), _walked_without_lone_surrogates(v)) for k, v in value.items()]
        return {k: v for (k, _), (v, _) in pairs}, sum(a + b for (_, a), (_, b) in pairs)
    if isinstance(value, list):
        items = [_walked_without_lone_surrogates(item) for item in value]
        return [item for item, _ in items], sum(count for _, count in items)
    return value, 0


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


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

    if not _UNICODE_ESCAPE.search(text):
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
        if (huge := _first_path(value, _HugeNumber)) is not None:
            raise BadRecords(f"{_where(index, lines, text)}, {huge[0].lstrip('.')}: a whole number of "
                             f"{huge[1].digits:,} digits, past the schema's maximum, {MAX_COUNT}")
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
    except msgspec.DecodeError as error:
        if not str(error).startswith("Integer value out of range"):
            raise
    return _with_huge_numbers(text, where)  # a whole number past what msgspec reads: still JSON


class _HugeNumber(int):
    """A whole number of more digits than msgspec reads, kept as its digit count (0 stands in for it)."""

    digits: int


def _huge_number(digits: str) -> int:
    if len(digits.lstrip("-")) <= 20:
        return int(digits)
    number = _HugeNumber(0)
    number.digits = len(digits.lstrip("-"))
    return number


def _with_huge_numbers(text: bytes, where: str) -> Any:
    """``text`` read by Python's JSON reader, each whole number past 20 digits a ``_HugeNumber``; NaN and Infinity,
    which are no JSON, are a ``msgspec.DecodeError``."""
    def no_constant(name: str) -> None:
        raise msgspec.DecodeError(f"{name} is no JSON value")

    try:
        with paused_gc():
            return json.loads(text, parse_int=_huge_number, parse_constant=no_constant)
    except RecursionError:
        raise TooDeep(f"{where}: JSON nested deeper than records go") from None
    except ValueError as error:  # json.JSONDecodeError, invalid UTF-8
        raise msgspec.DecodeError(str(error)) from None


def _first_path(value: Any, kind: type[T], path: str = "") -> tuple[str, T] | None:
    """The path (``.profile.metrics.citations``, ``[2]``) of the first ``kind`` in a JSON tree, and it; or None."""
    if isinstance(value, kind):
        return path, value
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in children:
        found = _first_path(item, kind, f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]")
        if found is not None:
            return found
    return None


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
            raise BadRecords(f"line {number}: not JSON: {_decode_reason(line_error, line, one_line=True)}") from None
    else:
        if values:
            return values, True
    if all(pattern.search(text[:_CLAIM_SPAN]) for pattern in _CLAIMS_RECORDS):
        raise BadRecords(f"not JSON: {_decode_reason(error, text)}")
    return None


def _decode_reason(error: msgspec.DecodeError, text: bytes, one_line: bool = False) -> str:
    """msgspec's reason, with the line and column of the byte it names (the column alone in ``one_line``, a
    line of JSON Lines); bytes that are not UTF-8 located too.

    >>> _decode_reason(msgspec.DecodeError("JSON is malformed: invalid character (byte 5)"), b'[1,\\n x]')
    'invalid character at line 2, column 2'
    >>> _decode_reason(msgspec.DecodeError("Invalid UTF-8 encoded string"), b'["a\\xff"]', one_line=True)
    'a byte that is not UTF-8 at column 4'
    """
    reason = str(error).removeprefix("JSON is malformed: ")
    if reason == "Input data was truncated":
        return "the file stops inside a value (cut short)"
    offset = None
    if match := _BYTE_AT.search(reason):
        offset, reason = int(match[1]), reason[:match.start()].rstrip()
    elif "UTF-8" in reason:
        try:
            text.decode("utf-8")
        except UnicodeDecodeError as exc:
            offset, reason = exc.start, "a byte that is not UTF-8"
    if offset is None:
        return reason
    line, column = text.count(b"\n", 0, offset) + 1, offset - (text.rfind(b"\n", 0, offset) + 1) + 1
    return f"{reason} at column {column}" if one_line else f"{reason} at line {line}, column {column}"


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
    reason = _shortened(reason.replace("`", ""))
    reason = reason[:1].lower() + reason[1:]
    field = _shortened(path.rstrip("`").lstrip("."))
    return f", {field}: {reason}" if field else f": {reason}"


def _shortened(text: str) -> str:
    """``text`` with each run of more than ``_MAX_SHOWN`` characters without a blank cut there (a field name of a
    megabyte would make a line of a megabyte).

    >>> _shortened("object contains unknown field " + "x" * 100)[-8:]
    'xxxxxxx…'
    """
    return re.sub(rf"\S{{{_MAX_SHOWN + 1},}}", lambda run: run[0][:_MAX_SHOWN] + "…", text)


@functools.cache
def _result_check() -> Check:
    """The check of a ``PageResult`` against what the schema states beyond types, built once from the model."""
    fields = _check_of(msgspec.inspect.type_info(PageResult)) or _nothing_wrong
    return lambda value, path: fields(value, path) or _warning_codes_check(value, path)


@functools.cache
def _compiled_test() -> Callable[[PageResult], bool]:
    """Whether a ``PageResult`` is as the schema states beyond its types: the rule ``_result_check`` applies,
    written out as one Python function per record type from the model (no paths made, no closures called
    per field), so that it stays in step with the model as the check does."""
    source = _TestSource()
    top = source.struct(msgspec.inspect.type_info(PageResult))  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"_date_error": _date_error, "_known_codes": _known_codes(), **source.names}
    exec(compile("\n".join(source.lines), "<recordfiles tests>", "exec"), namespace)
    return namespace[top]  # type: ignore[no-any-return]


class _TestSource:
    """The source of the compiled test: a function ``_valid_NAME(v) -> bool`` per struct type, each line of
    its body returning False where ``_check_of`` would name a field (and for booleans, which it passes: a
    False here only sends the record to that check)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {}
        self.done: dict[type, str] = {}
        self.counter = 0

    def struct(self, info: msgspec.inspect.StructType) -> str:
        if info.cls in self.done:
            return self.done[info.cls]
        name = self.done[info.cls] = f"_valid_{info.cls.__name__}"
        body = [line for field in info.fields for line in self.value(field.type, f"v.{field.name}", 1)]
        if info.cls is PageResult:
            body.append(" for w in v.warnings:\n  if w.code not in _known_codes: return False")
        self.lines.append(f"def {name}(v):\n" + "\n".join(body) + "\n return True")
        return name

    def value(self, info: msgspec.inspect.Type, expr: str, depth: int) -> list[str]:
        """Lines (indented ``depth``) returning False when ``expr``, a value of type ``info``, is not valid."""
        inspect, pad = msgspec.inspect, " " * depth
        if isinstance(info, inspect.Metadata):
            return self.bounds(info.extra_json_schema or {}, expr, depth) + self.value(info.type, expr, depth)
        if isinstance(info, inspect.UnionType):
            return [line for member in info.types for line in self.value(member, expr, depth)]
        if isinstance(info, inspect.ListType | inspect.DictType):
            item = self.fresh("i")
            inner = self.value(info.item_type if isinstance(info, inspect.ListType) else info.value_type,
                               item, depth + 2)
            kind, items = ("list", expr) if isinstance(info, inspect.ListType) else ("dict", f"{expr}.values()")
            return [f"{pad}if isinstance({expr}, {kind}):\n{pad} for {item} in {items}:", *inner] if inner else []
        if isinstance(info, inspect.StructType):
            if _check_of(info) is None:
                return []
            cls, test = self.fresh("cls"), self.struct(info)
            self.names[cls] = info.cls
            return [f"{pad}if isinstance({expr}, {cls}) and not {test}({expr}): return False"]
        return []

    def bounds(self, bounds: dict[str, Any], expr: str, depth: int) -> list[str]:
        pad, low, high, pattern = " " * depth, bounds.get("minimum"), bounds.get("maximum"), bounds.get("pattern")
        lines = []
        if low is not None:
            lines.append(f"{pad}if isinstance({expr}, int) and {expr} < {low!r}: return False")
        if high is not None:
            lines.append(f"{pad}if isinstance({expr}, int) and {expr} > {high!r}: return False")
        if pattern:
            shape = self.fresh("shape")
            self.names[shape] = re.compile(pattern).search
            date = f" or _date_error({expr}) is not None" if pattern == DATE_PATTERN else ""
            lines.append(f"{pad}if isinstance({expr}, str) and (not {shape}({expr}){date}): return False")
        return lines

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"_{stem}{self.counter}"


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
                return f"{path}: {_number(value)} is below the schema's minimum, {low}"
            if high is not None and value > high:
                return f"{path}: {_number(value)} is above the schema's maximum, {high}"
        elif isinstance(value, str) and shape is not None:
            shown = value if len(value) <= _MAX_SHOWN else value[:_MAX_SHOWN] + "…"
            if not shape.search(value):
                return f"{path}: {shown!r} is not of the shape the schema states ({pattern})"
            if pattern == DATE_PATTERN and (why := _date_error(value)):
                return f"{path}: {shown!r} {why}"
        return inner(value, path) if inner else None

    return check


def _number(value: int) -> str:
    """``value`` as a line shows it: its digits, or how many there are past 40 (Python refuses to write a
    number of more than 4,300 digits, and a line should not hold one).

    >>> _number(-5), _number(10**45), _number(-10**20000)
    ('-5', 'a whole number of 46 digits', 'a negative whole number of about 20,001 digits')
    """
    if abs(value).bit_length() <= 133:  # 2**133 has 41 digits
        text = str(value)
        if len(text.lstrip("-")) <= 40:
            return text
    bits = abs(value).bit_length()
    digits = f"{len(str(abs(value))):,}" if bits < 14_000 else f"about {int(bits * 0.30103) + 1:,}"
    return f"a {'negative ' * (value < 0)}whole number of {digits} digits"


def _date_error(date: str) -> str | None:
    """What is wrong with an ISO date of the schema's shape: a day not on the calendar, a year out of ``YEARS``.

    >>> _date_error("2023-02-29"), _date_error("2024-02-29"), _date_error("1066")
    ('is no day of the calendar', None, 'is before 1500, the first year of the schema')
    """
    if int(date[:4]) not in YEARS:
        first, last = YEARS.start, YEARS.stop - 1
        return (f"is before {first}, the first year of the schema" if int(date[:4]) < first
                else f"is after {last}, the last year of the schema")
    if len(date) == 10:
        try:
            datetime.date.fromisoformat(date)
        except ValueError:
            return "is no day of the calendar"
    return None


def _warning_codes_check(value: Any, path: str) -> str | None:
    """A warning whose code is not in the catalogue (the schema's ``enum``)."""
    known = _known_codes()
    return next((f"warnings[{index}].code: {_shortened(repr(w.code))} is no warning code of the schema"
                 for index, w in enumerate(value.warnings) if w.code not in known), None)


@functools.cache
def _known_codes() -> frozenset[str]:
    return frozenset(codes())


def _as_written(text: bytes, results: list[PageResult], lines: bool) -> bool:
    """Whether ``text`` is byte for byte the records' own encoding, as ``parse -f json|jsonl`` and the scrapers
    write them (a JSON array a record a line, JSON Lines, one record): then no object of it gives a key twice
    (msgspec writes each field once), and the slow reading of every object by ``_refuse_duplicate_keys`` is not
    needed. Compared a record at a time, so that the encoding is never held whole.

    >>> record = msgspec.json.encode(PageResult(site="msr", page="rows"))
    >>> _as_written(b"[\\n" + record + b"\\n]\\n", page_results(record), False)
    True
    >>> _as_written(record.replace(b'"rows"', b'"rows","page":"rows"'), page_results(record), True)
    False
    """
    if not results:
        return False
    encode = _encoder().encode
    array = not lines and text.startswith(b"[")
    opening, between, closing = (b"[\n", b",\n", b"\n]\n") if array else (b"", b"\n", b"\n")
    if not text.startswith(opening) or (not lines and not array and len(results) != 1):
        return False
    at = len(opening)
    for index, result in enumerate(results):
        encoded = encode(result)
        if not text.startswith(encoded, at):
            return False
        at += len(encoded)
        if index + 1 < len(results):
            if not text.startswith(between, at):
                return False
            at += len(between)
    return text[at:] == closing or (not array and at == len(text))


def _refuse_duplicate_keys(text: bytes, lines: bool) -> None:
    """``BadRecords`` when an object of ``text`` (a JSON document, or JSON Lines) gives a key twice: JSON leaves
    which one counts to the reader, so the file says two things. One pass of Python's JSON reader, building
    nothing (a hook that keeps no object), about a third of the time the records took to read."""
    documents = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()] if lines else [(0, text)]
    for number, document in documents:
        try:
            with paused_gc():
                json.loads(document, object_pairs_hook=_no_duplicates)
        except _DuplicateKey:
            raise BadRecords(_duplicate_where(document, f"line {number}" if lines else "")) from None
        except (ValueError, RecursionError):  # msgspec read it as JSON: its reading stands
            return


class _DuplicateKey(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> None:
    if len(pairs) > 1 and len(dict(pairs)) != len(pairs):
        raise _DuplicateKey


class _Twice:
    """What an object giving ``key`` twice is read as, when finding where it is."""

    def __init__(self, key: str) -> None:
        self.key = key


def _marked_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _Twice:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            return _Twice(key)
        seen[key] = value
    return seen


def _duplicate_where(document: bytes, line: str) -> str:
    """``record N, path: the key K is given twice in one object`` for the first such object of ``document``
    (``line N, ...`` for a line of JSON Lines)."""
    value = json.loads(document, object_pairs_hook=_marked_duplicates)
    records = list(enumerate(value if isinstance(value, list) and not line else [value]))
    for index, record in records:
        found = _first_path(record, _Twice)
        if found is not None:
            where = line or f"record {index + 1}"
            path, twice = found
            return f"{where}{', ' + path.lstrip('.') if path else ''}: the key {_shortened(repr(twice.key))} is " \
                   "given twice in one object"
    return f"{line or 'the file'}: a key is given twice in one object"


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
