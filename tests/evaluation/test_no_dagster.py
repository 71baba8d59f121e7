"""evaluation/ never imports Dagster: `right-rag evaluate` starts fast and the asset only wraps it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import right_rag_dagster
from tests.core.test_no_dagster import DAGSTER_IMPORT

EVALUATION = Path(right_rag_dagster.__file__).parent / "evaluation"


def test_no_evaluation_module_imports_dagster() -> None:
    modules = sorted(EVALUATION.rglob("*.py"))
    assert len(modules) >= 10
    assert [p.name for p in modules if DAGSTER_IMPORT.search(p.read_text(encoding="utf-8"))] == []


def test_importing_evaluation_and_its_command_does_not_load_dagster() -> None:
    code = ("import sys, right_rag_dagster.evaluation, right_rag_dagster.cli.evaluate_cmd\n"
            "print(sorted(m for m in sys.modules if m == 'dagster' or m.startswith('dagster.')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
