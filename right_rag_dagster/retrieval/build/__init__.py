"""What builds the search indexes: BM25 postings and dense vectors kept in line with a chunker's chunks.

Light on import (the worker processes read ``terms`` only); ``build_search_index`` lives in ``indexes``.
"""
