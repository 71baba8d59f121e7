"""PDFs through pypdfium2's text layer, with a page map and the printed page labels."""

from __future__ import annotations

from pathlib import Path

from ..errors import DocumentRejected

PAGE_SEPARATOR = "\n"


def read_pdf(path: Path, document_id: str) -> tuple[str, list[int], list[str], dict]:
    """Text, page start offsets, page labels and metadata of a PDF; rejects unreadable or textless files."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise DocumentRejected(document_id, "encrypted PDF: it needs a password; decrypt it first") from exc
        raise DocumentRejected(document_id, f"not a readable PDF (corrupt or truncated): {message}") from exc
    try:
        parts: list[str] = []
        starts: list[int] = []
        labels: list[str] = []
        offset = 0
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            # pdfium marks a hyphen at a line break as U+FFFE: show it as the printed "-" (same length).
            text = textpage.get_text_range().replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-")
            textpage.close()
            page.close()
            starts.append(offset)
            labels.append(_label(pdf, index))
            parts.append(text)
            offset += len(text) + len(PAGE_SEPARATOR)
        full = PAGE_SEPARATOR.join(parts)
    finally:
        pdf.close()
    if not starts:
        raise DocumentRejected(document_id, "PDF has no pages")
    if not full.strip():
        raise DocumentRejected(document_id, f"PDF has no text layer on any of its {len(starts)} pages "
                                            "(scanned?): add an OCR loader in spec/document_loaders/")
    return full, starts, labels, {"format": "pdf", "pages": len(starts)}


def _label(pdf, index: int) -> str:
    try:
        label = pdf.get_page_label(index)
    except Exception:
        label = ""
    return label or str(index + 1)
