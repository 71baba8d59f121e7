"""Fixtures of the reliability suite: a small real project indexed once by the real CLI, cloned by each test
that needs "a project indexed before" (cloning costs milliseconds; an index costs seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import built_once
from ..orchestration.conftest import make_project
from .harness import chunk_counts, right_rag

LICENCES = ("GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt")


@pytest.fixture(scope="session")
def indexed_licences(tmp_path_factory) -> Path:
    """Three licences indexed by two licence parsers and the default chunker (do not modify: clone it); indexed
    once per test run, this worker's copy (``built_once``)."""

    def build(folder: Path) -> None:
        project = make_project(folder / "licences", LICENCES)
        done = right_rag(project, "index")
        assert done.code == 0, done

    project = built_once(tmp_path_factory, "licences", build) / "licences"
    assert set(chunk_counts(project)) == set(LICENCES)
    return project
