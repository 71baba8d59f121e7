"""Search indexes and the audit report on a real instance: refreshed inside the document run, or by the
refresh sensor after a run that touched documents without them (a backfill of one parser's assets)."""

from __future__ import annotations

import dagster as dg
import pytest

from right_rag_dagster.orchestration.definitions import build_definitions
from right_rag_dagster.orchestration.defs.automation import (
    refresh_indexes_after_documents,
)
from right_rag_dagster.orchestration.local import run_local
from right_rag_dagster.orchestration.names import (
    AUDIT_REPORT_KEY,
    owned_partitions,
    search_index_key,
    units_key,
)
from right_rag_dagster.orchestration.resources import RightRagProject
from right_rag_dagster.pipeline.indexer import Indexer
from right_rag_dagster.pipeline.plan import known_files, plan_index, refresh_pending
from right_rag_dagster.pipeline.runner import mark_refresh
from right_rag_dagster.pipeline.scan import scan_documents
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval import search
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store
from right_rag_dagster.store.db import utcnow

SEARCH_KEY = search_index_key("default")
GNU, APACHE = units_key("gnu-licence"), units_key("apache-licence")


@pytest.fixture
def instance():
    with dg.instance_for_test() as inst:
        yield inst


def index_with_refresh(project_dir, instance):
    project = Project.load(project_dir)
    store = Store(project.store_path)
    files = scan_documents(project.documents_dir, known_files(store))
    plan = plan_index(Indexer(project), store, files)
    return run_local(project, plan, [f.partition_key for f in files], refresh=True, instance=instance)


def refresh_tick(instance, run_id: str, project_dir):
    run = instance.get_run_by_id(run_id)
    success = [e for e in instance.all_logs(run_id) if e.dagster_event and e.dagster_event.event_type_value ==
               "PIPELINE_SUCCESS"][0]
    context = dg.build_run_status_sensor_context(sensor_name="refresh_indexes_after_documents",
                                                 dagster_instance=instance, dagster_run=run,
                                                 dagster_event=success.dagster_event,
                                                 resources={"right_rag": RightRagProject(project_dir=str(project_dir))})
    return refresh_indexes_after_documents(context)


def test_one_run_indexes_a_changed_document_and_refreshes_index_and_report(project_dir, instance):
    first = index_with_refresh(project_dir, instance)
    assert first.document_run_id == first.refresh_run_id and len(instance.get_runs()) == 1
    path = project_dir / "data" / "documents" / "Apache-2.0.txt"
    path.write_text(path.read_text() + "\n  10. Quokkas.\n\n      Every quokka clause is searchable.\n")
    second = index_with_refresh(project_dir, instance)
    assert len(instance.get_runs()) == 2
    events = instance.all_logs(second.document_run_id)
    materialized = {(e.dagster_event.asset_key.to_user_string(), e.dagster_event.partition) for e in events
                    if e.dagster_event and e.dagster_event.event_type_value == "ASSET_MATERIALIZATION"}
    assert {(SEARCH_KEY.to_user_string(), None), ("audit_report", None),
            (units_key("apache-licence").to_user_string(), "Apache-2.0.txt"), ("chunks/default", "Apache-2.0.txt")} \
        <= materialized
    assert not any(partition in ("GPL-3.0.txt", "LGPL-3.0.txt") for _, partition in materialized)
    checks = [e for e in events if e.dagster_event and e.dagster_event.event_type_value == "ASSET_CHECK_EVALUATION"]
    assert len(checks) == 6
    metadata = instance.get_latest_materialization_event(SEARCH_KEY).asset_materialization.metadata
    # The chunks' BM25 postings were written with the document (tokenized in a worker): nothing left to do here.
    assert metadata["chunks_tokenized"].value == 0 and metadata["chunks_removed"].value == 0
    clear_cache()
    hits = search(Store(Project.load(project_dir).store_path), "quokka clause", chunker="default", k=1)
    assert hits and hits[0].document_id == "Apache-2.0.txt" and "quokka" in hits[0].text
    assert isinstance(refresh_tick(instance, second.document_run_id, project_dir), dg.SkipReason)


def test_a_backfill_of_one_parsers_assets_is_followed_by_a_refresh_run(project_dir, instance):
    index_with_refresh(project_dir, instance)
    defs = build_definitions(Project.load(project_dir))
    # What the UI runs for one parser's asset: the implicit asset job (its partitions are the parser's documents).
    unchanged = defs.resolve_implicit_global_asset_job_def().execute_in_process(
        instance=instance, partition_key="GPL-3.0.txt", asset_selection=[units_key("gnu-licence")])
    assert isinstance(refresh_tick(instance, unchanged.run_id, project_dir), dg.SkipReason)  # nothing to refresh
    parser = project_dir / "spec" / "unit_parsers" / "gnu.py"
    parser.write_text(parser.read_text().replace('topic=f"Section', 'topic=f"Clause'))
    defs = build_definitions(Project.load(project_dir))
    backfill = defs.resolve_implicit_global_asset_job_def().execute_in_process(
        instance=instance, partition_key="GPL-3.0.txt", asset_selection=[units_key("gnu-licence")])
    assert backfill.success
    assert instance.get_latest_materialization_event(SEARCH_KEY).run_id != backfill.run_id
    request = refresh_tick(instance, backfill.run_id, project_dir)
    assert isinstance(request, dg.RunRequest) and request.run_key == f"refresh-after-{backfill.run_id}"
    refresh = defs.resolve_job_def("refresh_indexes").execute_in_process(instance=instance)
    assert refresh.success
    keys = {e.event_specific_data.materialization.asset_key for e in refresh.all_events
            if e.event_type_value == "ASSET_MATERIALIZATION"}
    assert keys == {SEARCH_KEY, AUDIT_REPORT_KEY}
    assert isinstance(refresh_tick(instance, refresh.run_id, project_dir), dg.SkipReason)


def test_a_run_reads_the_project_and_its_plugins_once(project_dir):
    with dg.build_resources({"right_rag": RightRagProject(project_dir=str(project_dir))}) as resources:
        right_rag = resources.right_rag
        assert right_rag.get_project() is right_rag.get_project()
        assert right_rag.get_indexer() is right_rag.get_indexer()
        assert right_rag.get_store().path == Project.load(project_dir).store_path
    unset = RightRagProject(project_dir=str(project_dir))  # used outside a run: read on each call
    assert unset.get_project() is not unset.get_project()


def test_a_run_of_coverage_alone_still_gets_its_rewritten_chunks_indexed(project_dir, instance):
    """Selecting any per-document asset runs the whole document pipeline, chunks included."""
    index_with_refresh(project_dir, instance)
    path = project_dir / "data" / "documents" / "Apache-2.0.txt"
    path.write_text(path.read_text() + "\n  10. Quokkas.\n\n      Every quokka clause is searchable.\n")
    defs = build_definitions(Project.load(project_dir))
    run = defs.resolve_job_def("index_documents").execute_in_process(
        instance=instance, partition_key="Apache-2.0.txt", asset_selection=[dg.AssetKey("coverage")])
    assert run.success and refresh_pending(Store(Project.load(project_dir).store_path))
    assert isinstance(refresh_tick(instance, run.run_id, project_dir), dg.RunRequest)


def test_a_refresh_keeps_a_pending_mark_set_while_it_ran(project_dir, instance):
    index_with_refresh(project_dir, instance)
    store = Store(Project.load(project_dir).store_path)
    started = utcnow()
    mark_refresh(store, pending=True)  # e.g. the sensor removed a document while the indexes were being built
    mark_refresh(store, pending=False, unless_marked_since=started)
    assert refresh_pending(store)
    mark_refresh(store, pending=False, unless_marked_since=utcnow())
    assert not refresh_pending(store)


def test_the_ui_shows_everything_synced_after_an_index_and_only_an_edited_parsers_assets_unsynced(
        project_dir, instance):
    """What the asset graph's "unsynced" badges are computed from: data versions, code versions, input pointers."""
    from dagster._core.definitions.data_version import StaleStatus
    from dagster._utils.test.data_versions import get_stale_status_resolver

    def statuses() -> dict[tuple[str, str], StaleStatus]:
        resolver = get_stale_status_resolver(instance, list(build_definitions(Project.load(project_dir)).assets))
        keys = ("raw_text", "chunks/default", "coverage")
        return {**{(key, partition): resolver.get_status(dg.AssetKey(key.split("/")), partition)
                   for key in keys for partition in ("GPL-3.0.txt", "Apache-2.0.txt")},
                ("units/gnu_licence", "GPL-3.0.txt"): resolver.get_status(GNU, "GPL-3.0.txt"),
                ("units/apache_licence", "Apache-2.0.txt"): resolver.get_status(APACHE, "Apache-2.0.txt")}

    index_with_refresh(project_dir, instance)
    # Each parser's asset is partitioned by the documents it owns: nothing is missing, everything is fresh.
    assert set(instance.get_dynamic_partitions(owned_partitions("gnu-licence").name)) == {"GPL-3.0.txt",
                                                                                          "LGPL-3.0.txt"}
    assert all(status == StaleStatus.FRESH for status in statuses().values()), statuses()
    parser = project_dir / "spec" / "unit_parsers" / "gnu.py"
    parser.write_text(parser.read_text() + "\n# edited\n")
    after_edit = statuses()
    assert after_edit[("units/gnu_licence", "GPL-3.0.txt")] == StaleStatus.STALE
    assert after_edit[("units/apache_licence", "Apache-2.0.txt")] == StaleStatus.FRESH
    assert after_edit[("chunks/default", "Apache-2.0.txt")] == StaleStatus.FRESH
    index_with_refresh(project_dir, instance)  # re-parses GPL and LGPL only; identical units: no re-chunking
    assert all(status != StaleStatus.STALE for status in statuses().values())
