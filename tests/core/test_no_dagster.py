"""core/ and pipeline/ stay plain Python: the CLI, the tests and the Dagster assets share them (STYLE.md 3)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import right_rag_dagster

PACKAGE = Path(right_rag_dagster.__file__).parent
PLAIN_PACKAGES = ("core", "pipeline")
DAGSTER_IMPORT = re.compile(r"^\s*(?:import|from)\s+dagster(?:_\w+)?\b|import_module\(\s*['\"]dagster", re.MULTILINE)


def plain_modules() -> list[Path]:
    return sorted(p for name in PLAIN_PACKAGES for p in (PACKAGE / name).rglob("*.py"))


def test_the_pattern_catches_dagster_imports():
    for line in ("import dagster as dg", "from dagster import asset", "    import dagster_webserver",
                 "importlib.import_module('dagster')"):
        assert DAGSTER_IMPORT.search(line), line
    assert not DAGSTER_IMPORT.search("from right_rag_dagster.core import model\nimport right_rag_dagster")


def test_no_source_file_of_core_or_pipeline_imports_dagster():
    modules = plain_modules()
    assert len(modules) >= 10
    offenders = [str(p.relative_to(PACKAGE)) for p in modules if DAGSTER_IMPORT.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_importing_core_and_pipeline_does_not_load_dagster():
    names = [".".join(("right_rag_dagster", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
             for p in plain_modules()]
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n    importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m == 'dagster' or m.startswith('dagster.')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
