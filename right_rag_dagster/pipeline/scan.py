"""Scan the documents folder: one entry per file with its id, partition key, size, mtime and content hash."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..core.hashing import file_hash
from ..core.ids import partition_key_for
from ..errors import ConfigError


@dataclass(frozen=True)
class DocumentFile:
    """A file in the documents folder, identified by its path relative to that folder."""

    document_id: str
    partition_key: str
    path: Path
    size: int
    mtime: float
    content_hash: str


def scan_documents(documents_dir: Path, known: Mapping[str, tuple[float, int, str]] | None = None) -> list[DocumentFile]:
    """Every non-hidden file under ``documents_dir``, sorted by id.

    ``known`` maps document ids to (mtime, size, hash) seen before: a file whose mtime and size are unchanged
    keeps its hash without being read again. A changed file is always re-hashed, so edits are found by content.
    """
    if not documents_dir.is_dir():
        raise ConfigError(f"documents folder {documents_dir} does not exist: create it and add files, "
                          "or set documents_dir in right_rag.toml")
    known = known or {}
    files: list[DocumentFile] = []
    for root, dirs, names in os.walk(documents_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = Path(root) / name
            try:
                stat = path.stat()
            except OSError:
                continue
            document_id = PurePosixPath(*path.relative_to(documents_dir).parts).as_posix()
            seen = known.get(document_id)
            if seen and seen[0] == stat.st_mtime and seen[1] == stat.st_size:
                digest = seen[2]
            else:
                digest = file_hash(path)
            files.append(DocumentFile(document_id, partition_key_for(document_id), path, stat.st_size,
                                      stat.st_mtime, digest))
    files.sort(key=lambda f: f.document_id)
    _check_unique_keys(files)
    return files


def _check_unique_keys(files: list[DocumentFile]) -> None:
    seen: dict[str, str] = {}
    for file in files:
        if file.partition_key in seen:
            raise ConfigError(f"documents {seen[file.partition_key]!r} and {file.document_id!r} map to the same "
                              f"partition key {file.partition_key!r}; rename one of them")
        seen[file.partition_key] = file.document_id
