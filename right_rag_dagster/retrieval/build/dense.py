"""Build one chunker's dense index: FLOAT[n] vectors in DuckDB with the embedding model's identity.

Only chunks whose indexed text changed are embedded again; a different model re-embeds everything. Past
``hnsw_threshold`` vectors an HNSW index (``vss`` extension, cosine) is kept so queries need not scan them all.
A write-ahead log holding HNSW changes cannot be replayed by a connection without ``vss`` (every other
part of right-rag), so ``build_search_index`` checkpoints with ``vss`` loaded right after such a change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...store.dense_tables import (
    create_hnsw,
    drop_vectors,
    replace_vectors,
    stored_vectors,
    vector_count,
)
from ...store.extensions import load_extension
from ...store.search_tables import (
    Connection,
    IndexState,
    IndexTables,
    delete_state,
    read_state,
    table_exists,
    write_state,
)
from ..embedders import Embedder
from ..formats import HASH_RULE
from .pending import PendingChunks

if TYPE_CHECKING:
    import numpy as np

    from ...store import Store

HNSW_THRESHOLD = 100_000


@dataclass(frozen=True)
class DensePlan:
    """Chunks to embed (id, hash, text) and chunk ids to drop; ``full_rebuild`` when the model changed."""

    tables: IndexTables
    identity: str
    remove: tuple[str, ...]
    embed: tuple[tuple[str, str, str], ...]
    full_rebuild: bool
    dimensions: int | None
    hnsw_stale: bool = False  # the index crossed the HNSW threshold (either way) since it was built
    had_hnsw: bool = False
    fingerprint: str = ""  # of the chunks this plan was made from (see store.chunk_reads.chunks_fingerprint)
    stale_fingerprint: bool = False

    @property
    def rows_changed(self) -> bool:
        return self.full_rebuild or bool(self.remove or self.embed) or self.hnsw_stale

    @property
    def changed(self) -> bool:
        return self.rows_changed or self.stale_fingerprint


def plan_dense(pending: PendingChunks, con: Connection, embedder: Embedder, fingerprint: str = "",
               hnsw_threshold: int = HNSW_THRESHOLD) -> DensePlan:
    """Find the chunks whose vectors this model lacks or holds for another text (all of them for a new model)."""
    tables = IndexTables(pending.chunker)
    state = read_state(con, pending.chunker, "dense")
    full = (state is None or state.model != embedder.identity or not table_exists(con, tables.dense)
            or state.details.get("hash") != HASH_RULE)
    stale, remove = pending.against(con, None if full else tables.dense)
    embed = tuple((row.chunk_id, row.text_hash, row.text) for row in stale)
    had_hnsw = state is not None and bool(state.details.get("hnsw"))
    hnsw_stale = not full and had_hnsw != (pending.total >= hnsw_threshold)
    stale_fingerprint = state is not None and state.details.get("fingerprint") != fingerprint
    return DensePlan(tables, embedder.identity, remove, embed, full, None if full else state.dimensions, hnsw_stale,
                     had_hnsw, fingerprint, stale_fingerprint)


def reusable_vectors(source: Store, plan: DensePlan) -> dict[str, list[float]]:
    """The vectors another store (the project's, for the evaluation store's copy of its chunks) already holds for
    the chunks ``plan`` would embed, made by the same model from the same text: embedding them again took as long
    as the project's own index did (13 min for 7,600 chunks with MiniLM here)."""
    if not plan.embed or not source.exists():
        return {}
    with source.read() as con:
        state = read_state(con, plan.tables.chunker, "dense")
        if (state is None or state.model != plan.identity or state.details.get("hash") != HASH_RULE
                or not table_exists(con, plan.tables.dense)):
            return {}
        rows = stored_vectors(con, plan.tables, [row[0] for row in plan.embed], [row[1] for row in plan.embed])
    return dict(rows)


def apply_dense(con: Connection, plan: DensePlan, vectors: np.ndarray, build_id: str, seconds: float,
                hnsw_threshold: int = HNSW_THRESHOLD) -> dict[str, int | bool]:
    """Write the new vectors (``vectors[i]`` belongs to ``plan.embed[i]``) and refresh the HNSW index."""
    t = plan.tables
    dims = int(vectors.shape[1]) if len(plan.embed) else plan.dimensions
    if plan.full_rebuild:
        drop_vectors(con, t)
    if dims is None:  # nothing to embed and nothing stored: an empty index
        delete_state(con, t.chunker, "dense")
        return {"chunks": 0, "dimensions": 0, "hnsw": False}
    if plan.rows_changed:
        hnsw = _write_vectors(con, plan, vectors, dims, hnsw_threshold)
    else:
        hnsw = plan.had_hnsw
    rows = vector_count(con, t)
    write_state(con, IndexState(t.chunker, "dense", t.dense, plan.identity, dims, rows, None, build_id,
                                {"hnsw": hnsw, "metric": "cosine", "fingerprint": plan.fingerprint,
                                 "hash": HASH_RULE}), seconds)
    return {"chunks": rows, "dimensions": dims, "hnsw": hnsw}


def _write_vectors(con: Connection, plan: DensePlan, vectors: np.ndarray, dims: int, hnsw_threshold: int) -> bool:
    t = plan.tables
    gone = list(plan.remove) + [row[0] for row in plan.embed]
    new = ([row[0] for row in plan.embed], [row[1] for row in plan.embed], vectors.tolist() if plan.embed else [])
    if replace_vectors(con, t, dims, gone, new) < hnsw_threshold:
        return False
    create_hnsw(con, t)
    return True


def drop_dense(con: Connection, chunker: str) -> None:
    """Remove a chunker's vectors (and their HNSW index and state row)."""
    t = IndexTables(chunker)
    if table_exists(con, t.dense):
        load_extension(con, "vss")
        drop_vectors(con, t)
    delete_state(con, chunker, "dense")
