"""The CLI's progress bar (rich): the document being worked on, done of total and an ETA on a terminal, nothing on
a pipe; the summary table as plain text with numbers aligned right."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from right_rag_dagster.cli.progress import ProgressBar, format_table
from right_rag_dagster.pipeline.scan import DocumentFile


def document(name: str) -> DocumentFile:
    return DocumentFile(document_id=name, partition_key=name, path=Path(name), content_hash="0" * 64, size=1,
                        mtime=0.0)


def test_a_terminal_sees_the_current_document_progress_and_eta():
    out = io.StringIO()
    bar = ProgressBar(3, console=Console(file=out, force_terminal=True, width=120, color_system=None))
    bar.started(document("GPL-3.0.txt"))
    bar.advance(document("GPL-3.0.txt"))
    bar._progress.refresh()
    screen = out.getvalue()
    bar.close()
    assert "1/3" in screen and "documents" in screen and "eta" in screen and "GPL-3.0.txt" in screen


def test_a_pipe_sees_nothing():
    out = io.StringIO()
    bar = ProgressBar(3, console=Console(file=out, force_terminal=False))
    bar.started(document("GPL-3.0.txt"))
    bar.add(3)
    bar.close()
    assert out.getvalue() == ""


def test_summary_table_is_plain_text_with_numbers_right_aligned():
    table = format_table(["", "value"], [["documents indexed", 3], ["coverage mean %", 97.5]])
    lines = table.splitlines()
    assert lines[0].split() == ["value"] and set(lines[1]) == {"─"}
    assert lines[2].endswith(" 3") and lines[3].endswith("97.50") and len(lines[2]) == len(lines[3])
    assert "\x1b" not in table


def test_a_run_without_a_terminal_never_imports_rich():
    """Under cron, CI or a benchmark the bar is off, and ``rich`` (~40 ms to import) stays unimported."""
    code = ("import sys; from right_rag_dagster.cli.progress import ProgressBar; bar = ProgressBar(3); "
            "bar.add(1); bar.close(); print(bar.enabled, any(m.split('.')[0] == 'rich' for m in sys.modules))")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, check=True)
    assert done.stdout.split() == ["False", "False"], done
