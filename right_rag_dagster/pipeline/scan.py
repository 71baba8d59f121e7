"""Scan the documents folder: one entry per file with its id, partition key, size, mtime and content hash."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from stat import S_ISREG

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


@dataclass(frozen=True)
class Skipped:
    """A file of the documents folder that is not indexed, with the reason (a link leaving the folder)."""

    document_id: str
    reason: str


@dataclass(frozen=True)
class Scan:
    """What a scan found: the files to index, those skipped, and those reached through links that leave the
    folder but are indexed because right_rag.toml allows it."""

    files: list[DocumentFile]
    skipped: list[Skipped] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)


def scan_documents(documents_dir: Path, known: Mapping[str, tuple[float, int, str]] | None = None,
                   allow_outside_links: bool = False) -> list[DocumentFile]:
    """The files to index (see ``scan_folder``)."""
    return scan_folder(documents_dir, known, allow_outside_links).files


def scan_folder(documents_dir: Path, known: Mapping[str, tuple[float, int, str]] | None = None,
                allow_outside_links: bool = False) -> Scan:
    """Every non-hidden file under ``documents_dir``, sorted by id.

    ``known`` maps document ids to (mtime, size, hash) seen before: a file whose mtime and size are unchanged
    keeps its hash without being read again. A changed file is always re-hashed, so edits are found by content.
    Symbolic links are followed inside the folder; one that leads out of it (to ``/etc/passwd``, another
    project) is skipped and reported, unless ``allow_outside_links`` (``allow_outside_links = true`` in
    right_rag.toml). Links that loop back are walked once.
    """
    if not documents_dir.is_dir():
        raise ConfigError(f"documents folder {documents_dir} does not exist: create it and add files, "
                          "or set documents_dir in right_rag.toml")
    known = known or {}
    root = documents_dir.resolve()
    inside = str(root) + os.sep
    files: list[DocumentFile] = []
    skipped: list[Skipped] = []
    outside: list[str] = []
    walked: set[str] = set()

    def relative(path: Path) -> str:
        return PurePosixPath(*path.relative_to(documents_dir).parts).as_posix()

    def leaves(path: Path) -> bool:
        real = Path(os.path.realpath(path))
        return real != root and root not in real.parents

    for folder, dirs, names in os.walk(documents_dir, followlinks=True):
        real_folder = os.path.realpath(folder)
        if real_folder in walked:  # a link looping back into a folder already walked
            dirs[:] = []
            continue
        walked.add(real_folder)
        # A file that is no link, in a folder whose real path is inside the documents folder, cannot lead out of it:
        # one lstat for it instead of resolving every part of its path.
        folder_inside = real_folder == str(root) or real_folder.startswith(inside)
        prefix = relative(Path(folder)) + "/" if folder != str(documents_dir) else ""
        kept = []
        for name in sorted(d for d in dirs if not d.startswith(".")):
            path = Path(folder) / name
            if path.is_symlink() and leaves(path) and not allow_outside_links:
                skipped.append(Skipped(relative(path) + "/", _outside(path)))
            else:
                kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = Path(folder) / name
            document_id = prefix + name
            if not (folder_inside and not os.path.islink(path)) and leaves(path):
                if not allow_outside_links:
                    skipped.append(Skipped(document_id, _outside(path)))
                    continue
                outside.append(document_id)
            try:
                stat = os.stat(path)
            except OSError as exc:
                skipped.append(Skipped(document_id, f"cannot be read: {exc.strerror or exc}"))
                continue
            if not S_ISREG(stat.st_mode):  # what os.path.isfile tells, from the same stat
                continue
            seen = known.get(document_id)
            if seen and seen[0] == stat.st_mtime and seen[1] == stat.st_size:
                digest = seen[2]
            else:
                try:
                    digest = file_hash(path)
                except OSError as exc:
                    skipped.append(Skipped(document_id, f"cannot be read: {exc.strerror or exc}"))
                    continue
            files.append(DocumentFile(document_id, partition_key_for(document_id), path, stat.st_size,
                                      stat.st_mtime, digest))
    files.sort(key=lambda f: f.document_id)
    _check_unique_keys(files)
    return Scan(files, sorted(skipped, key=lambda s: s.document_id), sorted(outside))


def _outside(path: Path) -> str:
    return (f"a symbolic link to {os.path.realpath(path)}, outside the documents folder; not indexed "
            "(set allow_outside_links = true in right_rag.toml to index it)")


def _check_unique_keys(files: list[DocumentFile]) -> None:
    seen: dict[str, str] = {}
    for file in files:
        if file.partition_key in seen:
            raise ConfigError(f"documents {seen[file.partition_key]!r} and {file.document_id!r} map to the same "
                              f"partition key {file.partition_key!r}; rename one of them")
        seen[file.partition_key] = file.document_id
