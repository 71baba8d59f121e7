"""The documents-folder sensor evaluated by Dagster (``evaluate_tick`` with the project's Definitions, so every run
request is validated against the jobs the sensor declares): partitions, run requests, run keys, cursor.

The daemon's own tick loop, with runs launched, is in ``test_sensor_daemon.py``.
"""

from __future__ import annotations

import dagster as dg
import pytest

from right_rag_dagster.orchestration.definitions import build_definitions
from right_rag_dagster.orchestration.resources import RightRagProject
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from .test_index_local import index


@pytest.fixture
def instance():
    with dg.instance_for_test() as inst:
        yield inst


def tick(instance, project_dir, cursor=None):
    defs = build_definitions(Project.load(project_dir))
    sensor = defs.resolve_sensor_def("documents_folder_sensor")
    resources = {"right_rag": RightRagProject(project_dir=str(project_dir))}
    return sensor.evaluate_tick(dg.build_sensor_context(instance=instance, cursor=cursor, definitions=defs,
                                                        resources=resources))


def apply_partition_requests(instance, result) -> None:
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
    (request,) = result.run_requests
    assert request.job_name == "index_documents"
    keys = list(adds[0].partition_keys)
    assert request.tags["dagster/asset_partition_range_start"] == keys[0]
    assert request.tags["dagster/asset_partition_range_end"] == keys[-1]
    assert result.cursor and len(result.cursor) == 16  # a digest of the folder, not one entry per file


def test_nothing_requested_once_indexed_and_changed_file_gets_new_run_key(project_dir, instance):
    index(project_dir, instance)  # partitions and store are current
    first = tick(instance, project_dir)
    assert first.run_requests == [] and not first.dynamic_partitions_requests and first.skip_message
    path = project_dir / "data" / "documents" / "GPL-3.0.txt"
    path.write_text(path.read_text().replace("GNU GENERAL PUBLIC LICENSE", "GNU GENERAL PUBLIC LICENSE (edited)", 1))
    second = tick(instance, project_dir, first.cursor)
    (request,) = second.run_requests
    assert request.tags["dagster/asset_partition_range_start"] == "GPL-3.0.txt"
    assert request.tags["dagster/asset_partition_range_end"] == "GPL-3.0.txt"
    assert second.cursor != first.cursor
    path.write_text(path.read_text().replace("(edited)", "(edited twice)"))
    third = tick(instance, project_dir, second.cursor)
    assert third.run_requests[0].run_key != request.run_key  # the key includes the content hash


def test_removed_file_deletes_partition_and_requests_a_refresh_but_writes_nothing(project_dir, instance):
    index(project_dir, instance)
    (project_dir / "data" / "documents" / "Apache-2.0.txt").unlink()
    result = tick(instance, project_dir)
    deletes = [r for r in result.dynamic_partitions_requests if isinstance(r, dg.DeleteDynamicPartitionsRequest)]
    assert list(deletes[0].partition_keys) == ["Apache-2.0.txt"]
    assert [r.job_name for r in result.run_requests] == ["refresh_indexes"]
    with Store(Project.load(project_dir).store_path).read() as con:  # the tick only asks; the run removes
        assert con.execute("SELECT count(*) FROM chunks WHERE document_id = 'Apache-2.0.txt'").fetchone()[0] > 0


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
    job = build_definitions(Project.load(project_dir)).resolve_job_def("index_documents")
    run = job.execute_in_process(instance=instance, tags=result.run_requests[0].tags)
    assert run.success
    with Store(Project.load(project_dir).store_path).read() as con:
        row = con.execute("SELECT document_id, partition_key FROM documents WHERE partition_key = ?", [key]).fetchone()
    assert row == ("deep/ไทย, [draft] v1/notes (final).txt", key)


def test_a_request_whose_run_is_under_way_is_not_repeated(project_dir, instance):
    first = tick(instance, project_dir)
    (request,) = first.run_requests
    apply_partition_requests(instance, first)
    job = build_definitions(Project.load(project_dir)).resolve_job_def("index_documents")
    run = instance.create_run_for_job(job, tags=request.tags)  # queued, not run yet
    assert run.status == dg.DagsterRunStatus.NOT_STARTED
    assert tick(instance, project_dir).run_requests == []
    instance.report_run_failed(run, "test: the run failed")
    (again,) = tick(instance, project_dir).run_requests  # failed: asked for again, with a new run key
    assert again.run_key == f"{request.run_key}-1"
