"""A small real project (two licences and a PDF standard), indexed once with the built-in plugins."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from right_rag_dagster.pipeline import pipeline
from tests.conftest import built_once

DOCUMENTS = ("Apache-2.0.txt", "MPL-2.0.txt", "fhs-3.0.pdf")
QUESTIONS = [
    {"id": "apache-patent-termination",
     "question": "When do my patent licenses end if I sue someone claiming the Work infringes a patent?",
     "evidence": [{"document": "Apache-2.0.txt", "quote": "shall terminate as of the date such litigation is filed"}]},
    {"id": "mpl2-executable-form", "question": "If I distribute Covered Software in Executable Form, what else "
     "must I make available?", "evidence": [{"document": "MPL-2.0.txt", "quote": "such Covered Software must also "
                                              "be made available in Source Code Form"}]},
    {"id": "fhs-tmp", "question": "May programs assume files in /tmp survive between invocations?",
     "evidence": [{"document": "fhs-3.0.pdf", "quote": "Programs must not assume that any files or directories in "
                                                       "/tmp are preserved between invocations of the program."}]},
    {"id": "missing-quote", "question": "What is the airspeed of a swallow?",
     "evidence": [{"document": "fhs-3.0.pdf", "quote": "an African or a European swallow"}]},
]


@pytest.fixture(scope="session")
def indexed_project(tmp_path_factory: pytest.TempPathFactory, sample_documents: Path) -> Path:
    """Project folder with ``eval/questions.jsonl``, a hashing embedder (no model download) and its index built
    (once per test run, this worker's copy: ``built_once``)."""

    def build(folder: Path) -> None:
        root = folder / "project"
        documents = root / "data" / "documents"
        documents.mkdir(parents=True)
        for name in DOCUMENTS:
            shutil.copy(sample_documents / name, documents / name)
        (root / "eval").mkdir()
        (root / "eval" / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS),
                                                       encoding="utf-8")
        (root / "right_rag.toml").write_text('[right-rag.retrieval]\nembedder = "hashing:64"\n', encoding="utf-8")
        pipeline(project_dir=root)

    return built_once(tmp_path_factory, "evaluation", build) / "project"
