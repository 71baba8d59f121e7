"""Smoke test of bench/index_scale.py: its table and target verdicts on made-up numbers, and one real measurement.

The benchmark itself (minutes, 710 files) is not part of the suite: run ``bench/index_scale.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


index_scale = load("index_scale")
measure_module = load("_measure")


def run(seconds: float, rss: float, returncode: int = 0) -> dict:
    return {"wall_seconds": seconds, "cpu_seconds": seconds * 0.9, "peak_rss_mb": rss, "returncode": returncode,
            "ok": returncode == 0, "load_before": 0.5, "log": "x.log", "last_line": "done"}


FLOOR = {"import_seconds": 1.0, "add_partitions_seconds": 0.5, "batched_run_seconds": 40.0,
         "batched_run_cpu_seconds": 30.0, "one_partition_run_seconds": 0.6,
         "batched_run_subset_planned_seconds": 20.0, "batched_run_subset_planned_cpu_seconds": 15.0}


def test_rows_judge_each_target_against_the_measured_reference_and_floor():
    ours = {"full": run(60.0, 300.0), "no_change": run(2.5, 120.0), "one_change": run(2.0, 640.0, returncode=1)}
    theirs = {"full": run(21.0, 400.0), "no_change": run(28.0, 2000.0), "one_change": run(26.0, 2000.0)}
    rows = {r["case"]: r for r in index_scale.build_rows(ours, theirs, FLOOR)}

    assert rows["full"]["target_seconds"] == 21.0 + 1.0 + 0.5 + 40.0
    assert rows["full"]["met"] and abs(rows["full"]["ratio"] - 60.0 / 21.0) < 1e-9
    assert rows["full"]["floor_subset_seconds"] == 1.0 + 0.5 + 20.0 and rows["full"]["floor_cpu_seconds"] == 30.0
    assert "41.5 s (cpu 30.0); 21.5 s subset" in index_scale.format_table(list(rows.values()))
    assert rows["no_change"]["misses"] == ["time"] and rows["no_change"]["floor_seconds"] == 0.0
    assert rows["one_change"]["misses"] == ["exit 1", "RSS"] and rows["one_change"]["floor_seconds"] == 1.6


def test_the_one_change_floor_is_the_fresh_process_when_it_was_measured():
    cold = {**FLOOR, "cold_one_process_seconds": 1.9, "cold_one_import_cpu_seconds": 0.6,
            "cold_one_instance_cpu_seconds": 0.6, "cold_one_run_cpu_seconds": 0.4}
    ours = {case: run(1.0, 100.0) for case in index_scale.CASES}
    rows = {r["case"]: r for r in index_scale.build_rows(ours, None, cold)}
    assert rows["one_change"]["floor_seconds"] == 1.9
    assert abs(rows["one_change"]["floor_cpu_seconds"] - 1.6) < 1e-9
    assert rows["full"]["floor_seconds"] == 1.0 + 0.5 + 40.0


def test_without_right_rag_the_issue_figures_are_the_reference_and_marked():
    ours = {case: run(1.0, 100.0) for case in index_scale.CASES}
    rows = index_scale.build_rows(ours, None, None)
    table = index_scale.format_table(rows)

    assert rows[0]["reference_seconds"] == 21.0 and rows[0]["floor_seconds"] is None
    assert "21.0 s (issue)" in table and "one changed file" in table
    assert len(table.splitlines()) == 2 + len(index_scale.CASES)


def test_measure_reports_peak_memory_and_last_line_of_a_real_subprocess(tmp_path):
    code = "b = bytearray(80 * 2**20); b[::4096] = b'x' * len(b[::4096]); print('allocated')"
    result = measure_module.measure([sys.executable, "-c", code], tmp_path, tmp_path / "log.txt")

    assert result.ok and result.last_line == "allocated"
    assert result.peak_rss_mb >= 80
    assert result.wall_seconds > 0 and result.cpu_seconds > 0
