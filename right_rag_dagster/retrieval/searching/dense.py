"""Dense queries: cosine similarity against the stored vectors, after checking the embedding model matches.

Small indexes are scored exactly in memory (one matrix product). An index built with HNSW (large) is queried
through the ``vss`` extension in DuckDB instead, so a cold query never loads every vector. A positive similarity is
weighed by its document's size (``SIZE_PRIOR``), as BM25's scores are.
"""

from __future__ import annotations

import numpy as np

from ...store import Store
from ...store.extensions import load_extension
from ...store.search_tables import (
    Connection,
    IndexState,
    IndexTables,
    dense_nearest,
    dense_vectors,
    read_state,
    table_exists,
)
from ..embedders import Embedder
from ..errors import EmbedderMismatchError, IndexMissingError
from .bm25 import top_candidates
from .chunk_table import Candidate, ChunkTable

SIZE_PRIOR = 0.06
"""A positive cosine is multiplied by its document's chunk count to the power ``-SIZE_PRIOR`` (``bm25.SIZE_PRIOR``'s
reason: a large document's best passage is the best of many). On the 32 tuning sets (998 questions, dense, MiniLM;
rank 1 / top 5): none 653 / 832, 0.03 669 / 849, 0.06 674 / 852, 0.10 656 / 855 (docs/evaluation.md, thirtieth
round). Through HNSW the weights reorder ``HNSW_FETCH`` times the rows asked for."""
HNSW_FETCH = 4


class DenseVectors:
    """One chunker's vectors, rows aligned with the ``ChunkTable``; with HNSW they stay in DuckDB until needed."""

    def __init__(self, state: IndexState, rows: np.ndarray | None = None, matrix: np.ndarray | None = None) -> None:
        self.state = state
        self.rows = rows
        self.matrix = matrix

    @property
    def identity(self) -> str:
        return self.state.model

    @property
    def hnsw(self) -> bool:
        return bool(self.state.details.get("hnsw"))

    @classmethod
    def load(cls, con: Connection, chunks: ChunkTable) -> DenseVectors:
        state = read_state(con, chunks.chunker, "dense")
        if state is None or not table_exists(con, IndexTables(chunks.chunker).dense):
            raise IndexMissingError(f"no dense index for chunker {chunks.chunker!r} yet: `right-rag index` builds it "
                                    "once an embedder is set under [right-rag.retrieval] in right_rag.toml (e.g. "
                                    "embedder = \"minilm\"); or query with --retriever bm25 (from Python: "
                                    f"build_search_index(store, {chunks.chunker!r}, embedder=...))")
        vectors = cls(state)
        if not vectors.hnsw:
            vectors._load_matrix(con, chunks)
        return vectors

    def _load_matrix(self, con: Connection, chunks: ChunkTable) -> None:
        load_extension(con, "vss")
        data = dense_vectors(con, IndexTables(chunks.chunker))
        rows = np.array([chunks.row_of.get(c, -1) for c in data["chunk_id"]], dtype=np.int64)
        live = rows >= 0  # -1: the chunk left the store since the build
        kept = [vector for vector, keep in zip(data["vector"], live) if keep]
        dims = self.state.dimensions or 0
        self.matrix = np.vstack(kept).astype(np.float32) if kept else np.zeros((0, dims), np.float32)
        self.rows = rows[live]

    def check(self, embedder: Embedder | None, chunker: str) -> Embedder:
        """The embedder to use, refusing one that is not the model the vectors were made with."""
        if embedder is None:
            raise EmbedderMismatchError(
                f"the dense index of chunker {chunker!r} was built with {self.identity!r}; pass that embedder "
                "(or set [right-rag.retrieval] embedder) to query it")
        if embedder.identity != self.identity:
            raise EmbedderMismatchError(
                f"the dense index of chunker {chunker!r} was built with {self.identity!r} "
                f"({self.state.dimensions} dimensions) but the query uses {embedder.identity!r}: query with the "
                f"same embedder, or rebuild with build_search_index(store, {chunker!r}, embedder=...)")
        return embedder

    def search(self, vector: np.ndarray, depth: int, allowed: np.ndarray | None, chunks: ChunkTable,
               store: Store) -> list[Candidate]:
        """The ``depth`` most similar rows among ``allowed``, best first (cosine similarity as the score)."""
        if len(vector) != self.state.dimensions:
            raise EmbedderMismatchError(f"the query vector has {len(vector)} dimensions, the dense index of "
                                        f"chunker {chunks.chunker!r} {self.state.dimensions}")
        if self.matrix is None:
            found = self._search_hnsw(vector, depth, allowed, chunks, store)
            if found is not None:
                return found
            with store.read() as con:
                self._load_matrix(con, chunks)
        scores = np.full(len(chunks), -np.inf)
        scores[self.rows] = self.matrix @ vector.astype(np.float32)
        scores = np.where(scores > 0, scores * chunks.size_weights(SIZE_PRIOR), scores)
        if allowed is not None:
            scores[~allowed] = -np.inf
        return top_candidates(scores, depth, chunks, floor=-np.inf)

    def _search_hnsw(self, vector: np.ndarray, depth: int, allowed: np.ndarray | None, chunks: ChunkTable,
                     store: Store) -> list[Candidate] | None:
        """Approximate nearest rows through the HNSW index; None when filters leave too few of them."""
        fetch = depth * HNSW_FETCH if allowed is None else max(depth * 10, 200)
        literal = "[" + ",".join(repr(float(x)) for x in vector) + f"]::FLOAT[{self.state.dimensions}]"
        with store.read() as con:
            load_extension(con, "vss")
            rows = dense_nearest(con, IndexTables(chunks.chunker), literal, fetch)
        weights = chunks.size_weights(SIZE_PRIOR)
        found = [Candidate(chunk_id, _weighed(float(score), weights[chunks.row_of[chunk_id]]))
                 for chunk_id, score in rows
                 if chunk_id in chunks.row_of and (allowed is None or allowed[chunks.row_of[chunk_id]])]
        found.sort(key=lambda candidate: -candidate.score)  # stable: equal scores keep the index's order
        enough = len(found) >= depth or len(rows) < fetch
        return found[:depth] if enough else None


def _weighed(score: float, weight: float) -> float:
    """A similarity weighed by its document's size (``SIZE_PRIOR``); a negative one is left as it is."""
    return score * weight if score > 0 else score
