"""The benchmark's one table: each workload and case, its comparison, Dagster's floor, the plain loop and the
targets of issue 11, judged. Pure functions over the results dictionary, so tests can feed made-up numbers."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

CASE_LABELS = {"full": "full index", "no_change": "no change", "one_change": "one changed file",
               "ten_percent": "10% of files changed"}
CASES = tuple(CASE_LABELS)
RSS_LIMIT_MB = 500.0
STORE_LIMIT = 5.0  # store on disk / document text
SAVE_TO_ANSWER_LIMIT = 10.0
FRESH_LIMITS = {"no_change": 0.5, "one_change": 2.5}  # right-rag index in a fresh process, 1x corpus
SCALED_NO_CHANGE_LIMIT = 1.0
SAMPLE_OVER_SAME_PLUGIN = 1.2
SCALED_RSS_RATIO = 1.2
CELL_CHARS = 90


@dataclass(frozen=True)
class Workload:
    """A project of the table, the workload its ratios are taken against, and how its targets read."""

    name: str
    label: str
    reference: str | None  # another workload's name, compared case by case
    reference_label: str
    kind: str  # "same-plugin", "sample" or "scaled" (corpus ``factor`` times the reference's; "{factor}" in label)


WORKLOADS = (
    Workload("same-plugin", "same plugin (paragraph_stanzas), 1x", "same-plugin-025", "right-rag 0.2.5",
             "same-plugin"),
    Workload("sample-q", "sample spec/ + questions, 1x", "same-plugin", "same plugin", "sample"),
    Workload("sample", "sample spec/, no questions, 1x", "same-plugin", "same plugin", "sample"),
    Workload("sample10x-q", "sample spec/ + questions, {factor}x", "sample-q", "1x", "scaled"),
    Workload("sample10x", "sample spec/, no questions, {factor}x", "sample", "1x", "scaled"),
)


def summarize(runs: list[dict] | None) -> dict[str, Any] | None:
    """Median wall, CPU and RSS of a case's runs; the first failure instead when any run failed."""
    if not runs:
        return None
    failed = [r for r in runs if not r["ok"]]
    if failed:
        return {**failed[0], "n": len(runs)}
    return {"ok": True, "n": len(runs), "wall_seconds": statistics.median(r["wall_seconds"] for r in runs),
            "cpu_seconds": statistics.median(r["cpu_seconds"] for r in runs),
            "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in runs),
            "load_before": [r["load_before"] for r in runs]}


def build_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per measured workload and case (in table order), then the save-to-answer row."""
    rows = []
    for workload in WORKLOADS:
        runs = results.get("runs", {}).get(workload.name)
        if not runs:
            continue
        for case in CASES:
            if case in runs:
                rows.append(_row(results, workload, case))
    latency = results.get("latency")
    if latency:
        rows.append(_latency_row(latency))
    return rows


def _row(results: dict[str, Any], workload: Workload, case: str) -> dict[str, Any]:
    runs = results["runs"]
    mine = summarize(runs[workload.name].get(case))
    reference = summarize(runs.get(workload.reference, {}).get(case)) if workload.reference else None
    project = results.get("projects", {}).get(workload.name, {})
    store = _store_ratio(project, case)
    factor = results.get("factor", 10)
    row: dict[str, Any] = {"workload": workload.name, "label": workload.label.format(factor=factor), "case": case,
                           "measured": mine,
                           "reference": reference, "reference_label": workload.reference_label,
                           "store": store, "floor": _floor(results, workload, case), "loop": None}
    if case == "full":
        row["loop"] = results.get("loop", {}).get("sample10x" if workload.kind == "scaled" else
                                                  "same-plugin" if workload.kind == "same-plugin" else "sample")
    row["ratio"] = _ratios(mine, reference)
    row["target"], row["misses"] = _judge(workload, case, mine, row["ratio"], store, factor)
    row["met"] = not row["misses"] if row["target"] else None
    return row


def _ratios(mine: dict | None, reference: dict | None) -> tuple[float, float, float | None] | None:
    """Wall time, peak RSS and CPU seconds over the reference's (CPU: steadier when the machine is shared)."""
    if not (mine and reference and mine.get("ok") and reference.get("ok") and reference["wall_seconds"]):
        return None
    cpu = mine["cpu_seconds"] / reference["cpu_seconds"] if reference.get("cpu_seconds") else None
    return (mine["wall_seconds"] / reference["wall_seconds"], mine["peak_rss_mb"] / max(reference["peak_rss_mb"], 1e-9),
            cpu)


def _store_ratio(project: dict[str, Any], case: str) -> dict[str, float] | None:
    """Store bytes after the full index (on the full row) or after the 10% re-index, over the document text."""
    moment = {"full": "full", "ten_percent": "ten_percent"}.get(case)
    size = (project.get("store_bytes") or {}).get(moment) if moment else None
    if not size or not project.get("text_bytes"):
        return None
    return {"bytes": size, "ratio": size / project["text_bytes"]}


def _floor(results: dict[str, Any], workload: Workload, case: str) -> dict[str, float] | None:
    """Dagster's floor for the case: import + partitions + per-materialization cost x this project's
    materializations (full), a fresh process running one partition (one change), nothing (no change)."""
    floor = results.get("floor", {}).get("10x" if workload.kind == "scaled" else "1x")
    if not floor or "per_asset_partition_ms" not in floor:
        return None
    if case == "no_change":
        return {"seconds": 0.0}
    if case == "one_change":
        return {"seconds": floor["cold_one_process_seconds"]}
    if case != "full":
        return None
    counted = results.get("projects", {}).get(workload.name, {}).get("materializations")
    count = counted or floor["asset_partitions"]
    fixed = floor["import_seconds"] + floor["add_partitions_seconds"]
    return {"seconds": fixed + count * floor["per_asset_partition_ms"] / 1000, "materializations": count,
            "counted": bool(counted)}


def _judge(workload: Workload, case: str, mine: dict | None, ratio: tuple[float, float, float | None] | None,
           store: dict | None, factor: int) -> tuple[str, list[str]]:
    """The case's targets (text) and the short names of those missed ("time", "RSS", "store"; "? time" when the
    figure to judge is missing); an empty text when issue 11 sets none for the case."""
    parts: list[str] = []
    misses: list[str] = []
    failed = mine is None or not mine.get("ok")

    def need(text: str, key: str, ok: bool | None) -> None:
        parts.append(text)
        if ok is None:
            misses.append(f"? {key}")
        elif not ok:
            misses.append(key)

    wall = None if failed else mine["wall_seconds"]
    rss = None if failed else mine["peak_rss_mb"]
    time_ratio = None if ratio is None else ratio[0]
    rss_ratio = None if ratio is None else ratio[1]
    if workload.kind == "same-plugin" and case == "full":
        need("<= 1.0x time", "time", None if time_ratio is None else time_ratio <= 1.0)
        need("less RSS", "RSS", None if rss_ratio is None else rss_ratio < 1.0)
    elif workload.kind == "sample" and case == "full":
        need(f"<= {SAMPLE_OVER_SAME_PLUGIN}x time", "time",
             None if time_ratio is None else time_ratio <= SAMPLE_OVER_SAME_PLUGIN)
        need(f"< {RSS_LIMIT_MB:.0f} MB", "RSS", None if rss is None else rss < RSS_LIMIT_MB)
    elif workload.kind == "scaled" and case in ("full", "no_change", "one_change"):
        need(f"<= {factor}x time", "time", None if time_ratio is None else time_ratio <= factor)
        need(f"<= {SCALED_RSS_RATIO}x RSS", "RSS", None if rss_ratio is None else rss_ratio <= SCALED_RSS_RATIO)
        if case == "no_change":
            need(f"< {SCALED_NO_CHANGE_LIMIT:g} s", "time", None if wall is None else wall < SCALED_NO_CHANGE_LIMIT)
    if workload.kind != "scaled" and case in FRESH_LIMITS:
        need(f"< {FRESH_LIMITS[case]:g} s", "time", None if wall is None else wall < FRESH_LIMITS[case])
    if case in ("full", "ten_percent"):
        need(f"store <= {STORE_LIMIT:g}x text", "store", None if store is None else store["ratio"] <= STORE_LIMIT)
    if failed and mine is not None:
        misses = ["not run" if mine.get("skipped") else "failed"]
    return ", ".join(parts), list(dict.fromkeys(misses))


def _latency_row(latency: dict[str, Any]) -> dict[str, Any]:
    seconds = latency.get("median_seconds")
    misses = [] if seconds is not None and seconds < SAVE_TO_ANSWER_LIMIT else ["failed" if seconds is None else "time"]
    return {"workload": "latency", "label": latency.get("label", "dagster dev"), "case": "save_to_answer",
            "latency": latency, "target": f"< {SAVE_TO_ANSWER_LIMIT:g} s", "misses": misses, "met": not misses}


HEADER = ["workload", "case", "right-rag-dagster", "peak RSS", "store on disk", "compared with",
          "ratio time (cpu) / RSS", "Dagster floor", "plain loop", "target", "met"]


def format_table(rows: list[dict[str, Any]]) -> str:
    """The rows as one aligned Markdown table."""
    body = [_cells(row) for row in rows]
    widths = [max(len(str(r[i])) for r in [HEADER, *body]) for i in range(len(HEADER))]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(HEADER), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, body)])


def _cells(row: dict[str, Any]) -> list[str]:
    met = "-" if row["met"] is None else "yes" if row["met"] else "NO: " + ", ".join(row["misses"])
    if row["case"] == "save_to_answer":
        latency = row["latency"]
        seconds = latency.get("median_seconds")
        measured = (f"{seconds:.1f} s (median of {len(latency['seconds'])})" + _latency_parts(latency)
                    if seconds is not None else _clip(f"FAILED: {latency.get('error', 'no answer cited the file')}"))
        return [row["label"], "saved file -> answer cites it", measured, "", "", "", "", "", "", row["target"], met]
    mine, reference = row["measured"], row["reference"]
    ratio = row["ratio"]
    store = row["store"]
    return [
        row["label"], CASE_LABELS[row["case"]], _run_cell(mine),
        "" if not mine or mine.get("skipped") else f"{mine['peak_rss_mb']:.0f} MB",
        "" if not store else f"{store['bytes'] / 2**20:.0f} MB = {store['ratio']:.1f}x text",
        "" if reference is None else f"{row['reference_label']}: " + _short(reference),
        "" if ratio is None else f"{ratio[0]:.2f}x" + ("" if ratio[2] is None else f" (cpu {ratio[2]:.2f}x)")
        + f" / {ratio[1]:.2f}x",
        _floor_cell(row["floor"]), _loop_cell(row.get("loop")), row["target"] or "-", met,
    ]


def _latency_parts(latency: dict[str, Any]) -> str:
    """Where the median save's seconds went: sensor wait, queue, run until the answer."""
    saves = [(s, part) for s, part in zip(latency["seconds"], latency.get("breakdown") or []) if part]
    if not saves:
        return ""
    part = sorted(saves, key=lambda save: save[0])[(len(saves) - 1) // 2][1]
    run = part.get("run_until_answer")
    return (f": sensor {part['sensor_wait']:.1f} s, queued {part['queued']:.1f} s, run "
            + ("-" if run is None else f"{run:.1f} s"))


def _run_cell(run: dict | None) -> str:
    if run is None:
        return "-"
    if run.get("skipped"):
        return f"not run: {run['skipped']}"
    if not run["ok"]:
        return _clip(f"FAILED exit {run['returncode']} after {run['wall_seconds']:.0f} s: {run['last_line']}")
    times = f" x{run['n']}" if run.get("n", 1) > 1 else ""
    return f"{_seconds(run['wall_seconds'])} (cpu {run['cpu_seconds']:.1f}){times}"


def _short(run: dict) -> str:
    if run.get("skipped"):
        return "not run"
    if not run["ok"]:
        return f"failed (exit {run['returncode']})"
    return f"{_seconds(run['wall_seconds'])}, {run['peak_rss_mb']:.0f} MB"


def _floor_cell(floor: dict | None) -> str:
    if floor is None:
        return ""
    text = _seconds(floor["seconds"])
    if "materializations" not in floor:
        return text
    return f"{text} ({floor['materializations']} {'counted' if floor['counted'] else '= 4/document'})"


def _loop_cell(loop: dict | None) -> str:
    if not loop:
        return ""
    run = loop["process"]
    if not run["ok"]:
        return _clip(f"FAILED: {run['last_line']}", 60)
    return f"{_seconds(run['wall_seconds'])} (cpu {run['cpu_seconds']:.1f}), {run['peak_rss_mb']:.0f} MB"


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


def _clip(text: str, limit: int = CELL_CHARS) -> str:
    text = text.replace("|", "/")
    return text if len(text) <= limit else text[:limit - 1] + "…"
