"""``right-rag query "question"``: an answer with numbered citations (file, page, section path, span, score).

Imports only the retrieval and RAG layers (never Dagster), and reads the store through short read-only
connections that wait while an index run is writing.
"""

from __future__ import annotations

import argparse
import json

DESCRIPTION = """\
Answer a question from the indexed documents. Defaults come from [right-rag.retrieval] in right_rag.toml
(chunker, retriever, k, embedder, generator, flow); the chunker defaults to the first non-default chunk parser
that has chunks. The default generator is extractive (no model): it quotes the best evidence with [n]
citations, or says "Not found in the documents."."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("query", help="answer a question with citations",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("question", help="the question, in quotes")
    parser.add_argument("--k", type=positive_int, default=None, help="chunks to retrieve (default: settings, else 5)")
    parser.add_argument("--retriever", default=None,
                        help="bm25, dense, hybrid or a spec/retrievers plugin (default: settings, else hybrid "
                             "when an embedder is set, else bm25)")
    parser.add_argument("--chunker", default=None, help="chunk parser whose index to search")
    parser.add_argument("--flow", default=None, help="RAG flow: simple or adaptive (default: settings, else simple)")
    parser.add_argument("--filter", action="append", default=[], metavar="KEY=VALUE", dest="filters",
                        help="only chunks with this document, unit_type, role, section or attribute value "
                             "(repeatable; repeating a key means any of its values)")
    parser.add_argument("--generator", default=None,
                        help="extractive, ollama:<model> or openai:<model> (default: settings, else extractive)")
    parser.add_argument("--expand", action="store_true", help="return a whole unit when several of its chunks match")
    parser.add_argument("--reranker", default=None,
                        help="none, coverage, sentences or semantic (the offline MiniLM model; default: settings, "
                             "else semantic when the embedder is minilm and the retriever uses it, else none)")
    parser.add_argument("--trace", action="store_true", help="show every step of the flow with timings")
    parser.add_argument("--json", action="store_true", help="print answer, hits and trace as JSON")
    parser.set_defaults(handler=run)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    from ..project import Project
    from ..rag import query
    from ..retrieval.searching.filters import parse_filters
    from ..terminal import safe_text

    project = Project.load(args.project)
    warn_about_plugin_errors(project)
    answer = query(project, args.question, k=args.k, retriever=args.retriever, chunker=args.chunker,
                   flow=args.flow, filters=parse_filters(args.filters), generator=args.generator,
                   trace=args.trace or args.json, expand=args.expand or None, reranker=args.reranker)
    if args.json:
        print(json.dumps(answer.to_json(), indent=2, ensure_ascii=False))
    else:
        print(safe_text(format_answer(answer, show_trace=args.trace)))
    return 0


def warn_about_plugin_errors(project) -> None:  # noqa: ANN001 (Project, imported lazily)
    """Name the spec files the last index found broken: their documents are served as last indexed."""
    import sys

    from ..store import Store
    from ..store.content import read_plugin_errors
    from ..terminal import safe

    store = Store.for_project(project)
    if not store.exists():
        return
    with store.read() as con:
        errors = read_plugin_errors(con)
    for _, file, message in errors:
        print(f"right-rag: warning: {safe(file)} failed to import at the last index ({safe(message)}); the "
              "documents its parsers owned are served as they were last indexed", file=sys.stderr)


def format_answer(answer, show_trace: bool = False) -> str:  # noqa: ANN001 (rag.Answer, imported lazily)
    """The answer, then one line per citation: [n] file, p. label, section path, chars a-b, score."""
    lines = [answer.text, ""]
    cited = answer.citations or ()
    if cited:
        lines.append("Citations:")
        lines.extend(f"  [{citation.number}] {_hit_line(citation.hit)}" for citation in cited)
    elif answer.hits:
        lines.append("Closest passages (not cited):")
        lines.extend(f"  {hit.rank}. {_hit_line(hit)}" for hit in answer.hits[:3])
    s = answer.settings
    attempt = f", attempt {s['attempt']}" if s.get("attempt", 1) > 1 else ""
    reranked = f", {s['reranker']} reranker" if s.get("reranker", "none") != "none" else ""
    lines.append(f"\n({s['chunker']} chunks, {s['retriever']}, k={s['k']}, {answer.flow} flow{attempt}{reranked}, "
                 f"{s['generator']})")
    if show_trace and answer.trace:
        lines.append("\nTrace:")
        for step in answer.trace["steps"]:
            outputs = {k: v for k, v in step["outputs"].items() if k not in ("hits", "order")}
            lines.append(f"  {step['step']:<15} {step['seconds'] * 1000:8.1f} ms  {json.dumps(outputs, ensure_ascii=False)[:160]}")
    return "\n".join(lines)


def _hit_line(hit) -> str:  # noqa: ANN001
    """One line: a newline or escape sequence in a file name or section title is shown escaped."""
    from ..rag.prompts import source_line
    from ..terminal import safe

    span = f"chars {hit.source_start}-{hit.source_end}" if hit.source_start is not None else "no span"
    return safe(f"{source_line(hit)}, {span}, score {hit.score:.3f}")
