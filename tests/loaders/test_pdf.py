"""PDFs through pypdfium2's text layer: page map, printed page labels, and clear rejections of unreadable files."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from right_rag_dagster.errors import DocumentRejected
from right_rag_dagster.loaders.pdf import read_pdf

from .pdf_builder import make_pdf


@pytest.fixture(scope="module")
def policy(sample_documents):
    text, starts, labels, metadata = read_pdf(sample_documents / "debian-policy.pdf", "debian-policy.pdf")
    return text, starts, labels, metadata


def test_debian_policy_has_a_page_map_of_193_pages(policy):
    text, starts, labels, metadata = policy
    assert len(starts) == len(labels) == metadata["pages"] == 193
    assert starts[0] == 0
    assert all(a < b for a, b in itertools.pairwise(starts))
    assert all(text[start - 1] == "\n" for start in starts[1:])  # pages are joined by one newline
    assert "\ufffe" not in text  # pdfium's soft-hyphen marker is shown as the printed hyphen


def test_physical_page_36_carries_label_26_which_the_table_of_contents_cites(policy):
    text, starts, labels, _ = policy
    assert labels[35] == "26"
    toc = re.search(r"4\.9\.1 debian/rules and DEB_BUILD_OPTIONS[ .]+ (\d+)\n", text)
    heading = text.index("4.9.1 debian/rules and DEB_BUILD_OPTIONS\n")
    page = max(i for i, start in enumerate(starts, 1) if start <= heading)
    assert page == 36
    assert labels[page - 1] == toc.group(1)


def test_front_matter_has_roman_labels(policy):
    _, _, labels, _ = policy
    assert labels[2:5] == ["i", "ii", "iii"]
    assert labels[-1] == "183"


def test_fhs_has_50_pages(sample_documents):
    _, starts, labels, _ = read_pdf(sample_documents / "fhs-3.0.pdf", "fhs-3.0.pdf")
    assert len(starts) == len(labels) == 50


def test_a_small_pdf_gives_exact_text_offsets_and_its_own_labels(tmp_path):
    path = tmp_path / "two.pdf"
    path.write_bytes(make_pdf(["Hello page one", "Second (page)"], labels_from=7))
    text, starts, labels, metadata = read_pdf(path, "two.pdf")
    assert text == "Hello page one\nSecond (page)"
    assert (starts, labels, metadata) == ([0, 15], ["7", "8"], {"format": "pdf", "pages": 2})


def test_pages_without_labels_are_numbered(tmp_path):
    path = tmp_path / "plain.pdf"
    path.write_bytes(make_pdf(["a", "b", "c"]))
    assert read_pdf(path, "plain.pdf")[2] == ["1", "2", "3"]


def test_an_encrypted_pdf_is_rejected_as_needing_a_password(tmp_path):
    import pypdfium2 as pdfium

    path = tmp_path / "locked.pdf"
    path.write_bytes(make_pdf(["Confidential terms"], password="secret"))
    with pytest.raises(DocumentRejected) as caught:
        read_pdf(path, "contracts/locked.pdf")
    assert caught.value.document == "contracts/locked.pdf"
    assert "encrypted PDF" in caught.value.reason and "password" in caught.value.reason
    assert str(caught.value).startswith("contracts/locked.pdf: ")
    # The fixture is a real encrypted PDF: with the password pdfium reads the text.
    page = pdfium.PdfDocument(str(path), password="secret")[0]
    assert page.get_textpage().get_text_range() == "Confidential terms"


def test_a_pdf_encrypted_only_with_an_owner_password_still_loads(tmp_path):
    path = tmp_path / "restricted.pdf"
    path.write_bytes(make_pdf(["Printing not allowed"], password=""))
    assert read_pdf(path, "restricted.pdf")[0] == "Printing not allowed"


def test_a_scanned_pdf_without_text_layer_is_rejected_with_an_ocr_hint(tmp_path):
    path = tmp_path / "scan.pdf"
    pages = []
    for number in (1, 2):
        image = Image.new("RGB", (600, 800), "white")
        ImageDraw.Draw(image).text((60, 60), f"Section {number}. Scanned text.", fill="black")
        pages.append(image)
    pages[0].save(path, save_all=True, append_images=pages[1:])
    with pytest.raises(DocumentRejected) as caught:
        read_pdf(path, "scan.pdf")
    assert "no text layer on any of its 2 pages" in caught.value.reason
    assert "OCR" in caught.value.reason


@pytest.mark.parametrize("keep", [0.05, 0.5, 0.99])
def test_a_truncated_pdf_is_rejected_as_corrupt(tmp_path, sample_documents, keep):
    data = (sample_documents / "debian-policy.pdf").read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(DocumentRejected, match="not a readable PDF \\(corrupt or truncated\\)"):
        read_pdf(path, "cut.pdf")


def test_garbage_with_a_pdf_suffix_is_rejected(tmp_path):
    path = tmp_path / "fake.pdf"
    path.write_bytes(b"%PDF-1.7\nthis is not really a pdf\n")
    with pytest.raises(DocumentRejected) as caught:
        read_pdf(Path(path), "fake.pdf")
    assert caught.value.document == "fake.pdf"
