"""The ``right-rag`` command line: one module per command, each with ``register(subparsers)`` and ``run(args)``.

Errors from the package print as one line and exit with status 2 (a traceback only with ``--debug``).
Commands import their heavy dependencies lazily so ``right-rag --help`` and ``query`` start fast.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence

from ..errors import RightRagError

COMMANDS = ("init", "index", "report", "query", "evaluate", "lineage", "playground")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="right-rag",
        description="Domain-structured RAG for hierarchical documents, orchestrated by Dagster.",
    )
    parser.add_argument("--project", default=None, metavar="DIR",
                        help="project folder (default: RIGHT_RAG_PROJECT or the current directory)")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"{__name__}.{name}_cmd")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    try:
        return int(args.handler(args) or 0)
    except RightRagError as exc:
        if args.debug:
            raise
        print(f"right-rag: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("right-rag: interrupted", file=sys.stderr)
        return 130


def console_main() -> int:
    """The ``right-rag`` executable: ``main``, then an exit that skips collecting what the command left.

    Dagster and its dependencies leave about a million objects; the interpreter's final garbage collection
    of them took 0.6 s of a 3 s ``right-rag index``. Frozen objects are left to the operating system."""
    code = main()
    gc.freeze()
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console_main())
