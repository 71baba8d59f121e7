"""Re-evaluation re-copies and re-cuts only the documents that changed, scores as a from-scratch evaluation does,
and keeps the evaluation store's file bounded (real documents, real DuckDB)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from right_rag_dagster.evaluation import run_evaluation
from right_rag_dagster.evaluation.report import EvaluationReport
from right_rag_dagster.evaluation.workspace import evaluation_store_path
from right_rag_dagster.pipeline import pipeline
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store
from tests.evaluation.conftest import QUESTIONS as LICENCE_QUESTIONS

LICENCES = ("Apache-2.0.txt", "GPL-3.0.txt", "LGPL-3.0.txt", "MPL-2.0.txt")
COPIES = 5  # 20 documents: each licence and four edited copies of it
BASELINES = ["baseline:fixed-chars-500", "baseline:paragraph-1000"]
CHUNKERS = ["default", *BASELINES]
QUESTIONS = [*LICENCE_QUESTIONS[:2],  # over Apache-2.0.txt and MPL-2.0.txt, and one over an edited copy:
             {"id": "gpl-copy2", "question": "What does the GPL say about conveying verbatim copies? copy 2",
              "evidence": [{"document": "GPL-3.0.copy2.txt",
                            "quote": "You may convey verbatim copies of the Program's source code as you receive it"}]}]


def documents_of(root: Path) -> list[Path]:
    return sorted((root / "data" / "documents").iterdir())


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, sample_documents: Path) -> Path:
    """20 licence documents (copies edited so no text repeats), three questions, indexed without Dagster once
    for the module (do not modify: ``project`` copies it)."""
    root = tmp_path_factory.mktemp("incremental") / "project"
    folder = root / "data" / "documents"
    folder.mkdir(parents=True)
    for name in LICENCES:
        text = (sample_documents / name).read_text(encoding="utf-8")
        shutil.copy(sample_documents / name, folder / name)
        stem, suffix = name.rsplit(".", 1)
        for k in range(1, COPIES):
            edited = "\n\n".join(f"{block} [copy {k}]" for block in text.split("\n\n"))
            (folder / f"{stem}.copy{k}.{suffix}").write_text(edited, encoding="utf-8")
    (root / "eval").mkdir()
    (root / "eval" / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    (root / "right_rag.toml").write_text("[right-rag.checks]\nsmoke_test = true\n", encoding="utf-8")
    pipeline(project_dir=root)
    return root


@pytest.fixture
def project(indexed: Path, tmp_path: Path) -> Path:
    """A copy of the indexed project for one test to change (copying costs milliseconds; an index, seconds)."""
    return Path(shutil.copytree(indexed, tmp_path / "project", symlinks=True))


def evaluate(root: Path) -> EvaluationReport:
    return run_evaluation(Project.load(root), chunkers=CHUNKERS, retrievers=["bm25"])


def change(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n\n{line}\n", encoding="utf-8")


def scores(report: EvaluationReport) -> list[dict[str, Any]]:
    """Every run's metrics and ranked hits, without timings (which differ between any two runs)."""
    timing = {"latency_p50_ms", "latency_p95_ms", "index_seconds"}
    rows = [{k: v for k, v in row.items() if k not in timing} for row in report.rows()]
    hits = [[(o.resolved.question.id, [(h.rank, h.chunk_id, h.source_start, h.source_end, round(h.score, 9))
                                       for h in o.hits]) for o in run.outcomes] for run in report.runs]
    return [*rows, *hits]


def chunk_counts(path: Path) -> dict[str, int]:
    with Store(path).read() as con:
        return dict(con.execute("SELECT chunker, count(*) FROM chunks GROUP BY chunker").fetchall())


def from_scratch(root: Path) -> EvaluationReport:
    path = evaluation_store_path(Project.load(root))
    for stale in (path, path.with_name(path.name + ".wal")):
        stale.unlink(missing_ok=True)
    return evaluate(root)


def test_one_changed_document_is_copied_and_cut_again_alone(project: Path) -> None:
    first = evaluate(project).config["evaluation_store_changes"]
    assert first["documents_copied"] == 20
    # no units: nothing reads them
    assert first["parts_copied"] == {"documents": 20, "document_texts": 20, "chunks:default": 20}
    assert first["baseline_recut"] == {name: 20 for name in BASELINES}

    unchanged = evaluate(project).config["evaluation_store_changes"]
    assert unchanged["documents_copied"] == 0 and unchanged["documents_removed"] == 0
    assert unchanged["baseline_recut"] == {name: 0 for name in BASELINES}

    change(project / "data" / "documents" / "GPL-3.0.copy2.txt", "You may also convey it on paper.")
    pipeline(project_dir=project)
    report = evaluate(project)
    changes = report.config["evaluation_store_changes"]
    assert changes["documents_copied"] == 1
    assert changes["parts_copied"] == {"documents": 1, "document_texts": 1, "chunks:default": 1}
    assert changes["baseline_recut"] == {name: 1 for name in BASELINES}
    incremental_counts = chunk_counts(evaluation_store_path(Project.load(project)))

    fresh = from_scratch(project)
    assert fresh.config["evaluation_store_changes"]["baseline_recut"] == {name: 20 for name in BASELINES}
    assert scores(report) == scores(fresh)
    assert incremental_counts == chunk_counts(evaluation_store_path(Project.load(project)))


def test_a_removed_document_leaves_the_evaluation_store(project: Path) -> None:
    evaluate(project)
    (project / "data" / "documents" / "LGPL-3.0.copy3.txt").unlink()
    pipeline(project_dir=project)
    report = evaluate(project)
    changes = report.config["evaluation_store_changes"]
    assert changes["documents_removed"] == 1 and changes["documents_copied"] == 0
    assert changes["baseline_recut"] == {name: 0 for name in BASELINES}
    path = evaluation_store_path(Project.load(project))
    with Store(path).read() as con:
        left = {table: con.execute(f"SELECT count(*) FROM {table} WHERE document_id = 'LGPL-3.0.copy3.txt'")
                .fetchone()[0] for table in ("documents", "document_texts", "units", "chunks", "step_state")}
    assert left == {"documents": 0, "document_texts": 0, "units": 0, "chunks": 0, "step_state": 0}
    counts = chunk_counts(path)
    assert scores(report) == scores(from_scratch(project)) and counts == chunk_counts(path)


def test_units_are_copied_for_context_expansion_only(project: Path) -> None:
    toml = project / "right_rag.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[right-rag.retrieval]\nexpand = true\n", encoding="utf-8")
    expanded = evaluate(project)
    assert expanded.config["evaluation_store_changes"]["parts_copied"] == {"documents": 20, "document_texts": 20,
                                                                           "units": 20, "chunks:default": 20}
    change(project / "data" / "documents" / "MPL-2.0.copy1.txt", "A new closing clause.")
    pipeline(project_dir=project)
    report = evaluate(project)
    assert report.config["evaluation_store_changes"]["parts_copied"] == {"documents": 1, "document_texts": 1,
                                                                         "units": 1, "chunks:default": 1}
    assert scores(report) == scores(from_scratch(project))
    path = evaluation_store_path(Project.load(project))
    with Store(path).read() as con:
        assert con.execute("SELECT count(*) FROM units WHERE NOT active OR changes IS NOT NULL").fetchone()[0] == 0
    toml.write_text(toml.read_text(encoding="utf-8").replace("expand = true", "expand = false"), encoding="utf-8")
    evaluate(project)
    with Store(path).read() as con:
        assert con.execute("SELECT count(*) FROM units").fetchone()[0] == 0


def test_a_baseline_whose_parameters_change_cuts_everything_again(project: Path) -> None:
    evaluate(project)
    report = run_evaluation(Project.load(project), chunkers=["baseline:fixed-chars-500",
                                                             "baseline:fixed-chars-1000-overlap-200"],
                            retrievers=["bm25"])
    assert report.config["evaluation_store_changes"]["baseline_recut"] == {
        "baseline:fixed-chars-500": 0, "baseline:fixed-chars-1000-overlap-200": 20}


def test_the_store_stays_bounded_after_a_tenth_of_the_documents_change(project: Path) -> None:
    evaluate(project)
    path = evaluation_store_path(Project.load(project))
    before = path.stat().st_size
    rewritten = []
    for round_ in range(3):  # three rounds of 10% each
        for document in documents_of(project)[round_::10]:
            change(document, f"Edited in round {round_}.")
        pipeline(project_dir=project)
        report = evaluate(project)
        changes = report.config["evaluation_store_changes"]
        assert changes["baseline_recut"] == {name: 2 for name in BASELINES}
        assert path.stat().st_size <= 1.2 * before, (round_, path.stat().st_size, before)
        rewritten.append(changes["store_rewritten"])
    assert any(rewritten)  # DuckDB alone grows this store by a third per round: the rewrite is what bounds it
    assert scores(report) == scores(from_scratch(project))  # and the rewritten file serves the same results
