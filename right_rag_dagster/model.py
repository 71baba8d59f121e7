"""right-rag compatible import path for the domain model (``from right_rag_dagster.model import ...``)."""

from .core.changes import (
    delete_unit,
    is_active_unit,
    merge_unit_change,
    merge_unit_changes,
    recreate_unit_from_changes,
    unit_stage_data,
)
from .core.model import (
    Chunk,
    Document,
    ParsedUnit,
    Unit,
    UnitChange,
    UnitChangeTarget,
    UnitChangeType,
)
from .core.units import build_units, walk_units

__all__ = [
    "Chunk", "Document", "ParsedUnit", "Unit", "UnitChange", "UnitChangeTarget", "UnitChangeType",
    "build_units", "delete_unit", "is_active_unit", "merge_unit_change", "merge_unit_changes",
    "recreate_unit_from_changes", "unit_stage_data", "walk_units",
]
