"""RAG tests use the retrieval tests' real store (built once per session)."""

from tests.retrieval.conftest import built_store, store_copy  # noqa: F401  (session store and private copies)
