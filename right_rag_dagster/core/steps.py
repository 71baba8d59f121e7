"""The step and event vocabulary every layer shares: asset names per step, event statuses and ``StepEvent``.

The pipeline produces events, the store records them as lineage and Dagster turns them into materializations;
keeping the names here (not in the pipeline) lets each of them read the others' records without a circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RAW_TEXT = "raw_text"
UNITS = "units"
CHUNKS = "chunks"
COVERAGE = "coverage"
COVERAGE_VERSION = "2"
DOCUMENT = "document"  # an event about the document itself (a warning, a removal), not one of its assets
REFRESH = "refresh"  # the search indexes and audit report, refreshed after documents change

STALE = "stale"  # this version failed; the last good one keeps serving
WARNING = "warning"  # indexed, but something after the commit (a saver) failed


def units_asset(parser: str) -> str:
    return f"{UNITS}/{parser}"


def chunks_asset(chunker: str) -> str:
    return f"{CHUNKS}/{chunker}"


def asset_stage(asset: str) -> str:
    """The step an asset name belongs to: ``raw_text``, ``units``, ``chunks``, ``coverage`` or ``document``."""
    return asset.partition("/")[0]


@dataclass(frozen=True)
class StepEvent:
    """What one step did for one document: materialized, rejected, stale or removed, with versions and metadata."""

    asset: str
    document_id: str
    partition_key: str
    status: str
    data_version: str | None = None
    code_version: str | None = None
    input_versions: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def stage(self) -> str:
        return asset_stage(self.asset)
