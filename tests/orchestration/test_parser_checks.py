"""The per-parser sync check: passes after an index, fails on the edited parser's asset with its documents and the
backfill to run, passes again once they are re-parsed; the sensor evaluates it only when a verdict changes."""

from __future__ import annotations

import json

import dagster as dg
import pytest

from right_rag_dagster.orchestration.definitions import build_definitions
from right_rag_dagster.orchestration.defs.parsers import (
    SYNC_CHECK,
    parser_versions_sensor,
)
from right_rag_dagster.orchestration.names import units_key
from right_rag_dagster.orchestration.resources import RightRagProject
from right_rag_dagster.project import Project

from .test_refresh import index_with_refresh

GNU, APACHE = units_key("gnu-licence"), units_key("apache-licence")


@pytest.fixture
def instance():
    with dg.instance_for_test() as inst:
        yield inst


def tick(instance, project_dir, cursor=None) -> dg.SensorResult:
    context = dg.build_sensor_context(instance=instance, cursor=cursor,
                                      resources={"right_rag": RightRagProject(project_dir=str(project_dir))})
    return parser_versions_sensor(context)


def verdicts(result: dg.SensorResult) -> dict[dg.AssetKey, tuple[bool, list[str]]]:
    return {e.asset_key: (e.passed, e.metadata["unsynced_partitions"].value) for e in result.asset_events
            if e.check_name == SYNC_CHECK}


def test_an_edited_parser_fails_its_check_until_its_documents_are_parsed_again(project_dir, instance):
    index_with_refresh(project_dir, instance)
    first = tick(instance, project_dir)
    assert verdicts(first) == {GNU: (True, []), APACHE: (True, [])}
    assert set(json.loads(first.cursor)) == {"gnu-licence", "apache-licence"}  # a short digest per parser
    assert not tick(instance, project_dir, first.cursor).asset_events  # nothing changed: nothing recorded

    parser = project_dir / "spec" / "unit_parsers" / "gnu.py"
    parser.write_text(parser.read_text() + "\n# edited: a new code version, same units\n")
    edited = tick(instance, project_dir, first.cursor)
    assert verdicts(edited) == {GNU: (False, ["GPL-3.0.txt", "LGPL-3.0.txt"])}  # the Apache check is untouched
    [failed] = edited.asset_events
    assert "Materialize" in failed.metadata["backfill"].value and failed.severity == dg.AssetCheckSeverity.WARN

    defs = build_definitions(Project.load(project_dir))  # what the UI's backfill of units/gnu_licence runs
    run = defs.resolve_implicit_global_asset_job_def().execute_in_process(
        instance=instance, asset_selection=[GNU],
        tags={"dagster/asset_partition_range_start": "GPL-3.0.txt",
              "dagster/asset_partition_range_end": "LGPL-3.0.txt"})
    checks = {e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
              for e in run.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"}
    assert checks in ({}, {SYNC_CHECK: True})  # a backfill runs the check after the units when it selects it
    assert verdicts(tick(instance, project_dir, edited.cursor)) == {GNU: (True, [])}
