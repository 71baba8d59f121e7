"""The scale-out demo: the scale corpus indexed by the embedded default, then by 1 and 2 writers on a DuckLake
whose catalog and Dagster's storage are a throwaway local PostgreSQL. Run by ``scripts/scale-out-demo``.

Each configuration is a fresh project on the same corpus (the sample project's spec/ and right_rag.toml):

* embedded: ``right-rag index`` (one process writes the DuckDB file; Dagster on its SQLite default);
* ducklake N: ``right-rag index --writers N``: N writers (the command itself and N - 1 writer processes) running
  Dagster runs of ``index_documents`` over contiguous partition ranges (up to 4 per writer, each taken by the next
  free writer), then one
  ``refresh_indexes`` run (search index and report), all stored in
  PostgreSQL (dagster.yaml of ``orchestration.postgres_home``, pool sized to N). With N = 1 it is one run that
  indexes and refreshes, as on the embedded file.

Wall and CPU are the whole command's (its process tree). Per writer it prints the wall time from its first run's
start to its last run's end (Dagster's run records), and CPU (summed) and peak RSS (its process and parsing worker,
from the runs' tags; writer 0's process is the command's); the refresh's wall time
is the refresh run's (one writer: from its last document materialization to the run's end). It checks that a query's
hits are the same chunks with the same scores on every configuration, walks the lineage of the first hit,
and ends with ``speedup 2 writers vs 1: X.XXx`` (full index: writers plus refresh). Each DuckLake row also shows the
PostgreSQL server's CPU meanwhile (``LocalPostgres.cpu_seconds``: the catalog's and Dagster's storage, which the
command's own CPU does not include), the cores both kept busy, and the load average when the row started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench._measure import Measurement, machine, measure  # noqa: E402
from right_rag_dagster.orchestration.postgres_home import URL_ENV, write_postgres_dagster_home  # noqa: E402
from right_rag_dagster.store.local_postgres import LocalPostgres, start_local_postgres  # noqa: E402

PYTHON = str(REPO / ".venv" / "bin" / "python")
RIGHT_RAG = str(REPO / ".venv" / "bin" / "right-rag")
QUERY = "permission is hereby granted free of charge to any person obtaining a copy"
TIMEOUT = 3600.0


@dataclass
class Row:
    name: str
    writers: list[Measurement]
    refresh: Measurement
    wall: float  # the whole right-rag index: writers (at once) plus refresh
    whole: Measurement | None = None  # the whole command (its process tree), when writers are its runs
    server_cpu: float | None = None  # the PostgreSQL server's CPU seconds meanwhile (not in ``cpu``)
    load: float = 0.0  # 1-minute load average when the row started

    @property
    def cpu(self) -> float:
        if self.whole is not None:
            return self.whole.cpu_seconds
        return sum(m.cpu_seconds for m in self.writers) + self.refresh.cpu_seconds


def make_project(folder: Path, corpus: Path, lake: str | None) -> Path:
    """A project on ``corpus`` with the sample spec/ and settings; ``lake`` adds a DuckLake store."""
    folder.mkdir(parents=True)
    shutil.copytree(REPO / "spec", folder / "spec")
    config = (REPO / "right_rag.toml").read_text(encoding="utf-8")
    config = config.replace('documents_dir = "data/documents"', 'documents_dir = "documents"')
    config = config.replace('questions_file = "eval/questions.jsonl"\n', "")
    if lake:
        config += f'\n[right-rag.store]\nbackend = "ducklake"\ncatalog = "postgres:{lake}"\ndata_path = "lake-data"\n'
    (folder / "right_rag.toml").write_text(config, encoding="utf-8")
    (folder / "documents").symlink_to(corpus)
    return folder


def run_all(commands: list[list[str]], cwd: Path, logs: Path, stem: str, env: dict[str, str]) -> list[Measurement]:
    """Start every command at once and measure each (wall, CPU, peak RSS of its process tree)."""
    results: list[Measurement | None] = [None] * len(commands)

    def one(index: int) -> None:
        results[index] = measure(commands[index], cwd, logs / f"{stem}-{index}.log", env=env, timeout=TIMEOUT)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(commands))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        if result is None or not result.ok:
            raise SystemExit(f"{stem} failed: {result.last_line if result else 'no result'} (logs in {logs})")
    return [r for r in results if r is not None]


def embedded(work: Path, corpus: Path, logs: Path, env: dict[str, str]) -> tuple[Row, Path]:
    project = make_project(work / "embedded", corpus, None)
    home_env = {**env, "DAGSTER_HOME": str(project / ".dagster")}
    (index,) = run_all([[RIGHT_RAG, "--project", str(project), "index", "--quiet", "--allow-rejections"]],
                       project, logs, "embedded-index", home_env)
    return Row("embedded DuckDB, 1 writer (right-rag index)", [index], index, index.wall_seconds,
               load=index.load_before), project


def lake(work: Path, corpus: Path, logs: Path, env: dict[str, str], server: LocalPostgres, writers: int
         ) -> tuple[Row, Path]:
    """``right-rag index --writers N`` on a fresh DuckLake, Dagster's storage in PostgreSQL (pool sized to N)."""
    project = make_project(work / f"lake{writers}", corpus, server.create_database(f"lake_{writers}"))
    dagster = f"dagster_{writers}"
    server.create_database(dagster)
    home = work / f"dagster-home-{writers}"
    write_postgres_dagster_home(home, writers)
    pg_env = {**env, "DAGSTER_HOME": str(home), URL_ENV: server.url(dagster)}
    server_before = server.cpu_seconds()
    (index,) = run_all([[RIGHT_RAG, "--project", str(project), "index", "--quiet", "--allow-rejections",
                         "--writers", str(writers)]], project, logs, f"lake{writers}-index", pg_env)
    server_cpu = server.cpu_seconds() - server_before
    runs, refresh = dagster_runs(home, pg_env, index)
    return Row(f"DuckLake on PostgreSQL, {writers} writer{'s' if writers > 1 else ''}", runs, refresh,
               index.wall_seconds, index, server_cpu, index.load_before), project


def dagster_runs(home: Path, env: dict[str, str], index: Measurement) -> tuple[list[Measurement], Measurement]:
    """The index's Dagster runs, read from their PostgreSQL storage: each writer run (wall from the run's start
    and end; CPU and peak RSS from the tags ``writer_process`` adds) and the refresh. One writer is one run that
    also refreshes: its refresh time is from the last document materialization to the run's end."""
    import subprocess

    script = r"""
import json, dagster as dg
from right_rag_dagster.orchestration.writer_process import CPU_TAG, RSS_TAG
out = []
with dg.DagsterInstance.get() as instance:
    for record in instance.get_run_records():
        run = record.dagster_run
        docs = [e.timestamp for e in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
                if e.dagster_event.asset_key.path[0] in ("raw_text", "chunks", "coverage", "units")]
        out.append({"job": run.job_name, "writer": run.tags.get("right_rag/writer"), "start": record.start_time,
                    "end": record.end_time, "last_document": max(docs) if docs else None,
                    "cpu": run.tags.get(CPU_TAG), "rss": run.tags.get(RSS_TAG)})
print(json.dumps(out))
"""
    done = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, env={**env, "DAGSTER_HOME": str(home)},
                          timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"reading the Dagster runs failed: {done.stderr[-1000:]}")
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    writers = [r for r in runs if r["writer"]]
    (refresh,) = [r for r in runs if r["job"] == "refresh_indexes"] or [None]
    if not writers:  # one writer: one run that indexes and refreshes
        (single,) = runs
        split = single["last_document"] or single["end"]
        return ([run_measurement(split - single["start"], index.cpu_seconds, index.peak_rss_mb)],
                run_measurement(single["end"] - split))
    by_writer: dict[str, list[dict]] = {}
    for r in writers:  # a writer process runs several ranges, one run each
        by_writer.setdefault(r["writer"], []).append(r)
    return ([run_measurement(max(r["end"] for r in rs) - min(r["start"] for r in rs),
                             sum(float(r["cpu"] or 0) for r in rs), max(float(r["rss"] or 0) for r in rs))
             for _, rs in sorted(by_writer.items())],
            run_measurement(refresh["end"] - refresh["start"]))


def run_measurement(wall: float, cpu: float = 0.0, rss: float = 0.0) -> Measurement:
    return Measurement(wall, cpu, rss, 0, 0.0, "", "")


def query(project: Path, env: dict[str, str]) -> list[tuple[str, float]]:
    import subprocess

    done = subprocess.run([RIGHT_RAG, "--project", str(project), "query", "--json", "--k", "5", QUERY],
                          capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"query failed on {project}: {done.stderr[-1000:]}")
    return [(hit["chunk_id"], round(float(hit["score"]), 6)) for hit in json.loads(done.stdout)["hits"]]


def same_ranking(first: list[tuple[str, float]], second: list[tuple[str, float]]) -> bool:
    """The same scores in the same order, and the same chunks at every score above the last one (chunks that
    tie at the cut-off score may differ: among equal scores the order is the order rows were written in)."""
    if [score for _, score in first] != [score for _, score in second]:
        return False
    cut = first[-1][1] if first else None
    return {c for c, s in first if s != cut} == {c for c, s in second if s != cut}


def lineage(project: Path, chunk_id: str, env: dict[str, str]) -> str:
    import subprocess

    done = subprocess.run([RIGHT_RAG, "--project", str(project), "lineage", chunk_id], capture_output=True,
                          text=True, env=env, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"lineage failed on {project}: {done.stderr[-1000:]}")
    return done.stdout


def table(rows: list[Row]) -> str:
    """One line per configuration. "CPU s" is the command's process tree; "PG CPU s" the PostgreSQL server's
    (postmaster and backends) meanwhile, which the command's tree does not include; "cores" is both over the
    wall time: how much of the machine the configuration kept busy."""
    head = (f"{'configuration':<44} {'wall s':>8} {'CPU s':>8} {'PG CPU s':>8} {'cores':>5} "
            f"{'writers: wall s / CPU s / peak RSS MB':<46} {'refresh s':>9} {'load':>5}")
    lines = [head, "-" * len(head)]
    for row in rows:
        writers = ", ".join(f"{m.wall_seconds:.1f}/{m.cpu_seconds:.1f}/{m.peak_rss_mb:.0f}" for m in row.writers)
        refresh = "-" if row.refresh is row.writers[0] else f"{row.refresh.wall_seconds:.1f}"
        server = "-" if row.server_cpu is None else f"{row.server_cpu:.1f}"
        cores = (row.cpu + (row.server_cpu or 0.0)) / row.wall if row.wall else 0.0
        lines.append(f"{row.name:<44} {row.wall:>8.1f} {row.cpu:>8.1f} {server:>8} {cores:>5.2f} {writers:<46} "
                     f"{refresh:>9} {row.load:>5.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/shared/corpus/scale"))
    parser.add_argument("--keep", action="store_true", help="keep the projects and logs (their folder is printed)")
    parser.add_argument("--skip-embedded", action="store_true",
                        help="only the two DuckLake rows (quick A/B; the query is compared between them)")
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()
    if not corpus.is_dir():
        raise SystemExit(f"no corpus at {corpus}")
    work = Path(tempfile.mkdtemp(prefix="right-rag-scale-out-"))
    logs = work / "logs"
    logs.mkdir()
    env = {**os.environ, "RIGHT_RAG_DUCKDB_MEMORY_LIMIT": os.environ.get("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "2GB")}
    for key in ("RIGHT_RAG_STORE_CATALOG", "RIGHT_RAG_STORE_DATA_PATH", "RIGHT_RAG_PROJECT"):
        env.pop(key, None)
    server = start_local_postgres()
    try:
        print(f"throwaway PostgreSQL on 127.0.0.1:{server.port}; corpus {corpus} "
              f"({sum(1 for p in corpus.iterdir() if p.is_file())} files); {machine()}, "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        rows, projects = [], []
        if not args.skip_embedded:
            row, project = embedded(work, corpus, logs, env)
            rows.append(row), projects.append((project, env))
            print(f"  {row.name}: {row.wall:.1f} s", flush=True)
        for writers in (1, 2):
            row, project = lake(work, corpus, logs, env, server, writers)
            rows.append(row), projects.append((project, {**env}))
            print(f"  {row.name}: {row.wall:.1f} s", flush=True)
        answers = [query(project, project_env) for project, project_env in projects]
        same = all(same_ranking(answers[0], answer) for answer in answers)
        exact = all(answer == answers[0] for answer in answers)
        print()
        print(table(rows))
        print()
        verdict = ("identical (chunk ids and scores, in order)" if exact else "the same scores and chunks, up to the "
                   "order of chunks tied at the last score" if same else "DIFFERENT")
        print(f"query {QUERY!r}: top {len(answers[0])} hits {verdict} on all {len(answers)} stores")
        for (project, _), answer in zip(projects, answers):
            print(f"  {project.name:<9} " + ", ".join(f"{c[:10]} {s:.3f}" for c, s in answer))
        if answers[0]:
            print(f"lineage of the first hit {answers[0][0][0]} on the 2-writer DuckLake:")
            print("  " + lineage(projects[-1][0], answers[0][0][0], projects[-1][1]).strip().replace("\n", "\n  "))
        if args.keep:
            print(f"kept: {work}")
        print(f"load average at the end: {os.getloadavg()[0]:.1f} (other work on this machine shares its CPUs)")
        print(f"speedup 2 writers vs 1: {rows[-2].wall / rows[-1].wall:.2f}x")
        return 0 if same else 1
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
