"""A small progress bar on stderr (only when it is a terminal) and the summary table printer."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence


class ProgressBar:
    """``[#####.....] 12/50 documents`` redrawn in place; silent when stderr is not a terminal."""

    def __init__(self, total: int, label: str = "documents", width: int = 30) -> None:
        self.total, self.label, self.width = total, label, width
        self.done = 0
        self.started = time.monotonic()
        self.enabled = sys.stderr.isatty() and total > 0

    def advance(self, *_: object) -> None:
        self.add(1)

    def add(self, count: int) -> None:
        self.done += count
        if self.enabled:
            filled = int(self.width * self.done / self.total)
            elapsed = time.monotonic() - self.started
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} "
                             f"{self.label} {elapsed:5.1f}s")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain text table with right-aligned numbers."""
    cells = [[str(h) for h in headers]] + [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    numeric = [all(isinstance(row[i], (int, float)) for row in rows) if rows else False for i in range(len(headers))]

    def line(row: list[str]) -> str:
        return "  ".join(c.rjust(w) if numeric[i] else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))

    out = [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)
