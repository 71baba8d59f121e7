"""The unpartitioned evaluation asset, in its own group so no indexing job selects it, and its automation sensor.

It runs on request (materialize it in the UI, or ``right-rag evaluate``) or by its own automation: an eager
condition requests it in a run of its own once the search indexes it depends on have been updated and no run
updating them is in progress. Never inside the run that indexes, so indexing costs the same with or without
a questions file.
"""

import dagster as dg
from pydantic import Field

from ...playground.links import playground_url
from ...project import Project
from ...retrieval.settings import RetrievalSettings
from ..names import EVALUATION_GROUP, EVALUATION_KEY, search_index_key
from ..resources import RightRagProject

TREND_METRICS = ("hit@1", "hit@5", "mrr@10", "ndcg@10", "context_chars@5")
AUTOMATION_SENSOR = "evaluation_automation"
AUTOMATION_INTERVAL_SECONDS = 30


class EvaluationConfig(dg.Config):
    """Launchpad settings of a requested evaluation (the automation runs with the defaults)."""

    compare: bool = Field(default=False, description="Also score the eight baseline chunkers and every available "
                                                     "retriever (`right-rag evaluate --compare`).")


def build_evaluation_assets(project: Project, chunkers: list[str]) -> list[dg.AssetsDefinition]:
    """The ``evaluation`` asset when the project has a questions file (``questions_file`` in right_rag.toml)."""
    if not project.questions_file.is_file():
        return []

    @dg.asset(
        key=EVALUATION_KEY,
        deps=[search_index_key(c) for c in chunkers],
        group_name=EVALUATION_GROUP,
        kinds={"duckdb", "python"},
        automation_condition=dg.AutomationCondition.eager(),
        description=f"hit@k, MRR@10, nDCG@10 and context size of each chunker x retriever on "
                    f"{project.questions_file.name}; the figures of the project's own chunker x retriever (what "
                    "`right-rag query` uses) are plotted across materializations, the best run's beside them. "
                    f"Runs on its own after the search indexes change (sensor `{AUTOMATION_SENSOR}`), or when "
                    "materialized here or by `right-rag evaluate`; never inside an indexing run. Re-copies and "
                    "re-cuts only the documents that changed in `.right-rag/evaluation.duckdb`.",
    )
    def evaluation(context: dg.AssetExecutionContext, config: EvaluationConfig,
                   right_rag: RightRagProject) -> dg.MaterializeResult:
        from ...evaluation import run_evaluation

        project = right_rag.get_project()
        report = run_evaluation(project, project.questions_file, compare=config.compare)
        best = report.best
        errors = report.errors()
        for error in errors:
            context.log.warning(f"question not scored: {error}")
        changes = report.config["evaluation_store_changes"]
        settings = RetrievalSettings.from_dict(project.retrieval)
        # plotted across materializations: the project's own pipeline, the same run whether or not compare was on
        configured = report.configured(settings.chunker, settings.retriever, settings.identity)
        metadata = {name: float(configured.metrics[name] or 0.0) for name in TREND_METRICS}
        metadata.update({f"best_{name}": float(best.metrics[name] or 0.0) for name in TREND_METRICS})
        metadata.update({
            "chunker": configured.chunker,
            "retriever": configured.retriever,
            "reranker": configured.reranker,
            "best_chunker": best.chunker,
            "best_retriever": best.retriever,
            "questions": len(best.outcomes),
            "questions_not_scored": len(errors),
            "documents_copied": changes["documents_copied"],
            "baseline_documents_recut": sum(changes["baseline_recut"].values()),
            "evaluation_store_mb": round((changes["store_bytes"] or 0) / 2**20, 1),
            "comparison": dg.MetadataValue.md(report.markdown()),
            "rows": dg.MetadataValue.json(report.rows()),
            "playground": dg.MetadataValue.url(playground_url(chunker=best.chunker, retriever=best.retriever,
                                                              mode="live")),
        })
        return dg.MaterializeResult(metadata=metadata)

    return [evaluation]


def evaluation_sensors(assets: list[dg.AssetsDefinition]) -> list[dg.AutomationConditionSensorDefinition]:
    """The sensor that evaluates the asset's automation condition, running by default (Dagster's own default
    automation sensor starts stopped), or none when the project has no evaluation asset."""
    if not assets:
        return []
    return [dg.AutomationConditionSensorDefinition(
        AUTOMATION_SENSOR,
        target=dg.AssetSelection.groups(EVALUATION_GROUP),
        default_status=dg.DefaultSensorStatus.RUNNING,
        minimum_interval_seconds=AUTOMATION_INTERVAL_SECONDS,
        description="Requests the evaluation in a run of its own after the search indexes change (its eager "
                    "automation condition: dependencies updated, none missing or in progress).",
    )]
