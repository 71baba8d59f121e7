"""Plain UTF-8 text files, read as they are (any suffix), rejecting binary and mis-encoded files."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import DocumentRejected

BINARY_SNIFF_BYTES = 8192
_SGR = re.compile(r"\x1b\[[0-9;]*m")
"""A terminal's select-graphic-rendition sequence (``ESC[1m`` bold, ``ESC[0m`` reset): groff's ``-Tutf8`` output
(man-db's ``man-db-manual.txt``) marks bold and underlined words with them; no reader sees them."""


def read_text(path: Path, document_id: str) -> str:
    """The file's text (BOM dropped, CRLF normalized, terminal colour and bold sequences removed); rejects empty,
    binary and invalid UTF-8 files."""
    data = path.read_bytes()
    if not data.strip():
        raise DocumentRejected(document_id, "file is empty")
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise DocumentRejected(document_id, "binary file (contains NUL bytes): not a text document")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentRejected(
            document_id, f"invalid UTF-8 at byte {exc.start}: re-encode the file as UTF-8"
        ) from exc
    return _SGR.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def looks_like_text(path: Path) -> bool:
    """True for files that start like text (no NUL bytes in the first block)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(BINARY_SNIFF_BYTES)
    except OSError:
        return False
    return b"\x00" not in head
