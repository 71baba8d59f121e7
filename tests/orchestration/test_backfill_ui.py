"""Asset backfills launched the way the Dagster UI launches them, driven through Dagster's real machinery.

The backfill is created by the UI's GraphQL mutation ``launchPartitionBackfill`` (pure asset backfill: the
asset nodes' first common job is the hidden ``__ASSET_JOB``, so the dialog sends ``assetSelection`` plus
``partitionNames``), then the backfill daemon's ``execute_backfill_iteration`` is ticked until the backfill
leaves REQUESTED. The instance's run launcher is synchronous, so each run the daemon submits executes (default
multiprocess executor, as under ``dagster dev``) before the tick returns.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.execution.backfill import BulkActionStatus
from dagster._core.remote_origin import InProcessCodeLocationOrigin
from dagster._core.storage.tags import BACKFILL_ID_TAG
from dagster._core.test_utils import (
    InProcessTestWorkspaceLoadTarget,
    create_test_daemon_workspace_context,
)
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster._daemon.backfill import execute_backfill_iteration
from dagster_graphql.test.utils import execute_dagster_graphql

from right_rag_dagster.orchestration.local import sync_partitions
from right_rag_dagster.orchestration.names import (
    AUDIT_REPORT_KEY,
    chunks_key,
    search_index_key,
    units_key,
)

from .conftest import indexed_copy, indexed_template
from .test_refresh import index_with_refresh

DOCUMENTS = ["GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt"]
GNU_DOCUMENTS = ["GPL-3.0.txt", "LGPL-3.0.txt"]
GNU_UNITS = units_key("gnu-licence")  # ["units", "gnu_licence"]
LOGGER = logging.getLogger("test_backfill_ui")

LAUNCH_PARTITION_BACKFILL = """
mutation LaunchPartitionBackfill($backfillParams: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $backfillParams) {
    __typename
    ... on LaunchBackfillSuccess { backfillId }
    ... on PythonError { message stack }
    ... on PartitionSetNotFoundError { message }
  }
}
"""


SYNCHRONOUS = {"synchronous_run_coordinator": True, "synchronous_run_launcher": True}


@pytest.fixture
def instance():
    # Synchronous coordinator and launcher: the daemon's run submission executes the run.
    with dg.instance_for_test(**SYNCHRONOUS) as inst:
        yield inst


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The licence project after `right-rag index` (documents and refresh), with its instance's folder (do not
    modify: ``indexed`` copies it)."""
    return indexed_template(tmp_path_factory.mktemp("indexed"), index_with_refresh, **SYNCHRONOUS)


@pytest.fixture
def indexed(template: Path, tmp_path: Path) -> Iterator[tuple[Path, dg.DagsterInstance]]:
    """A copy of the indexed project and the instance that indexed it, as if the test had just run the index."""
    with indexed_copy(template, tmp_path / "indexed", **SYNCHRONOUS) as copy:
        yield copy


@contextmanager
def workspace(project_dir: Path, instance: dg.DagsterInstance) -> Iterator[WorkspaceProcessContext]:
    """A daemon workspace with one in-process code location: the project's Definitions, loaded from a file so
    the runs (executed in a subprocess) can reconstruct the job."""
    defs_file = project_dir.parent / "backfill_defs.py"
    defs_file.write_text(
        "from right_rag_dagster.orchestration.definitions import build_definitions\n"
        "from right_rag_dagster.project import Project\n"
        f"defs = build_definitions(Project.load({str(project_dir)!r}))\n")
    origin = LoadableTargetOrigin(executable_path=sys.executable, python_file=str(defs_file), attribute="defs",
                                  working_directory=str(project_dir.parent))
    target = InProcessTestWorkspaceLoadTarget(InProcessCodeLocationOrigin(origin, location_name="right_rag"))
    with create_test_daemon_workspace_context(target, instance) as context:
        yield context


def launch_backfill(context: WorkspaceProcessContext, assets: list[dg.AssetKey],
                    partitions: list[str] | None) -> str:
    """What the UI's "Launch backfill" button sends for a selection whose common job is ``__ASSET_JOB``: the chosen
    partitions, or (``None``) every partition of each asset, as for assets partitioned differently."""
    chosen = {"partitionNames": partitions} if partitions is not None else {"allPartitions": True}
    params = {"assetSelection": [{"path": key.path} for key in assets], **chosen, "fromFailure": False, "tags": []}
    result = execute_dagster_graphql(context.create_request_context(), LAUNCH_PARTITION_BACKFILL,
                                     variables={"backfillParams": params})
    assert not result.errors, result.errors
    launched = result.data["launchPartitionBackfill"]
    assert launched["__typename"] == "LaunchBackfillSuccess", launched
    return launched["backfillId"]


def run_backfill_daemon(context: WorkspaceProcessContext, backfill_id: str, max_ticks: int = 8):
    """Tick the backfill daemon until the backfill is no longer REQUESTED; returns (backfill, its runs)."""
    instance = context.instance
    for _ in range(max_ticks):
        errors = [e for e in execute_backfill_iteration(context, LOGGER) if e is not None]
        assert not errors, errors[0].to_string()
        backfill = instance.get_backfill(backfill_id)
        if backfill.status != BulkActionStatus.REQUESTED:
            break
    runs = instance.get_runs(filters=dg.RunsFilter(tags={BACKFILL_ID_TAG: backfill_id}))
    return backfill, list(reversed(runs))


def materializations(instance: dg.DagsterInstance, run_ids) -> set[tuple[str, str | None]]:
    return {(e.dagster_event.asset_key.to_user_string(), e.dagster_event.partition)
            for run_id in run_ids
            for e in instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)}


def check_evaluations(instance: dg.DagsterInstance, run_ids) -> set[str]:
    return {e.dagster_event.event_specific_data.check_name
            for run_id in run_ids
            for e in instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)}


def test_backfill_of_one_parser_after_its_edit_rematerializes_only_its_partitions(indexed):
    """README: "backfill the parser's units/... asset; only documents that parser owns are re-parsed"."""
    project_dir, instance = indexed
    parser = project_dir / "spec" / "unit_parsers" / "gnu.py"
    parser.write_text(parser.read_text() + "\n# edited: a new code version, same units\n")
    runs_before = {r.run_id for r in instance.get_runs()}
    with workspace(project_dir, instance) as context:
        backfill_id = launch_backfill(context, [GNU_UNITS], GNU_DOCUMENTS)
        backfill, runs = run_backfill_daemon(context, backfill_id)
    assert runs and all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs), [(r.run_id, r.status) for r in runs]
    assert {r.run_id for r in instance.get_runs()} - runs_before == {r.run_id for r in runs}
    assert len(runs) == 1 and runs[0].asset_selection == {GNU_UNITS}  # single_run policy: one run, both keys
    new = materializations(instance, [r.run_id for r in runs])
    # Only the parser's units of its two documents: identical units are not re-chunked, Apache-2.0.txt and the
    # unpartitioned assets are untouched (the refresh sensor, not the backfill, updates the index and report).
    assert new == {(GNU_UNITS.to_user_string(), k) for k in GNU_DOCUMENTS}, new
    assert backfill.status == BulkActionStatus.COMPLETED_SUCCESS


def test_backfill_of_one_parser_without_changes_completes(indexed):
    """The same backfill with nothing to redo (a plain "re-materialize" click in the UI)."""
    project_dir, instance = indexed
    with workspace(project_dir, instance) as context:
        backfill_id = launch_backfill(context, [GNU_UNITS], GNU_DOCUMENTS)
        backfill, runs = run_backfill_daemon(context, backfill_id)
    assert runs and all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs)
    assert {p for _, p in materializations(instance, [r.run_id for r in runs])} <= set(GNU_DOCUMENTS)
    asset_data = backfill.get_asset_backfill_data(context.create_request_context().asset_graph)
    assert backfill.status == BulkActionStatus.COMPLETED_SUCCESS, (
        backfill.status, "failed:", asset_data.failed_and_downstream_subset)


def test_materialize_all_backfill_materializes_index_report_and_checks(project_dir, instance):
    """'Materialize all' in the UI on a new project whose partitions the sensor has added."""
    sync_partitions(instance, DOCUMENTS)
    with workspace(project_dir, instance) as context:
        all_keys = sorted(context.create_request_context().asset_graph.get_all_asset_keys())
        backfill_id = launch_backfill(context, all_keys, DOCUMENTS)
        backfill, runs = run_backfill_daemon(context, backfill_id)
    run_ids = [r.run_id for r in runs]
    assert runs and all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs), [(r.run_id, r.status) for r in runs]
    new = materializations(instance, run_ids)
    assert {("raw_text", k) for k in DOCUMENTS} <= new and {("chunks/default", k) for k in DOCUMENTS} <= new
    assert (search_index_key("default").to_user_string(), None) in new
    assert (AUDIT_REPORT_KEY.to_user_string(), None) in new, (backfill.status, [r.asset_selection for r in runs])
    assert check_evaluations(instance, run_ids) == {"coverage_above_threshold", "no_rejected_documents",
                                                   "default_parser_not_in_production", "units_have_source_spans",
                                                   "no_stale_documents", "spec_plugins_import"}
    assert backfill.status == BulkActionStatus.COMPLETED_SUCCESS


def test_backfill_of_a_chunkers_asset_rechunks_every_document(indexed):
    """After a chunker edit: its asset's partitions are every document, whichever parser owns it (Dagster refuses a
    backfill whose partitions depend on partitions that do not exist, so chunks must not ask every parser's units
    for every document)."""
    project_dir, instance = indexed
    with workspace(project_dir, instance) as context:
        backfill, runs = run_backfill_daemon(context, launch_backfill(context, [chunks_key("default")], DOCUMENTS))
    assert backfill.status == BulkActionStatus.COMPLETED_SUCCESS
    assert {(key, p) for key, p in materializations(instance, [r.run_id for r in runs])} == {
        ("chunks/default", k) for k in DOCUMENTS}


def test_materialize_all_never_shows_a_rejected_documents_chunks_or_coverage_as_materialized(project_dir, instance):
    """'Materialize all' (every partition of every asset, as the UI sends for differently partitioned assets) after
    an index with a document no parser accepts: its text is confirmed, its chunks and coverage are reported failed,
    never materialized."""
    (project_dir / "data" / "documents" / "notes.txt").write_text("Just some notes, no licence here.\n")
    index_with_refresh(project_dir, instance)
    with workspace(project_dir, instance) as context:
        all_keys = sorted(context.create_request_context().asset_graph.get_all_asset_keys())
        backfill, runs = run_backfill_daemon(context, launch_backfill(context, all_keys, None))
    new = materializations(instance, [r.run_id for r in runs])
    assert ("raw_text", "notes.txt") in new and {("chunks/default", k) for k in DOCUMENTS} <= new
    assert {(GNU_UNITS.to_user_string(), k) for k in GNU_DOCUMENTS} <= new
    assert "notes.txt" not in set(instance.get_materialized_partitions(chunks_key("default")))
    assert "notes.txt" not in set(instance.get_materialized_partitions(dg.AssetKey("coverage")))
    assert backfill.status == BulkActionStatus.COMPLETED_FAILED
