"""`right-rag evaluate`: score retrieval on the project's questions; `--compare` ranks chunkers x retrievers."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DESCRIPTION = """\
Score retrieval on questions with evidence quotes (JSON Lines: id, question, evidence: [{document, quote}])
or on right-rag cases.json. The chunks ranked 1..r answer an evidence item when their source spans together
cover at least half of the quote; a question is a hit at rank r when they answer all of its evidence items.
Baseline chunkers (fixed-size and structure-only, named baseline:...) are cut into a separate evaluation
database, never into the project's index. Run `right-rag index` first."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate", help="score retrieval on your questions; compare chunkers and retrievers",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", metavar="FILE", default=None,
                        help="questions.jsonl or cases.json (default: the project's questions_file, "
                             "eval/questions.jsonl)")
    parser.add_argument("--k", type=int, default=10, help="chunks retrieved per question for recall@k (default 10)")
    parser.add_argument("--chunker", action="append", metavar="NAME",
                        help="chunk parser to evaluate, or a baseline such as baseline:fixed-chars-500 "
                             "(repeatable; default: the project's chunkers)")
    parser.add_argument("--retriever", action="append", metavar="NAME",
                        help="bm25, dense or hybrid (repeatable; default: the project's retriever)")
    parser.add_argument("--identity", action="append", metavar="VARIANT",
                        help="how a document named in a question ranks: none, boost, first or filter (repeatable; "
                             "default: the project's setting; --compare runs them all)")
    parser.add_argument("--flow", metavar="NAME", default=None,
                        help="answer with this RAG flow too (adds the answered rate)")
    parser.add_argument("--json", metavar="OUT", default=None,
                        help="write metrics, config and per-question hits as JSON to OUT ('-' for stdout)")
    parser.add_argument("--compare", action="store_true",
                        help="run every chunker (with the baselines) x every available retriever, best first")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluation import run_evaluation
    from ..project import Project

    project = Project.load(args.project)
    report = run_evaluation(project, args.questions, chunkers=args.chunker, retrievers=args.retriever, k=args.k,
                            flow=args.flow, compare=args.compare, identities=args.identity)
    if args.json:
        text = json.dumps(report.to_json(), ensure_ascii=False, indent=2)
        if args.json == "-":
            print(text)
            return 0
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    config = report.config
    print(f"{len(report.best.outcomes)} questions from {config['questions_file']} over {config['documents']} "
          f"documents (k={config['k']})")
    changes = config["evaluation_store_changes"]
    print(f"evaluation store: {changes['documents_copied']} documents copied, {changes['documents_removed']} removed, "
          f"{sum(changes['baseline_recut'].values())} baseline cuts redone; {changes['store_bytes'] / 2**20:.1f} MB"
          + (" (rewritten to reclaim space)" if changes["store_rewritten"] else ""))
    print(report.markdown())
    for line in report.errors():
        print(f"error: {line}", file=sys.stderr)
    if args.json:
        print(f"wrote {args.json}")
    return 0
