"""``right-rag playground``: a local web page that draws each RAG flow, lights up the steps of real traces and
compares chunkers, retrievers and flows side by side; ``--record`` re-records the replayable traces."""

from __future__ import annotations

import argparse
from pathlib import Path

DESCRIPTION = """\
Serve the RAG playground for the project on http://127.0.0.1:PORT/ and open it in the browser. Pick a chunker
(baselines included), a retriever and a flow, ask a question, watch the flow's steps light up in trace order,
click a step for its inputs, outputs and retrieved chunks, click a citation for the cited text inside its unit.
Live mode runs the real query code on the project's index (the configured generator; extractive by default);
recorded mode replays traces recorded from the sample project, with no index and no model.

--record runs every question of the questions file through the recorded choices and writes the recording:
into the package for the sample project of a right-rag-dagster checkout (commit it), else beside the
project's store. Needs `right-rag index` first; dense and hybrid need the local embedding model."""


def register(subparsers: argparse._SubParsersAction) -> None:
    from ..playground.links import DEFAULT_PORT

    parser = subparsers.add_parser("playground", help="a local web page to try chunkers, retrievers and flows",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT})")
    parser.add_argument("--no-browser", action="store_true", help="do not open the page in a browser")
    parser.add_argument("--record", action="store_true",
                        help="re-record the replayable traces of the project's questions, then exit")
    parser.add_argument("--recording", metavar="FILE", default=None,
                        help="with --record: write this file instead (.json.gz)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..project import Project

    project = Project.load(args.project)
    if args.record:
        from ..playground.record import record
        from ..playground.recordings import recording_path

        target = Path(args.recording) if args.recording else recording_path(project, for_writing=True)
        recording = record(project, target)
        data = recording.data
        print(f"recorded {len(data['runs'])} runs ({len(data['questions'])} questions x {len(data['configs'])} "
              f"choices) into {target}")
        return 0
    from ..playground.server import serve

    serve(project, args.port, open_browser=not args.no_browser)
    return 0
