"""``search``: one question, one chunker, one retriever -> ranked ``Hit`` rows of the ``chunks`` table."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ...core.registry import Registry
from ...errors import ConfigError
from ...store import Store
from ..embedders import Embedder, make_embedder
from ..hits import Hit
from ..settings import DEFAULT_IDENTITY, DOCUMENT_PRIOR, check_variant
from .acronyms import expansion, store_acronyms, writes_acronym
from .chunk_table import Candidate, ChunkTable
from .cold import cold_bm25
from .definitions import asks_for_definition, defined_term
from .definitions import reorder as reorder_definitions
from .expand import expand_to_units
from .file_patterns import FIELDS_ATTRIBUTE, FILES_ATTRIBUTE, field_terms, pattern_terms
from .file_patterns import reorder as reorder_stanzas
from .filters import filter_mask
from .identity import (
    DEPTH,
    Identified,
    identify,
    reorder,
    store_names,
)
from .neighbours import WINDOW, join_neighbours
from .retrievers import Bm25Retriever, RetrievalRequest, Retriever, resolve_retriever
from .snapshot import first_search, open_index


def search(store: Store, query: str, *, chunker: str, retriever: str | Retriever = "bm25", k: int = 10,
           filters: dict[str, Any] | None = None, embedder: Embedder | str | Any = None, expand: bool = False,
           registry: Registry | None = None, options: dict[str, Any] | None = None,
           identity: str = DEFAULT_IDENTITY, neighbours: bool = True) -> list[Hit]:
    """The ``k`` best chunks of ``chunker`` for ``query``, ranked from 1.

    ``filters`` restrict the chunks (see ``retrieval.filters``); ``embedder`` is needed by dense and hybrid
    (a local model is recreated from the stored identity when omitted); ``expand`` returns a whole unit
    in place of several of its chunks; ``registry`` finds spec/retrievers plugins; ``options`` go to the
    retriever (``weights``, ``rrf_k``, ``depth``, ``within_document``, ``document_prior``); ``identity`` says how a document named in the question
    moves its passages (``searching.identity``: none, boost, first, filter); ``neighbours`` joins chunks that
    follow one another in the text and all rank high (``searching.neighbours``; not with ``expand``).
    """
    if k < 1:
        raise ConfigError(f"k must be at least 1, got {k}")
    plugin = resolve_retriever(retriever, registry)
    names = identify(query, store_names(store)) if check_variant(identity) != "none" else Identified({}, query)
    named = names.named
    quoted = names.lexical != query  # a name to score only in its own documents (identity.Identified)
    # acronyms the documents define, from the question without the name of a document it names
    extra = expansion(names.lexical, store_acronyms(store)) if writes_acronym(names.lexical) else ""
    defining = asks_for_definition(query)  # definitions of a term it names move up (retrieval.searching.definitions)
    deep = bool(named) or defining  # candidates are reordered: fetch DEPTH of them
    cold = (type(plugin) is Bm25Retriever and not filters and not expand and not (named and identity == "filter")
            and not quoted and not defining and (options or {}).get("within_document", True))
    # merging chunks leaves fewer hits: fetch more so k remain (joins make at most one hit of the first WINDOW),
    # and never fewer than WINDOW, so the first hits are the same whatever k is
    fetch = k * 3 if expand else max(k + WINDOW - 1, WINDOW) if neighbours else k
    if cold and first_search(store, chunker):
        hits = cold_bm25(store, f"{query} {extra}" if extra else query, chunker,
                         max(fetch, DEPTH) if named else fetch,
                         document_prior=float((options or {}).get("document_prior", DOCUMENT_PRIOR)),
                         named=[*named, *names.versions])
        hits = reorder(hits, named, identity, _hit_document, _hit_score, _named_hit)
        hits = reorder_stanzas(hits, query, _hit_document, lambda h: pattern_terms(h.attributes), _hit_score,
                               _stanza_hit, names.said.get, lambda h: field_terms(h.attributes))
        return join_neighbours(hits[:fetch])[:k] if neighbours else _renumber(hits[:k])
    index = open_index(store, chunker)
    if not len(index.chunks):
        return []
    allowed = filter_mask(index.chunks, filters)
    if named and identity == "filter":
        allowed = _within(index.chunks, named, allowed)
    request = RetrievalRequest(query=query, k=max(fetch, DEPTH) if deep else fetch, index=index, allowed=allowed,
                               embedder=make_embedder(embedder), options=dict(options or {}),
                               lexical_query=names.lexical if quoted else None,
                               named_rows=_within(index.chunks, {**named, **names.versions}, None) if named else None,
                               expansion=extra)
    candidates = plugin.retrieve(request)
    name = plugin.retriever_name
    live = [c for c in candidates if c.chunk_id in index.chunks.row_of
            and (request.allowed is None or request.allowed[index.chunks.row_of[c.chunk_id]])]
    rows = index.chunks.rows
    live = reorder(live, named, identity, lambda c: rows[index.chunks.row_of[c.chunk_id]][1], lambda c: c.score,
                   _named_candidate)
    if defining:
        live = reorder_definitions(live, query, lambda c: _defined_term(index.chunks, c), lambda c: c.score,
                                   _defining_candidate, lambda c: _place(index.chunks, c))
    live = reorder_stanzas(live, query, lambda c: rows[index.chunks.row_of[c.chunk_id]][1],
                           lambda c: _pattern_terms(index.chunks, c), lambda c: c.score, _stanza_candidate,
                           names.said.get, lambda c: _field_terms(index.chunks, c))
    hits = [index.chunks.hit(c, rank, name) for rank, c in enumerate(live[:fetch], start=1)]
    if expand:
        return expand_to_units(store, hits)[:k]
    return join_neighbours(hits)[:k] if neighbours else hits


def _within(chunks: ChunkTable, named: dict[str, str], allowed: np.ndarray | None) -> np.ndarray:
    mask = np.fromiter((row[1] in named for row in chunks.rows), bool, len(chunks))
    return mask if allowed is None else mask & allowed


def _hit_document(hit: Hit) -> str:
    return hit.document_id


def _hit_score(hit: Hit) -> float:
    return hit.score


def _named_hit(hit: Hit, score: float, named: str | None) -> Hit:
    return replace(hit, score=score, details={**hit.details, "named": named}) if named else replace(hit, score=score)


def _named_candidate(candidate: Candidate, score: float, named: str | None) -> Candidate:
    details = {**candidate.details, "named": named} if named else candidate.details
    return Candidate(candidate.chunk_id, score, details)


def _defined_term(chunks: ChunkTable, candidate: Candidate) -> str | None:
    row = chunks.row_of[candidate.chunk_id]
    unit_type = chunks.rows[row][11]
    if unit_type not in ("definition", "field_definition"):
        return None
    return defined_term(unit_type, chunks.attributes()[row])


def _place(chunks: ChunkTable, candidate: Candidate) -> tuple[str, int]:
    row = chunks.rows[chunks.row_of[candidate.chunk_id]]
    return row[1], row[4] or 0


def _defining_candidate(candidate: Candidate, score: float, term: str) -> Candidate:
    return Candidate(candidate.chunk_id, score, {**candidate.details, "defines": term})


def _field_terms(chunks: ChunkTable, candidate: Candidate) -> frozenset[str] | None:
    return _attribute_terms(chunks, candidate, FIELDS_ATTRIBUTE, field_terms)


def _pattern_terms(chunks: ChunkTable, candidate: Candidate) -> frozenset[str] | None:
    return _attribute_terms(chunks, candidate, FILES_ATTRIBUTE, pattern_terms)


def _attribute_terms(chunks: ChunkTable, candidate: Candidate, key: str,
                     terms: Callable[[dict], frozenset[str] | None]) -> frozenset[str] | None:
    """``terms`` of the candidate's attributes, read only when they hold ``key`` (most chunks: no JSON to read)."""
    attributes = chunks.rows[chunks.row_of[candidate.chunk_id]][13]
    if not attributes or f'"{key}"' not in attributes:
        return None
    return terms(json.loads(attributes))


def _stanza_candidate(candidate: Candidate, score: float) -> Candidate:
    return Candidate(candidate.chunk_id, score, {**candidate.details, "files_fit": True})


def _stanza_hit(hit: Hit, score: float) -> Hit:
    return replace(hit, score=score, details={**hit.details, "files_fit": True})


def _renumber(hits: list[Hit]) -> list[Hit]:
    return [replace(hit, rank=rank) for rank, hit in enumerate(hits, start=1)]
