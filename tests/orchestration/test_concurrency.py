"""Two runs writing the same DuckDB file at once, and a reader beside them: none fails, no write is lost."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from .conftest import make_project

WRITER = textwrap.dedent("""
    import sys
    import dagster as dg
    from right_rag_dagster.orchestration.definitions import build_definitions
    from right_rag_dagster.project import Project

    project = Project.load(sys.argv[1])
    with dg.DagsterInstance.get() as instance:
        job = build_definitions(project).resolve_job_def("index_documents")
        result = job.execute_in_process(instance=instance, tags={
            "dagster/asset_partition_range_start": sys.argv[2], "dagster/asset_partition_range_end": sys.argv[3]})
        sys.exit(0 if result.success else 1)
""")

READER = textwrap.dedent("""
    import sys, time
    from right_rag_dagster.store import Store
    store = Store(sys.argv[1], lock_timeout=60)
    reads = 0
    deadline = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < deadline:
        if store.exists():
            try:
                with store.read() as con:
                    con.execute("SELECT count(*) FROM chunks").fetchone()
                reads += 1
            except Exception as exc:
                if "schema version 0" in str(exc):  # file created but not migrated yet
                    continue
                raise
        time.sleep(0.01)
    print(reads)
""")


@pytest.mark.slow
def test_two_concurrent_runs_and_a_reader_all_succeed(tmp_path: Path):
    project_dir = make_project(tmp_path / "project")
    docs = project_dir / "data" / "documents"
    for i in range(4):  # 15 documents, so the two runs overlap in time
        for name in ("GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt"):
            shutil.copy(docs / name, docs / f"copy{i}-{name}")
    keys = sorted(p.name for p in docs.iterdir())
    home = tmp_path / "dagster_home"
    home.mkdir()
    env = {**os.environ, "DAGSTER_HOME": str(home)}
    import dagster as dg

    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.add_dynamic_partitions("documents", keys)
    half = len(keys) // 2
    store_path = Project.load(project_dir).store_path
    Store(store_path).ensure()
    reader = subprocess.Popen([sys.executable, "-c", READER, str(store_path), "20"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(project_dir), start, end], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for start, end in ((keys[0], keys[half - 1]), (keys[half], keys[-1]))]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err[-3000:]
    out, err = reader.communicate(timeout=120)
    assert reader.returncode == 0, err[-3000:]
    assert int(out.strip()) > 0
    with Store(store_path).read() as con:
        documents = con.execute("SELECT count(*) FROM documents").fetchone()[0]
        chunked = con.execute("SELECT count(DISTINCT document_id) FROM chunks").fetchone()[0]
        runs = con.execute("SELECT count(DISTINCT run_id) FROM materializations").fetchone()[0]
    assert documents == len(keys) and chunked == len(keys)
    assert runs == 2
