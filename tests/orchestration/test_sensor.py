"""The documents-folder sensor on a real instance: partitions, run requests, run keys, removals, cursor."""

from __future__ import annotations

import dagster as dg
import pytest

from right_rag_dagster.orchestration.defs.automation import documents_folder_sensor, rescan_documents_schedule
from right_rag_dagster.orchestration.names import DOCUMENTS_PARTITIONS
from right_rag_dagster.orchestration.resources import RightRagProject
from right_rag_dagster.pipeline.watch import decode_cursor
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from .test_index_local import index


@pytest.fixture
def instance():
    with dg.instance_for_test() as inst:
        yield inst


def tick(instance, project_dir, cursor=None) -> dg.SensorResult:
    context = dg.build_sensor_context(instance=instance, cursor=cursor,
                                      resources={"right_rag": RightRagProject(project_dir=str(project_dir))})
    return documents_folder_sensor(context)


def apply_partition_requests(instance, result: dg.SensorResult) -> None:
    for request in result.dynamic_partitions_requests or []:
        if isinstance(request, dg.AddDynamicPartitionsRequest):
            instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
        else:
            for key in request.partition_keys:
                instance.delete_dynamic_partition(request.partitions_def_name, key)


def test_first_tick_adds_every_file_and_requests_one_batched_run(project_dir, instance):
    result = tick(instance, project_dir)
    adds = [r for r in result.dynamic_partitions_requests if isinstance(r, dg.AddDynamicPartitionsRequest)]
    assert sorted(adds[0].partition_keys) == ["Apache-2.0.txt", "GPL-3.0.txt", "LGPL-3.0.txt"]
    assert len(result.run_requests) == 1
    request = result.run_requests[0]
    assert request.job_name == "index_documents"
    keys = list(adds[0].partition_keys)
    assert request.tags["dagster/asset_partition_range_start"] == keys[0]
    assert request.tags["dagster/asset_partition_range_end"] == keys[-1]
    assert set(decode_cursor(result.cursor)) == {"Apache-2.0.txt", "GPL-3.0.txt", "LGPL-3.0.txt"}


def test_nothing_requested_once_indexed_and_changed_file_gets_new_run_key(project_dir, instance):
    index(project_dir, instance)  # partitions and store are current
    first = tick(instance, project_dir)
    assert first.run_requests == [] and not first.dynamic_partitions_requests
    path = project_dir / "data" / "documents" / "GPL-3.0.txt"
    path.write_text(path.read_text().replace("GNU GENERAL PUBLIC LICENSE", "GNU GENERAL PUBLIC LICENSE (edited)", 1))
    second = tick(instance, project_dir, first.cursor)
    assert len(second.run_requests) == 1
    request = second.run_requests[0]
    assert request.tags["dagster/asset_partition_range_start"] == "GPL-3.0.txt"
    assert request.tags["dagster/asset_partition_range_end"] == "GPL-3.0.txt"
    path.write_text(path.read_text().replace("(edited)", "(edited twice)"))
    third = tick(instance, project_dir, second.cursor)
    assert third.run_requests[0].run_key != request.run_key  # the key includes the content hash


def test_removed_file_deletes_partition_and_all_its_data(project_dir, instance):
    index(project_dir, instance)
    (project_dir / "data" / "documents" / "Apache-2.0.txt").unlink()
    result = tick(instance, project_dir)
    deletes = [r for r in result.dynamic_partitions_requests if isinstance(r, dg.DeleteDynamicPartitionsRequest)]
    assert list(deletes[0].partition_keys) == ["Apache-2.0.txt"]
    assert [r.job_name for r in result.run_requests] == ["refresh_indexes"]
    with Store(Project.load(project_dir).store_path).read() as con:
        assert con.execute("SELECT count(*) FROM chunks WHERE document_id = 'Apache-2.0.txt'").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM units WHERE document_id = 'Apache-2.0.txt'").fetchone()[0] == 0
    apply_partition_requests(instance, result)
    assert "Apache-2.0.txt" not in instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)


def test_new_file_with_awkward_name_gets_a_safe_key_and_runs(project_dir, instance):
    index(project_dir, instance)
    folder = project_dir / "data" / "documents" / "deep" / "ไทย, [draft] v1"
    folder.mkdir(parents=True)
    (folder / "notes (final).txt").write_text("GNU GENERAL PUBLIC LICENSE\n  0. Definitions.\nText.\n")
    result = tick(instance, project_dir)
    adds = [r for r in result.dynamic_partitions_requests if isinstance(r, dg.AddDynamicPartitionsRequest)]
    (key,) = adds[0].partition_keys
    assert " " not in key and "," not in key and "[" not in key and "..." not in key
    assert key.startswith("deep/") and len(key) < 120
    apply_partition_requests(instance, result)
    from right_rag_dagster.orchestration.definitions import build_definitions

    job = build_definitions(Project.load(project_dir)).resolve_job_def("index_documents")
    run = job.execute_in_process(instance=instance, tags=result.run_requests[0].tags)
    assert run.success
    with Store(Project.load(project_dir).store_path).read() as con:
        row = con.execute("SELECT document_id, partition_key FROM documents WHERE partition_key = ?", [key]).fetchone()
    assert row == ("deep/ไทย, [draft] v1/notes (final).txt", key)


def test_schedule_rescans_and_adds_partitions_itself(project_dir, instance):
    context = dg.build_schedule_context(instance=instance,
                                        resources={"right_rag": RightRagProject(project_dir=str(project_dir))})
    requests = rescan_documents_schedule(context)
    assert len(instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)) == 3
    assert [r.job_name for r in requests] == ["index_documents"]
