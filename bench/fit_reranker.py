"""Fit the ``semantic`` reranker's weights (``rag/semantic.py``) on the tuning sets and show what they do, set by set.

    .venv/bin/python bench/tuning_sets.py --work /tmp/sets --keep     # index and evaluate the tuning sets once
    .venv/bin/python bench/fit_reranker.py --work /tmp/sets           # then fit: one table, and the weights

Each question of each kept set project is searched again as ``evaluate`` searches it (the set's settings, its
evaluation store, ``--retriever``, the first ``semantic.DEPTH`` hits), each hit is read by ``semantic.features``
(loading the offline MiniLM model), and a hit is the answer when it covers at least half of every evidence quote
(the spans ``evaluate`` resolved, from ``<set>.evaluation.json``). The weights are a pairwise logistic regression,
each answering hit against every other hit of its question (L2, ``--c``: 3; the 0.1 of the first fit shrank the
cosines' weights most, as they differ least between the hits of a question, and put the evidence first for 25 fewer
of the 1,126 questions of 36 sets, each scored with weights fit on the others). The table scores every set with weights
fit on the other sets only (hit@1 and MRR@10 of the hits, answering alone), beside the retriever's own order and the
shipped ``WEIGHTS`` (fit on earlier sets, maybe this one among them); the weights printed last are fit on all of
them, for ``WEIGHTS``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from right_rag_dagster.evaluation.spans import half_covered  # noqa: E402
from right_rag_dagster.project import Project  # noqa: E402
from right_rag_dagster.rag import semantic  # noqa: E402
from right_rag_dagster.retrieval import make_embedder, search  # noqa: E402
from right_rag_dagster.retrieval.settings import RetrievalSettings  # noqa: E402
from right_rag_dagster.store import Store  # noqa: E402


@dataclass(frozen=True)
class Question:
    """One question's hits as the reranker reads them: a feature row and whether it answers, per hit."""

    set_name: str
    features: np.ndarray
    answers: np.ndarray


def answers(hit, evidence: list[dict]) -> bool:  # noqa: ANN001
    """Whether ``hit`` alone covers at least half of every evidence item, by the evaluation's own rule
    (``half_covered``; each quote of the sets occurs once in its document, so its first span is its span)."""
    return all(item["document"] == hit.document_id
               and half_covered((item["source_start"], item["source_end"]), hit.spans) for item in evidence)


def read_set(folder: Path, retriever: str, embedder) -> list[Question]:  # noqa: ANN001
    """Every question of the kept set project ``folder`` with its hits' features."""
    report = json.loads(folder.with_name(f"{folder.name}.evaluation.json").read_text(encoding="utf-8"))
    settings = RetrievalSettings.from_dict(Project.load(folder).retrieval)
    store = Store(report["config"]["evaluation_store"])
    found = []
    for asked in report["questions"]:
        if not asked["evidence"] or any(item.get("source_start") is None for item in asked["evidence"]):
            continue  # evaluate does not score it either (a quote it could not find)
        hits = search(store, asked["question"], chunker="domain", retriever=retriever, k=semantic.DEPTH,
                      expand=settings.expand, options=settings.retriever_options(), identity=settings.identity,
                      neighbours=settings.neighbours)
        if hits:
            found.append(Question(folder.name, semantic.features(asked["question"], hits, store, embedder),
                                  np.array([answers(h, asked["evidence"]) for h in hits])))
    return found


def pairs(questions: list[Question]) -> np.ndarray:
    """Feature differences, answering hit minus every other hit of its question."""
    rows = [q.features[i] - q.features[j] for q in questions
            for i in np.flatnonzero(q.answers) for j in np.flatnonzero(~q.answers)]
    return np.array(rows).reshape(-1, len(semantic.FEATURES))


def fit(questions: list[Question], c: float) -> np.ndarray:
    """Weights minimizing 0.5 |w|^2 + 2c sum log(1 + exp(-w.d)) over the pairs (Newton's method)."""
    d = pairs(questions)
    w = np.zeros(d.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(np.clip(d @ w, -30, 30)))  # the loss's slope at each pair
        gradient = w - 2 * c * d.T @ p
        hessian = np.eye(len(w)) + 2 * c * (d.T * (p * (1 - p))) @ d
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def scores(questions: list[Question], weights: np.ndarray | None) -> tuple[int, float]:
    """(questions answered at rank 1, summed reciprocal rank of the first answering hit) in the order of
    ``weights`` (None: the retriever's)."""
    first, reciprocal = 0, 0.0
    for q in questions:
        order = np.arange(len(q.answers)) if weights is None else np.argsort(-(q.features @ weights), kind="stable")
        ranks = np.flatnonzero(q.answers[order])
        if ranks.size:
            first += int(ranks[0] == 0)
            reciprocal += 1 / (ranks[0] + 1)
    return first, reciprocal


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="the kept projects of bench/tuning_sets.py --keep")
    parser.add_argument("--retriever", default="bm25", help="whose hits are reordered (default bm25)")
    parser.add_argument("--c", type=float, default=3.0, help="inverse L2 strength (default 3)")
    args = parser.parse_args(argv)
    folders = sorted((p.parent for p in args.work.glob("*/right_rag.toml")
                      if p.parent.with_name(f"{p.parent.name}.evaluation.json").exists()),
                     key=lambda p: (p.name != "dev", len(p.name), p.name))
    if not folders:
        parser.error(f"no evaluated set projects in {args.work}: run bench/tuning_sets.py --work {args.work} --keep")
    embedder = make_embedder("minilm")
    started = time.perf_counter()
    by_set = {folder.name: read_set(folder, args.retriever, embedder) for folder in folders}
    print("| set | questions | hit@1 before | hit@1 shipped | hit@1 after | MRR@10 before | MRR@10 shipped | "
          "MRR@10 after |\n|---|---|---|---|---|---|---|---|")
    shipped = np.array(semantic.WEIGHTS)
    totals = np.zeros(6)
    for name, questions in by_set.items():
        held_in = [q for other, qs in by_set.items() if other != name for q in qs]
        before, now, after = scores(questions, None), scores(questions, shipped), scores(questions, fit(held_in, args.c))
        totals += (before[0], now[0], after[0], before[1], now[1], after[1])
        n = max(len(questions), 1)
        print(f"| {name} | {len(questions)} | {before[0]} | {now[0]} | {after[0]} | {before[1] / n:.3f} | "
              f"{now[1] / n:.3f} | {after[1] / n:.3f} |")
    n = sum(len(qs) for qs in by_set.values())
    print(f"| **{len(by_set)} sets** | {n} | **{totals[0]:.0f}** | **{totals[1]:.0f}** | **{totals[2]:.0f}** | "
          f"**{totals[3] / n:.3f}** | **{totals[4] / n:.3f}** | **{totals[5] / n:.3f}** |")
    weights = fit([q for qs in by_set.values() for q in qs], args.c)
    print(f"\n{n} questions read in {time.perf_counter() - started:.0f} s; each set scored with weights fit on the "
          "others. Fit on all:")
    print("WEIGHTS = (" + ", ".join(f"{w:.2f}" for w in weights) + ")  # " + ", ".join(semantic.FEATURES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
