"""The default chunk saver: one JSON file per document and chunker under ``output/chunks/<chunker>/``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from right_rag_dagster.core.interfaces import ChunkSaver
from right_rag_dagster.core.model import Chunk
from right_rag_dagster.store.files import document_file_name, write_json_atomic


class DefaultChunkSaver(ChunkSaver):
    """Writes ``output/chunks/<chunker>/<document>.json``."""

    @property
    def saver_name(self) -> str:
        return "default"

    def save_chunks(self, document_id: str, chunker: str, chunks: Sequence[Chunk], output_dir: Path) -> None:
        payload = {"document_id": document_id, "chunker": chunker, "chunks": list(chunks)}
        write_json_atomic(output_dir / "chunks" / chunker / document_file_name(document_id), payload)

    def delete_document(self, document_id: str, output_dir: Path) -> None:
        folder = output_dir / "chunks"
        if folder.is_dir():
            for chunker_dir in folder.iterdir():
                (chunker_dir / document_file_name(document_id)).unlink(missing_ok=True)
