"""The executor of ``execute_streaming``: a run's materializations are stored, not kept in memory; its output is
still captured into Dagster's compute log files."""

from __future__ import annotations

import gc
import hashlib
import inspect
import os

import dagster as dg
from dagster._core.events import DagsterEvent
from dagster._core.utils import make_new_run_id

from right_rag_dagster.orchestration.log_capture import _mirrored
from right_rag_dagster.orchestration.streaming import execute_streaming

COUNT = 200
DAGSTER_SOURCES = {"inner_plan_execution_iterator": "87243a56e08e8a6a", "InProcessExecutor.execute": "bbf6a314f243a1d8"}
"""Hashes of the Dagster functions ``lean_executor`` copies (dagster 1.13.27): when one fails, compare the copy
with Dagster's new code and update the hash."""


def _live_materializations() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, DagsterEvent) and o.is_step_materialization)


@dg.op
def many(context):
    for i in range(COUNT):
        yield dg.AssetMaterialization(asset_key="many", metadata={"i": i, "text": "x" * 500})
    context.log.info(f"live={_live_materializations()}")
    yield dg.Output(None)


@dg.job
def many_job():
    many()


def test_a_step_keeps_no_list_of_its_materializations(tmp_path):
    with dg.DagsterInstance.local_temp(tempdir=str(tmp_path)) as instance:
        run = execute_streaming(many_job, instance=instance, run_config={}, run_id=make_new_run_id())
        assert run.is_success
        logs = [e.message for e in instance.all_logs(run.run_id) if e.message.startswith("live=")]
        assert logs and int(logs[0].removeprefix("live=")) < COUNT // 10  # Dagster's own executor kept all 200
        stored = instance.fetch_materializations(dg.AssetKey("many"), limit=COUNT + 1).records
        assert len(stored) == COUNT


def test_the_copied_dagster_functions_are_unchanged():
    from dagster._core.execution.plan.execute_plan import inner_plan_execution_iterator
    from dagster._core.executor.in_process import InProcessExecutor

    found = {name: hashlib.sha256(inspect.getsource(f).encode()).hexdigest()[:16]
             for name, f in (("inner_plan_execution_iterator", inner_plan_execution_iterator),
                             ("InProcessExecutor.execute", InProcessExecutor.execute))}
    assert found == DAGSTER_SOURCES, "Dagster changed: bring orchestration/lean_executor.py in line, then the hashes"


def test_captured_output_goes_to_the_log_file_and_the_terminal(tmp_path):
    terminal, log = tmp_path / "terminal", tmp_path / "step.out"
    with terminal.open("w") as stream:
        stream.write("before\n")
        with _mirrored(stream, str(log)):
            stream.write("from python\n")
            stream.flush()
            os.write(stream.fileno(), b"from the descriptor\n")
        stream.write("after\n")
    assert terminal.read_text() == "before\nfrom python\nfrom the descriptor\nafter\n"
    assert log.read_text() == "from python\nfrom the descriptor\n"
