"""Small helpers for the JSON files the default savers write."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..core.hashing import stable_hash


def document_file_name(document_id: str) -> str:
    """A flat, safe file name for a document id (readable part plus a short hash, so names never collide)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", document_id).strip("._")[:80] or "document"
    return f"{readable}.{stable_hash(document_id)[:8]}.json"


def write_json_atomic(path: Path, payload: Any) -> None:
    """Write JSON to a temporary file and rename it into place, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    os.replace(temp, path)
