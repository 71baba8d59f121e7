"""Real stores for retrieval tests: real corpus files loaded, parsed and chunked by the built-in plugins.

The session store is built once (shared with tests/rag); tests that write get their own copy (``store_copy``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from right_rag_dagster.store import Store
from tests.retrieval.store_builder import copy_store, session_store


@pytest.fixture(scope="session")
def built_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """debian-policy.pdf, GPL-3.0.txt, upgrading-checklist.txt and a small Thai act, chunked by ``default``,
    with a BM25 index."""
    return session_store(tmp_path_factory)


@pytest.fixture
def store_copy(built_store: Store, tmp_path: Path) -> Store:
    """A private copy of the session store, for tests that write."""
    return copy_store(built_store, tmp_path)
