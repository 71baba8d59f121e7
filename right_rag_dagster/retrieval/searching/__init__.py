"""What searches the indexes: in-memory snapshots, cold BM25, dense search, fusion, filters, document identity
and the retriever plugins; ``search`` lives in ``searcher``."""
