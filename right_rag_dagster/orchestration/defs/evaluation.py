"""The unpartitioned evaluation asset: retrieval metrics on the project's questions after every index refresh."""

import dagster as dg

from ...playground.links import playground_url
from ...project import Project
from ..names import EVALUATION_KEY, search_index_key
from ..resources import RightRagProject

TREND_METRICS = ("hit@1", "hit@5", "mrr@10", "ndcg@10", "context_chars@5")


def build_evaluation_assets(project: Project, chunkers: list[str]) -> list[dg.AssetsDefinition]:
    """The ``evaluation`` asset when the project has a questions file (``questions_file`` in right_rag.toml)."""
    if not project.questions_file.is_file():
        return []

    @dg.asset(
        key=EVALUATION_KEY,
        deps=[search_index_key(c) for c in chunkers],
        group_name="reports",
        kinds={"duckdb", "python"},
        description=f"hit@k, MRR@10, nDCG@10 and context size of each chunker x retriever on "
                    f"{project.questions_file.name}; the best run's figures are plotted across materializations.",
    )
    def evaluation(context: dg.AssetExecutionContext, right_rag: RightRagProject) -> dg.MaterializeResult:
        from ...evaluation import run_evaluation

        project = right_rag.get_project()
        report = run_evaluation(project, project.questions_file)
        best = report.best
        errors = report.errors()
        for error in errors:
            context.log.warning(f"question not scored: {error}")
        metadata = {f"best_{name}": float(best.metrics[name] or 0.0) for name in TREND_METRICS}
        metadata.update({
            "best_chunker": best.chunker,
            "best_retriever": best.retriever,
            "questions": len(best.outcomes),
            "questions_not_scored": len(errors),
            "comparison": dg.MetadataValue.md(report.markdown()),
            "rows": dg.MetadataValue.json(report.rows()),
            "playground": dg.MetadataValue.url(playground_url(chunker=best.chunker, retriever=best.retriever,
                                                              mode="live")),
        })
        return dg.MaterializeResult(metadata=metadata)

    return [evaluation]
