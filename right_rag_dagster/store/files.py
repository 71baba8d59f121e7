"""Small helpers for the JSON files the default savers write."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..core.hashing import stable_hash, to_jsonable


def document_file_name(document_id: str) -> str:
    """A flat, safe file name for a document id (readable part plus a short hash, so names never collide)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", document_id).strip("._")[:80] or "document"
    return f"{readable}.{stable_hash(document_id)[:8]}.json"


def write_json_atomic(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` as JSON to a temporary file and rename it into place, so readers never see half a file.

    Values may be dataclasses (converted with ``to_jsonable``). A list (or tuple) value is written item by item: the
    text of a document with thousands of units is never one string (a 2 MB copyright file's units are 13 MB of
    JSON, and ``json.dumps`` held about five times that at once). The bytes are those of ``json.dumps``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        _write(temp, payload)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    os.replace(temp, path)


def _write(path: Path, payload: dict[str, Any]) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("{")
        for n, (key, value) in enumerate(payload.items()):
            out.write(f"{',' if n else ''}{_dumps(str(key))}:")
            if isinstance(value, (list, tuple)):
                out.write("[")
                for i, item in enumerate(value):
                    out.write(f"{',' if i else ''}{_dumps(to_jsonable(item))}")
                out.write("]")
            else:
                out.write(_dumps(to_jsonable(value)))
        out.write("}\n")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
