"""Stable hashing of JSON-like values and file contents (content-addressed identity)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

_SCALARS = (str, int, float, bool, type(None))


def to_jsonable(value: Any) -> Any:
    """Turn dataclasses, tuples and mappings into plain JSON values, recursively."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [to_jsonable(item) for item in value]
    if hasattr(kind, "__dataclass_fields__"):
        return {name: to_jsonable(getattr(value, name)) for name in kind.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if isinstance(value, Path):
        return value.as_posix()
    return value


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the same value always gives the same text."""
    return json.dumps(to_jsonable(value), ensure_ascii=True, sort_keys=True, separators=(",", ":"))


def stable_hash(value: Any) -> str:
    """SHA-256 of the canonical JSON of ``value`` (right-rag's ``stable_hash``)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def bytes_hash(data: bytes) -> str:
    """SHA-256 hex digest of raw bytes."""
    return hashlib.sha256(data).hexdigest()


def file_hash(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in blocks so large files do not fill memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
