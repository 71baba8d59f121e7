"""The Dagster edge: partitions, the asset factory, checks, sensors and schedules over the plain pipeline steps.

Only this package (and the CLI's ``index`` command) imports Dagster.
"""
