"""DAGSTER_HOME inside the project, so partitions, cursors and run history survive restarts."""

from __future__ import annotations

import os
from pathlib import Path

MARKER = "# Written by right-rag."
DAGSTER_YAML = f"""\
{MARKER} Delete this line to keep your own edits (right-rag then leaves the file alone).
# Runs share one DuckDB file: the writing steps use the "right_rag_store" pool, limited to one at a time (the
# store also retries on lock errors).
concurrency:
  pools:
    default_limit: 1
# Runs the sensor requests are launched at once, not queued for the next dequeue (every 5 s by default): a
# saved file is searchable sooner. The writing step still waits for its slot of the "right_rag_store" pool.
run_coordinator:
  module: dagster.core.run_coordinator
  class: DefaultRunCoordinator
# Each run starts in a process forked from one that has Dagster imported, about 2 s sooner than Dagster's default
# launcher, which starts a fresh Python per run (right_rag_dagster/orchestration/run_launcher.py). Remove this
# block for Dagster's default.
run_launcher:
  module: right_rag_dagster.orchestration.run_launcher
  class: ForkedRunLauncher
# A run whose process died (killed, out of memory) is marked failed and its pool slot freed, so later runs
# never wait for it.
run_monitoring:
  enabled: true
  start_timeout_seconds: 180
  poll_interval_seconds: 30
  free_slots_after_run_end_seconds: 30
# Dagster's SQLite storage with pooled connections and WAL commits that sync at checkpoints: about 3x less
# time per asset event than the default, which commits, fsyncs and closes a connection per event (see
# right_rag_dagster/orchestration/storage.py). Remove this block for Dagster's default.
storage:
  custom:
    module: right_rag_dagster.orchestration.storage
    class: FastSqliteStorage
    config:
      base_dir:
        env: DAGSTER_HOME
telemetry:
  enabled: false
"""


def ensure_dagster_home(default: Path) -> Path:
    """Use DAGSTER_HOME if set, else ``default`` (created with a dagster.yaml); returns the folder in use.

    A dagster.yaml that right-rag wrote (it starts with ``MARKER``) is brought up to date; one the user wrote
    is left alone."""
    home = Path(os.environ.get("DAGSTER_HOME") or default).resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    current = config.read_text(encoding="utf-8") if config.exists() else None
    if current is None or (current.startswith(MARKER) and current != DAGSTER_YAML):
        config.write_text(DAGSTER_YAML, encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    return home
