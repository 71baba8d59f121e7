"""One writer of ``right-rag index --writers N``: Dagster runs of ``index_documents``, each over one partition
range, executed in this process on the instance of DAGSTER_HOME (the same PostgreSQL storage as its parent's).

    python -m right_rag_dagster.orchestration.writer_process PROJECT [--debug]

The writer takes ranges from its parent one at a time, so a writer that finishes early takes the next range
instead of waiting for the others: it reads one ``{"run_id": ..., "tags": {...}}`` line from stdin per range and
answers with one ``DONE_PREFIX`` line holding ``{"run_id", "ok", "error"}``, until stdin closes. A
``{"prepare": true}`` line (``writer_pool.PREPARE``) has it open its Dagster instance before the first range.

Each run selects the per-document assets only and carries the writer tags (``writers.py``); its writing step takes
a slot of the ``right_rag_store`` pool like any index run. The writer's parsing workers start first, before Dagster
is imported, and serve every range it writes.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from collections.abc import Iterable
from typing import TextIO

CPU_TAG = "right_rag/cpu_seconds"
RSS_TAG = "right_rag/peak_rss_mb"
DONE_PREFIX = "right-rag-writer-done "


class Writer:
    """The project's parsing workers, definitions and Dagster instance, loaded once for every range this process
    writes (opening the instance on PostgreSQL storage costs about a second: each of its three storages checks its
    tables and migrations)."""

    def __init__(self, project_dir: str, debug: bool = False) -> None:
        from ..pipeline.workers import prestart_workers
        from ..project import Project

        self.project = Project.load(project_dir)
        prestart_workers(self.project, keep=True)  # they import the plugins while this process imports Dagster

        from ..startup import bulk_imports

        with bulk_imports():
            import dagster as dg

            from .local import SUBSET_PLANNED_EVENTS
            from .project_definitions import build_definitions
            from .resources import preload

            # One planned event per asset for each range, not one per asset and partition (hundreds per range,
            # each a write to PostgreSQL): set here, since the parent may start this process before it sets it.
            os.environ.setdefault(SUBSET_PLANNED_EVENTS, "1")

            self.defs = build_definitions(self.project)
        self.debug = debug
        preload(self.project)
        self._instance: dg.DagsterInstance | None = None

    @property
    def instance(self):
        """The instance of DAGSTER_HOME, opened on first use: only once the parent's has created the storage's
        tables (it says so with ``PREPARE``, or by sending the first range)."""
        import dagster as dg

        from ..startup import bulk_imports

        if self._instance is None:
            with bulk_imports():  # the instance imports Dagster's storage on first use
                self._instance = dg.DagsterInstance.get()
        return self._instance

    def run(self, run_id: str, tags: dict[str, str]) -> bool:
        """Execute one range's run; raises what the run raised."""
        return run_range(self.project, self.defs, self.instance, run_id, tags, self.debug)

    def close(self) -> None:
        from ..pipeline.workers import close_prestarted
        from .resources import preload

        preload(None)
        close_prestarted()
        if self._instance is not None:
            self._instance.dispose()


def run_range(project, defs, instance, run_id: str, tags: dict[str, str], debug: bool = False) -> bool:
    """Execute one range's run of ``index_documents`` (the per-document assets) on ``instance`` in this process,
    tagged with its CPU and peak RSS; raises what the run raised. ``right-rag index --writers N`` runs ranges
    with it too: the command is the first writer."""
    from .local import DEBUG_LOGS, QUIET_LOGS, document_asset_keys
    from .names import DOCUMENT_JOB
    from .origin import attribute_to_location
    from .recovery import process_tags
    from .streaming import execute_streaming

    before = _usage()
    try:
        run = execute_streaming(
            defs.resolve_job_def(DOCUMENT_JOB), instance=instance, run_config=DEBUG_LOGS if debug else QUIET_LOGS,
            run_id=run_id, asset_selection=document_asset_keys(defs), tags={**tags, **process_tags()})
        return run.is_success
    finally:
        instance.add_run_tags(run_id, usage_tags(before))
        attribute_to_location(instance, project, run_id)


def serve(writer: Writer, requests: Iterable[str], answers: TextIO) -> None:
    """Run each requested range in turn and answer for each, a failed range included."""
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("prepare"):
            writer.instance  # noqa: B018 (opened now, while the parent cuts the ranges)
            continue
        try:
            ok, error = writer.run(request["run_id"], request["tags"]), None
        except Exception as exc:  # noqa: BLE001 (the parent reports it with the run id)
            ok, error = False, describe(exc)
        answers.write(DONE_PREFIX + json.dumps({"run_id": request["run_id"], "ok": ok, "error": error}) + "\n")
        answers.flush()


def _usage() -> tuple[float, float, float]:
    """CPU seconds of this process, of its ended children and of its kept parsing workers alive now."""
    from ..pipeline.workers import kept_workers_usage

    me, ended = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, ended.ru_utime + ended.ru_stime, kept_workers_usage()[0]


def usage_tags(before: tuple[float, float, float]) -> dict[str, str]:
    """CPU seconds of this run (the writer and its parsing workers) and the largest peak RSS of them so far."""
    from ..pipeline.workers import kept_workers_usage

    cpu = sum(_usage()) - sum(before)
    peak_kb = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return {CPU_TAG: f"{cpu:.1f}", RSS_TAG: f"{max(peak_kb / 1024, kept_workers_usage()[1]):.0f}"}


def describe(exc: BaseException) -> str:
    """The cause's type and message, under Dagster's wrappers."""
    import dagster as dg

    cause = exc
    while cause.__cause__ is not None and isinstance(cause, dg.DagsterError):
        cause = cause.__cause__
    return f"{type(cause).__name__}: {cause}"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2) or args[1:] not in ([], ["--debug"]):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        writer = Writer(args[0], debug=args[1:] == ["--debug"])
        try:
            serve(writer, sys.stdin, sys.stdout)
        finally:
            writer.close()
        return 0
    except Exception as exc:  # noqa: BLE001 (the parent reports it with the run id)
        print(describe(exc), file=sys.stderr)
        return 1


if __name__ == "__main__":
    from ..pipeline.heap import limit_arenas
    from ..startup import freeze_after_imports

    limit_arenas()
    freeze_after_imports()
    sys.exit(main())
