"""Worker processes that run ``work.compute``, each document under a time and a memory limit.

Parsing runs user code on user files: a parser can hang, a 369 KB .docx can expand to gigabytes, a PDF library
can crash. Each worker is a separate process started with ``spawn`` (it imports the plugins itself and never
DuckDB or Dagster); a dispatcher thread in the main process hands out jobs, collects outcomes, and stops a worker
that runs past ``document_seconds`` or grows past ``document_memory_mb``: its document becomes a rejection naming
the stage it was in, and a fresh worker takes its place. The main process keeps the DuckDB file to itself.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from typing import Any

from ..limits import Limits
from ..project import Project
from .heap import trim_heap
from .plugins import PluginSet
from .work import DocumentJob, DocumentOutcome, compute, failed

POLL_SECONDS = 0.2
JOBS_PER_WORKER = 1
"""A worker is sent a job only when it waits for one: were it sent a second while it sends an outcome, both
ends could block on full pipes. The dispatcher thread sends the next job as soon as an outcome arrives."""
PREFETCH_JOBS = 64
PREFETCH_OUTCOME_BYTES = 16 * 2**20
"""Jobs queued for the workers ahead of the ones they hold, per worker, while the outcomes they will return add up
to at most this many bytes (``DocumentOutcome.size_bytes``; a job's is estimated from its file's size and the bytes
per file byte of the outcomes so far, ``FIRST_OUTCOME_RATIO`` until the first arrives): the caller pulls outcomes
between writing batches, and with one job queued a worker sat idle for the whole of each batch's write (seconds on
a DuckLake: its commit writes Parquet files and a catalog snapshot, and every document's events go to Dagster's
storage), so one writer's process and its worker took turns instead of overlapping. Queued jobs are planned (their
stored state read) when queued, as before. With 8 jobs queued a worker still waited through most of a batch's write
(a full index of the sample project over the scale corpus used 1.1 cores of 2); with 64 it parses the next batch
meanwhile: 46.0 -> 37.4-41.3 s, same peak (docs/performance.md, eighth round); 256 was no faster. The outcomes of
the queued jobs wait in the main process while it writes a batch, so they are bounded by what they hold, not by
their files' size: the sample project's parsers return 6.8 bytes per byte of a copyright file (median; the 2 MB
Boost file's outcome is 10 MB, 15.6 MB pickled), while a PDF's text and units are a fraction of its file."""
FIRST_OUTCOME_RATIO = 8.0


def _worker_main(conn: Connection) -> None:
    """A worker's life: receive the project, build its plugins once, then compute every job it is sent until
    told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    _die_with_parent()
    try:
        project = conn.recv()
        plugins = PluginSet.for_project(project)
        plugins.make_all()  # spec files run here, while the main process starts up, not in the first job's time
        import right_rag_dagster.retrieval.build.terms  # noqa: F401 (the tokenizer, before the first job arrives)
    except BaseException as exc:  # reported once, as the reason for every document it would have had
        conn.send(("broken", f"{type(exc).__name__}: {exc}"))
        return
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            _exit_now()
        conn.send(("start", job.file.document_id))
        try:
            outcome = compute(job, plugins, report=lambda stage, plugin: conn.send(("stage", (stage, plugin))))
        except Exception as exc:  # a bug or a resource error outside the plugin calls that compute wraps
            outcome = failed(job.file, "parse", "failed", _internal_error(exc))
        try:
            conn.send(("done", outcome))
        except Exception as exc:  # e.g. a plugin put an object that cannot be pickled in its attributes
            conn.send(("done", failed(job.file, "parse", "failed",
                                      f"the parsers' output cannot be stored: {type(exc).__name__}: {exc}")))
        del outcome
        trim_heap()


def _exit_now() -> None:
    """End a worker told to stop without tearing its interpreter down (as ``multiprocessing`` ends its children):
    everything it made has been sent, and the teardown of its plugins' and parsers' modules took longer than the
    last job of a one-document run, which the run waited for."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _die_with_parent() -> None:
    """On Linux, have the kernel kill this worker when the process that started it dies (``kill -9`` of
    ``right-rag index`` must not leave a worker parsing on); elsewhere it notices its closed socket."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _internal_error(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {last.filename}:{last.lineno}" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


def resident_mb(pid: int) -> float | None:
    """Resident memory of a process in MB (Linux /proc; None where it cannot be read)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def process_usage(pid: int) -> tuple[float, float] | None:
    """(CPU seconds so far, peak resident MB) of a live process (Linux /proc; None where it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        with open(f"/proc/{pid}/status", "rb") as handle:
            peak = next((int(line.split()[1]) / 1024 for line in handle if line.startswith(b"VmHWM:")), 0.0)
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), peak
    except (OSError, ValueError, IndexError):
        return None


def _wait_exit(process: subprocess.Popen, timeout: float) -> None:
    """Wait until ``process`` exits or ``timeout`` passes, woken by the exit itself where Linux offers a pidfd:
    ``Popen.wait(timeout)`` polls with sleeps that double up to 50 ms, which added ~30 ms to each run's end."""
    if process.poll() is not None:
        return
    try:
        fd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # not Linux 5.3+, or the process is gone
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=timeout)
        return
    try:
        select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    process.poll()


@dataclass
class _Worker:
    process: Any
    conn: Connection
    jobs: deque[DocumentJob] = field(default_factory=deque)
    started: float | None = None  # when the job at the head of ``jobs`` began
    stage: tuple[str, str | None] = ("starting", None)  # what it is doing, with which plugin

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    @property
    def doing(self) -> str:
        stage, plugin = self.stage
        return f"{stage} with {plugin!r}" if plugin else stage


class WorkerPool:
    """Computes ``DocumentJob``s in ``limits.workers`` processes; outcomes come back in completion order."""

    def __init__(self, project: Project, limits: Limits) -> None:
        self.project = replace(project)  # a copy without the cached registry (its classes cannot be pickled)
        self.limits = limits
        self._workers: list[_Worker] = []
        self._inbox: queue.Queue[DocumentJob | None] = queue.Queue()
        self._outbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.broken: str | None = None  # why workers could not start (a plugin import error in the worker)

    def __enter__(self) -> WorkerPool:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the workers now (they import the plugins while the caller goes on)."""
        if self._thread is not None:
            return
        self._workers = [self._spawn() for _ in range(max(1, self.limits.workers))]
        self._thread = threading.Thread(target=self._dispatch, name="right-rag-workers", daemon=True)
        self._thread.start()

    def map(self, jobs: Iterable[DocumentJob]) -> Iterator[DocumentOutcome]:
        """Outcomes of ``jobs`` as they complete. Jobs are pulled lazily, a few ahead of the workers, so the
        caller may plan them (and read the store) between outcomes."""
        self.start()
        pending = iter(jobs)
        in_flight, queued_bytes = 0, 0.0
        expected: dict[str, float] = {}  # the outcome bytes estimated for each job in flight, by document
        exhausted = False
        held = len(self._workers) * JOBS_PER_WORKER
        most = len(self._workers) * (JOBS_PER_WORKER + PREFETCH_JOBS)
        bound = len(self._workers) * PREFETCH_OUTCOME_BYTES
        file_bytes, outcome_bytes = 0, 0  # of the outcomes so far: their ratio estimates the next ones'
        while True:
            while not exhausted and (in_flight <= held or (in_flight < most and queued_bytes < bound)):
                job = next(pending, None)
                if job is None:
                    exhausted = True
                    break
                self._inbox.put(job)
                ratio = outcome_bytes / file_bytes if file_bytes else FIRST_OUTCOME_RATIO
                expected[job.file.document_id] = job.file.size * ratio
                in_flight += 1
                queued_bytes += job.file.size * ratio
            if in_flight == 0:
                return
            kind, payload = self._outbox.get()
            if kind == "error":
                raise payload
            in_flight -= 1
            queued_bytes = max(0.0, queued_bytes - expected.pop(payload.file.document_id, 0.0))
            file_bytes += payload.file.size
            outcome_bytes += payload.size_bytes
            yield payload

    def close(self) -> None:
        """Stop the dispatcher and every worker (a worker still busy is killed). All are told to stop before any
        is waited for, so they wind down together."""
        self._stop.set()
        self._inbox.put(None)
        if self._thread is not None:
            self._thread.join(timeout=5)
        for worker in self._workers:
            self._tell_to_stop(worker)
        for worker in self._workers:
            self._end(worker)
        self._workers = []

    # -- the dispatcher thread -------------------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        """A fresh ``python -m right_rag_dagster.pipeline.workers`` process, talking over a socket pair.

        A plain subprocess, not ``multiprocessing``: that would import the caller's main script again in each
        worker (running it, when it has no ``if __name__ == "__main__"`` guard)."""
        ours, theirs = socket.socketpair()
        process = subprocess.Popen([sys.executable, "-m", __name__, str(theirs.fileno())], pass_fds=[theirs.fileno()],
                                   stdin=subprocess.DEVNULL, close_fds=True)
        theirs.close()
        conn = Connection(ours.detach())
        conn.send(self.project)
        return _Worker(process, conn)

    @staticmethod
    def _tell_to_stop(worker: _Worker) -> None:
        with contextlib.suppress(OSError, ValueError):
            if worker.alive:
                worker.conn.send(None)

    def _end(self, worker: _Worker, kill: bool = False) -> None:
        if not kill:
            self._tell_to_stop(worker)
            _wait_exit(worker.process, timeout=2)
        if worker.alive:
            worker.process.kill()
            worker.process.wait(timeout=5)
        worker.conn.close()

    def _dispatch(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # surfaced in the caller's thread by ``map``
            self._outbox.put(("error", exc))

    def _loop(self) -> None:
        waiting: deque[DocumentJob] = deque()
        while not self._stop.is_set():
            self._take_jobs(waiting)
            if self.broken is not None:
                while waiting:
                    job = waiting.popleft()
                    self._outbox.put(("outcome", failed(job.file, "parse", "failed",
                                                        f"the plugins could not be loaded: {self.broken}")))
            for worker in list(self._workers):
                if not worker.jobs and not worker.alive and self.broken is None:
                    self._end(worker, kill=True)  # died while idle: replace it before it is given work
                    position = self._workers.index(worker)
                    worker = self._workers[position] = self._spawn()
                while waiting and len(worker.jobs) < JOBS_PER_WORKER and worker.alive:
                    job = waiting.popleft()
                    worker.jobs.append(job)
                    try:
                        worker.conn.send(job)
                    except OSError:
                        break  # it died meanwhile: found below, its jobs go to a fresh worker
            busy = [w for w in self._workers if w.jobs]
            if not busy:
                job = self._inbox.get()
                if job is None:
                    return
                waiting.append(job)
                continue
            ready = wait([w.conn for w in busy], timeout=POLL_SECONDS)  # a dead worker's socket reads as ready
            for worker in busy:
                if worker.conn in ready:
                    self._receive(worker, waiting)
            self._enforce_limits(waiting)

    def _take_jobs(self, waiting: deque[DocumentJob]) -> None:
        while True:
            try:
                job = self._inbox.get_nowait()
            except queue.Empty:
                return
            if job is None:
                self._stop.set()
                return
            waiting.append(job)

    def _receive(self, worker: _Worker, waiting: deque[DocumentJob]) -> None:
        while True:
            try:
                if not worker.conn.poll():
                    break
                kind, payload = worker.conn.recv()
            except (EOFError, OSError):
                break
            if kind == "start":
                worker.started, worker.stage = time.monotonic(), ("starting", None)
            elif kind == "stage":
                worker.stage = payload
            elif kind == "done":
                worker.jobs.popleft()
                worker.started = None
                self._outbox.put(("outcome", payload))
            elif kind == "broken":
                self.broken = payload
                for job in worker.jobs:
                    self._outbox.put(("outcome", failed(job.file, "parse", "failed",
                                                        f"the plugins could not be loaded: {payload}")))
                worker.jobs.clear()
        if worker.jobs and not worker.alive:
            code = worker.process.returncode
            how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
            self._replace(worker, waiting, f"the worker process {how} while {worker.doing}")

    def _enforce_limits(self, waiting: deque[DocumentJob]) -> None:
        now = time.monotonic()
        limits = self.limits
        for worker in list(self._workers):
            if not worker.jobs or worker.started is None:
                continue
            if limits.document_seconds and now - worker.started > limits.document_seconds:
                self._replace(worker, waiting, f"stopped after {limits.document_seconds:g} s while {worker.doing} "
                                               "(the limit is [right-rag.limits] document_seconds)")
                continue
            rss = resident_mb(worker.process.pid) if limits.document_memory_mb else None
            if rss is not None and rss > limits.document_memory_mb:
                self._replace(worker, waiting, f"stopped at {rss:.0f} MB of memory while {worker.doing} "
                                               "(the limit is [right-rag.limits] document_memory_mb = "
                                               f"{limits.document_memory_mb})")

    def _replace(self, worker: _Worker, waiting: deque[DocumentJob], reason: str) -> None:
        """The worker's current document fails with ``reason``; its queued jobs go to a fresh worker."""
        self._end(worker, kill=True)
        current, *queued = worker.jobs
        plugin = worker.stage[1]
        self._outbox.put(("outcome", failed(current.file, "limit", "failed", reason, (plugin,) if plugin else ())))
        waiting.extendleft(reversed(queued))
        self._workers[self._workers.index(worker)] = self._spawn()


class InProcess:
    """``workers = 0``: compute each job in this process, without time or memory limits (for debugging)."""

    def __init__(self, plugins: PluginSet) -> None:
        self.plugins = plugins

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def map(self, jobs: Iterable[DocumentJob]) -> Iterator[DocumentOutcome]:
        for job in jobs:
            yield compute(job, self.plugins)


_prestarted: WorkerPool | None = None
_kept = False


def prestart_workers(project: Project, keep: bool = False) -> None:
    """Start the project's workers now, so they import the plugins while this process does something else
    (``right-rag index`` imports Dagster meanwhile); the next ``open_workers`` for the project takes them. With
    ``keep`` (a writer process of ``right-rag index --writers N``, whose runs write documents and never refresh)
    every run takes them, until ``close_prestarted``: a fresh worker for each of a writer's ranges cost a process
    start and the plugins' import, during which the writer had nothing to write."""
    global _prestarted, _kept
    if project.limits.workers > 0 and _prestarted is None:
        _prestarted, _kept = WorkerPool(project, project.limits), keep
        _prestarted.start()


def kept_workers_usage() -> tuple[float, float]:
    """(CPU seconds, largest peak resident MB) of the prestarted workers alive now: the resource usage of this
    process's ended children does not count them yet."""
    readings = [process_usage(w.process.pid) for w in (_prestarted._workers if _prestarted else []) if w.alive]
    readings = [r for r in readings if r is not None]
    return sum(cpu for cpu, _ in readings), max((peak for _, peak in readings), default=0.0)


def close_prestarted() -> None:
    global _prestarted
    if _prestarted is not None:
        _prestarted.close()
        _prestarted = None


class _Borrowed:
    """A prestarted pool lent to the run it was started for, and ended with its documents: the workers (~100 MB
    each) would otherwise stay alive through the run's index refresh and compaction, its peak of memory. A kept
    pool is handed back instead, unless the run ended early (outcomes of its jobs may still be on their way):
    then fresh workers replace it for the next run."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool

    def __enter__(self) -> WorkerPool:
        return self.pool

    def __exit__(self, failed: type[BaseException] | None, *exc: object) -> None:
        if _kept and failed is None:
            return
        project, keep = self.pool.project, _kept
        close_prestarted()
        if keep:
            prestart_workers(project, keep=True)


def open_workers(indexer: Any) -> WorkerPool | InProcess | _Borrowed:
    """The indexer's project's workers: processes with limits (the prestarted ones when they are this
    project's), or this process when ``workers = 0``."""
    if indexer.limits.workers == 0:
        return InProcess(indexer.plugins)
    pool = _prestarted
    if pool is not None and pool.project.root == indexer.project.root and pool.limits == indexer.limits:
        return _Borrowed(pool)
    return WorkerPool(indexer.project, indexer.limits)


if __name__ == "__main__":  # a worker process (see WorkerPool._spawn)
    _worker_main(Connection(int(sys.argv[1])))
