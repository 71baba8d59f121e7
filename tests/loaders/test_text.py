"""UTF-8 text files are read as they are; empty, binary and mis-encoded files are rejected with the reason."""

from __future__ import annotations

import pytest

from right_rag_dagster.errors import DocumentRejected
from right_rag_dagster.loaders.text import looks_like_text, read_text


def test_a_licence_is_read_verbatim(sample_documents):
    path = sample_documents / "GPL-3.0.txt"
    assert read_text(path, "GPL-3.0.txt") == path.read_text(encoding="utf-8")


def test_bom_is_dropped_and_line_ends_normalized(tmp_path):
    path = tmp_path / "windows.txt"
    path.write_bytes("\ufeffมาตรา 1\r\nline two\rline three\n".encode())
    assert read_text(path, "windows.txt") == "มาตรา 1\nline two\nline three\n"


def test_terminal_bold_and_underline_sequences_are_dropped(tmp_path):
    """groff's -Tutf8 output (man-db's manual as shipped) marks headings with ESC[1m ... ESC[0m: they hid every
    numbered heading from the text-manual parser and titled the document with the escape codes."""
    path = tmp_path / "manual.txt"
    path.write_bytes(b"\x1b[1m1.  Introduction\x1b[0m\n\nSee \x1b[4mman\x1b[24m(1); \x1b[22mdone\x1b[0m.\n")
    assert read_text(path, "manual.txt") == "1.  Introduction\n\nSee man(1); done.\n"


@pytest.mark.parametrize("content", [b"", b"   \n\t\n"])
def test_empty_and_blank_files_are_rejected(tmp_path, content):
    path = tmp_path / "empty.txt"
    path.write_bytes(content)
    with pytest.raises(DocumentRejected) as caught:
        read_text(path, "notes/empty.txt")
    assert (caught.value.document, caught.value.reason) == ("notes/empty.txt", "file is empty")


def test_binary_files_are_rejected(tmp_path):
    path = tmp_path / "image.dat"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(DocumentRejected, match="binary file \\(contains NUL bytes\\)"):
        read_text(path, "image.dat")
    assert not looks_like_text(path)
    assert not looks_like_text(tmp_path / "missing.txt")


def test_invalid_utf8_names_the_byte_offset_and_the_fix(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("Section 1. Café rules\n".encode("latin-1"))
    with pytest.raises(DocumentRejected) as caught:
        read_text(path, "latin1.txt")
    assert caught.value.reason == "invalid UTF-8 at byte 14: re-encode the file as UTF-8"
    assert looks_like_text(path)
