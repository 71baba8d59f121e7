"""The default loader: PDF text layer (pypdfium2), Docling formats, and UTF-8 text files of any suffix."""

from __future__ import annotations

from pathlib import Path

from right_rag_dagster.core.interfaces import DocumentLoader
from right_rag_dagster.core.model import Document
from right_rag_dagster.errors import DocumentRejected
from right_rag_dagster.loaders.office import DOCLING_SUFFIXES, HTML_SUFFIXES, html_title, read_with_docling
from right_rag_dagster.loaders.pdf import read_pdf
from right_rag_dagster.loaders.text import read_text

BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".zip", ".gz", ".tar", ".exe", ".so", ".bin", ".doc", ".ppt", ".xls"}


class DefaultDocumentLoader(DocumentLoader):
    """Reads every local file; bad files are rejected with a reason naming the problem."""

    @property
    def loader_name(self) -> str:
        return "default"

    def can_load(self, path: Path) -> bool:
        return not path.name.startswith(".")

    def load_document(self, path: Path, document_id: str) -> Document:
        suffix = path.suffix.lower()
        if path.stat().st_size == 0:
            raise DocumentRejected(document_id, "file is empty")
        if suffix == ".pdf" or _starts_with(path, b"%PDF-"):
            text, starts, labels, metadata = read_pdf(path, document_id)
            return Document(id=document_id, text=text, source=str(path), metadata=metadata,
                            page_starts=tuple(starts), page_labels=tuple(labels))
        if suffix in DOCLING_SUFFIXES:
            text = read_with_docling(path, document_id)
            metadata = {"format": suffix.lstrip("."), "converted_by": "docling-markdown",
                        "markdown_escapes": "none"}  # characters as in the source, not &lt; or \\_
            if suffix in HTML_SUFFIXES:
                metadata["layout_tables"] = "unwrapped"  # tables holding headings read as blocks (loaders/office.py)
                if title := html_title(path):
                    metadata["title"] = title  # the <title> the Markdown export leaves out
            return Document(id=document_id, text=text, source=str(path), metadata=metadata)
        if suffix in BINARY_SUFFIXES:
            raise DocumentRejected(document_id, f"unsupported binary format {suffix!r}: add a loader in "
                                                "spec/document_loaders/")
        return Document(id=document_id, text=read_text(path, document_id), source=str(path),
                        metadata={"format": "text"})


def _starts_with(path: Path, magic: bytes) -> bool:
    with open(path, "rb") as handle:
        return handle.read(len(magic)) == magic
