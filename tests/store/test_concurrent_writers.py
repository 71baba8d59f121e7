"""Two writer processes on disjoint documents of one DuckLake (catalog in a real local PostgreSQL) at once:
nothing is lost, nothing is doubled, and the result equals one writer's on the embedded DuckDB file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from right_rag_dagster.pipeline import pipeline
from right_rag_dagster.pipeline.shards import shard_of
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval import search
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store

from ..orchestration.conftest import make_project
from .test_backends import lake_section

SCALE = Path("/work/shared/corpus/scale")
REPO_ROOT = Path(__file__).resolve().parents[2]
SUMMARY_SQL = ("SELECT d.document_id, count(DISTINCT u.unit_id), count(u.unit_id) FROM documents d "
               "LEFT JOIN units u USING (document_id) GROUP BY 1 ORDER BY 1")
CHUNKS_SQL = "SELECT chunker, chunk_id, document_id, fulltext FROM chunks ORDER BY chunker, chunk_id"


def _project(root: Path, documents: list[Path]) -> Path:
    make_project(root, documents=())
    for path in documents:
        shutil.copy(path, root / "data" / "documents" / path.name)
    config = root / "right_rag.toml"  # the built-in parsers: the licence parsers accept none of these files
    config.write_text('[right-rag]\n\n[right-rag.pipeline]\nunit_parsers = ["default"]\nchunk_parsers = ["default"]\n'
                      '\n[right-rag.checks]\nsmoke_test = true\n', encoding="utf-8")
    return root


def _documents() -> list[Path]:
    """Forty real Debian copyright files (the scale corpus) when present, else the repository's sample texts."""
    if SCALE.is_dir():
        return sorted(SCALE.glob("*.copyright"))[:40]
    return sorted(p for p in (REPO_ROOT / "data" / "documents").iterdir() if p.suffix == ".txt")


@pytest.mark.slow
def test_two_writers_on_disjoint_documents_lose_nothing(tmp_path: Path, local_postgres) -> None:
    documents = _documents()
    assert len({shard_of(p.name, 2) for p in documents}) == 2  # both writers get work
    lake_root = _project(tmp_path / "lake", documents)
    with open(lake_root / "right_rag.toml", "a", encoding="utf-8") as config:
        config.write(lake_section(local_postgres, tmp_path / "lake-data"))
    Store.for_project(Project.load(lake_root)).ensure()  # created once, so the writers race on rows only
    writers = [subprocess.Popen([sys.executable, "-m", "right_rag_dagster.pipeline.shards", str(lake_root),
                                 str(shard), "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for shard in (0, 1)]
    results = []
    for writer in writers:
        out, err = writer.communicate(timeout=600)
        assert writer.returncode == 0, err[-3000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    print("writers:", results)
    assert sum(r["documents"] for r in results) == len(documents)
    assert all(r["documents"] > 0 for r in results)
    finished = subprocess.run([sys.executable, "-m", "right_rag_dagster.pipeline.shards", str(lake_root),
                               "--finish"], capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr[-3000:]

    embedded_root = _project(tmp_path / "embedded", documents)
    pipeline(project_dir=embedded_root)
    clear_cache()
    lake_store = Store.for_project(Project.load(lake_root))
    embedded_store = Store.for_project(Project.load(embedded_root))
    with lake_store.read() as lake, embedded_store.read() as embedded:
        lake_summary = lake.execute(SUMMARY_SQL).fetchall()
        assert lake_summary == embedded.execute(SUMMARY_SQL).fetchall()
        assert len(lake_summary) == len(documents)
        assert all(distinct == total for _, distinct, total in lake_summary)  # no unit written twice
        assert lake.execute(CHUNKS_SQL).fetchall() == embedded.execute(CHUNKS_SQL).fetchall()
        runs = {r[0] for r in lake.execute("SELECT DISTINCT run_id FROM materializations").fetchall()}
    assert {run.split("-of-")[0] for run in runs if run.startswith("shard-")} == {"shard-0", "shard-1"}
    query = "permission is hereby granted free of charge"
    lake_hits = [(h.chunk_id, round(h.score, 6)) for h in search(lake_store, query, chunker="default", k=10)]
    from right_rag_dagster.retrieval import build_search_index

    build_search_index(embedded_store, "default")
    assert lake_hits == [(h.chunk_id, round(h.score, 6)) for h in search(embedded_store, query, chunker="default",
                                                                          k=10)]


@pytest.mark.slow
def test_a_commit_that_loses_to_another_writer_is_retried(tmp_path: Path, local_postgres) -> None:
    from right_rag_dagster.store import content
    from right_rag_dagster.store.lake import StoreConflictError

    root = _project(tmp_path / "lake", [])
    with open(root / "right_rag.toml", "a", encoding="utf-8") as config:
        config.write(lake_section(local_postgres, tmp_path / "lake-data"))
    project = Project.load(root)
    first, second = Store.for_project(project), Store.for_project(project)
    first.ensure()
    with first.write() as con:
        content.set_step_state(con, "refresh", "*", "done", None)

    def mark(value: str, interleave: bool) -> str:
        with first.write() as con:
            content.set_step_state(con, "refresh", "*", value, None)
            if interleave:  # another writer replaces the same row and commits first
                with second.write() as other:
                    content.set_step_state(other, "refresh", "*", "theirs", None)
        return value

    with pytest.raises(StoreConflictError):
        mark("lost", interleave=True)
    attempts = iter([True, False])
    assert first.retry_conflicts(lambda: mark("ours", interleave=next(attempts))) == "ours"
    assert first.conflicts == 1
    with first.read() as con:
        assert con.execute("SELECT cache_key FROM step_state WHERE step = 'refresh'").fetchall() == [("ours",)]


def test_several_writers_need_a_lake(tmp_path: Path) -> None:
    from right_rag_dagster.errors import ConfigError
    from right_rag_dagster.pipeline.shards import index_shard

    root = _project(tmp_path / "embedded", [])
    with pytest.raises(ConfigError, match="need a DuckLake store"):
        index_shard(root, 0, 2)
    # The same split in every process and release (sha256, not Python's salted hash): pinned values.
    assert [shard_of(name, 3) for name in ("GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt", "MPL-2.0.txt",
                                           "nodejs.copyright", "bash.copyright")] == [2, 0, 0, 2, 0, 1]
    assert {shard_of(f"doc-{i}.txt", 3) for i in range(30)} == {0, 1, 2}
