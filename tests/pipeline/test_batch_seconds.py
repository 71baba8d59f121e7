"""Write batches are committed at least every ``batch_seconds``: concurrent writers on a DuckLake wait N times as
long (``writers.writer_count``), so together they commit as often as one writer."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from right_rag_dagster.orchestration.writers import WRITER_TAG, writer_count
from right_rag_dagster.pipeline import runner
from right_rag_dagster.pipeline.indexer import Indexer
from right_rag_dagster.pipeline.plan import scan_and_plan
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from ..orchestration.conftest import make_project


@pytest.mark.parametrize(("seconds", "batches"), [(0.0, 3), (3600.0, 1)])
def test_a_batch_is_committed_after_batch_seconds(tmp_path: Path, monkeypatch, seconds: float, batches: int) -> None:
    monkeypatch.setattr(runner, "FIRST_WRITE_AFTER", 1)
    project = Project.load(make_project(tmp_path / "project"))
    store, indexer = Store.for_project(project), Indexer(project)
    _, plan = scan_and_plan(indexer, store, project.documents_dir)
    assert len(plan.todo) == 3
    written = [{e.document_id for e in events}
               for events in runner.process_documents(indexer, store, plan.todo, "run", batch_seconds=seconds)]
    assert len(written) == batches and set().union(*written) == {f.document_id for f in plan.todo}


def test_writer_count_is_the_n_of_the_writer_tag() -> None:
    def run(tags: dict[str, str]) -> dg.DagsterRun:
        return dg.DagsterRun(job_name="index_documents", run_id="r", tags=tags)

    assert writer_count(run({WRITER_TAG: "1/2"})) == 2
    assert writer_count(run({WRITER_TAG: "0/3"})) == 3
    assert writer_count(run({})) == 1 and writer_count(run({WRITER_TAG: "x"})) == 1
