"""Performance on the configurations users run (issue 11), side by side in one run: one table of ratios.

``.venv/bin/python bench/real_projects.py [--only PARTS] [--repeat 3] [--json OUT] [--keep]`` measures, by
driving the installed engine from outside (``right-rag index`` / ``right-rag query`` / ``dagster dev``
subprocesses), interleaved case by case: the same right-rag plugin in right-rag 0.2.5 and here; the sample
project's spec/ with and without its questions file on the scale corpus and on a 10x corpus; Dagster's floor
and a plain loop over the same steps; the store's size; and save-to-answer latency under ``dagster dev``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _projects  # noqa: E402
from _corpus import append_line, corpus_files, edit_share, middle_file, scaled_corpus, text_bytes  # noqa: E402
from _machine import machine  # noqa: E402
from _measure import measure  # noqa: E402
from _notes import describe  # noqa: E402
from _rightrag025 import SetupError  # noqa: E402
from _table import build_rows, format_table  # noqa: E402
from save_to_answer import measure_latency  # noqa: E402

BENCH = Path(__file__).resolve().parent
DEFAULT_CORPUS = _projects.SHARED / "corpus" / "scale"
PARTS = ("same-plugin", "sample", "sample10x", "floor", "loop", "store", "latency")
EXPECTED_MINUTES = {"same-plugin": 7, "sample": 4, "sample10x": 12, "floor": 1, "loop": 1, "store": 2, "latency": 4,
                    "floor+sample10x": 6, "loop+sample10x": 2}
"""Minutes each part took here on 2026-12-03 (2 shared cores, load ~1; the whole command 33-37 min)."""
CHEAP_SECONDS = 20.0
"""A case whose first run took less is repeated (--repeat) and its median reported; slower ones run once."""
ASSETS_PER_DOCUMENT = 4  # raw_text, units/<parser>, chunks/<chunker>, coverage: the floor when nothing was counted


class Bench:
    """The work folder, the options and every figure measured so far (``results``, the JSON report)."""

    def __init__(self, work: Path, args: argparse.Namespace, corpus: Path, scaled: Path | None) -> None:
        self.work, self.args, self.corpus, self.scaled = work, args, corpus, scaled
        self.files = corpus_files(corpus)
        self.logs = work / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.results: dict[str, Any] = {"runs": {}, "projects": {}, "floor": {}, "loop": {}}

    def index(self, project: _projects.Project, case: str, timeout: float) -> dict[str, Any]:
        """One measured ``index`` in ``project`` after the case's edit; recorded under runs/<project>/<case>."""
        runs = self.results["runs"].setdefault(project.name, {}).setdefault(case, [])
        if case == "one_change":
            append_line(middle_file(corpus_files(project.documents)), f"one changed file, run {len(runs) + 1}")
        elif case == "ten_percent":
            edited = edit_share(project.documents, 0.1, "10% of the files")
            self.results["projects"][project.name]["ten_percent_files"] = len(edited)
        progress(f"{project.label}: {case.replace('_', ' ')} ...")
        result = measure(project.command, project.root, self.logs / f"{project.name}-{case}-{len(runs) + 1}.log",
                         project.env, timeout=timeout).to_dict()
        progress(f"  {result['wall_seconds']:.1f} s (cpu {result['cpu_seconds']:.1f}), {result['peak_rss_mb']:.0f} MB, "
                 f"exit {result['returncode']}: {result['last_line'][:160]}")
        runs.append(result)
        if project.ours and case in ("full", "ten_percent") and result["ok"]:
            self.record_store(project, case)
        if project.ours and case == "full" and result["ok"]:
            self.results["projects"][project.name]["materializations"] = self.count_materializations(project)
        return result

    def skip(self, project: _projects.Project, case: str, reason: str) -> None:
        self.results["runs"].setdefault(project.name, {})[case] = [
            {"ok": False, "skipped": reason, "returncode": None, "wall_seconds": 0.0, "last_line": reason}]

    def record_store(self, project: _projects.Project, moment: str) -> None:
        """Bytes of the store (+ WAL) and of the other files under .right-rag/, after ``moment``."""
        info = self.results["projects"][project.name]
        info.setdefault("store_bytes", {})[moment] = sum(p.stat().st_size for p in project.store_files() if p.exists())
        info.setdefault("other_bytes", {})[moment] = {p.name: p.stat().st_size for p in project.other_store_files()}

    def count_materializations(self, project: _projects.Project) -> int | None:
        """Asset materializations the project's Dagster instance recorded (its full index), or None."""
        home = project.root / ".dagster"
        if not home.is_dir():
            return None
        out = self.work / f"{project.name}-count.json"
        done = measure([sys.executable, str(BENCH / "_dagster_floor.py"), "--count", "--home", str(home), "--json",
                        str(out)], self.work, self.logs / f"{project.name}-count.log", _projects.ours_env({}))
        return json.loads(out.read_text())["materializations"] if done.ok else None

    def floor(self, size: str, documents: int, naive_sample: int, timeout: float) -> None:
        """Dagster's floor for ``documents`` partitions x 4 do-nothing assets (see _dagster_floor.py)."""
        progress(f"Dagster floor ({size}): {documents} partitions x {ASSETS_PER_DOCUMENT} assets ...")
        out = self.work / f"floor-{size}.json"
        command = [sys.executable, str(BENCH / "_dagster_floor.py"), "--partitions", str(documents), "--assets",
                   str(ASSETS_PER_DOCUMENT), "--naive-sample", str(naive_sample), "--no-per-partition-planned",
                   "--home", str(self.work / f"floor-{size}" / ".dagster"), "--json", str(out)]
        process = measure(command, self.work, self.logs / f"dagster-floor-{size}.log", _projects.ours_env({}),
                          timeout=timeout)
        figures = json.loads(out.read_text(encoding="utf-8")) if process.ok else {}
        progress(f"  {process.wall_seconds:.1f} s, exit {process.returncode}: "
                 f"{figures.get('per_asset_partition_ms', 0):.1f} ms per materialization {process.last_line[:120]}")
        self.results["floor"][size] = {**figures, "process": process.to_dict()}

    def loop(self, name: str, project: _projects.Project) -> None:
        """The plain loop (bench/_loop.py) over ``project``'s documents with its plugins, in a subprocess."""
        progress(f"plain loop: {project.label} ...")
        out = self.work / f"loop-{name}.json"
        command = [sys.executable, str(BENCH / "_loop.py"), "--project", str(project.root),
                   "--out", str(self.work / f"loop-{name}.duckdb"), "--json", str(out)]
        process = measure(command, self.work, self.logs / f"loop-{name}.log", project.env, timeout=self.args.timeout)
        figures = json.loads(out.read_text(encoding="utf-8")) if process.ok else {}
        figures["duckdb_bytes"] = (self.work / f"loop-{name}.duckdb").stat().st_size if process.ok else None
        progress(f"  {process.wall_seconds:.1f} s (cpu {process.cpu_seconds:.1f}), {process.peak_rss_mb:.0f} MB, "
                 f"exit {process.returncode}")
        self.results["loop"][name] = {**figures, "process": process.to_dict()}


def build_projects(bench: Bench, parts: set[str]) -> list[_projects.Project]:
    """The projects to index, in the order each round visits them."""
    work, corpus, scaled = bench.work, bench.corpus, bench.scaled
    env = dict(item.split("=", 1) for item in bench.args.env if "=" in item)
    projects = []
    if "same-plugin" in parts:
        projects.append(_projects.same_plugin_ours(work / "same-plugin", corpus, env))
        try:
            projects.append(_projects.same_plugin_025(work / "same-plugin-025", corpus))
        except SetupError as exc:
            progress(f"right-rag 0.2.5 left out: {exc}")
    if "sample" in parts or ("store" in parts and not parts & {"same-plugin", "sample10x"}):
        projects.append(_projects.sample("sample-q", "sample + questions, 1x", work / "sample-q", corpus, True, env))
    if "sample" in parts:
        projects.append(_projects.sample("sample", "sample, 1x", work / "sample", corpus, False, env))
    if "sample10x" in parts and scaled is not None:
        times = f"{bench.args.factor}x"
        projects.append(_projects.sample("sample10x-q", f"sample + questions, {times}", work / "sample10x-q", scaled,
                                         True, env))
        projects.append(_projects.sample("sample10x", f"sample, {times}", work / "sample10x", scaled, False, env))
    for project in projects:
        bench.results["projects"][project.name] = {"label": project.label, "engine": project.engine,
                                                   "root": str(project.root),
                                                   "files": len(corpus_files(project.documents)),
                                                   "text_bytes": text_bytes(project.documents)}
    return projects


def run_rounds(bench: Bench, projects: list[_projects.Project], parts: set[str], factor: int) -> None:
    """Full index of every project, then the floor and the loop, then each cheaper case for every project in turn
    (repeated while cheap), then the 10% re-index: a load that drifts treats all projects alike."""
    timeout = lambda p: bench.args.timeout * (factor if "10x" in p.name else 1)  # noqa: E731
    ok: dict[str, bool] = {}
    for project in projects:
        ok[project.name] = bench.index(project, "full", timeout(project))["ok"]
    measure_floor_and_loop(bench, parts, factor)
    cases = ["no_change", "one_change"] if parts & {"same-plugin", "sample", "sample10x"} else []
    for case in cases:
        for repetition in range(bench.args.repeat):
            for project in projects:
                if not ok[project.name]:
                    if repetition == 0:
                        bench.skip(project, case, "full index failed")
                    continue
                first = bench.results["runs"][project.name].get(case)
                if first and not (first[0]["ok"] and first[0]["wall_seconds"] < CHEAP_SECONDS):
                    continue
                bench.index(project, case, timeout(project))
    if "store" in parts:
        for project in projects:
            if ok[project.name]:
                bench.index(project, "ten_percent", timeout(project))
            else:
                bench.skip(project, "ten_percent", "full index failed")


def measure_floor_and_loop(bench: Bench, parts: set[str], factor: int) -> None:
    """Interleaved: loop on the same plugin, floor 1x, loop on the sample spec, then the 10x loop and floor."""
    corpus, scaled = bench.corpus, bench.scaled
    loops = {"same-plugin": lambda: _projects.same_plugin_ours(bench.work / "loop-same-plugin", corpus, {}, link=True),
             "sample": lambda: _projects.sample("loop-sample", "sample, 1x", bench.work / "loop-sample", corpus,
                                                False, {}, link=True),
             "sample10x": lambda: _projects.sample("loop-sample10x", f"sample, {factor}x",
                                                   bench.work / "loop-sample10x", scaled, False, {}, link=True)}
    documents = len(bench.files)
    if "loop" in parts:
        bench.loop("same-plugin", loops["same-plugin"]())
    if "floor" in parts:
        bench.floor("1x", documents, bench.args.naive_sample, bench.args.timeout)
    if "loop" in parts:
        bench.loop("sample", loops["sample"]())
    if "sample10x" in parts and "loop" in parts:
        bench.loop("sample10x", loops["sample10x"]())
    if "sample10x" in parts and "floor" in parts:
        bench.floor("10x", documents * factor, 0, bench.args.timeout * factor)


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_only(text: str | None) -> set[str]:
    parts = set(PARTS) if not text else {p.strip() for p in text.split(",") if p.strip()}
    unknown = parts - set(PARTS)
    if unknown:
        raise SystemExit(f"unknown part(s) {sorted(unknown)} in --only; choose from {', '.join(PARTS)}")
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help=f"comma-separated parts to run (default: all): {','.join(PARTS)}")
    parser.add_argument("--repeat", type=int, default=3, help=f"runs of each case under {CHEAP_SECONDS:.0f} s "
                                                              "(median reported); full indexes run once")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"documents ({DEFAULT_CORPUS})")
    parser.add_argument("--factor", type=int, default=10, help="size of the scaled corpus, in copies of --corpus")
    parser.add_argument("--latency-corpus", type=Path, default=_projects.REPO / "data" / "documents",
                        help="documents of the dagster dev project (default: the sample project's own)")
    parser.add_argument("--naive-sample", type=int, default=20, help="floor: partitions run one per run")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds before a run is killed (x factor on the scaled corpus)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="set a variable for right-rag-dagster's index runs (to try a setting)")
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    parser.add_argument("--workdir", type=Path, help="where to build the projects (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the projects and logs afterwards")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so dagster dev is stopped on the way out

    parts = parse_only(args.only)
    corpus = args.corpus.resolve()
    work = (args.workdir or Path(tempfile.mkdtemp(prefix="right-rag-real-"))).resolve()
    scaled = scaled_corpus(corpus, args.factor) if "sample10x" in parts else None
    bench = Bench(work, args, corpus, scaled)
    expected = sum(EXPECTED_MINUTES[p] for p in parts) + sum(
        EXPECTED_MINUTES[f"{p}+sample10x"] for p in ("floor", "loop") if {p, "sample10x"} <= parts)
    progress(f"parts: {', '.join(p for p in PARTS if p in parts)}; expected duration about {expected} min on 2 "
             f"shared cores; {len(bench.files)} files "
             f"of {corpus}; work folder {work}")
    started = dt.datetime.now(dt.timezone.utc)
    _projects.compile_engine()
    projects = build_projects(bench, parts)
    run_rounds(bench, projects, parts, args.factor)
    if "latency" in parts:
        progress("save -> answer under dagster dev ...")
        bench.results["latency"] = measure_latency(work, args.latency_corpus.resolve(), args.repeat,
                                                   min(args.timeout, 300.0))
    report = {"date": started.isoformat(timespec="seconds"),
              "minutes": round((dt.datetime.now(dt.timezone.utc) - started).total_seconds() / 60, 1),
              "machine": machine(), "corpus": str(corpus), "scaled_corpus": str(bench.scaled or ""),
              "parts": sorted(parts), "factor": args.factor, "env": args.env, **bench.results, "work": str(work)}
    report["rows"] = build_rows(report)
    print(format_table(report["rows"]))
    print(describe(report))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    if args.keep:
        progress(f"projects and logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
