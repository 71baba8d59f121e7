"""`right-rag report` (placeholder registration until its issue lands)."""

from __future__ import annotations

import argparse

from ..errors import RightRagError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help="(report: not available yet)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    raise RightRagError("'right-rag report' is not available in this build yet")
