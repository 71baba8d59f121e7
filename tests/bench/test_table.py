"""bench/_table.py: the one table's ratios, floors and target verdicts, on made-up numbers."""

from __future__ import annotations

import _table


def run(seconds: float, rss: float, returncode: int = 0, last_line: str = "done") -> dict:
    return {"wall_seconds": seconds, "cpu_seconds": seconds * 0.9, "peak_rss_mb": rss, "returncode": returncode,
            "ok": returncode == 0, "load_before": 0.5, "log": "x.log", "last_line": last_line}


FLOOR = {"import_seconds": 1.0, "add_partitions_seconds": 0.5, "batched_run_subset_planned_seconds": 20.0,
         "batched_run_subset_planned_cpu_seconds": 15.0, "per_asset_partition_ms": 10.0, "asset_partitions": 2840,
         "partitions": 710, "cold_one_process_seconds": 1.9, "cold_one_import_seconds": 0.6,
         "cold_one_instance_seconds": 0.6, "cold_one_run_seconds": 0.4}
OOM = "right-rag: error: DuckDB ran out of its memory budget (128MB)"


def results() -> dict:
    return {
        "factor": 10,
        "runs": {
            "same-plugin": {"full": [run(80.0, 450.0)], "no_change": [run(0.4, 70), run(0.6, 70), run(0.45, 70)],
                            "one_change": [run(4.0, 280.0)]},
            "same-plugin-025": {"full": [run(45.0, 650.0)], "no_change": [run(61.0, 2900.0)],
                                "one_change": [run(66.0, 2900.0)]},
            "sample-q": {"full": [run(27.6, 592.0, 2, OOM)],
                         "no_change": [{"ok": False, "skipped": "full index failed", "returncode": None,
                                        "wall_seconds": 0.0, "last_line": "full index failed"}]},
            "sample": {"full": [run(90.0, 480.0)], "no_change": [run(0.4, 75.0)], "ten_percent": [run(12.0, 400.0)]},
            "sample10x": {"full": [run(1000.0, 560.0)], "no_change": [run(0.9, 80.0)]},
        },
        "projects": {"same-plugin": {"text_bytes": 100 * 2**20, "store_bytes": {"full": 300 * 2**20},
                                     "materializations": 2842},
                     "sample": {"text_bytes": 100 * 2**20, "store_bytes": {"full": 400 * 2**20,
                                                                          "ten_percent": 600 * 2**20}}},
        "floor": {"1x": FLOOR},
        "loop": {"same-plugin": {"process": run(12.0, 150.0)}},
        "latency": {"label": "dagster dev", "seconds": [35.0, 30.0, 40.0], "median_seconds": 35.0,
                    "breakdown": [{"sensor_wait": 20.0, "queued": 8.0, "run_until_answer": 5.0}, None,
                                  {"sensor_wait": 25.0, "queued": 8.0, "run_until_answer": 5.0}]},
    }


def rows_by_key() -> dict:
    return {(r["workload"], r["case"]): r for r in _table.build_rows(results())}


def test_same_plugin_rows_compare_with_right_rag_and_take_medians():
    rows = rows_by_key()
    full = rows[("same-plugin", "full")]
    time_ratio, rss_ratio, cpu_ratio = full["ratio"]
    assert abs(time_ratio - 80 / 45) < 1e-9 and abs(rss_ratio - 450 / 650) < 1e-9 and abs(cpu_ratio - 80 / 45) < 1e-9
    assert full["misses"] == ["time"]  # slower than right-rag; less memory; store 3x text is within 5x
    assert full["floor"] == {"seconds": 1.0 + 0.5 + 2842 * 0.010, "materializations": 2842, "counted": True}
    assert rows[("sample", "full")]["floor"]["materializations"] == 2840  # not counted: 4 per document
    assert full["loop"]["process"]["wall_seconds"] == 12.0
    no_change = rows[("same-plugin", "no_change")]
    assert no_change["measured"]["wall_seconds"] == 0.45 and no_change["measured"]["n"] == 3
    assert no_change["misses"] == [] and no_change["met"] and no_change["floor"] == {"seconds": 0.0}
    one = rows[("same-plugin", "one_change")]
    assert one["misses"] == ["time"] and one["floor"] == {"seconds": 1.9}


def test_failures_and_skipped_cases_are_cells_not_crashes():
    rows = rows_by_key()
    assert rows[("sample-q", "full")]["misses"] == ["failed"] and rows[("sample-q", "full")]["ratio"] is None
    assert rows[("sample-q", "no_change")]["misses"] == ["not run"]
    table = _table.format_table(_table.build_rows(results()))
    assert "FAILED exit 2 after 28 s: right-rag: error: DuckDB ran out of its memory budget (128MB)" in table
    assert "not run: full index failed" in table
    assert "| 592 MB" in table  # a failed run's peak still shows


def test_sample_and_scaled_targets():
    rows = rows_by_key()
    sample = rows[("sample", "full")]
    assert abs(sample["ratio"][0] - 90 / 80) < 1e-9 and sample["met"]  # <= 1.2x, < 500 MB, store 4x
    assert rows[("sample", "ten_percent")]["misses"] == ["store"]  # 6x the text
    scaled = rows[("sample10x", "full")]
    assert scaled["label"] == "sample spec/, no questions, 10x"
    assert scaled["misses"] == ["time", "? store"]  # 11.1x the 1x time; RSS 1.17x is within 1.2x; no store size
    assert rows[("sample10x", "no_change")]["misses"] == []


def test_latency_row_and_table_shape():
    built = _table.build_rows(results())
    latency = built[-1]
    assert latency["case"] == "save_to_answer" and latency["misses"] == ["time"]
    table = _table.format_table(built)
    assert len(table.splitlines()) == 2 + len(built)
    assert "35.0 s (median of 3): sensor 20.0 s, queued 8.0 s, run 5.0 s" in table
    last = [cell.strip() for cell in table.splitlines()[-1].split("|")]
    assert last[-3:] == ["< 10 s", "NO: time", ""]
