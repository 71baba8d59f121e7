"""The sample project's own plugins (spec/ and right_rag.toml of this repository) on the inputs that used to run
DuckDB out of its memory budget: the scale corpus (under a budget cut as the corpus is, see ``scale_subset``) and a
changed debian-policy.pdf (default settings). Each run completes; nothing indexed is lost. Slow: they guard the real
path, and CI runs them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .harness import (
    CORPUS,
    SHARED_CORPUS,
    chunk_counts,
    consistency_problems,
    environment,
    rejections,
    right_rag,
    rows,
    sample_project,
)

SCALE = SHARED_CORPUS / "scale"
LARGE_BYTES = 100_000
"""Files of the scale corpus above this size are all kept: the four 2 MB ``libboost-*1.74.0.copyright`` files
(the batch holding them is the one that ran DuckDB out of 128 MB, ``docs/performance.md``), the openjdk, perl,
nodejs and adwaita files (9.5 MB of the corpus's 17.2 MB)."""
SMALL_KEPT = 4
"""One small file in this many is kept (174 of 696, 1.9 MB): 188 documents (and Dagster partitions) instead of
710, small files of every kind the corpus has."""
DEFAULT_BUDGET_MB = 128
"""DuckDB's default budget (``store.db.DEFAULT_MEMORY_LIMIT``), which the whole 710-file corpus must fit in."""


def scale_subset() -> tuple[list[str], str]:
    """The scale corpus cut down, and DuckDB's budget cut in the same proportion as its bytes (85 MB for 11.4 MB
    of 17.2 MB), as ``test_large_documents.py`` scales its document: the largest write batches are as large as
    before (the large files are all there) under a smaller budget, and what grows with the whole store (the
    search index build, checkpoints) meets a budget as much smaller as the store is. The whole corpus under the
    default 128 MB took 1.7x as long; ``bench/real_projects.py`` still indexes it so (its sample rows)."""
    names = sorted(os.listdir(SCALE))
    size = {name: (SCALE / name).stat().st_size for name in names}
    large = [name for name in names if size[name] > LARGE_BYTES]
    kept = sorted(large + [name for name in names if size[name] <= LARGE_BYTES][::SMALL_KEPT])
    budget = DEFAULT_BUDGET_MB * sum(size[name] for name in kept) / sum(size.values())
    return kept, f"{int(budget)}MB"


@pytest.mark.slow
def test_the_scale_corpus_with_the_sample_plugins_under_its_share_of_the_default_budget(tmp_path):
    project = sample_project(tmp_path / "scale")
    names, budget = scale_subset()
    assert sum(Path(SCALE / name).stat().st_size > 2_000_000 for name in names) == 4, "the libboost files"
    for name in names:
        shutil.copy(SCALE / name, project / "data" / "documents" / name)
    env = environment(RIGHT_RAG_DUCKDB_MEMORY_LIMIT=budget)
    done = right_rag(project, "index", env=env, timeout=900)
    assert done.code == 0, done
    assert "Traceback" not in done.text and "out of" not in done.err
    documents = len(names)
    assert len(chunk_counts(project)) == documents
    assert consistency_problems(project) == []
    again = right_rag(project, "index", "--quiet", env=env, timeout=120)
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
