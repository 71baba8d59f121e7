"""Statements for DuckDB with their values written as SQL literals instead of bound parameters.

DuckDB's Python binding imports pandas (0.3 s) the first time a statement has parameters: a tenth of a
``right-rag index`` after a one-file edit, and of every ``right-rag query``. So small statements go out with
their values inlined; large ones (thousands of rows, in a run that takes far longer than 0.3 s) keep
parameters and DataFrames, which DuckDB reads faster than it parses text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import duckdb

INLINE_LIMIT = 2_000_000
"""Most characters of values a statement is sent with inlined (a 2 MB literal parses in ~35 ms)."""


class NotInlinable(ValueError):
    """A value SQL text cannot carry (a NUL character, a type without a literal form)."""


def literal(value: Any) -> str:
    """``value`` as a DuckDB SQL literal: text, number, bool, None, timestamp, date, or a list of one type."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):  # a bare 0.1 would be DECIMAL, and could come back one ulp off
        return f"'{float.__repr__(float(value))}'::DOUBLE"
    if isinstance(value, str):
        if "\x00" in value:
            raise NotInlinable("a NUL character cannot appear in SQL text")
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:  # as a bound parameter does: the UTC time
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, (list, tuple)):
        if len({type(item) for item in value if item is not None}) > 1:
            raise NotInlinable("a list mixing value types")
        return "[" + ", ".join(literal(item) for item in value) + "]"
    raise NotInlinable(f"no SQL literal for {type(value).__name__}")


def inline(sql: str, params: Sequence[Any]) -> str:
    """``sql`` with each ``?`` placeholder (outside quotes) replaced by the next value's literal.

    Statements this scanner does not read with certainty (numbered ``?1`` or ``$`` placeholders, comments,
    escape strings) are ``NotInlinable``, and are sent with bound parameters instead."""
    if not isinstance(params, (list, tuple)):
        raise NotInlinable("named parameters")
    out: list[str] = []
    values = iter(params)
    quote = ""
    for index, char in enumerate(sql):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            if char == "'" and index and sql[index - 1] in "eE" and (index < 2 or not sql[index - 2].isalnum()):
                raise NotInlinable("an escape string literal")
            quote = char
        elif char == "$" or sql.startswith(("--", "/*"), index):
            raise NotInlinable("a comment or a $ placeholder")
        elif char == "?":
            if sql[index + 1:index + 2].isdigit():
                raise NotInlinable("a numbered placeholder")
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


def execute(con: duckdb.DuckDBPyConnection, sql: str, params: Any = ()) -> duckdb.DuckDBPyConnection:
    """``con.execute(sql, params)``, with the values inlined when they are small enough to be sent as text."""
    if not params:
        return con.execute(sql)
    if _size(params) <= INLINE_LIMIT:
        try:
            text = inline(sql, params)
        except NotInlinable:
            pass
        else:
            return con.execute(text)
    return con.execute(sql, params if isinstance(params, dict) else list(params))


def _size(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple)):
        return sum(_size(item) for item in value) + len(value)
    return 8
