"""Run one command as a subprocess and measure it: wall time, CPU time and peak RSS of its process tree."""

from __future__ import annotations

import os
import platform
import re
import signal
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ERROR_LINE = re.compile(r"error|exception|traceback|killed", re.I)


@dataclass(frozen=True)
class Measurement:
    """One command's cost. ``peak_rss_mb`` is the larger of the kernel's per-process peak and the sampled tree sum.

    ``last_line`` is, when the command failed, the last line of stderr that names an error (DuckDB and Dagster
    follow theirs with hints and stack-trace headers), else the last line of stdout."""

    wall_seconds: float
    cpu_seconds: float
    peak_rss_mb: float
    returncode: int
    load_before: float
    log: str
    last_line: str
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def measure(command: list[str], cwd: Path, log: Path, env: dict[str, str] | None = None,
            timeout: float | None = None) -> Measurement:
    """Run ``command`` to completion (or kill its process group after ``timeout`` seconds).

    stdout goes to ``log`` and stderr to ``log`` + ``.err``. Peak RSS comes from ``wait4`` (what
    ``/usr/bin/time -v`` reports: the largest process of the tree) and from sampling /proc every 100 ms for
    the sum over the whole tree; the larger is kept. CPU is user+sys of the command and its waited-for children.
    """
    load_before = os.getloadavg()[0]
    errors = Path(f"{log}.err")
    with log.open("w", encoding="utf-8") as out, errors.open("w", encoding="utf-8") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=err, start_new_session=True)
        killer = _Killer(process.pid, timeout)
        sampler = _TreeSampler(process.pid)
        sampler.start()
        killer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C, SIGTERM: the command runs in its own session, so stop it here
            kill_group(process.pid, grace=2.0)
            raise
        wall = time.perf_counter() - started
        killer.cancel()
        sampler.stop()
        if _group_alive(process.pid):  # a child left behind (a daemon, a worker): not part of the next run
            kill_group(process.pid, grace=2.0)
    process.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = max(usage.ru_maxrss / 1024, sampler.peak_kb / 1024)
    last = (_last_line(errors, ERROR_LINE) or _last_line(errors)) if process.returncode else _last_line(log)
    if killer.fired:
        last = f"killed after {timeout:.0f} s (timeout); last output: {last}"
    return Measurement(round(wall, 3), round(usage.ru_utime + usage.ru_stime, 3), round(peak_mb, 1),
                       process.returncode, round(load_before, 2), str(log), last[:300], killer.fired)


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU model and count ("AMD EPYC, 2 CPUs"). Sessions measuring here run on different machines (Intel
    Xeon and AMD EPYC vCPUs have both been seen), so a figure compared across sessions names its machine. It is
    not enough to compare CPU seconds across runs: on one AMD EPYC machine the same code's 1-writer DuckLake row
    took 52-123 CPU s within 80 minutes (docs/deployment.md, issue 15); compare revisions in the same minutes."""
    model = ""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                model = value.strip()
                break
    except OSError:
        pass
    return f"{model or platform.processor() or 'unknown CPU'}, {os.cpu_count()} CPUs"


def kill_group(pid: int, grace: float = 10.0) -> None:
    """SIGTERM the process group led by ``pid``, then SIGKILL whatever is left after ``grace`` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not _group_alive(pid):
                return
            time.sleep(0.1)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _last_line(path: Path, pattern: re.Pattern[str] | None = None) -> str:
    """The last non-empty line of ``path`` (matching ``pattern`` when given), or ""."""
    try:
        lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    lines = [line for line in lines if pattern is None or pattern.search(line)]
    return lines[-1].strip() if lines else ""


class _Killer(threading.Thread):
    """Kills the command's process group when ``timeout`` seconds pass before ``cancel``."""

    def __init__(self, pid: int, timeout: float | None) -> None:
        super().__init__(daemon=True)
        self.pid, self.timeout, self.fired = pid, timeout, False
        self._done = threading.Event()

    def run(self) -> None:
        if self.timeout is not None and not self._done.wait(self.timeout):
            self.fired = True
            kill_group(self.pid)

    def cancel(self) -> None:
        self._done.set()


class _TreeSampler(threading.Thread):
    """Sum of VmRSS over a process and its descendants, sampled until stopped (Linux /proc only)."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.peak_kb = 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.1):
            self.peak_kb = max(self.peak_kb, sum(_rss_kb(pid) for pid in _tree(self.root)))

    def stop(self) -> None:
        self._done.set()
        self.join()


def _tree(root: int) -> list[int]:
    """``root`` and its descendants, from each thread's ``children`` file: reading only the tree keeps the sampler
    cheap (reading every process's ``stat`` cost ~8% of a core on a busy machine, CPU the measured command lost)."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                todo.extend(int(child) for child in (task / "children").read_text().split())
            except (OSError, ValueError):
                continue
    return found


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0
