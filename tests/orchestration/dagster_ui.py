"""``dagster dev`` for the browser test: a sample-like project in a temporary folder, and the server on a free port
of 127.0.0.1, started with a deadline and always stopped with its whole process group."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SAMPLE_DOCUMENTS = ("Apache-2.0.txt", "GPL-3.0.txt", "LGPL-3.0.txt", "MPL-2.0.txt", "upgrading-checklist.txt")
"""The sample project's licences and change log: two of its parsers, without the PDFs' minutes of parsing."""


def make_sample_project(root: Path) -> Path:
    """The sample project's settings and spec/ with ``SAMPLE_DOCUMENTS``, plus the workspace ``dagster dev`` loads."""
    shutil.copytree(REPO / "spec", root / "spec", ignore=shutil.ignore_patterns("__pycache__"))
    documents = root / "data" / "documents"
    documents.mkdir(parents=True)
    for name in SAMPLE_DOCUMENTS:
        shutil.copy(REPO / "data" / "documents" / name, documents / name)
    for name in ("right_rag.toml", "workspace.yaml"):
        shutil.copy(REPO / name, root / name)
    return root


def right_rag(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "right-rag"), *args], env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def graphql(url: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    request = urllib.request.Request(url + "/graphql", data=json.dumps({"query": query, "variables": variables or {}})
                                     .encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())["data"]


LOCATIONS = "{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus } } } }"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def dagster_dev(project: Path, env: dict[str, str], log: Path, timeout: float = 120) -> Iterator[str]:
    """``dagster dev`` in ``project`` until the code location has loaded; yields the UI's URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        server = subprocess.Popen([str(BIN / "dagster"), "dev", "-h", "127.0.0.1", "-p", str(port)], cwd=project,
                                  env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            _wait_loaded(server, url, time.monotonic() + timeout, log)
            yield url
        finally:
            _stop(server)


def _wait_loaded(server: subprocess.Popen, url: str, deadline: float, log: Path) -> None:
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"dagster dev exited with {server.returncode}: {log.read_text()[-2000:]}")
        try:
            entries = graphql(url, LOCATIONS)["workspaceOrError"]["locationEntries"]
            if entries and all(e["loadStatus"] == "LOADED" for e in entries):
                return
        except OSError:
            pass
        time.sleep(1)
    raise TimeoutError(f"dagster dev did not load the project in time: {log.read_text()[-2000:]}")


def _stop(server: subprocess.Popen) -> None:
    """SIGTERM to the process group (webserver, daemon, code servers, runs), then SIGKILL to whatever is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            return
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
