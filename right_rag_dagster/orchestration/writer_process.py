"""One writer of ``right-rag index --writers N``: a Dagster run of ``index_documents`` over one partition range,
executed in this process on the instance of DAGSTER_HOME (the same PostgreSQL storage as its parent's).

    python -m right_rag_dagster.orchestration.writer_process PROJECT RUN_ID TAGS_JSON

The run selects the per-document assets only and carries the writer tags (``writers.py``); its writing step takes
a slot of the ``right_rag_store`` pool like any index run. Exit status 0 when the run succeeded, 1 when not (the
error on stderr).
"""

from __future__ import annotations

import json
import sys

import dagster as dg

CPU_TAG = "right_rag/cpu_seconds"
RSS_TAG = "right_rag/peak_rss_mb"


def run_writer(project_dir: str, run_id: str, tags: dict[str, str], debug: bool = False) -> bool:
    from ..project import Project
    from .definitions import build_definitions
    from .local import DEBUG_LOGS, QUIET_LOGS, document_asset_keys
    from .names import DOCUMENT_JOB
    from .origin import attribute_to_location
    from .recovery import process_tags
    from .resources import preload

    project = Project.load(project_dir)
    defs = build_definitions(project)
    preload(project)
    with dg.DagsterInstance.get() as instance:
        try:
            result = defs.resolve_job_def(DOCUMENT_JOB).execute_in_process(
                instance=instance, run_config=DEBUG_LOGS if debug else QUIET_LOGS, run_id=run_id,
                asset_selection=document_asset_keys(defs), tags={**tags, **process_tags()}, raise_on_error=True)
            return result.success
        finally:
            instance.add_run_tags(run_id, usage_tags())
            attribute_to_location(instance, project, run_id)
            preload(None)


def usage_tags() -> dict[str, str]:
    """CPU seconds and peak RSS of this writer and its parsing workers (ended by now), for the run's page."""
    import resource

    me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime
    return {CPU_TAG: f"{cpu:.1f}", RSS_TAG: f"{max(me.ru_maxrss, workers.ru_maxrss) / 1024:.0f}"}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return 0 if run_writer(args[0], args[1], json.loads(args[2]), debug=args[3:] == ["--debug"]) else 1
    except Exception as exc:  # noqa: BLE001 (the parent reports it with the run id)
        cause = exc
        while cause.__cause__ is not None and isinstance(cause, dg.DagsterError):
            cause = cause.__cause__
        print(f"{type(cause).__name__}: {cause}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
