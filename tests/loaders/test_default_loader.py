"""The default loader over the real sample corpus and over a folder of bad files: one bad file never stops the rest."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from PIL import Image

from right_rag_dagster.builtins.document_loaders.default import DefaultDocumentLoader
from right_rag_dagster.core.ids import document_id_for_path
from right_rag_dagster.pipeline.steps import load_document

from .pdf_builder import make_pdf

LOADER = DefaultDocumentLoader()


@pytest.fixture(scope="module")
def loaded(sample_documents):
    return {path.name: LOADER.load_document(path, path.name) for path in sorted(sample_documents.iterdir())}


def test_every_sample_document_loads_with_its_format(loaded):
    formats = {name: document.metadata["format"] for name, document in loaded.items()}
    assert formats == {
        "Apache-2.0.txt": "text", "GPL-3.0.txt": "text", "LGPL-3.0.txt": "text", "MPL-2.0.txt": "text",
        "upgrading-checklist.txt": "text", "copyright-format-1.0.html": "html",
        "debian-policy.pdf": "pdf", "fhs-3.0.pdf": "pdf",
    }
    assert loaded["debian-policy.pdf"].page_count == 193
    assert loaded["debian-policy.pdf"].page_label(36) == "26"
    assert loaded["GPL-3.0.txt"].page_count == 0
    assert all(document.id == name for name, document in loaded.items())


def test_every_evidence_quote_of_the_sample_questions_occurs_once_in_the_loaded_text(loaded, sample_documents):
    """The questions were written against pypdfium2 text and Docling Markdown: the loader must give the same."""
    collapsed = {name: re.sub(r"\s+", " ", document.text) for name, document in loaded.items()}
    checked = 0
    for line in (sample_documents.parents[1] / "eval" / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        for evidence in json.loads(line)["evidence"] if line.strip() else []:
            if evidence["document"] in collapsed:
                quote = re.sub(r"\s+", " ", evidence["quote"])
                assert collapsed[evidence["document"]].count(quote) == 1, evidence
                checked += 1
    assert checked >= 20


def test_a_folder_of_bad_files_gives_one_clear_rejection_each_and_the_good_files_load(tmp_path, sample_documents):
    folder = tmp_path / "documents"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(sample_documents / "MPL-2.0.txt", folder / "MPL-2.0.txt")
    shutil.copy(sample_documents / "fhs-3.0.pdf", folder / "sub" / "fhs.pdf")
    policy = (sample_documents / "debian-policy.pdf").read_bytes()
    bad = {
        "empty.txt": (b"", "file is empty"),
        "blank.md": (b"\n\n", "no text could be extracted"),
        "photo.png": (b"\x89PNG\r\n\x1a\n" + bytes(64), "unsupported binary format '.png'"),
        "blob": (b"\x00\x01\x02binary", "binary file"),
        "latin1.txt": ("Café".encode("latin-1"), "invalid UTF-8 at byte 3"),
        "truncated.pdf": (policy[:40_000], "not a readable PDF"),
        "pdf-without-suffix": (policy[:40_000], "not a readable PDF"),
        "locked.pdf": (make_pdf(["secret"], password="pw"), "encrypted PDF"),
        "sub/broken.docx": (b"PK\x03\x04 nope", "Docling could not convert it"),
    }
    for name, (content, _) in bad.items():
        (folder / name).write_bytes(content)
    Image.new("L", (300, 400), 255).save(folder / "scan.pdf")  # an image-only page: no text layer
    bad["scan.pdf"] = (b"", "no text layer")
    (folder / ".hidden.txt").write_text("ignored")

    outcomes = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        document_id = document_id_for_path(path, folder)
        outcomes[document_id] = load_document(path, document_id, [LOADER])

    assert {k for k, o in outcomes.items() if o.document} == {"MPL-2.0.txt", "sub/fhs.pdf"}
    assert outcomes["sub/fhs.pdf"].document.page_count == 50
    for name, (_, reason) in bad.items():
        rejection = outcomes[name].rejection
        assert rejection.document_id == name
        assert reason in rejection.reason, (name, rejection.reason)
        assert rejection.parser_names == ("default",)
    hidden = outcomes[".hidden.txt"]
    assert hidden.document is None and hidden.rejection.status == "unsupported"
