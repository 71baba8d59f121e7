"""Shared fixtures: the sample documents shipped with the repository and a writer for spec/ plugin files."""

from __future__ import annotations

import fcntl
import os
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """Keep the order below under ``--dist loadfile``: xdist otherwise sorts the files by their number of tests,
    which sent the long files of one to three slow tests (the 100 MB document, the Dagster UI) to the end."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files holding slow tests first, each file's tests kept together and in order: the test workers
    (``scripts/test``) take whole files in collection order, and a long file collected last ran alone at the end."""
    files = {id(item): item.nodeid.split("::")[0] for item in items}
    slow_files = {files[id(item)] for item in items if item.get_closest_marker("slow")}
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(files[id(item)], index)
    items.sort(key=lambda item: (files[id(item)] not in slow_files, first_seen[files[id(item)]]))


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """``build(folder)`` run once per test run, however many test workers need it, and a copy of ``folder`` for
    this worker (its tests may write there as in a folder built for them alone; copying costs milliseconds, the
    builds seconds). Under ``scripts/test``'s workers each session fixture used to be built once per worker: the
    first worker to get here builds in the run's base temporary folder, the other waits for it and copies it.
    What ``build`` stores keeps pointing into the built folder (the retrieval store's document paths), which lives
    as long as the run."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # parent: this run's, shared
    built, done = shared / f"built-{name}", shared / f"built-{name}.done"
    with open(shared / f"built-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(built, ignore_errors=True)
            built.mkdir()
            build(built)
            done.touch()
    return Path(shutil.copytree(built, tmp_path_factory.mktemp(name) / name, symlinks=True))


@pytest.fixture(scope="session")
def sample_documents() -> Path:
    """``data/documents/``: real corpus files (licences as text, Debian PDFs, an HTML specification)."""
    return REPO_ROOT / "data" / "documents"


@pytest.fixture
def write_plugin() -> Callable[[Path, str, str, str], Path]:
    """Write ``source`` (dedented) to ``spec_dir/kind/relative`` and return the file's path."""

    def write(spec_dir: Path, kind: str, relative: str, source: str) -> Path:
        path = spec_dir / kind / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def local_postgres():
    """A real PostgreSQL server for the session: initdb into a temporary folder, started on a free port on
    127.0.0.1, stopped and deleted at the end (``store.local_postgres``; as root it runs as ``postgres``)."""
    from right_rag_dagster.store.local_postgres import start_local_postgres

    server = start_local_postgres()
    try:
        yield server
    finally:
        server.stop()
