"""The repository passes its own lint (``[tool.ruff]`` in pyproject.toml: unused or undefined names, import
order), run as a contributor runs it: ``.venv/bin/ruff check``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing() -> None:
    ruff = Path(sys.executable).with_name("ruff")
    assert ruff.exists(), "ruff is missing: run scripts/setup (it installs the dev extra, which pins ruff)"
    result = subprocess.run([str(ruff), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
