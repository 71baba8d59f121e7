"""The first BM25 search of a process, straight from DuckDB: only the question's postings and the top rows.

Loading a chunker's whole snapshot costs ~0.5 s on 40k chunks, which a one-shot ``right-rag query`` would pay
for one question. So the first unfiltered BM25 search of a chunker weighs and sums only the postings of the
question's terms in SQL and reads only the rows it returns; the snapshot is loaded from the second search on.
Both paths use the same formula and statistics and order ties by document and ordinal, so they rank alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from operator import attrgetter

from ...store import Store
from ...store.search_tables import IndexTables, bm25_best_rows, bm25_document_scores, bm25_term_ids
from ..formats import K1, B
from ..hits import Hit
from ..settings import DOCUMENT_PRIOR
from .bm25 import SIZE_PRIOR, camel_part_terms, has_terms, query_terms
from .chunk_table import COLUMNS, Candidate, ChunkTable
from .within_document import DEPTH, order_within_documents, shared_documents


def cold_bm25(store: Store, query: str, chunker: str, k: int, retriever: str = "bm25",
              document_prior: float = DOCUMENT_PRIOR, named: Sequence[str] = ()) -> list[Hit]:
    """The ``k`` best chunks for ``query`` by BM25, read directly from the store, each weighed by its document's
    BM25 over whole documents (``document_prior``; not the ``named`` documents) and each document's ordered by its own IDF among its places
    (``within_document``), as ``RetrievalRequest.bm25`` ranks them."""
    t = IndexTables(chunker)
    with store.read() as con:
        if not has_terms(con, chunker):
            return []
        held = bm25_term_ids(con, t, [*query_terms(query), *camel_part_terms(query)])
        termids = [held[stem] for stem in query_terms(query, held) if stem in held]
        if not termids:
            return []
        rows = bm25_best_rows(con, t, termids, max(k, DEPTH), COLUMNS, (K1, B), SIZE_PRIOR, document_prior,
                              named)
        several = sorted(shared_documents(row[1] for row in rows))
        local = bm25_document_scores(con, t, termids, several, (K1, B))
    table = ChunkTable(chunker, [row[:-1] for row in rows])
    hits = [table.hit(Candidate(row[0], row[-1]), rank, retriever) for rank, row in enumerate(rows, start=1)]
    hits = order_within_documents(hits, [local.get(hit.chunk_id, 0.0) for hit in hits], attrgetter("document_id"),
                                  attrgetter("score"), _placed)
    return [replace(hit, rank=rank) for rank, hit in enumerate(hits[:k], start=1)]


def _placed(hit: Hit, score: float, local: float) -> Hit:
    return replace(hit, score=score, details={**hit.details, "document_bm25": round(local, 4)})
