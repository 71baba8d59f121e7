"""The generic core: domain model, stable ids, plugin contracts, registry, routing and coverage.

Nothing here imports Dagster; the pipeline steps and the orchestration layer build on it.
"""
