"""Dagster definitions of a right-rag project, one module per kind (assets, checks, sensors, schedules)."""
