"""The modules of this package that a source file runs, found by reading its imports: part of a plugin's version,
so an edit to a module a parser calls (``core/faq.py`` under the generic parser, ``loaders/pdf.py`` under the default
loader) re-parses what that parser parsed, and an edit elsewhere re-parses nothing."""

from __future__ import annotations

import ast
import json
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any

from .hashing import file_hash, stable_hash

PACKAGE = Path(__file__).resolve().parents[1]
DISCOVERY = ("core/registry.py", "core/sources.py")
"""Modules that find and load plugins (a spec plugin imports ``load_helper`` from the registry): they shape no
plugin's output, so they are neither followed nor hashed, and an edit to them re-parses nothing."""

Imports = tuple[tuple[int, str, tuple[str, ...]], ...]
"""``(level, module, names)`` of each import statement of a file."""
IMPORTS = "imports"
"""What ``keep`` holds of a file for its version: its import statements."""


def code_version(paths: Iterable[Path], package: Path = PACKAGE) -> str:
    """The version of the code that ``paths`` run: a hash of them and of the modules of ``package`` they import,
    each module of ``package`` named by its place in it (the same on every machine), any other file by its name."""
    root = package.resolve()
    parts = {(p.relative_to(root.parent).as_posix() if p.is_relative_to(root) else p.name): digest
             for p, digest in _digests(paths, root).items()}
    return stable_hash(parts)[:16]


def package_sources(paths: Iterable[Path], package: Path = PACKAGE) -> list[Path]:
    """``paths`` and every module of ``package`` they import, directly or through those modules (imports inside
    functions too), sorted. Modules of other packages are not followed: their version is the installed one's."""
    return sorted(_digests(paths, package.resolve()))


def _digests(paths: Iterable[Path], package: Path) -> dict[Path, str]:
    """The content hash of each of ``paths`` and of the modules of ``package`` they import, each file read once."""
    digests: dict[Path, str] = {}
    todo = [Path(path).resolve() for path in paths]
    while todo:
        current = todo.pop()
        if current in digests:
            continue
        digests[current] = file_hash(current)
        todo.extend(found for found in _imported(current, digests[current], package) if found not in digests)
    return digests


@cache
def _parsed(path: Path, digest: str) -> Imports:
    """``(level, module, names)`` of each import statement of ``path`` at content ``digest``; none for a file Python
    cannot parse (a leftover helper beside a plugin: its import fails on its own, reported by discovery, and its
    bytes still count in the version). Kept beside the file's bytecode (``keep``): parsing every plugin and
    the modules they import was a fifth of a run with nothing to index."""
    found = _read_cache(path, digest)
    if found is None:
        found = _parse_imports(path)
        keep(path, IMPORTS, digest, found)
    return found


def _parse_imports(path: Path) -> Imports:
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError):
        return ()
    found = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            found.extend((0, alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or "", tuple(alias.name for alias in node.names)))
    return tuple(found)


def _cache_file(path: Path, what: str) -> Path | None:
    """Where ``what`` is kept for ``path``: its ``__pycache__`` folder, named like its bytecode (none on a Python
    without a cache tag)."""
    tag = sys.implementation.cache_tag
    return path.parent / "__pycache__" / f"{path.stem}.{tag}.{what}.json" if tag else None


def read_kept(path: Path, what: str, key: str) -> Any:
    """What ``keep`` kept of ``path`` under ``what`` for the same ``key`` (its bytes' digest, a version), else None:
    missing, unreadable, for another key or not ours."""
    target = _cache_file(path, what)
    try:
        kept = json.loads(target.read_text(encoding="utf-8")) if target else None
    except (OSError, ValueError):
        return None
    return kept.get("value") if isinstance(kept, dict) and kept.get("key") == key else None


def keep(path: Path, what: str, key: str, value: Any) -> None:
    """Keep ``value`` (JSON) for the next process, as Python keeps bytecode: not when it is told not to write any
    (``PYTHONDONTWRITEBYTECODE``), and silently not where the folder is read-only."""
    target = _cache_file(path, what)
    if target is None or sys.dont_write_bytecode:
        return
    partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")  # one per writer
    try:
        target.parent.mkdir(exist_ok=True)
        partial.write_text(json.dumps({"key": key, "value": value}), encoding="utf-8")
        os.replace(partial, target)  # whole or absent: a process reading it never sees half a file
    except OSError:
        with suppress(OSError):  # no folder to write in, or the partial file is left: the next run does the work
            partial.unlink(missing_ok=True)


def forget(path: Path, what: str) -> None:
    """Remove what was kept of ``path`` under ``what`` (nothing there: nothing to do)."""
    target = _cache_file(path, what)
    if target is not None:
        with suppress(OSError):
            target.unlink(missing_ok=True)


def _read_cache(path: Path, digest: str) -> Imports | None:
    """The kept imports of ``path`` when they were read from the same bytes (``digest``), else None."""
    kept = read_kept(path, IMPORTS, digest)
    try:
        return None if kept is None else tuple((int(level), str(module), tuple(str(name) for name in names))
                                               for level, module, names in kept)
    except (ValueError, TypeError):
        return None  # not ours: parse the file again


def _statements(body: list[ast.AST]) -> Iterator[ast.AST]:
    """Every statement of ``body`` and of the blocks nested in it: an import is a statement, so the expressions that
    make up most of a module's tree need no visit (a third of the time a full ``ast.walk`` takes)."""
    for node in body:
        yield node
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            nested = getattr(node, block, None)
            if isinstance(nested, list):
                yield from _statements(nested)


@cache
def _imported(path: Path, digest: str, package: Path) -> tuple[Path, ...]:
    """The files of ``package`` that ``path``'s import statements name (a module, or a package's ``__init__``).
    Once per file and content in a process: every plugin's version follows the same modules (the package's files
    are not added or removed while it runs)."""
    inside = path.is_relative_to(package)
    here = list(path.relative_to(package.parent).parent.parts) if inside else []
    files = []
    for level, module, names in _parsed(path, digest):
        if level:
            if not inside or level > len(here):
                continue  # a relative import of a file outside the package (a spec plugin's folder)
            base = here[:len(here) - level + 1] + (module.split(".") if module else [])
        else:
            base = module.split(".")
        if base[0] != package.name:
            continue
        for dotted in (base, *(base + [name] for name in names)):
            found = _module_file(package.parent, dotted)
            if found is not None and found.relative_to(package).as_posix() not in DISCOVERY:
                files.append(found)
    return tuple(files)


def _module_file(root: Path, dotted: list[str]) -> Path | None:
    target = root.joinpath(*dotted)
    for candidate in (target / "__init__.py", target.with_suffix(".py")):
        if candidate.is_file():
            return candidate.resolve()
    return None
