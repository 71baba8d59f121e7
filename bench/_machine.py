"""What the figures were measured on: CPUs, memory, versions and the repository's revision."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def machine() -> dict[str, Any]:
    """nproc, memory, CPU model, versions: printed beside the table and kept in the JSON."""
    memory_kb = 0
    cpu = platform.processor()
    if Path("/proc/meminfo").is_file():
        memory_kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
    if Path("/proc/cpuinfo").is_file():
        models = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")]
        cpu = models[0] if models else cpu
    return {"nproc": os.cpu_count(), "memory_gb": round(memory_kb / 1024 ** 2, 1), "cpu": cpu,
            "python": platform.python_version(), "dagster": _version("dagster"), "duckdb": _version("duckdb"),
            "load_average": [round(x, 2) for x in os.getloadavg()], "revision": revision()}


def revision() -> str | None:
    """The repository's commit, with "+modified" when the working tree differs from it."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+modified" if dirty else "")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
