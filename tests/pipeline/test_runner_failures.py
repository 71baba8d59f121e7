"""Failures while indexing stay with their document: a crashed worker, a saver that fails after the commit, a
DuckDB write that runs out of memory. Nothing already indexed is lost, and the next run heals."""

from __future__ import annotations

from pathlib import Path

import pytest

from right_rag_dagster.errors import StoreMemoryError
from right_rag_dagster.pipeline import pipeline
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from ..orchestration.conftest import make_project

CRASHING_PARSER = '''
import os
import re
import signal
from pathlib import Path
from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import ParsedUnit


class CrashOnLgpl(UnitParser):
    """Kills its own process on LGPL while a marker file exists (a segfault in a C extension looks the same)."""

    @property
    def parser_name(self):
        return "gnu-licence"

    def parser_can_handle_document(self, document):
        return "GNU" in document.text[:2000] and "GENERAL PUBLIC LICENSE" in document.text[:2000]

    def parse_document(self, document):
        if "LESSER" in document.text[:2000] and (Path(document.source).parents[2] / "CRASH").exists():
            os.kill(os.getpid(), signal.SIGKILL)
        for m in re.finditer(r"(?m)^\\s*(\\d+)\\. (.+)$", document.text):
            end = document.text.find("\\n\\n", m.end())
            end = len(document.text) if end < 0 else end
            yield ParsedUnit(topic=f"Section {m.group(1)}", key=f"{m.group(1)}-{m.start()}",
                             fulltext=document.text[m.start():end], source_start=m.start(), source_end=end)
'''

FLAKY_SAVER = '''
from pathlib import Path
from right_rag_dagster.interfaces import UnitSaver


class FlakySaver(UnitSaver):
    """Fails on LGPL (after the store committed its rows)."""

    @property
    def saver_name(self):
        return "flaky"

    def save_units(self, document_id, units, output_dir):
        if document_id == "LGPL-3.0.txt":
            raise RuntimeError("disk on fire")
'''


def rows(store: Store, document_id: str) -> dict[str, int]:
    with store.read() as con:
        return {t: con.execute(f"SELECT count(*) FROM {t} WHERE document_id = ?", [document_id]).fetchone()[0]
                for t in ("units", "chunks", "coverage")}


def test_a_worker_killed_mid_document_fails_that_document_only_and_the_next_run_heals(tmp_path: Path):
    root = make_project(tmp_path / "p")
    (root / "spec" / "unit_parsers" / "gnu.py").write_text(CRASHING_PARSER)
    (root / "CRASH").write_text("")
    counts = pipeline(project_dir=root)
    store = Store(Project.load(root).store_path)
    assert counts["document:failed"] == 1
    assert rows(store, "LGPL-3.0.txt") == {"units": 0, "chunks": 0, "coverage": 0}
    assert rows(store, "GPL-3.0.txt")["chunks"] > 0 and rows(store, "Apache-2.0.txt")["chunks"] > 0
    with store.read() as con:
        reason = con.execute("SELECT reason FROM rejections WHERE document_id = 'LGPL-3.0.txt'").fetchone()[0]
    assert "killed by signal 9 while parsing with 'gnu-licence'" in reason

    (root / "CRASH").unlink()
    (root / "spec" / "unit_parsers" / "gnu.py").write_text(CRASHING_PARSER + "\n# fixed\n")  # a new version
    pipeline(project_dir=root)
    assert rows(store, "LGPL-3.0.txt")["chunks"] > 0
    with store.read() as con:
        assert con.execute("SELECT count(*) FROM rejections").fetchone()[0] == 0


def test_a_saver_failing_after_the_commit_is_reported_and_loses_nothing(tmp_path: Path, caplog):
    root = make_project(tmp_path / "p")
    (root / "spec" / "unit_savers").mkdir()
    (root / "spec" / "unit_savers" / "flaky.py").write_text(FLAKY_SAVER)
    counts = pipeline(project_dir=root)
    store = Store(Project.load(root).store_path)
    assert counts["document:warning"] == 1
    assert rows(store, "LGPL-3.0.txt")["chunks"] > 0
    assert "saver 'flaky' failed on LGPL-3.0.txt: RuntimeError: disk on fire" in caplog.text


def test_out_of_memory_is_its_own_error_naming_the_setting(tmp_path: Path, monkeypatch):
    store = Store(tmp_path / "s.duckdb")
    store.ensure()
    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "2MB")
    with pytest.raises(StoreMemoryError, match="RIGHT_RAG_DUCKDB_MEMORY_LIMIT"):
        with store.write() as con:
            con.execute("CREATE TABLE big AS SELECT range AS i, repeat('x', 200) AS s FROM range(300000)")
            con.execute("SELECT i, s FROM big ORDER BY s DESC, i LIMIT 1 OFFSET 0").fetchall()
            con.execute("SELECT list(s) FROM big").fetchall()


def test_a_memory_limit_that_is_not_a_size_is_refused(tmp_path: Path, monkeypatch):
    from right_rag_dagster.errors import ConfigError

    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "1GB'; DROP TABLE documents; --")
    with pytest.raises(ConfigError, match="not a memory size"):
        Store(tmp_path / "s.duckdb").ensure()
