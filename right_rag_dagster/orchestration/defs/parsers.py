"""One check per unit parser: every document it owns was parsed by its current source. A sensor evaluates it when a
parser's source or its documents change, so an edit shows on the asset in the catalog and the graph (Dagster marks
code-version drift only on a partition's own page), with the backfill that brings the documents back in line.
"""


import json

import dagster as dg

from ...core.hashing import stable_hash
from ...project import Project
from ..names import owned_partitions, units_key
from ..resources import RightRagProject

SYNC_CHECK = "parsed_by_current_version"
SYNC_SENSOR_SECONDS = 10
CODE_VERSION_TAG = "dagster/code_version"


def unsynced_partitions(instance: dg.DagsterInstance, parser: str, version: str) -> list[str]:
    """The parser's partitions whose latest units were not made by ``version`` (two storage reads)."""
    key = units_key(parser)
    partitions = instance.get_dynamic_partitions(owned_partitions(parser).name)
    latest = instance.get_latest_storage_id_by_partition(key, dg.DagsterEventType.ASSET_MATERIALIZATION,
                                                         set(partitions))
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, storage_ids=list(latest.values())), limit=max(1, len(latest))).records
    made_by = {r.partition_key: (r.asset_materialization.tags or {}).get(CODE_VERSION_TAG)
               for r in records if r.asset_materialization is not None}
    return [partition for partition in partitions if made_by.get(partition) != version]


def sync_evaluation(instance: dg.DagsterInstance, parser: str, version: str) -> dg.AssetCheckEvaluation:
    """The check's verdict for ``parser`` at source version ``version``, with the backfill to run if it fails."""
    unsynced = unsynced_partitions(instance, parser, version)
    key = units_key(parser)
    backfill = (f"Open [{key.to_user_string()}](/assets/{'/'.join(key.path)}?view=partitions), click "
                "**Materialize…**, choose **All** (its partitions are exactly the documents it owns; Dagster 1.13's "
                "dialog has no \"unsynced\" choice) and **Launch backfill**: the unsynced documents are parsed "
                "again, the others confirmed unchanged, and chunks are redone only where units changed. "
                "`right-rag index` does the same from a shell.") if unsynced else "Nothing to do."
    return dg.AssetCheckEvaluation(
        asset_key=key, check_name=SYNC_CHECK, passed=not unsynced, severity=dg.AssetCheckSeverity.WARN,
        metadata={"parser_version": version, "unsynced": len(unsynced),
                  "unsynced_partitions": dg.MetadataValue.json(unsynced[:100]),
                  "backfill": dg.MetadataValue.md(backfill)})


def parser_versions(project: Project) -> dict[str, str]:
    """Each unit parser of the pipeline (the fallback included) and the version of its source right now."""
    names = list(project.selected("unit_parsers"))
    fallback = project.fallback_unit_parser()
    names += [fallback] if fallback else []
    return {name: project.registry.info("unit_parsers", name).version for name in names}


def build_parser_checks(project: Project) -> list[dg.AssetChecksDefinition]:
    """The sync check of each unit parser (also runnable by hand from the asset's Checks tab)."""
    def build(parser: str) -> dg.AssetChecksDefinition:
        @dg.asset_check(asset=units_key(parser), name=SYNC_CHECK, blocking=False,
                        description=f"Every document `{parser}` owns was parsed by its current source; when not, "
                                    "the metadata lists them and says which backfill to run.")
        def parsed_by_current_version(context: dg.AssetCheckExecutionContext,
                                      right_rag: RightRagProject) -> dg.AssetCheckResult:
            version = parser_versions(right_rag.get_project())[parser]
            verdict = sync_evaluation(context.instance, parser, version)
            return dg.AssetCheckResult(passed=verdict.passed, severity=verdict.severity, metadata=verdict.metadata)

        return parsed_by_current_version

    return [build(parser) for parser in parser_versions(project)]


@dg.sensor(
    name="parser_versions_sensor",
    minimum_interval_seconds=SYNC_SENSOR_SECONDS,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Re-evaluates each unit parser's `parsed_by_current_version` check when its source or the set of its "
                "documents changes: after an edit, the check fails on `units/<parser>` in the catalog and the graph, "
                "and says which backfill to run; after the backfill, it passes again.",
)
def parser_versions_sensor(context: dg.SensorEvaluationContext, right_rag: RightRagProject):
    seen = json.loads(context.cursor) if context.cursor else {}
    now, events = {}, []
    for parser, version in parser_versions(right_rag.get_project()).items():
        verdict = sync_evaluation(context.instance, parser, version)
        now[parser] = stable_hash([version, verdict.passed, verdict.metadata["unsynced"].value])[:12]
        if seen.get(parser) != now[parser]:
            events.append(verdict)
    if not events:
        return dg.SensorResult(skip_reason=dg.SkipReason("every parser's check is as last evaluated"),
                               cursor=json.dumps(now, sort_keys=True))
    return dg.SensorResult(asset_events=events, cursor=json.dumps(now, sort_keys=True))
