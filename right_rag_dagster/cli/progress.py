"""The CLI's progress bar and summary table, drawn by ``rich`` (installed with Dagster)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..pipeline.scan import DocumentFile
from ..terminal import safe

if TYPE_CHECKING:
    from rich.console import Console


def _may_draw() -> bool:
    """Whether stderr may be a terminal by ``rich``'s rules (a TTY, or forced by its environment variables):
    when not, as under cron, CI or a benchmark, ``rich`` (~40 ms to import) is never imported."""
    return sys.stderr.isatty() or any(os.environ.get(name) for name in ("FORCE_COLOR", "TTY_COMPATIBLE",
                                                                         "TTY_INTERACTIVE"))


class ProgressBar:
    """Done of total, elapsed time, ETA and the document being worked on, redrawn in place on stderr; silent when
    stderr is not a terminal. ``add``/``close`` are the progress sink of the dense index build too."""

    def __init__(self, total: int, label: str = "documents", console: Console | None = None) -> None:
        self.enabled = total > 0 and (console is not None or _may_draw())
        if not self.enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.console = console or Console(stderr=True)
        self.enabled = self.console.is_terminal
        self._progress = Progress(
            BarColumn(bar_width=30), MofNCompleteColumn(), TextColumn(label), TimeElapsedColumn(),
            TextColumn("eta"), TimeRemainingColumn(), TextColumn("{task.fields[current]}", markup=False),
            console=self.console, disable=not self.enabled)
        self._task = self._progress.add_task(label, total=total, current="")
        if self.enabled:
            self._progress.start()

    def started(self, file: DocumentFile) -> None:
        """Show the document a worker was just handed."""
        if self.enabled:
            self._progress.update(self._task, current=safe(file.document_id))

    def advance(self, *_: object) -> None:
        self.add(1)

    def add(self, count: int) -> None:
        if self.enabled:
            self._progress.advance(self._task, count)

    def close(self) -> None:
        if self.enabled:
            self._progress.update(self._task, current="")
            self._progress.stop()


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain table (no colour, no box drawing) with right-aligned numbers, as text to print or pipe."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    numeric = [bool(rows) and all(isinstance(row[i], (int, float)) for row in rows) for i in range(len(headers))]
    table = Table(*[str(h) for h in headers], box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for i, column in enumerate(table.columns):
        column.justify = "right" if numeric[i] else "left"
    for row in rows:
        table.add_row(*[_fmt(value) for value in row])
    console = Console(width=200, color_system=None, force_terminal=False, highlight=False)
    with console.capture() as captured:
        console.print(table)
    return "\n".join(line.rstrip() for line in captured.get().splitlines() if line.strip())


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return safe(value)
