"""Indexing at scale: right-rag-dagster vs right-rag 0.2.5 vs Dagster's own floor, in one run on one machine.

``.venv/bin/python bench/index_scale.py [--corpus DIR] [--skip-right-rag] [--json OUT]`` indexes the corpus
(default: the 710 files of shared/corpus/scale) three times with each tool — from empty, with no change, after
appending a line to one file — and prints one table of wall times, peak RSS, the floor and the targets of issue 3.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import measure  # noqa: E402
from _rightrag025 import SetupError, ensure_venv, init_project  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = (REPO.parent / "shared" / "corpus" / "scale") if (REPO.parent / "shared").is_dir() \
    else Path("/work/shared/corpus/scale")
CASES = ("full", "no_change", "one_change")
CASE_LABELS = {"full": "full index", "no_change": "no change", "one_change": "one changed file"}
ASSETS_PER_DOCUMENT = 4  # raw_text, units/<parser>, chunks/<chunker>, coverage with the default parsers
RSS_TARGET_MB = 500.0
TIME_TARGETS = {"no_change": 2.0, "one_change": 3.0}
# right-rag 0.2.5 on this corpus as issue 3 reports it; used only with --skip-right-rag.
ISSUE_REFERENCE = {"full": (21.0, 400.0), "no_change": (28.0, 2000.0), "one_change": (26.0, 2000.0)}


def corpus_files(corpus: Path) -> list[Path]:
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and not p.name.startswith("."))
    if not files:
        raise SystemExit(f"no files in {corpus}: pass --corpus DIR with the documents to index")
    return files


def copy_corpus(files: list[Path], corpus: Path, target: Path) -> None:
    for path in files:
        destination = target / path.relative_to(corpus)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)


def append_line(path: Path) -> None:
    """The 'one changed file' edit: one line appended, so content hash and size change."""
    with path.open("a", encoding="utf-8") as out:
        out.write("\nEdited by bench/index_scale.py to measure a one-file re-index.\n")


@dataclass(frozen=True)
class Tool:
    """One indexer under test: how to run it, where, and which file its 'one changed file' case edits."""

    name: str
    command: list[str]
    cwd: Path
    edited: Path
    env: dict[str, str]


def setup_right_rag_dagster(files: list[Path], corpus: Path, work: Path, edited: str,
                            extra_env: dict[str, str]) -> Tool:
    """A fresh project with the default parsers (no spec/), DAGSTER_HOME at its default <project>/.dagster."""
    project = work / "right-rag-dagster"
    (project / "data" / "documents").mkdir(parents=True)
    (project / "right_rag.toml").write_text("[right-rag]\n", encoding="utf-8")
    copy_corpus(files, corpus, project / "data" / "documents")
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "RIGHT_RAG_PROJECT")} | extra_env
    script = Path(sys.executable).parent / "right-rag"
    return Tool("right-rag-dagster", [str(script), "--project", str(project), "index", "--quiet"], project,
                project / "data" / "documents" / edited, env)


def setup_right_rag_025(files: list[Path], corpus: Path, work: Path, edited: str) -> Tool:
    """right-rag 0.2.5 from PyPI (cached venv), `right-rag init` defaults, run from the project folder."""
    script = ensure_venv()
    project = work / "right-rag-0.2.5"
    init_project(script, project)
    copy_corpus(files, corpus, project / "data" / "documents")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return Tool("right-rag-0.2.5", [str(script), "index"], project, project / "data" / "documents" / edited, env)


def run_case(tool: Tool, case: str, logs: Path) -> dict[str, Any]:
    """One measured ``index`` of ``tool`` (editing its file first for the one-changed-file case)."""
    if case == "one_change":
        append_line(tool.edited)
    progress(f"{tool.name}: {CASE_LABELS[case]} ...")
    result = measure(tool.command, tool.cwd, logs / f"{tool.name}-{case}.log", tool.env)
    progress(f"  {result.wall_seconds:.1f} s (cpu {result.cpu_seconds:.1f}), {result.peak_rss_mb:.0f} MB, "
             f"exit {result.returncode}: {result.last_line}")
    return result.to_dict()


def run_floor(documents: int, work: Path, logs: Path, naive_sample: int) -> dict[str, Any]:
    """Dagster's floor for ``documents`` x 4 do-nothing asset-partitions (see bench/_dagster_floor.py)."""
    progress(f"Dagster floor: {documents} partitions x {ASSETS_PER_DOCUMENT} assets, naive sample {naive_sample} ...")
    out = work / "floor.json"
    command = [sys.executable, str(Path(__file__).resolve().parent / "_dagster_floor.py"),
               "--partitions", str(documents), "--assets", str(ASSETS_PER_DOCUMENT),
               "--naive-sample", str(naive_sample), "--home", str(work / "floor" / ".dagster"), "--json", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    process = measure(command, work, logs / "dagster-floor.log", env)
    figures = json.loads(out.read_text(encoding="utf-8")) if process.ok else {}
    progress(f"  {process.wall_seconds:.1f} s, exit {process.returncode}: {figures or process.last_line}")
    return {**figures, "process": process.to_dict()}


FLOOR_PHASES = {"full": ("import", "add_partitions", "batched_run"), "one_change": ("import", "one_partition_run"),
                "no_change": ()}  # nothing changed: no run is launched


def floor_seconds(floor: dict[str, Any] | None, case: str, kind: str = "seconds") -> float | None:
    """What Dagster alone costs each case (``kind`` "seconds" or "cpu_seconds"): import + partitions + one run
    over all (full); a fresh process importing dagster, creating the instance and running one partition (one
    change; import + a warm run of one partition when that was not measured); nothing (no change)."""
    if not floor or "batched_run_seconds" not in floor:
        return None
    if case == "one_change" and kind == "seconds" and "cold_one_process_seconds" in floor:
        return floor["cold_one_process_seconds"]
    if case == "one_change" and "cold_one_run_cpu_seconds" in floor:
        return sum(floor[f"cold_one_{phase}_cpu_seconds"] for phase in ("import", "instance", "run"))
    return sum(floor.get(f"{phase}_{kind}", 0.0) for phase in FLOOR_PHASES[case])


def build_rows(ours: dict[str, dict], theirs: dict[str, dict] | None, floor: dict[str, Any] | None) -> list[dict]:
    """One row per case: both tools' time and RSS, the ratio, the floor, the target and whether it is met."""
    rows = []
    for case in CASES:
        mine = ours[case]
        reference = theirs[case] if theirs else None
        ref_seconds, ref_rss = ((reference["wall_seconds"], reference["peak_rss_mb"]) if reference
                                else ISSUE_REFERENCE[case])
        base = floor_seconds(floor, case)
        if case == "full":
            limit = ref_seconds + (base or 0.0)
        else:
            limit = TIME_TARGETS[case]
        misses = []
        if not mine["ok"]:
            misses.append(f"exit {mine['returncode']}")
        if mine["wall_seconds"] > limit:
            misses.append("time")
        if mine["peak_rss_mb"] >= RSS_TARGET_MB:
            misses.append("RSS")
        rows.append({
            "case": case, "seconds": mine["wall_seconds"], "cpu_seconds": mine["cpu_seconds"],
            "rss_mb": mine["peak_rss_mb"], "reference_seconds": ref_seconds, "reference_rss_mb": ref_rss,
            "reference_measured": reference is not None, "ratio": mine["wall_seconds"] / ref_seconds if ref_seconds else None,
            "floor_seconds": base, "floor_cpu_seconds": floor_seconds(floor, case, "cpu_seconds"),
            "floor_subset_seconds": (floor_seconds(floor, case) - floor["batched_run_seconds"]
                                     + floor["batched_run_subset_planned_seconds"])
            if case == "full" and floor and "batched_run_subset_planned_seconds" in floor else None,
            "reference_cpu_seconds": reference["cpu_seconds"] if reference else None,
            "target_seconds": limit, "met": not misses, "misses": misses,
        })
    return rows


def format_table(rows: list[dict]) -> str:
    """The benchmark's one table, as aligned plain text (also valid Markdown)."""
    header = ["case", "right-rag-dagster", "RSS", "right-rag 0.2.5", "RSS", "ratio", "Dagster floor",
              "target", "met"]
    body = []
    for row in rows:
        mark = "" if row["reference_measured"] else " (issue)"
        floor = "-" if row["floor_seconds"] is None else f"{row['floor_seconds']:.1f} s"
        if row.get("floor_cpu_seconds"):
            floor += f" (cpu {row['floor_cpu_seconds']:.1f})"
        if row.get("floor_subset_seconds"):
            floor += f"; {row['floor_subset_seconds']:.1f} s subset"
        reference = f"{row['reference_seconds']:.1f} s{mark}"
        if row.get("reference_cpu_seconds") is not None:
            reference += f" (cpu {row['reference_cpu_seconds']:.1f})"
        if row["case"] == "full":
            target = f"<= {row['target_seconds']:.1f} s"
        else:
            target = f"< {row['target_seconds']:.0f} s"
        body.append([
            CASE_LABELS[row["case"]], f"{row['seconds']:.1f} s (cpu {row['cpu_seconds']:.1f})",
            f"{row['rss_mb']:.0f} MB", reference, f"{row['reference_rss_mb']:.0f} MB",
            "-" if row["ratio"] is None else f"{row['ratio']:.2f}x", floor,
            f"{target}, < {RSS_TARGET_MB:.0f} MB", "yes" if row["met"] else "NO: " + ", ".join(row["misses"]),
        ])
    widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, body)])


def machine() -> dict[str, Any]:
    """nproc, memory, CPU model, versions: printed beside the table and kept in the JSON."""
    memory_kb = 0
    cpu = platform.processor()
    if Path("/proc/meminfo").is_file():
        memory_kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
    if Path("/proc/cpuinfo").is_file():
        models = [l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                  if l.startswith("model name")]
        cpu = models[0] if models else cpu
    return {"nproc": os.cpu_count(), "memory_gb": round(memory_kb / 1024 ** 2, 1), "cpu": cpu,
            "python": platform.python_version(), "dagster": _version("dagster"), "duckdb": _version("duckdb"),
            "load_average": [round(x, 2) for x in os.getloadavg()], "revision": _revision()}


def _revision() -> str | None:
    """The repository's commit, with "+modified" when the working tree differs from it."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+modified" if dirty else "")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"documents to index ({DEFAULT_CORPUS})")
    parser.add_argument("--skip-right-rag", action="store_true",
                        help="do not run right-rag 0.2.5; compare with the figures quoted in issue 3")
    parser.add_argument("--skip-floor", action="store_true",
                        help="do not measure Dagster's floor (the full-index target then has no allowance for it)")
    parser.add_argument("--naive-sample", type=int, default=20, help="partitions run one per run for the naive cost")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="set an environment variable for right-rag-dagster's runs (to try a setting)")
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    parser.add_argument("--workdir", type=Path, help="where to build the projects (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the projects and logs afterwards")
    args = parser.parse_args(argv)

    extra_env = dict(item.split("=", 1) for item in args.env if "=" in item)
    corpus = args.corpus.resolve()
    files = corpus_files(corpus)
    edited = files[len(files) // 2].relative_to(corpus).as_posix()
    work = (args.workdir or Path(tempfile.mkdtemp(prefix="right-rag-bench-"))).resolve()
    logs = work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    started = dt.datetime.now(dt.timezone.utc)
    progress(f"{len(files)} files from {corpus}; work folder {work}")

    tools = [setup_right_rag_dagster(files, corpus, work, edited, extra_env)]
    if not args.skip_right_rag:
        try:
            tools.append(setup_right_rag_025(files, corpus, work, edited))
        except SetupError as exc:
            progress(f"right-rag 0.2.5 skipped: {exc}")
    # Interleaved (each case for both tools, the floor right after the full index) so that a machine whose
    # load drifts treats all three alike.
    results: dict[str, dict[str, dict]] = {tool.name: {} for tool in tools}
    floor = None
    for case in CASES:
        for tool in tools:
            results[tool.name][case] = run_case(tool, case, logs)
        if case == "full" and not args.skip_floor:
            floor = run_floor(len(files), work, logs, args.naive_sample)
    ours, theirs = results["right-rag-dagster"], results.get("right-rag-0.2.5")
    rows = build_rows(ours, theirs, floor)
    report = {"date": started.isoformat(timespec="seconds"), "machine": machine(), "corpus": str(corpus),
              "files": len(files), "edited_file": edited, "env": extra_env, "rows": rows, "right_rag_dagster": ours,
              "right_rag_025": theirs, "dagster_floor": floor, "work": str(work)}
    print(format_table(rows))
    print(describe(report))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    failed = [name for name, runs in (("right-rag-dagster", ours), ("right-rag 0.2.5", theirs or {}))
              for m in runs.values() if not m["ok"]]
    if args.keep or failed:
        progress(f"projects and logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def describe(report: dict[str, Any]) -> str:
    """The lines under the table: machine, corpus, the floor's parts, any failure."""
    m = report["machine"]
    parts = [f"{report['files']} files of {report['corpus']} (edited: {report['edited_file']})",
             f"{report['date']}", f"{m['nproc']} CPUs ({m['cpu']}), {m['memory_gb']} GB",
             f"Python {m['python']}, dagster {m['dagster']}, duckdb {m['duckdb']}", f"revision {m['revision']}",
             f"load average at the end {m['load_average']}"]
    if report.get("env"):
        parts.append("right-rag-dagster ran with " + " ".join(f"{k}={v}" for k, v in report["env"].items()))
    lines = ["; ".join(parts)]
    floor = report.get("dagster_floor") or {}
    if "batched_run_seconds" in floor:
        lines.append(
            f"Dagster floor: import {floor['import_seconds']:.1f} s + add {report['files']} partitions "
            f"{floor['add_partitions_seconds']:.2f} s + one run of {floor['asset_partitions']} asset-partitions "
            f"{floor['batched_run_seconds']:.1f} s ({floor['per_asset_partition_ms']:.1f} ms each); a run of one "
            f"partition {floor['one_partition_run_seconds']:.2f} s; naive one run per partition "
            f"{floor['naive_extrapolated_seconds']:.0f} s (extrapolated from {floor['naive_sample_runs']})")
        if "cold_one_process_seconds" in floor:
            lines.append(f"  a fresh process running one partition (the one-changed-file floor): "
                         f"{floor['cold_one_process_seconds']:.2f} s = import {floor['cold_one_import_seconds']:.2f} s + "
                         f"instance {floor['cold_one_instance_seconds']:.2f} s + run {floor['cold_one_run_seconds']:.2f} s "
                         f"+ interpreter start and exit")
        if "batched_run_subset_planned_seconds" in floor:
            lines.append(f"  the same run with DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS=1 (one planned event per "
                         f"asset, not per partition; `right-rag index` sets it): "
                         f"{floor['batched_run_subset_planned_seconds']:.1f} s "
                         f"(cpu {floor['batched_run_subset_planned_cpu_seconds']:.1f}) = 'subset' in the table")
    loads = [f"{name} {case} {run['load_before']}" for name in ("right_rag_dagster", "right_rag_025")
             for case, run in (report.get(name) or {}).items()]
    if floor.get("process"):
        loads.append(f"floor {floor['process']['load_before']}")
    lines.append("load average before each run (the machine is shared; cpu = user+sys seconds): " + ", ".join(loads))
    for name in ("right_rag_dagster", "right_rag_025"):
        for case, run in (report.get(name) or {}).items():
            if not run["ok"]:
                lines.append(f"{name} {case} exited {run['returncode']}: {run['last_line']} (log: {run['log']})")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
