"""DOCX, HTML, Markdown, PPTX and XLSX through Docling, exported to Markdown (no torch needed)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..errors import DocumentRejected

DOCLING_SUFFIXES = {".docx", ".html", ".htm", ".xhtml", ".md", ".markdown", ".pptx", ".xlsx"}


@lru_cache(maxsize=1)
def _converter():
    try:
        from docling.datamodel.base_models import InputFormat
        from docling.document_converter import DocumentConverter
    except ImportError as exc:  # pragma: no cover - docling-slim is a dependency
        raise DocumentRejected("docling", "Docling is not installed: pip install "
                                          "'docling-slim[office,web,markdown]==2.142.1'") from exc
    formats = [InputFormat.DOCX, InputFormat.HTML, InputFormat.MD, InputFormat.PPTX, InputFormat.XLSX]
    return DocumentConverter(allowed_formats=formats)


def read_with_docling(path: Path, document_id: str) -> str:
    """Markdown export of the document, its characters as they are (``--mode=<heap|copy>``, ``DEB_BUILD_OPTIONS``;
    Docling's default export writes ``&lt;``, ``&amp;`` and ``\\_``, which answers then quoted and BM25 split
    into words of their own); rejects files Docling cannot convert."""
    if path.stat().st_size == 0:
        raise DocumentRejected(document_id, "file is empty")
    try:
        result = _converter().convert(str(path), raises_on_error=True)
    except DocumentRejected:
        raise
    except Exception as exc:
        raise DocumentRejected(document_id, f"Docling could not convert it: {type(exc).__name__}: {exc}") from exc
    return result.document.export_to_markdown(escape_html=False, escape_underscores=False)
