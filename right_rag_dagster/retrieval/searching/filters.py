"""Metadata filters: which chunks a search may return.

``{"document": "GPL-3.0.txt", "unit_type": ["section", "clause"], "role": "definition", "license": "MIT"}``:
every key must match (AND), a list means any of its values (OR). Keys: ``document`` (or ``document_id``;
``*``/``?`` globs allowed), ``unit``/``unit_id``, ``unit_type``, ``role``, ``section`` (text inside the section
path, case-insensitive); any other key is a chunk attribute. Values compare as text, so ``--filter n=3``
matches the attribute ``3``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

import numpy as np

from ...errors import ConfigError
from .chunk_table import ChunkTable

_COLUMNS = {"document": "document_id", "document_id": "document_id", "unit": "unit_id", "unit_id": "unit_id",
            "unit_type": "unit_type", "role": "role"}


def parse_filters(pairs: list[str] | None) -> dict[str, Any]:
    """``["key=value", ...]`` from the command line; a repeated key collects its values (any of them)."""
    filters: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"filter {pair!r} is not key=value (e.g. --filter document=GPL-3.0.txt)")
        key = key.strip()
        if key in filters:
            previous = filters[key]
            filters[key] = [*(previous if isinstance(previous, list) else [previous]), value]
        else:
            filters[key] = value
    return filters


def filter_mask(chunks: ChunkTable, filters: Mapping[str, Any] | None) -> np.ndarray | None:
    """A boolean array over the chunk rows (None when there is no filter)."""
    if not filters:
        return None
    mask = np.ones(len(chunks), dtype=bool)
    for key, expected in filters.items():
        wanted = [_text(v) for v in (expected if isinstance(expected, (list, tuple, set)) else [expected])]
        mask &= np.fromiter((_matches(key, value, wanted) for value in _values(chunks, key)), bool, len(chunks))
    return mask


def _values(chunks: ChunkTable, key: str) -> list[Any]:
    if key in _COLUMNS:
        return chunks.column(_COLUMNS[key])
    if key == "section":
        return [" > ".join(path).casefold() for path in chunks.section_paths()]
    return [attributes.get(key) for attributes in chunks.attributes()]


def _matches(key: str, value: Any, wanted: list[str]) -> bool:
    if value is None:
        return False
    if key == "section":
        return any(w.casefold() in value for w in wanted)
    if isinstance(value, (list, tuple)):
        return any(_text(item) in wanted for item in value)
    text = _text(value)
    if key in ("document", "document_id"):
        return any(fnmatchcase(text, w) if any(c in w for c in "*?[") else text == w for w in wanted)
    return text in wanted


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
