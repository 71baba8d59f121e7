"""`right-rag index` semantics on a real Dagster instance: incremental runs, ownership, data versions, lineage.

Tests of what follows a first index start from ``indexed``: a copy of the licence project and of its Dagster
instance's folder, indexed once for the module (copying costs milliseconds; the first index, seconds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from right_rag_dagster.orchestration.local import run_local
from right_rag_dagster.orchestration.names import (
    COVERAGE_KEY,
    RAW_TEXT_KEY,
    chunks_key,
    owned_partitions,
    search_index_key,
    units_key,
)
from right_rag_dagster.pipeline.indexer import Indexer
from right_rag_dagster.pipeline.plan import known_files, plan_index
from right_rag_dagster.pipeline.scan import scan_documents
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store
from right_rag_dagster.store import db as store_db

from .conftest import indexed_copy, indexed_template


def index(project_dir: Path, instance: dg.DagsterInstance):
    """What `right-rag index` does: plan without Dagster, then run the asset graph in-process."""
    project = Project.load(project_dir)
    store = Store(project.store_path)
    files = scan_documents(project.documents_dir, known_files(store))
    plan = plan_index(Indexer(project), store, files)
    if not plan.is_empty:
        run_local(project, plan, [f.partition_key for f in files], refresh=False, instance=instance)
    return plan


def materialized(instance: dg.DagsterInstance, key: dg.AssetKey) -> set[str]:
    return set(instance.get_materialized_partitions(key))


def materialization_count(instance: dg.DagsterInstance, key: dg.AssetKey) -> int:
    records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=key), limit=1000).records
    return len(records)


def owned(instance: dg.DagsterInstance, parser: str) -> set[str]:
    return set(instance.get_dynamic_partitions(owned_partitions(parser).name))


@pytest.fixture
def instance():
    with dg.instance_for_test() as inst:
        yield inst


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The licence project after its first index, with its instance's folder (do not modify: ``indexed`` copies)."""
    return indexed_template(tmp_path_factory.mktemp("indexed"), index)


@pytest.fixture
def indexed(template: Path, tmp_path: Path) -> Iterator[tuple[Path, dg.DagsterInstance]]:
    """A copy of the indexed project and the instance of its first index, as if the test had just run it."""
    with indexed_copy(template, tmp_path / "indexed") as copy:
        yield copy


def test_first_index_materializes_each_document_under_its_owner(project_dir, instance):
    plan = index(project_dir, instance)
    assert len(plan.new) == 3
    assert materialized(instance, RAW_TEXT_KEY) == {"GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt"}
    assert materialized(instance, units_key("gnu-licence")) == {"GPL-3.0.txt", "LGPL-3.0.txt"}
    assert materialized(instance, units_key("apache-licence")) == {"Apache-2.0.txt"}
    assert materialized(instance, chunks_key("default")) == {"GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt"}
    # Each parser's partitions are the documents it owns: every one materialized, none missing.
    assert owned(instance, "gnu-licence") == {"GPL-3.0.txt", "LGPL-3.0.txt"}
    assert owned(instance, "apache-licence") == {"Apache-2.0.txt"}
    # Paths as the project sees them (the UI shows this metadata), and the run under the workspace's location.
    [record] = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=RAW_TEXT_KEY, asset_partitions=["GPL-3.0.txt"]), limit=1).records
    assert record.asset_materialization.metadata["path"].value == "data/documents/GPL-3.0.txt"
    [run] = instance.get_runs()
    assert run.remote_job_origin.location_name == "right_rag" and run.job_name == "index_documents"
    with Store(Project.load(project_dir).store_path).read() as con:
        owners = dict(con.execute("SELECT DISTINCT document_id, parser FROM units").fetchall())
    assert owners == {"GPL-3.0.txt": "gnu-licence", "LGPL-3.0.txt": "gnu-licence", "Apache-2.0.txt": "apache-licence"}


def test_second_index_without_changes_launches_no_run(indexed):
    project_dir, instance = indexed
    runs_before = len(instance.get_runs())
    plan = index(project_dir, instance)
    assert plan.is_empty and len(plan.unchanged) == 3
    assert len(instance.get_runs()) == runs_before


def test_changed_file_is_reindexed_alone(indexed):
    project_dir, instance = indexed
    before = materialization_count(instance, RAW_TEXT_KEY)
    path = project_dir / "data" / "documents" / "Apache-2.0.txt"
    text = path.read_text()
    assert text.count("grants to You a perpetual,") == 2
    path.write_text(text.replace("grants to You a perpetual,", "grants to You a lasting,"))
    plan = index(project_dir, instance)
    assert [f.document_id for f in plan.changed] == ["Apache-2.0.txt"]
    assert materialization_count(instance, RAW_TEXT_KEY) == before + 1
    with Store(Project.load(project_dir).store_path).read() as con:
        edited = con.execute("SELECT topic, changes FROM units WHERE document_id = 'Apache-2.0.txt' "
                             "AND fulltext LIKE '%grants to You a lasting,%'").fetchall()
        untouched = con.execute("SELECT changes FROM units WHERE document_id = 'Apache-2.0.txt' "
                                "AND topic = 'Section 1'").fetchone()[0]
    assert sorted(topic for topic, _ in edited) == ["Section 2", "Section 3"]
    assert all('"EditUnit"' in history for _, history in edited)  # their history records the edit
    assert '"EditUnit"' not in untouched


def test_a_run_of_one_changed_file_opens_the_store_twice(indexed, monkeypatch):
    """A run of a few documents holds the store file from its scan to its refresh, letting go only while the
    workers parse: an open costs 20-30 ms of CPU, and the run's steps opened the file ten times."""
    project_dir, instance = indexed
    path = project_dir / "data" / "documents" / "Apache-2.0.txt"
    path.write_text(path.read_text() + "\nOne more paragraph of the licence.\n")
    project = Project.load(project_dir)
    store = Store(project.store_path)
    files = scan_documents(project.documents_dir, known_files(store))
    plan = plan_index(Indexer(project), store, files)
    opened: list[str] = []
    connect = store_db.connect_file
    monkeypatch.setattr(store_db, "connect_file", lambda path, *args, **kwargs: (
        opened.append(str(path)), connect(path, *args, **kwargs))[1])
    run_local(project, plan, [f.partition_key for f in files], refresh=True, instance=instance)
    assert [Path(p).resolve() for p in opened].count(project.store_path.resolve()) == 2, opened
    with store.read() as con:
        assert con.execute("SELECT count(*) FROM units WHERE document_id = 'Apache-2.0.txt' "
                           "AND fulltext LIKE '%One more paragraph%'").fetchone()[0] == 1


def test_editing_one_parser_changes_only_its_code_version_and_reparses_only_its_documents(indexed):
    from right_rag_dagster.orchestration.definitions import build_definitions

    project_dir, instance = indexed
    graph_before = build_definitions(Project.load(project_dir)).resolve_asset_graph()
    apache = project_dir / "spec" / "unit_parsers" / "apache.py"
    apache.write_text(apache.read_text().replace('"unit_type": "section"', '"unit_type": "section", "edited": 1'))
    graph_after = build_definitions(Project.load(project_dir)).resolve_asset_graph()
    changed = {k.to_user_string() for k in graph_after.get_all_asset_keys()
               if graph_before.get(k).code_version != graph_after.get(k).code_version}
    assert changed == {"units/apache_licence"}

    gnu_before = materialization_count(instance, units_key("gnu-licence"))
    apache_before = materialization_count(instance, units_key("apache-licence"))
    plan = index(project_dir, instance)  # plugin fingerprint changed: every document is re-checked...
    assert len(plan.changed) == 3
    assert materialization_count(instance, units_key("gnu-licence")) == gnu_before  # ...but GNU ones not re-parsed
    assert materialization_count(instance, units_key("apache-licence")) == apache_before + 1


def test_parser_edit_with_identical_units_does_not_rechunk(indexed):
    project_dir, instance = indexed
    chunks_before = materialization_count(instance, chunks_key("default"))
    apache = project_dir / "spec" / "unit_parsers" / "apache.py"
    apache.write_text(apache.read_text() + "\n# a comment changes the version, not the units\n")
    index(project_dir, instance)
    assert materialization_count(instance, units_key("apache-licence")) >= 2
    assert materialization_count(instance, chunks_key("default")) == chunks_before


def test_removed_file_leaves_nothing_behind(indexed):
    project_dir, instance = indexed
    (project_dir / "data" / "documents" / "LGPL-3.0.txt").unlink()
    plan = index(project_dir, instance)
    assert plan.removed == (("LGPL-3.0.txt", "LGPL-3.0.txt"),)
    with Store(Project.load(project_dir).store_path).read() as con:
        for table in ("documents", "units", "chunks", "coverage", "step_state"):
            count = con.execute(f"SELECT count(*) FROM {table} WHERE document_id = 'LGPL-3.0.txt'").fetchone()[0]
            assert count == 0, table
    assert "LGPL-3.0.txt" not in instance.get_dynamic_partitions("documents")
    assert owned(instance, "gnu-licence") == {"GPL-3.0.txt"}


def test_a_document_that_changes_owner_moves_to_its_new_parsers_partitions(indexed):
    project_dir, instance = indexed
    documents = project_dir / "data" / "documents"
    (documents / "Apache-2.0.txt").write_text((documents / "LGPL-3.0.txt").read_text())
    index(project_dir, instance)
    assert owned(instance, "gnu-licence") == {"GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt"}
    assert owned(instance, "apache-licence") == set()
    assert materialized(instance, units_key("gnu-licence")) >= owned(instance, "gnu-licence")


def test_unsupported_document_is_rejected_with_reason(project_dir, instance):
    (project_dir / "data" / "documents" / "notes.txt").write_text("Just some notes, no licence here.\n")
    index(project_dir, instance)
    with Store(Project.load(project_dir).store_path).read() as con:
        row = con.execute("SELECT stage, status, reason FROM rejections WHERE document_id = 'notes.txt'").fetchone()
        units = con.execute("SELECT count(*) FROM units WHERE document_id = 'notes.txt'").fetchone()[0]
    assert row[0] == "route" and row[1] == "unsupported"
    assert "gnu-licence" in row[2] and "apache-licence" in row[2]
    assert units == 0
    assert "notes.txt" in materialized(instance, RAW_TEXT_KEY)
    # Owned by no parser, so a partition of none; never shown as materialized chunks or coverage.
    assert "notes.txt" not in owned(instance, "gnu-licence") | owned(instance, "apache-licence")
    assert "notes.txt" not in materialized(instance, chunks_key("default")) | materialized(instance, COVERAGE_KEY)


def test_materializations_carry_code_and_data_versions(indexed):
    project_dir, instance = indexed
    event = instance.get_latest_materialization_event(units_key("apache-licence"))
    tags = event.asset_materialization.tags
    assert tags["dagster/code_version"] == Project.load(project_dir).registry.version("unit_parsers", "apache-licence")
    assert tags["dagster/data_version"]
    assert "dagster/input_data_version/raw_text" in tags
    assert event.asset_materialization.metadata["units_total"].value > 5


def test_lineage_walks_from_chunk_to_run(indexed):
    from right_rag_dagster.store.lineage import walk

    project_dir, instance = indexed
    with Store(Project.load(project_dir).store_path).read() as con:
        chunk_id = con.execute("SELECT chunk_id FROM chunks WHERE document_id = 'GPL-3.0.txt' LIMIT 1").fetchone()[0]
        result = walk(con, chunk_id)
    assert result["chunk"]["chunk_id"] == chunk_id
    assert result["unit"]["parser"] == "gnu-licence"
    assert result["document"]["content_hash"]
    run_ids = {r["run_id"] for r in result["runs"]}
    assert run_ids and all(instance.get_run_by_id(r) is not None for r in run_ids)


def test_refresh_materializes_audit_report_with_check_results(project_dir, instance):
    from right_rag_dagster.orchestration.definitions import build_definitions

    (project_dir / "data" / "documents" / "notes.txt").write_text("no licence here\n")
    index(project_dir, instance)
    defs = build_definitions(Project.load(project_dir))
    result = defs.resolve_job_def("refresh_indexes").execute_in_process(instance=instance)
    assert result.success
    checks = {e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
              for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"}
    with Store(Project.load(project_dir).store_path).read() as con:
        lowest = con.execute("SELECT min(coverage_percent) FROM coverage").fetchone()[0]
    assert checks == {"coverage_above_threshold": lowest >= 90.0, "no_rejected_documents": False,
                      "default_parser_not_in_production": True, "units_have_source_spans": True,
                      "no_stale_documents": True, "spec_plugins_import": True}
    report = instance.get_latest_materialization_event(dg.AssetKey("audit_report")).asset_materialization
    assert report.metadata["rejected"].value == 1
    assert instance.get_latest_materialization_event(search_index_key("default")) is not None
