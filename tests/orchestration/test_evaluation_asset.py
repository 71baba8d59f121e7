"""The evaluation asset on a real Dagster instance: never inside a run that indexes, materialized on request,
and requested in a run of its own by its automation sensor (through the real asset daemon) after an index."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.test_utils import freeze_time
from dagster._daemon.asset_daemon import AssetDaemon
from dagster._daemon.sensor import execute_sensor_iteration
from dagster_graphql.test.utils import execute_dagster_graphql

from right_rag_dagster.orchestration.definitions import build_definitions
from right_rag_dagster.orchestration.defs.evaluation import AUTOMATION_SENSOR, TREND_METRICS
from right_rag_dagster.orchestration.local import run_local
from right_rag_dagster.orchestration.names import (
    DOCUMENT_JOB,
    EVALUATION_KEY,
    REFRESH_JOB,
)
from right_rag_dagster.pipeline.indexer import Indexer
from right_rag_dagster.pipeline.plan import known_files, plan_index
from right_rag_dagster.pipeline.scan import scan_documents
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from .test_backfill_ui import workspace

LOGGER = logging.getLogger("test_evaluation_asset")
QUESTIONS = [
    {"id": "apache-patent", "question": "When do my patent licenses end if I sue someone over a patent?",
     "evidence": [{"document": "Apache-2.0.txt", "quote": "shall terminate as of the date such litigation is filed"}]},
    {"id": "gpl-verbatim", "question": "May I convey verbatim copies of the Program's source code?",
     "evidence": [{"document": "GPL-3.0.txt", "quote": "You may convey verbatim copies of the Program's source code "
                                                        "as you receive it"}]},
]
ASSET_NODE = """
query { assetNodes(assetKeys: [{path: ["evaluation"]}]) {
  description groupName automationCondition { label }
  assetMaterializations(limit: 1) { runId metadataEntries { label } } } }
"""


@pytest.fixture
def questions_project(project_dir: Path) -> Path:
    """The orchestration project with a questions file and a hashing embedder (dense without a model)."""
    toml = project_dir / "right_rag.toml"
    toml.write_text(toml.read_text() + '\n[right-rag.retrieval]\nembedder = "hashing:64"\n', encoding="utf-8")
    (project_dir / "eval").mkdir()
    (project_dir / "eval" / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS),
                                                          encoding="utf-8")
    return project_dir


@pytest.fixture
def instance():
    with dg.instance_for_test(synchronous_run_coordinator=True, synchronous_run_launcher=True) as inst:
        yield inst


def index(project_dir: Path, instance: dg.DagsterInstance):
    """`right-rag index`: plan, then run the document job with the refresh (the job's whole selection)."""
    project = Project.load(project_dir)
    store = Store(project.store_path)
    files = scan_documents(project.documents_dir, known_files(store))
    plan = plan_index(Indexer(project), store, files)
    return run_local(project, plan, [f.partition_key for f in files], refresh=True, instance=instance)


def planned_or_materialized(instance: dg.DagsterInstance, run_id: str) -> set[dg.AssetKey]:
    events = instance.all_logs(run_id)
    return {e.dagster_event.asset_key for e in events if e.dagster_event and e.dagster_event.event_type_value in
            ("ASSET_MATERIALIZATION", "ASSET_MATERIALIZATION_PLANNED")}


def evaluation_runs(instance: dg.DagsterInstance) -> list[dg.DagsterRun]:
    return [run for run in instance.get_runs() if EVALUATION_KEY in planned_or_materialized(instance, run.run_id)]


def test_index_runs_never_materialize_the_evaluation(questions_project: Path, instance) -> None:
    first = index(questions_project, instance)
    path = questions_project / "data" / "documents" / "Apache-2.0.txt"
    path.write_text(path.read_text() + "\n  10. Quokkas.\n\n      Every quokka clause is searchable.\n")
    second = index(questions_project, instance)
    path.unlink()
    removal = index(questions_project, instance)  # removals alone: the refresh job
    defs = build_definitions(Project.load(questions_project))
    refresh = defs.resolve_job_def(REFRESH_JOB).execute_in_process(instance=instance)
    runs = {first.document_run_id, second.document_run_id, removal.refresh_run_id, refresh.run_id}
    assert {instance.get_run_by_id(r).job_name for r in runs} == {DOCUMENT_JOB, REFRESH_JOB}
    assert all(planned_or_materialized(instance, r) for r in runs)  # each run did materialize something
    assert evaluation_runs(instance) == []
    assert instance.get_latest_materialization_event(EVALUATION_KEY) is None
    assert not (Project.load(questions_project).store_path.parent / "evaluation.duckdb").exists()
    graph = defs.resolve_asset_graph()
    for job in (DOCUMENT_JOB, REFRESH_JOB):
        assert EVALUATION_KEY not in defs.resolve_job_def(job).asset_layer.selected_asset_keys
    assert graph.get(EVALUATION_KEY).group_name == "evaluation"


def test_the_evaluation_materializes_on_request(questions_project: Path, instance) -> None:
    index(questions_project, instance)
    defs = build_definitions(Project.load(questions_project))
    job = defs.resolve_implicit_global_asset_job_def()
    result = job.execute_in_process(instance=instance, asset_selection=[EVALUATION_KEY])  # the UI's "Materialize"
    metadata = instance.get_latest_materialization_event(EVALUATION_KEY).asset_materialization.metadata
    assert result.success and metadata["questions"].value == 2 and metadata["best_chunker"].value == "default"
    # the project names an embedder, so what it queries with, and what is evaluated, is hybrid
    assert (metadata["chunker"].value, metadata["retriever"].value, metadata["best_retriever"].value) == (
        "default", "hybrid", "hybrid")
    assert metadata["reranker"].value == "none"  # the default with this embedder (hashing): as a query ranks
    plotted = {name: metadata[name].value for name in TREND_METRICS}
    assert metadata["documents_copied"].value == 3
    assert metadata["baseline_documents_recut"].value == 0 and metadata["evaluation_store_mb"].value > 0

    compare = {"ops": {"evaluation": {"config": {"compare": True}}}}  # the launchpad's config
    job.execute_in_process(instance=instance, asset_selection=[EVALUATION_KEY], run_config=compare)
    metadata = instance.get_latest_materialization_event(EVALUATION_KEY).asset_materialization.metadata
    assert metadata["documents_copied"].value == 0 and metadata["baseline_documents_recut"].value == 3 * 8
    assert len(metadata["rows"].value) == 3 * (4 + 8)  # 3 retrievers x (own chunker x 4 identities, 8 baselines)
    # the plotted figures are the same run's with or without the comparison (the best run's may be another's)
    assert {name: metadata[name].value for name in TREND_METRICS} == plotted
    assert metadata["retriever"].value == "hybrid"
    job.execute_in_process(instance=instance, asset_selection=[EVALUATION_KEY], run_config=compare)
    metadata = instance.get_latest_materialization_event(EVALUATION_KEY).asset_materialization.metadata
    assert metadata["baseline_documents_recut"].value == 0  # cached: nothing changed


def test_automation_requests_the_evaluation_after_each_index(questions_project: Path, instance) -> None:
    defs = build_definitions(Project.load(questions_project))
    sensor = defs.resolve_sensor_def(AUTOMATION_SENSOR)
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
    assert sensor.asset_selection.resolve(defs.resolve_asset_graph()) == {EVALUATION_KEY}

    result = dg.evaluate_automation_conditions(defs=defs, instance=instance)
    assert result.total_requested == 0  # nothing indexed yet
    index(questions_project, instance)
    result = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=result.cursor)
    assert result.get_requested_partitions(EVALUATION_KEY) == {None}
    defs.resolve_implicit_global_asset_job_def().execute_in_process(instance=instance, asset_selection=[EVALUATION_KEY])
    result = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=result.cursor)
    assert result.total_requested == 0  # evaluated since the indexes changed
    path = questions_project / "data" / "documents" / "GPL-3.0.txt"
    path.write_text(path.read_text() + "\n  18. Wombats.\n\n      A wombat clause.\n")
    index(questions_project, instance)
    result = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=result.cursor)
    assert result.total_requested == 1


@pytest.mark.slow
def test_under_the_daemons_the_evaluation_runs_apart_after_the_index_run(questions_project: Path, instance) -> None:
    """As under `dagster dev`: the folder sensor's tick launches the index run, then the asset daemon's next
    iteration (the automation sensor, running by default) launches the evaluation in a run of its own."""
    with workspace(questions_project, instance) as context:
        now = time.time()
        daemon = AssetDaemon(settings=instance.get_auto_materialize_settings(), pre_sensor_interval_seconds=0)

        def automation_tick(at: float) -> None:
            with freeze_time(at):
                daemon._run_iteration_impl(context, threadpool_executor=None, amp_tick_futures={},
                                           debug_crash_flags={})

        automation_tick(now)  # `dagster dev` starting: nothing indexed, nothing to request
        assert instance.get_runs() == []
        with freeze_time(now + 60):
            list(execute_sensor_iteration(context, LOGGER, None, None))
        (index_run,) = instance.get_runs()
        assert index_run.job_name == DOCUMENT_JOB and index_run.status == dg.DagsterRunStatus.SUCCESS
        automation_tick(now + 120)
        (evaluation_run,) = evaluation_runs(instance)
        assert evaluation_run.run_id != index_run.run_id
        assert evaluation_run.status == dg.DagsterRunStatus.SUCCESS
        assert EVALUATION_KEY not in planned_or_materialized(instance, index_run.run_id)

        result = execute_dagster_graphql(context.create_request_context(), ASSET_NODE)  # what the UI shows
        assert not result.errors, result.errors
        (node,) = result.data["assetNodes"]
        assert node["groupName"] == "evaluation" and node["automationCondition"]["label"] == "eager"
        assert "never inside an indexing run" in node["description"]
        (materialization,) = node["assetMaterializations"]
        labels = {entry["label"] for entry in materialization["metadataEntries"]}
        assert materialization["runId"] == evaluation_run.run_id
        assert {"best_mrr@10", "comparison", "documents_copied", "evaluation_store_mb", "playground"} <= labels
