"""Parsing workers: kept across runs (a writer process of ``right-rag index --writers N``), every run takes the
same worker processes and a run that ends early leaves fresh ones for the next; jobs are queued ahead of them by
the outcomes they are expected to return."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from right_rag_dagster.pipeline import workers
from right_rag_dagster.pipeline.indexer import Indexer
from right_rag_dagster.pipeline.scan import scan_documents
from right_rag_dagster.pipeline.work import DocumentJob
from right_rag_dagster.pipeline.workers import (
    close_prestarted,
    kept_workers_usage,
    open_workers,
    prestart_workers,
)
from right_rag_dagster.project import Project

from ..orchestration.conftest import CORPUS, make_project


def test_kept_workers_serve_every_run_until_one_fails(tmp_path: Path) -> None:
    project = Project.load(make_project(tmp_path / "project", ("GPL-3.0.txt", "Apache-2.0.txt")))
    indexer = Indexer(project)
    files = scan_documents(project.documents_dir)
    prestart_workers(project, keep=True)
    try:
        pids = []
        for file in files:  # one run per document, as a writer's ranges
            with open_workers(indexer) as pool:
                (outcome,) = list(pool.map([DocumentJob(file)]))
                assert outcome.failure is None and outcome.chunks
                pids.append([w.process.pid for w in pool._workers])
        assert pids[0] == pids[1] and all(w.alive for w in pool._workers)
        cpu, peak_mb = kept_workers_usage()
        assert cpu > 0 and peak_mb > 0  # what the writer's run tags count for them
        with pytest.raises(RuntimeError), open_workers(indexer) as failing:
            raise RuntimeError("the run failed with jobs in flight")
        with open_workers(indexer) as fresh:
            assert fresh is not failing and [w.process.pid for w in fresh._workers] != pids[0]
            assert not any(w.alive for w in failing._workers)
    finally:
        close_prestarted()


def test_jobs_are_queued_ahead_while_their_expected_outcomes_fit(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs are queued ahead of the workers while the outcomes they are expected to return (file size times
    outcome bytes per file byte) fit ``PREFETCH_OUTCOME_BYTES``, so the outcomes waiting while the main process
    writes are bounded by what they hold: a few large files are queued, many small ones."""
    root = make_project(tmp_path / "project", ())
    gpl = (CORPUS / "GPL-3.0.txt").read_bytes()
    for i in range(8):
        (root / "data" / "documents" / f"gpl-{i}.txt").write_bytes(gpl)
        (root / "data" / "documents" / f"note-{i}.txt").write_text(f"Note {i}: nothing to parse.\n")
    project = Project.load(root)
    files = scan_documents(project.documents_dir)
    monkeypatch.setattr(workers, "PREFETCH_OUTCOME_BYTES", 3 * len(gpl) * workers.FIRST_OUTCOME_RATIO)
    with open_workers(Indexer(project)) as pool:
        for prefix, expected in (("gpl-", 3 * len(pool._workers)), ("note-", 8)):
            pulled: list[str] = []

            def jobs(prefix: str = prefix) -> Iterator[DocumentJob]:
                for file in files:
                    if file.path.name.startswith(prefix):
                        pulled.append(file.path.name)
                        yield DocumentJob(file)

            outcomes = pool.map(jobs())
            next(outcomes)
            assert len(pulled) == expected, prefix  # queued before the first outcome came back
            assert len(list(outcomes)) == 7 and len(pulled) == 8
