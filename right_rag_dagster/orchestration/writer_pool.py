"""The writer processes of ``right-rag index --writers N`` (``writer_process``), started before Dagster is imported
here: each starts its parsing workers and imports Dagster and the plugins while this process plans the index,
opens its Dagster instance and migrates the store. A writer opens its own instance only when told the storage is
ready (``prepare``): writers opening a new PostgreSQL database with the parent would race to create its tables.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from typing import IO

from ..project import Project

PREPARE = json.dumps({"prepare": True})
"""The line that tells a writer to open its Dagster instance (``writer_process.serve``)."""


class WriterProcesses:
    """``count`` writer processes (``python -m ...writer_process PROJECT``), started at once, waiting for ranges on
    stdin; on exit their stdin is closed and they are waited for."""

    def __init__(self, project: Project, count: int, debug: bool = False) -> None:
        self.project, self.count, self.debug = project, count, debug
        self.children: list[tuple[subprocess.Popen, IO[str]]] = []

    def start(self) -> WriterProcesses:
        for _ in range(self.count - len(self.children)):
            errors = tempfile.TemporaryFile("w+")
            child = subprocess.Popen(
                [sys.executable, "-m", "right_rag_dagster.orchestration.writer_process", str(self.project.root),
                 *(["--debug"] if self.debug else [])],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True, env={**os.environ})
            self.children.append((child, errors))
        return self

    def prepare(self) -> None:
        """Tell every writer that Dagster's storage exists: each opens its instance now, while this process
        prepares the ranges (a writer that died meanwhile is found when it is given one)."""
        for child, _ in self.children:
            with contextlib.suppress(BrokenPipeError, OSError):
                child.stdin.write(PREPARE + "\n")  # type: ignore[union-attr]
                child.stdin.flush()  # type: ignore[union-attr]

    def __enter__(self) -> WriterProcesses:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every writer's stdin (it ends after its current range) and wait for it; again, nothing."""
        for child, errors in self.children:
            with contextlib.suppress(BrokenPipeError, OSError):
                child.stdin.close()  # type: ignore[union-attr]
            child.wait()
            errors.close()
