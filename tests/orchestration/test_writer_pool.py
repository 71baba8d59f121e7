"""The parent's side of ``right-rag index --writers N``: ranges handed to writer processes as they become free,
and a writer that dies (here before its first range, as one started early whose plugins fail to import) loses
no range: its own is reported with its error, and the others go to the writers left. The writers are real
processes speaking ``writer_process``'s protocol, without Dagster."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from right_rag_dagster.orchestration.parallel import WriterRange, write_ranges
from right_rag_dagster.orchestration.writer_pool import WriterProcesses
from right_rag_dagster.orchestration.writer_process import DONE_PREFIX
from right_rag_dagster.pipeline.scan import DocumentFile

WRITER = f"""
import json, sys, time
for line in sys.stdin:
    request = json.loads(line)
    if request.get("prepare"):
        continue
    time.sleep(0.2)
    print({DONE_PREFIX!r} + json.dumps({{"run_id": request["run_id"], "ok": True, "error": None}}), flush=True)
    print(request["run_id"], file=sys.stderr, flush=True)
"""
DEAD = "import sys; print('ImportError: spec/unit_parsers/broken.py failed', file=sys.stderr); sys.exit(1)"


def child(code: str) -> tuple[subprocess.Popen, object]:
    errors = tempfile.TemporaryFile("w+")
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=errors, text=True), errors


def write_with_first_writer(pool: WriterProcesses, parts: list[WriterRange], **options) -> tuple[list[str], list[str]]:
    """``write_ranges`` over two writers, then the run ids the first writer process wrote (its stderr, once it
    exits), and the pool closed."""
    first, errors = pool.children[0]
    try:
        failures = write_ranges(pool, parts, 2, "group", {}, **options)
        first.stdin.close()
        first.wait()
        errors.seek(0)
        return failures, errors.read().split()
    finally:
        pool.close()


def test_a_writer_dead_before_its_first_range_loses_none() -> None:
    files = [DocumentFile(k, k, Path(k), 10, 0.0, k) for k in ("a", "b", "c", "d")]
    parts = [WriterRange(i, f"run-{i}", [f]) for i, f in enumerate(files)]
    pool = WriterProcesses(None, 0)  # type: ignore[arg-type]  (its children are given here)
    pool.children = [child(WRITER), child(DEAD)]
    pool.prepare()
    failures, written = write_with_first_writer(pool, parts)
    (failure,) = failures
    assert "ImportError: spec/unit_parsers/broken.py failed" in failure
    assert sorted(written + [failure.split()[2].rstrip(":")]) == [p.run_id for p in parts]


def test_this_process_is_writer_0_and_a_range_it_fails_is_reported_while_the_others_are_written() -> None:
    files = [DocumentFile(k, k, Path(k), 10, 0.0, k) for k in ("a", "b", "c", "d", "e")]
    parts = [WriterRange(i, f"run-{i}", [f]) for i, f in enumerate(files)]
    pool = WriterProcesses(None, 0)  # type: ignore[arg-type]  (its children are given here)
    pool.children = [child(WRITER)]
    mine: list[tuple[str, str]] = []

    def local(run_id: str, tags: dict[str, str]) -> bool:
        mine.append((run_id, tags["right_rag/writer"]))
        if len(mine) == 1:  # the first range it takes
            raise RuntimeError("parser exploded")
        return True

    failures, theirs = write_with_first_writer(pool, parts, local=local)
    assert failures == [f"writer run {mine[0][0]}: RuntimeError: parser exploded"]
    assert mine and {writer for _, writer in mine} == {"0/2"} and theirs
    assert sorted([run_id for run_id, _ in mine] + theirs) == [p.run_id for p in parts]


def test_a_writer_plans_one_event_per_asset_whoever_started_it(tmp_path: Path, monkeypatch) -> None:
    """``right-rag index`` starts its writers before it sets the variable for itself: the writer sets it, or each
    of its runs would write one planned event per asset and partition (hundreds per range) to PostgreSQL."""
    from right_rag_dagster.orchestration.local import SUBSET_PLANNED_EVENTS
    from right_rag_dagster.orchestration.writer_process import Writer

    from .conftest import make_project

    monkeypatch.delenv(SUBSET_PLANNED_EVENTS, raising=False)
    writer = Writer(str(make_project(tmp_path / "project")))
    try:
        assert writer._instance is None  # opened only when the parent says Dagster's storage exists
        assert os.environ[SUBSET_PLANNED_EVENTS] == "1"
    finally:
        writer.close()
