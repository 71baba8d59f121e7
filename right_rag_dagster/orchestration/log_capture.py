"""Capture a run's stdout and stderr into Dagster's compute log files with a thread, not four processes.

Dagster's ``LocalComputeLogManager`` redirects each stream into its log file and starts ``tail -F`` on the file to
echo it to the terminal, plus a Python process per ``tail`` that kills it if the run's process dies: four
processes and 26 MB beside every ``right-rag index`` for output that is mostly empty. Here each stream's file
descriptor points at a pipe that a thread copies to the same file and to the terminal. The files, their names
and the "complete" marker are the manager's own, so the UI shows the run's logs as before; another compute log
manager (a ``dagster.yaml`` of the user's) is used as it is.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import IO, Any

from dagster._core.storage.compute_log_manager import CapturedLogContext, ComputeIOType
from dagster._core.storage.local_compute_log_manager import IO_TYPE_EXTENSION, LocalComputeLogManager
from dagster._utils import ensure_file, touch_file

JOIN_SECONDS = 2.0
"""How long the end of a capture waits for the copying thread to drain the pipe. A process started during the
run (a fresh parse worker) still holds the pipe open: the thread then goes on copying its output, as a daemon."""


@contextmanager
def capture_logs(manager: Any, log_key: Sequence[str]) -> Iterator[Any]:
    """``manager.capture_logs(log_key)``, with the streams copied by threads when ``manager`` is Dagster's local
    compute log manager."""
    if type(manager) is not LocalComputeLogManager:
        with manager.capture_logs(log_key) as context:
            yield context
        return
    with ExitStack() as streams:
        for stream, io_type in ((sys.stdout, ComputeIOType.STDOUT), (sys.stderr, ComputeIOType.STDERR)):
            path = manager.get_captured_local_path(log_key, IO_TYPE_EXTENSION[io_type])
            streams.enter_context(_mirrored(stream, path))
        yield CapturedLogContext(log_key)
    touch_file(manager.complete_artifact_path(log_key))  # as Dagster's: the UI knows the capture ended


@contextmanager
def _mirrored(stream: IO[str], path: str) -> Iterator[None]:
    """While the block runs, what is written to ``stream``'s file descriptor goes to ``path`` (appended) and to
    where the descriptor pointed before. A stream without a descriptor (a test's capture) is left alone, as
    Dagster leaves it."""
    ensure_file(path)
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation, ValueError):
        yield
        return
    stream.flush()
    shown = os.dup(fd)
    read_end, write_end = os.pipe()
    os.dup2(write_end, fd)
    os.close(write_end)
    copier = threading.Thread(target=_copy, args=(read_end, path, shown), name="right-rag-log-capture", daemon=True)
    copier.start()
    try:
        yield
    finally:
        stream.flush()
        os.dup2(shown, fd)  # closes this process's write end of the pipe: the thread reads to its end
        copier.join(JOIN_SECONDS)


def _copy(read_end: int, path: str, shown: int) -> None:
    """Copy the pipe to the log file and to the terminal until every writer closed it."""
    with open(path, "ab") as log:
        try:
            while chunk := os.read(read_end, 65536):
                log.write(chunk)
                log.flush()
                try:
                    os.write(shown, chunk)
                except OSError:  # the terminal went away: the log file still gets everything
                    pass
        finally:
            os.close(read_end)
            os.close(shown)
