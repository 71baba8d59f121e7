"""Retrieval and answers on the tuning sets, each in its own project as the held-out floors index them; one table.

    .venv/bin/python bench/tuning_sets.py                          # dev and the held-out sets with a floor
    .venv/bin/python bench/tuning_sets.py --sets dev,heldout16     # some sets
    .venv/bin/python bench/tuning_sets.py --work /tmp/sets --keep  # keep the indexed projects; later runs reuse them
    .venv/bin/python bench/tuning_sets.py --work /tmp/sets --env RIGHT_RAG_X=1 --json out.json   # a variant
    .venv/bin/python bench/tuning_sets.py --work /tmp/sets --reranker semantic   # a [right-rag.retrieval] reranker
    .venv/bin/python bench/tuning_sets.py --retriever dense --retriever hybrid \
        --vectors-from /tmp/seed.duckdb   # a copy of a store with MiniLM vectors of the same chunks: not embedded

Each set (``dev``: the repository's ``data/documents`` and ``eval/questions.jsonl``; ``heldoutN``: the fixture of that
name) is copied with its links dereferenced, pointed at this checkout's ``spec/``, indexed with ``right-rag index``
and scored with ``right-rag evaluate --flow simple`` (domain chunker, the project's retriever unless ``--retriever``),
two sets at a time. The table sums the sets: questions at rank 1, in the top 5, MRR@10 weighted by questions, and
answers quoting their evidence (the extractive generator) — the figures ``docs/evaluation.md`` compares variants by.
Never list a set that is still held out (the newest ``heldoutN``, and the one before it until it has a held-out
floor): its per-set row would be read.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
RIGHT_RAG = Path(sys.executable).with_name("right-rag")


@dataclass(frozen=True)
class SetResult:
    """One set's figures: counts of questions (not rates), so sets add up."""

    name: str
    retriever: str
    questions: int
    at_1: int
    in_5: int
    mrr: float
    answers: int
    context_chars: float

    @classmethod
    def of(cls, name: str, metrics: dict) -> SetResult:
        scored = int(metrics["scored"])
        return cls(name, str(metrics["retriever"]), scored, round(metrics["hit@1"] * scored), round(metrics["hit@5"] * scored),
                   float(metrics["mrr@10"]), round((metrics.get("answer_quotes_evidence") or 0.0) * scored),
                   float(metrics["context_chars@5"]))


FLOORS = REPO / "tests" / "retrieval" / "test_heldout_floors.py"


def tuning_sets() -> list[str]:
    """dev and every ``heldoutN`` fixture that is a tuning set: up to the newest with a held-out floor
    (``FLOORS``), which a set gets once the next one has been written and measured. Not the newest fixture, nor
    the one before it while the newest is being written (both are unseen until then)."""
    promoted = max(int(n) for n in re.findall(r'^\s*"heldout(\d+)":', FLOORS.read_text(encoding="utf-8"), re.MULTILINE))
    numbered = sorted((int(m.group(1) or 1), p.name) for p in FIXTURES.iterdir()
                      if (m := re.fullmatch(r"heldout(\d*)", p.name)) and (p / "questions.jsonl").exists())
    return ["dev", *(name for number, name in numbered[:-1] if number <= promoted)]


def prepare(name: str, folder: Path, reranker: str | None = None) -> Path:
    """A project folder for set ``name`` (its documents copied, links dereferenced, once) using this checkout's
    spec/, with ``reranker`` as its ``[right-rag.retrieval] reranker`` when given (the settings are written anew
    every run, so a kept project takes the run's reranker)."""
    project = folder / name
    fixture = FIXTURES / name
    if not (project / "right_rag.toml").exists():  # written last: a copy cut short is made again
        shutil.rmtree(project, ignore_errors=True)
        project.mkdir(parents=True)
        if name == "dev":
            shutil.copytree(REPO / "data" / "documents", project / "documents")
            shutil.copy(REPO / "eval" / "questions.jsonl", project / "questions.jsonl")
        else:
            shutil.copytree(fixture / "documents", project / "documents", symlinks=False)
            shutil.copy(fixture / "questions.jsonl", project / "questions.jsonl")
    if name == "dev":
        toml = (REPO / "right_rag.toml").read_text(encoding="utf-8")
        toml = re.sub(r'(?m)^documents_dir = .*$', 'documents_dir = "documents"', toml)
        toml = re.sub(r'(?m)^questions_file = .*$', 'questions_file = "questions.jsonl"', toml)
    else:
        toml = (fixture / "right_rag.toml").read_text(encoding="utf-8")
    toml = re.sub(r'(?m)^spec_dir = .*$', f"spec_dir = {json.dumps(str(REPO / 'spec'))}", toml)
    if reranker:
        toml = with_reranker(toml, reranker)
    (project / "right_rag.toml").write_text(toml, encoding="utf-8")
    return project


def run(project: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run([str(RIGHT_RAG), "--project", str(project), *args], capture_output=True, text=True,
                          env=env, cwd=project.parent)
    if done.returncode != 0:
        raise SystemExit(f"right-rag {' '.join(args)} failed on {project.name} (exit {done.returncode}):\n"
                         f"{done.stderr[-2000:]}")
    return done


def with_reranker(toml: str, reranker: str) -> str:
    """``toml`` with ``[right-rag.retrieval] reranker`` set to ``reranker`` (replaced when the table sets one)."""
    line = f"reranker = {json.dumps(reranker)}"
    header = re.search(r"(?m)^\[right-rag\.retrieval\][ \t]*(?:#.*)?$", toml)
    if header is None:
        return toml + f"\n[right-rag.retrieval]\n{line}\n"
    table_end = re.compile(r"(?m)^\[").search(toml, header.end())
    end = table_end.start() if table_end else len(toml)
    table, found = re.subn(r"(?m)^reranker[ \t]*=.*$", line, toml[header.end():end])
    if not found:
        table = f"\n{line}" + table
    result = toml[:header.end()] + table + toml[end:]
    tomllib.loads(result)  # a file right-rag cannot read fails here, naming the set's settings
    return result


def measure(name: str, folder: Path, env: dict[str, str], retrievers: list[str],
            reranker: str | None = None, vectors_from: Path | None = None) -> tuple[list[SetResult], float]:
    """Index set ``name`` (incrementally when its project is kept) and evaluate it; (one result per retriever,
    seconds the index took)."""
    project = prepare(name, folder, reranker)
    started = time.perf_counter()
    run(project, ["index", "--quiet"], env)
    seconds = time.perf_counter() - started
    if vectors_from is not None:
        seed_vectors(project, vectors_from)
    out = folder / f"{name}.evaluation.json"
    extra = [option for retriever in retrievers for option in ("--retriever", retriever)]
    run(project, ["evaluate", "--chunker", "domain", *extra, "--flow", "simple", "--json", str(out)], env)
    report = json.loads(out.read_text(encoding="utf-8"))
    runs = report.get("comparison") or [report["metrics"] | report["config"]]
    return [SetResult.of(name, metrics) for metrics in runs], seconds


def seed_vectors(project: Path, seed: Path) -> None:
    """Give the set project's store MiniLM vectors of its ``domain`` chunks, copied from ``seed`` (any store holding
    them: a kept set's ``.right-rag/evaluation.duckdb``) and embedded only where it lacks them; ``evaluate`` then
    copies them into its own store instead of embedding every chunk of every set again."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))  # this checkout's package, as the right-rag runs use it
    from right_rag_dagster.project import Project
    from right_rag_dagster.retrieval import build_search_index, make_embedder
    from right_rag_dagster.store import Store

    store = Store(Project.load(project).store_path)
    build_search_index(store, "domain", embedder=make_embedder("minilm"), vectors_from=Store(seed))


def table(results: dict[str, list[SetResult]]) -> str:
    """One row per set and retriever, then the totals (counts of questions; MRR weighted by questions)."""
    lines = ["| set | retriever | questions | hit@1 | hit@5 | MRR@10 | ctx@5 | answers |",
             "|---|---|---|---|---|---|---|---|"]
    totals: dict[str, list[SetResult]] = {}
    for name, rows in results.items():
        for row in sorted(rows, key=lambda r: r.retriever):
            totals.setdefault(row.retriever, []).append(row)
            lines.append(f"| {name} | {row.retriever} | {row.questions} | {row.at_1} | {row.in_5} | {row.mrr:.3f} | "
                         f"{row.context_chars:,.0f} | {row.answers} |")
    for label, rows in totals.items():
        n = sum(r.questions for r in rows)
        mrr = sum(r.mrr * r.questions for r in rows) / n
        ctx = sum(r.context_chars * r.questions for r in rows) / n
        lines.append(f"| **{_sets(len(rows))}** | {label} | {n} | **{sum(r.at_1 for r in rows)}** | "
                     f"**{sum(r.in_5 for r in rows)}** | **{mrr:.3f}** | {ctx:,.0f} | **{sum(r.answers for r in rows)}** |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", help="comma-separated set names (default: dev and every held-out set but the newest)")
    parser.add_argument("--retriever", action="append", default=[],
                        help="bm25, dense or hybrid (repeatable; default: the sets' own, bm25)")
    parser.add_argument("--work", type=Path, help="folder of the set projects (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep --work's projects (reused by the next run)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="for every right-rag run")
    parser.add_argument("--jobs", type=int, default=2, help="sets indexed and evaluated at once (default 2)")
    parser.add_argument("--json", type=Path, help="write every set's figures here")
    parser.add_argument("--reranker", help="[right-rag.retrieval] reranker for every set (default: the sets' own)")
    parser.add_argument("--vectors-from", type=Path, metavar="STORE",
                        help="a store with MiniLM vectors of the sets' chunks (a copy of a kept set's "
                             ".right-rag/evaluation.duckdb: the set's own is written while it is evaluated): "
                             "dense and hybrid copy them instead of embedding")
    args = parser.parse_args(argv)

    names = args.sets.split(",") if args.sets else tuning_sets()
    unknown = [n for n in names if n != "dev" and not (FIXTURES / n / "questions.jsonl").exists()]
    if unknown:
        parser.error(f"no such set: {', '.join(unknown)} (sets: dev, or a tests/fixtures/heldoutN folder)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RIGHT_RAG_", "DAGSTER_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for pair in args.env:
        key, _, value = pair.partition("=")
        env[key] = value
    work = args.work or Path(tempfile.mkdtemp(prefix="right-rag-tuning-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            measured = dict(zip(names, pool.map(lambda n: measure(n, work, env, args.retriever, args.reranker,
                                                                     args.vectors_from), names)))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    results = {name: rows for name, (rows, _) in measured.items()}
    print(table(results))
    print(f"\n{_sets(len(names))} in {time.perf_counter() - started:.0f} s "
          f"(indexing {sum(s for _, s in measured.values()):.0f} s of it, {args.jobs} at a time)"
          + (f"; projects kept in {work}" if args.keep else ""))
    if args.json:
        args.json.write_text(json.dumps({name: [r.__dict__ for r in rows] for name, rows in results.items()},
                                        indent=1), encoding="utf-8")
    return 0


def _sets(count: int) -> str:
    return f"{count} set" if count == 1 else f"{count} sets"


if __name__ == "__main__":
    sys.exit(main())
