"""Real processes and real files for the reliability suite.

``right_rag(...)`` runs the ``right-rag`` executable as a subprocess with a timeout: a command that does not end
in time is a hang, and the test fails saying so (its process group is killed first). ``start(...)`` runs one in
the background, for ``kill -9`` and for concurrent commands. The store is checked read-only through DuckDB: no
duplicate or orphan rows, and a snapshot of what it serves to compare with a clean index of the same folder.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from right_rag_dagster.store import Store

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "data" / "documents"
SHARED_CORPUS = Path("/work/shared/corpus")
EXECUTABLE = Path(sys.executable).with_name("right-rag")
COMMAND = [str(EXECUTABLE)] if EXECUTABLE.exists() else [sys.executable, "-m", "right_rag_dagster"]
"""The console script users run (``python -m right_rag_dagster`` where it is not installed next to Python)."""
INDEX_TIMEOUT = 240.0
"""Seconds any one ``right-rag index`` of a small project may take on a loaded 2-core machine before it counts
as a hang (they take 5-15 s)."""
QUICK_TIMEOUT = 60.0
FLAGS_VARIABLE = "RELIABILITY_FLAGS"
"""Folder of flag files the test plugins look at (``BLOCK``: wait; they write ``PARSING-<name>`` when there)."""


def environment(**extra: str) -> dict[str, str]:
    """This environment without the variables that change right-rag's behaviour (keys, URLs, limits, homes)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RIGHT_RAG_", "OPENAI_", "OLLAMA_", "DAGSTER_", FLAGS_VARIABLE))}
    env.update(extra)
    return env


@dataclass(frozen=True)
class Done:
    """A finished command: exit code, stdout, stderr, wall seconds."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str
    seconds: float

    @property
    def text(self) -> str:
        return self.out + self.err

    def __str__(self) -> str:
        return (f"right-rag {' '.join(self.args)} -> exit {self.code} in {self.seconds:.1f}s\n"
                f"--- stdout ---\n{self.out[-4000:]}\n--- stderr ---\n{self.err[-4000:]}")


class Running:
    """A ``right-rag`` command running in the background, in its own process group; its output is collected
    as it comes (``err_so_far``), so a test can react to a line before the command ends."""

    def __init__(self, project: Path, args: Iterable[str], env: dict[str, str] | None = None) -> None:
        self.args = ("--project", str(project), *args)
        self.started = time.monotonic()
        self.process = subprocess.Popen([*COMMAND, *self.args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, env=env or environment(), start_new_session=True)
        self._out: list[bytes] = []
        self._err: list[bytes] = []
        self._readers = [threading.Thread(target=_drain, args=(stream, into), daemon=True)
                         for stream, into in ((self.process.stdout, self._out), (self.process.stderr, self._err))]
        for reader in self._readers:
            reader.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def err_so_far(self) -> str:
        return _text(b"".join(self._err))

    def kill9(self) -> None:
        """``kill -9`` of the right-rag process itself (its workers die with it, as after an OOM kill)."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def finish(self, timeout: float = INDEX_TIMEOUT) -> Done:
        """Wait for the end; a command still running after ``timeout`` is a hang: killed, and the test fails."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._kill_group()
            self.process.wait()
            pytest.fail(f"HANG: still running after {timeout:.0f}s\n{self._done()}")
        return self._done()

    def _done(self) -> Done:
        for reader in self._readers:
            reader.join(timeout=10)
        return Done(self.args, self.process.returncode, _text(b"".join(self._out)), _text(b"".join(self._err)),
                    time.monotonic() - self.started)

    def stop(self) -> None:
        """Kill what is left of this command (cleanup after a failed test)."""
        if self.alive():
            self._kill_group()
            self.process.wait()

    def _kill_group(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _drain(stream, into: list[bytes]) -> None:  # noqa: ANN001 (a binary pipe)
    for line in iter(stream.readline, b""):
        into.append(line)
    stream.close()


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "backslashreplace")


def right_rag(project: Path, *args: str, env: dict[str, str] | None = None,
              timeout: float = INDEX_TIMEOUT) -> Done:
    """Run ``right-rag --project PROJECT ARGS`` to its end (a hang fails the test)."""
    running = Running(project, args, env)
    try:
        return running.finish(timeout)
    finally:
        running.stop()


def wait_for(condition: Callable[[], object], timeout: float, what: str, poll: float = 0.05) -> object:
    """Poll ``condition`` until it is truthy; not within ``timeout`` fails the test naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"HANG: {what} did not happen within {timeout:.0f}s")
        time.sleep(poll)


def assert_clean_failure(done: Done) -> None:
    """An error reached the user as one line, without a traceback."""
    assert "Traceback (most recent call last)" not in done.text, str(done)
    assert "right-rag: error:" in done.err, str(done)


# -- projects ---------------------------------------------------------------------------------------------------

def write_toml(project: Path, body: str) -> None:
    (project / "right_rag.toml").write_text(body, encoding="utf-8")


def add_limits(project: Path, **limits: float) -> None:
    """Append ``[right-rag.limits]`` with ``limits`` to the project's right_rag.toml."""
    lines = "".join(f"{key} = {value!r}\n" for key, value in limits.items())
    toml = project / "right_rag.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + f"\n[right-rag.limits]\n{lines}", encoding="utf-8")


def write_spec(project: Path, kind: str, name: str, source: str) -> Path:
    path = project / "spec" / kind / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    return path


def clone(template: Path, destination: Path) -> Path:
    """A copy of an indexed project (documents, spec, store and Dagster home) to change without touching it."""
    shutil.copytree(template, destination, symlinks=True)
    return destination


# -- the store, read-only -----------------------------------------------------------------------------------------

@contextmanager
def dagster_instance(project: Path, overrides: dict | None = None) -> Iterator:
    """The project's Dagster instance, read as Dagster's own tools do: with ``DAGSTER_HOME`` set to its folder
    (the project's dagster.yaml names its storage folder by that variable)."""
    import dagster as dg
    from dagster._core.instance.ref import InstanceRef

    home = str(project / ".dagster")
    before = os.environ.get("DAGSTER_HOME")
    os.environ["DAGSTER_HOME"] = home
    try:
        with dg.DagsterInstance.from_ref(InstanceRef.from_dir(home, overrides=overrides)) as instance:
            yield instance
    finally:
        if before is None:
            os.environ.pop("DAGSTER_HOME", None)
        else:
            os.environ["DAGSTER_HOME"] = before


def store_of(project: Path) -> Store:
    return Store(project / ".right-rag" / "right_rag.duckdb")


def rows(project: Path, sql: str, params: list | None = None) -> list[tuple]:
    with store_of(project).read() as con:
        return con.execute(sql, params or []).fetchall()


def chunk_counts(project: Path) -> dict[str, int]:
    """Chunks per document, every chunker together."""
    return dict(rows(project, "SELECT document_id, count(*) FROM chunks GROUP BY document_id"))


def rejections(project: Path) -> dict[str, tuple[str, str, str, bool]]:
    """document id -> (stage, status, reason, stale)."""
    return {r[0]: (r[1], r[2], r[3], bool(r[4])) for r in rows(
        project, "SELECT document_id, stage, status, reason, coalesce(stale, false) FROM rejections")}


def consistency_problems(project: Path) -> list[str]:
    """Rows that must never exist, whatever was killed when: duplicate keys, chunks without their unit or
    document, state for documents the store does not know."""
    checks = {
        "duplicate documents": "SELECT document_id FROM documents GROUP BY 1 HAVING count(*) > 1",
        "duplicate files": "SELECT document_id FROM files GROUP BY 1 HAVING count(*) > 1",
        "duplicate units": "SELECT unit_id FROM units GROUP BY 1 HAVING count(*) > 1",
        "duplicate chunk ids": "SELECT chunker, chunk_id FROM chunks GROUP BY 1, 2 HAVING count(*) > 1",
        "duplicate coverage": "SELECT document_id FROM coverage GROUP BY 1 HAVING count(*) > 1",
        "duplicate rejections": "SELECT document_id FROM rejections GROUP BY 1 HAVING count(*) > 1",
        "duplicate step states": "SELECT step, document_id FROM step_state GROUP BY 1, 2 HAVING count(*) > 1",
        "chunks without an active unit": "SELECT chunk_id FROM chunks c WHERE NOT EXISTS "
                                         "(SELECT 1 FROM units u WHERE u.unit_id = c.unit_id AND u.active)",
        "chunks without a document": "SELECT chunk_id FROM chunks c WHERE NOT EXISTS "
                                     "(SELECT 1 FROM documents d WHERE d.document_id = c.document_id)",
        "units without a document": "SELECT unit_id FROM units u WHERE NOT EXISTS "
                                    "(SELECT 1 FROM documents d WHERE d.document_id = u.document_id)",
        "units of another document than their chunks": "SELECT c.chunk_id FROM chunks c JOIN units u "
                                                       "ON u.unit_id = c.unit_id WHERE u.document_id <> c.document_id",
    }
    problems = []
    with store_of(project).read() as con:
        for name, sql in checks.items():
            found = con.execute(sql).fetchall()
            if found:
                problems.append(f"{name}: {found[:5]} ({len(found)})")
    return problems


def snapshot(project: Path) -> dict[str, set]:
    """What the store serves, without times, run ids or absolute paths: equal for two indexes of one folder."""
    queries = {
        "documents": "SELECT document_id, content_hash, status, page_count FROM documents",
        "texts": "SELECT document_id, md5(string_agg(text, '' ORDER BY piece)) FROM document_texts GROUP BY 1",
        "files": "SELECT document_id, content_hash FROM files",
        "units": "SELECT unit_id, document_id, parser, parser_version, parent_id, CAST(key_path AS VARCHAR), "
                 "source_start, source_end, md5(fulltext), active FROM units",
        "chunks": "SELECT chunker, chunk_id, document_id, unit_id, ordinal, source_start, source_end, page_start, "
                  "page_end, md5(fulltext), text_hash FROM chunks",
        "coverage": "SELECT document_id, parser, covered_chars, document_chars, units_total FROM coverage",
        "rejections": "SELECT document_id, stage, status, coalesce(stale, false) FROM rejections",
        "step_state": "SELECT step, document_id, cache_key, data_version, owner FROM step_state "
                      "WHERE step <> 'refresh'",
        "search_indexes": "SELECT chunker, kind, chunks FROM search_indexes",
    }
    with store_of(project).read() as con:
        return {name: set(con.execute(sql).fetchall()) for name, sql in queries.items()}


def sample_project(root: Path) -> Path:
    """This repository's spec/ and right_rag.toml, with an empty documents folder."""
    shutil.copytree(REPO / "spec", root / "spec", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "right_rag.toml", root / "right_rag.toml")
    (root / "data" / "documents").mkdir(parents=True)
    return root


def copy_documents(names: Iterable[str], folder: Path, source: Path = CORPUS) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(source / name, folder / name)


# -- processes ----------------------------------------------------------------------------------------------------

def open_files(pid: int) -> list[tuple[str, int]]:
    """(path, open flags) of every file ``pid`` holds open, from /proc (empty once it is gone)."""
    found = []
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return []
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
            with open(f"/proc/{pid}/fdinfo/{name}", encoding="ascii") as info:
                flags = next(int(line.split()[1], 8) for line in info if line.startswith("flags:"))
        except (OSError, StopIteration, ValueError):
            continue
        found.append((target, flags))
    return found


def children(pid: int) -> list[int]:
    """Direct child processes of ``pid`` (Linux)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def writing(pid: int, path: Path) -> bool:
    """Whether ``pid`` holds ``path`` open for writing (DuckDB opens a read-only store O_RDONLY)."""
    wanted = str(path.resolve())
    return any(target == wanted and flags & os.O_ACCMODE != os.O_RDONLY for target, flags in open_files(pid))
