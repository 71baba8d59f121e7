"""Statements for DuckDB with their values written as SQL literals instead of bound parameters.

DuckDB's Python binding imports pandas (0.3 s) the first time a statement has parameters: a tenth of a
``right-rag index`` after a one-file edit, and of every ``right-rag query``. So small statements go out with
their values inlined; large ones (thousands of rows, in a run that takes far longer than 0.3 s) keep
parameters and DataFrames, which DuckDB reads faster than it parses text.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import Any

import duckdb

INLINE_LIMIT = 2_000_000
"""Most characters of values a statement is sent with inlined (a 2 MB literal parses in ~35 ms)."""


class NotInlinable(ValueError):
    """A value SQL text cannot carry (a NUL character, a type without a literal form)."""


def literal(value: Any) -> str:
    """``value`` as a DuckDB SQL literal: text, number, bool, None, timestamp, date, or a list of them."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"'{value}'::DOUBLE"
    if isinstance(value, str):
        if "\x00" in value:
            raise NotInlinable("a NUL character cannot appear in SQL text")
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    raise NotInlinable(f"no SQL literal for {type(value).__name__}")


def inline(sql: str, params: Sequence[Any]) -> str:
    """``sql`` with each ``?`` placeholder (outside quotes) replaced by the next value's literal."""
    out: list[str] = []
    values = iter(params)
    quote = ""
    for char in sql:
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "?":
            try:
                out.append(literal(next(values)))
            except StopIteration:
                raise ValueError(f"more placeholders than the {len(params)} values given: {sql[:80]}") from None
            continue
        out.append(char)
    if next(values, _END) is not _END:
        raise ValueError(f"fewer placeholders than the {len(params)} values given: {sql[:80]}")
    return "".join(out)


_END = object()


def execute(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> duckdb.DuckDBPyConnection:
    """``con.execute(sql, params)``, with the values inlined when they are small enough to be sent as text."""
    if not params:
        return con.execute(sql)
    if _size(params) <= INLINE_LIMIT:
        try:
            return con.execute(inline(sql, params))
        except NotInlinable:
            pass
    return con.execute(sql, list(params))


def _size(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple)):
        return sum(_size(item) for item in value) + len(value)
    return 8
