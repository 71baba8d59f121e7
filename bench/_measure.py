"""Run one command as a subprocess and measure it: wall time, CPU time and peak RSS of its process tree."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Measurement:
    """One command's cost. ``peak_rss_mb`` is the larger of the kernel's per-process peak and the sampled tree sum."""

    wall_seconds: float
    cpu_seconds: float
    peak_rss_mb: float
    returncode: int
    load_before: float
    log: str
    last_line: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def measure(command: list[str], cwd: Path, log: Path, env: dict[str, str] | None = None) -> Measurement:
    """Run ``command`` to completion; stdout and stderr go to ``log``.

    Peak RSS comes from ``wait4`` (what ``/usr/bin/time -v`` reports: the largest process of the tree) and from
    sampling /proc every 100 ms for the sum over the whole tree; the larger is kept.
    """
    load_before = os.getloadavg()[0]
    with log.open("w", encoding="utf-8") as out:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        sampler = _TreeSampler(process.pid)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        sampler.stop()
    process.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = max(usage.ru_maxrss / 1024, sampler.peak_kb / 1024)
    lines = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    return Measurement(round(wall, 3), round(usage.ru_utime + usage.ru_stime, 3), round(peak_mb, 1),
                       process.returncode, round(load_before, 2), str(log), lines[-1][:200] if lines else "")


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
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0
