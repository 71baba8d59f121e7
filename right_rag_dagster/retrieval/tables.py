"""The search index tables, owned by the store (``store/search_tables.py``): re-exported for retrieval."""

from ..store.search_tables import (  # noqa: F401 (re-exports)
    Connection,
    IndexState,
    IndexTables,
    delete_state,
    literal,
    read_state,
    table_exists,
    write_state,
)
