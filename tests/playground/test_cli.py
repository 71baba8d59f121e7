"""`right-rag playground`: help, a real server process answering on its port, one-line errors, no Dagster."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import right_rag_dagster
from right_rag_dagster.cli import main
from tests.core.test_no_dagster import DAGSTER_IMPORT
from tests.playground.conftest import call

PLAYGROUND = Path(right_rag_dagster.__file__).parent / "playground"


def test_help_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["playground", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for option in ("--port PORT", "--no-browser", "--record", "--recording FILE", "recorded mode replays"):
        assert option in text, option


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_command_serves_the_project_and_a_taken_port_is_one_line(project_dir: Path) -> None:
    port = free_port()
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "right_rag_dagster", "--project", str(project_dir), "playground",
                                "--port", str(port), "--no-browser"], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith(f"right-rag playground for {project_dir} on http://127.0.0.1:{port}/"), line
        assert time.monotonic() - started < 15
        status, catalog = call(f"http://127.0.0.1:{port}/", "/api/catalog")
        assert status == 200 and catalog["project"]["root"] == str(project_dir)
        taken = subprocess.run([sys.executable, "-m", "right_rag_dagster", "--project", str(project_dir), "playground",
                                "--port", str(port), "--no-browser"], capture_output=True, text=True, timeout=60)
        assert taken.returncode == 2
        assert taken.stderr.startswith(f"right-rag: error: cannot listen on 127.0.0.1:{port}: ")
        assert taken.stderr.strip().endswith("pass another --port") and len(taken.stderr.splitlines()) == 1
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_sigterm_stops_the_server_even_when_inherited_ignored(project_dir: Path) -> None:
    """A parent that ran Dagster in-process (a test worker, a notebook) may hand its children SIGTERM ignored."""
    import signal

    process = subprocess.Popen([sys.executable, "-m", "right_rag_dagster", "--project", str(project_dir), "playground",
                                "--port", str(free_port()), "--no-browser"], stdout=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
    try:
        assert process.stdout.readline().startswith("right-rag playground for ")
        process.terminate()
        assert process.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        process.kill()
        process.wait()


def test_the_playground_never_imports_dagster() -> None:
    modules = sorted(PLAYGROUND.rglob("*.py"))
    assert len(modules) >= 10
    assert [p.name for p in modules if DAGSTER_IMPORT.search(p.read_text(encoding="utf-8"))] == []
    names = [f"right_rag_dagster.playground.{p.stem}" for p in modules if p.stem != "__init__"]
    code = (f"import importlib, sys\nfor name in {names!r} + ['right_rag_dagster.cli.playground_cmd']:\n"
            "    importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m == 'dagster' or m.startswith('dagster.')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
