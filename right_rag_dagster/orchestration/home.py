"""DAGSTER_HOME inside the project, so partitions, cursors and run history survive restarts."""

from __future__ import annotations

import os
from pathlib import Path

DAGSTER_YAML = """\
# Written by right-rag. Runs share one DuckDB file: the writing steps use the "right_rag_store" pool, limited to
# one at a time (the store also retries on lock errors).
concurrency:
  pools:
    default_limit: 1
telemetry:
  enabled: false
"""


def ensure_dagster_home(default: Path) -> Path:
    """Use DAGSTER_HOME if set, else ``default`` (created with a dagster.yaml); returns the folder in use."""
    home = Path(os.environ.get("DAGSTER_HOME") or default).resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(DAGSTER_YAML, encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    return home
