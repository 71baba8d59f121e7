"""One document crashing mid-index never stops the others, leaves no partial rows, and heals on the next run."""

from __future__ import annotations

from pathlib import Path

from right_rag_dagster.pipeline import pipeline
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from ..orchestration.conftest import make_project

FLAKY_SAVER = '''
from pathlib import Path
from right_rag_dagster.interfaces import UnitSaver


class FlakySaver(UnitSaver):
    """Crashes on LGPL while a marker file exists (an unexpected error, not a rejection)."""

    @property
    def saver_name(self):
        return "flaky"

    def save_units(self, document_id, units, output_dir):
        if document_id == "LGPL-3.0.txt" and (Path(output_dir).parent / "CRASH").exists():
            raise RuntimeError("disk on fire")
'''


def rows(store: Store, document_id: str) -> dict[str, int]:
    with store.read() as con:
        return {t: con.execute(f"SELECT count(*) FROM {t} WHERE document_id = ?", [document_id]).fetchone()[0]
                for t in ("units", "chunks", "coverage", "step_state")}


def test_crash_is_isolated_recorded_and_healed(tmp_path: Path):
    root = make_project(tmp_path / "p")
    (root / "spec" / "unit_savers").mkdir()
    (root / "spec" / "unit_savers" / "flaky.py").write_text(FLAKY_SAVER)
    (root / "CRASH").write_text("")
    counts = pipeline(project_dir=root)
    store = Store(Project.load(root).store_path)
    assert counts["document:failed"] == 1
    assert rows(store, "LGPL-3.0.txt") == {"units": 0, "chunks": 0, "coverage": 0, "step_state": 0}
    assert rows(store, "GPL-3.0.txt")["chunks"] > 0 and rows(store, "Apache-2.0.txt")["chunks"] > 0
    with store.read() as con:
        reason = con.execute("SELECT reason FROM rejections WHERE document_id = 'LGPL-3.0.txt'").fetchone()[0]
    assert "RuntimeError: disk on fire" in reason and "flaky.py" in reason

    (root / "CRASH").unlink()
    counts = pipeline(project_dir=root)
    assert counts["unchanged"] == 2 and counts["units:materialized"] == 1
    assert rows(store, "LGPL-3.0.txt")["chunks"] > 0
    with store.read() as con:
        assert con.execute("SELECT count(*) FROM rejections").fetchone()[0] == 0


def test_out_of_memory_names_the_setting(tmp_path: Path, monkeypatch):
    import pytest

    from right_rag_dagster.errors import StoreError

    store = Store(tmp_path / "s.duckdb")
    store.ensure()
    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "2MB")
    with pytest.raises(StoreError, match="RIGHT_RAG_DUCKDB_MEMORY_LIMIT"):
        with store.write() as con:
            con.execute("CREATE TABLE big AS SELECT range AS i, repeat('x', 200) AS s FROM range(300000)")
            con.execute("SELECT i, s FROM big ORDER BY s DESC, i LIMIT 1 OFFSET 0").fetchall()
            con.execute("SELECT list(s) FROM big").fetchall()
