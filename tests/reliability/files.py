"""Hostile files, made by the tests: broken PDFs, fake and bomb .docx, binary and mis-encoded text."""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

from ..loaders.pdf_builder import _serialize, make_pdf

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
    'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>')


def bomb_docx(path: Path, expanded_mb: int = 120) -> Path:
    """A real .docx of a few hundred KB whose word/document.xml expands to ``expanded_mb`` MB of paragraphs."""
    paragraph = "<w:p><w:r><w:t>All work and no play makes Jack a dull boy.</w:t></w:r></w:p>"
    block = (paragraph * 10_000).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        with archive.open("word/document.xml", "w", force_zip64=True) as xml:
            xml.write(b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w='
                      b'"http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>')
            for _ in range(expanded_mb * 2**20 // len(block)):
                xml.write(block)
            xml.write(b"</w:body></w:document>")
    return path


def zip_without_document(path: Path) -> Path:
    """A zip named .docx that holds no word/document.xml."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "not a word document")
    return path


def image_only_pdf() -> bytes:
    """A one-page PDF whose page shows an image and holds no text (a scan without OCR)."""
    pixels = bytes([0, 255, 255, 0])
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> "
           b"/Contents 4 0 R >>",
        4: b"<< /Length 33 >>\nstream\nq 200 0 0 200 72 500 cm /Im1 Do Q\nendstream",
        5: b"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 "
           b"/Length 4 >>\nstream\n" + pixels + b"\nendstream",
    }
    return _serialize(objects, "")


def encrypted_pdf() -> bytes:
    return make_pdf(["1. Secret section of an encrypted document"], password="s3cret")


def truncated_pdf(source: Path, keep: float = 0.4) -> bytes:
    data = source.read_bytes()
    return data[: int(len(data) * keep)]


def random_bytes(size: int, seed: int = 0, nul: bool = True) -> bytes:
    data = random.Random(seed).randbytes(size)
    return data if nul else data.replace(b"\x00", b"\x01")
