"""Stable identity: ids come from names and content, never from list positions or absolute paths."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path, PurePosixPath

from .hashing import stable_hash


def document_id_for_path(path: str | Path, documents_dir: str | Path) -> str:
    """The document id: the file's path relative to the documents folder, in POSIX form.

    Moving or copying the whole project keeps every id, because the absolute location never enters it.
    """
    file, folder = Path(os.path.abspath(path)), Path(os.path.abspath(documents_dir))
    try:  # absolute but not resolved: a symlinked file keeps its own name, as the folder scan sees it
        relative = file.relative_to(folder)
    except ValueError:  # one side was reached through a symlinked folder
        relative = (file.parent.resolve() / file.name).relative_to(folder.resolve())
    return PurePosixPath(*relative.parts).as_posix()


def unit_id_for_path(document_id: str, path_key: tuple[str, ...] | list[str]) -> str:
    """Unit id from the document id and the tuple of unit keys from the root (hashed as a JSON list)."""
    return stable_hash({"document_id": document_id, "path_key": list(path_key)})


def chunk_id_for(unit_id: str, parser_name: str, ordinal: int) -> str:
    """Chunk id from its unit, the chunk parser's name and the chunk's ordinal inside the unit."""
    return stable_hash({"unit_id": unit_id, "parser": parser_name, "index": ordinal})


_SAFE_KEY = re.compile(r"^[A-Za-z0-9._\-/]+$")


def partition_key_for(document_id: str) -> str:
    """A Dagster partition key for a document: its relative path when that is safe, else slug + hash.

    Commas, brackets, spaces and non-ASCII characters break parts of the Dagster UI, and ``...`` is
    rejected outright, so such names become ``readable-slug-<8 hex>``; the real path stays in metadata.
    """
    if _SAFE_KEY.match(document_id) and ".." not in document_id and len(document_id) <= 200:
        return document_id
    ascii_name = unicodedata.normalize("NFKD", document_id).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^A-Za-z0-9._/]+", "-", ascii_name).strip("-./")
    slug = re.sub(r"\.{2,}", ".", slug)[:80].strip("-./") or "document"
    return f"{slug}-{stable_hash(document_id)[:8]}"
