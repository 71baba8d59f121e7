"""The default unit saver: one JSON file per document under ``output/units/`` (right-rag's layout)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from right_rag_dagster.core.interfaces import UnitSaver
from right_rag_dagster.core.model import Unit
from right_rag_dagster.store.files import document_file_name, write_json_atomic


class DefaultUnitSaver(UnitSaver):
    """Writes ``output/units/<document>.json`` with the full unit trees and their histories."""

    @property
    def saver_name(self) -> str:
        return "default"

    def save_units(self, document_id: str, units: Sequence[Unit], output_dir: Path) -> None:
        payload = {"document_id": document_id, "units": list(units)}
        write_json_atomic(output_dir / "units" / document_file_name(document_id), payload)

    def delete_document(self, document_id: str, output_dir: Path) -> None:
        (output_dir / "units" / document_file_name(document_id)).unlink(missing_ok=True)
