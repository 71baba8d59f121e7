"""The sample project's own plugins (spec/ and right_rag.toml of this repository) with default settings on the
inputs that used to run DuckDB out of its memory budget: the 710-file scale corpus and a changed debian-policy.pdf.
Each run completes; nothing indexed is lost. Slow: they guard the real path, and CI runs them."""

from __future__ import annotations

import shutil

import pytest

from .harness import (
    CORPUS,
    SHARED_CORPUS,
    chunk_counts,
    consistency_problems,
    rejections,
    right_rag,
    rows,
    sample_project,
)


@pytest.mark.slow
def test_the_scale_corpus_with_the_sample_plugins_and_defaults(tmp_path):
    project = sample_project(tmp_path / "scale")
    scale = SHARED_CORPUS / "scale"
    shutil.copytree(scale, project / "data" / "documents", dirs_exist_ok=True)
    done = right_rag(project, "index", timeout=900)
    assert done.code == 0, done
    assert "Traceback" not in done.text and "out of" not in done.err
    documents = len(list(scale.iterdir()))
    assert len(chunk_counts(project)) == documents
    assert consistency_problems(project) == []
    again = right_rag(project, "index", "--quiet", timeout=120)
    assert again.code == 0 and f"indexed 0, unchanged {documents}" in again.out, again


@pytest.mark.slow
def test_a_changed_debian_policy_pdf_is_indexed_again(tmp_path):
    import pypdfium2

    project = sample_project(tmp_path / "policy")
    policy = project / "data" / "documents" / "debian-policy.pdf"
    shutil.copy(CORPUS / "debian-policy.pdf", policy)
    first = right_rag(project, "index", timeout=900)
    assert first.code == 0, first
    before = chunk_counts(project)["debian-policy.pdf"]
    pdf = pypdfium2.PdfDocument(str(policy))  # a new edition: its last pages dropped
    for index in range(len(pdf) - 1, len(pdf) - 21, -1):
        pdf.del_page(index)
    changed = tmp_path / "changed.pdf"
    pdf.save(str(changed))
    pdf.close()
    shutil.move(changed, policy)
    second = right_rag(project, "index", timeout=900)
    assert second.code == 0, second
    assert "indexed 1," in second.out and rejections(project) == {}
    assert 0 < chunk_counts(project)["debian-policy.pdf"] < before
    assert rows(project, "SELECT page_count FROM documents") == [(173,)]
    assert consistency_problems(project) == []
