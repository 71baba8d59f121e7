"""The ``semantic`` reranker: the first ``DEPTH`` hits reordered by what the words alone cannot show, how close in
meaning the question is to each passage and to its closest sentence.

BM25 and the rules beside it find the passages that share the question's words; of the tuning questions they miss at
rank 1, most have their evidence among the ten hits, in sentences that say it in other words ("Can it signal that by
handing back a null pointer?" against "NULL is a perfectly valid return; there is no way to indicate a failure").
An embedding model reads those (all-MiniLM-L6-v2 ships offline, ``local-embeddings``), and a sentence is what it was
trained on, so each hit is scored by a linear model over five features: the retriever's score over the first hit's,
its rank, the share of the question's terms its best sentence covers (as the extractive answer weighs them), the
cosine of the question with the passage, and with the passage's closest sentence. ``WEIGHTS`` were fit on the tuning
sets by ``bench/fit_reranker.py`` (pairwise logistic regression: the evidence passage against every other hit of its
question); scored set by set with weights fit on the other sets, they put the evidence first for more questions than
the retriever's order did (docs/evaluation.md, "A reranker that reads meaning"; refit with a weaker penalty in
"The semantic reranker refit with a weaker penalty"). The same cosines of the question with each sentence then help
the extractive answer pick its sentence (``sentence_meanings``; "Answers that read meaning").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..retrieval.embedders import Embedder, is_minilm, make_embedder
from ..retrieval.hits import Hit
from ..store import Store
from .evidence import document_passages
from .extractive import Sentence, answer_cue, name_terms, prose_sentences, question_weights, score_passages

DEPTH = 10
"""Hits the reranker reorders (the rest keep their places after them)."""
FEATURES = ("score", "rank", "sentence_share", "passage_cosine", "sentence_cosine")
WEIGHTS = (3.31, 1.00, 3.39, 9.65, 6.46)
"""One weight per feature of ``FEATURES`` (``bench/fit_reranker.py`` prints them)."""
MAX_SENTENCES = 40
"""Sentences of one passage that are embedded (its first ones): a passage of a long list is not read whole."""
MAX_SENTENCE_CHARS = 1_000
"""A longer "sentence" (a list without stops) is embedded by its start: the model reads 256 tokens at most."""
CACHED_VECTORS = 20_000
"""Vectors of passages and sentences kept in this process (30 MB of vectors at MiniLM's 384 dimensions, and their
texts: sentences of up to ``MAX_SENTENCE_CHARS``, passages of a chunk's size): the questions of one evaluation, and
each question under every retriever compared, read many of the same passages."""
_cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()  # the playground answers in threads


def semantic_embedder(configured: Embedder | None) -> Embedder:
    """The model ``WEIGHTS`` were fit with, MiniLM: the project's embedder when it is that model (its loaded model is
    shared), else the offline package's. Another model's cosines are on another scale, and a remote one would be
    sent every sentence of ten passages for each question."""
    if is_minilm(configured):
        return configured
    return make_embedder("minilm")


def features(question: str, hits: Sequence[Hit], store: Store | None, embedder: Embedder) -> np.ndarray:
    """One row of ``FEATURES`` per hit of ``hits``: what ``WEIGHTS`` weigh (and what the fit script fits)."""
    if not hits:
        return np.zeros((0, len(FEATURES)))
    sources = document_passages(store, [h for h in hits if not h.joined]) if store is not None else {}
    bodies = [sources[h.chunk_id][0] if h.chunk_id in sources else h.text for h in hits]
    named = name_terms(store) if store is not None else {}
    lexical = score_passages(question_weights(question, store, hits[0].chunker),
                             [(body, " ".join(h.section_path)) for h, body in zip(hits, bodies)],
                             cue=answer_cue(question), known=[named.get(h.document_id, set()) for h in hits])
    sentences = [[_sentence_text(body, a, b) for a, b in prose_sentences(body) if body[a:b].strip()][:MAX_SENTENCES]
                 for body in bodies]
    vectors = _embed(embedder, [question, *(h.text for h in hits), *(s for group in sentences for s in group)])
    asked, passages, rest = vectors[0], vectors[1:len(hits) + 1], vectors[len(hits) + 1:]
    closest, at = [], 0
    for group in sentences:
        closest.append(float((rest[at:at + len(group)] @ asked).max()) if group else 0.0)
        at += len(group)
    top = abs(hits[0].score) or 1.0
    return np.array([[h.score / top, 1.0 / rank, max((s.share for s in found), default=0.0), float(p @ asked), c]
                     for rank, (h, found, p, c) in enumerate(zip(hits, lexical, passages, closest), start=1)])


def _sentence_text(text: str, start: int, end: int) -> str:
    """A sentence as it is embedded (its first ``MAX_SENTENCE_CHARS``): the reranker and the answer cut it alike, so
    the answer finds the reranker's vectors in the cache."""
    return text[start:end][:MAX_SENTENCE_CHARS]


def sentence_meanings(question: str, texts: Sequence[str], scored: Sequence[list[Sentence]],
                      embedder: Embedder) -> list[list[Sentence]]:
    """``scored`` (``score_passages`` of the passages ``texts``) with each sentence's cosine with the question as its
    ``meaning``: the extractive answer then quotes the sentence that says what was asked in other words. The
    sentences are embedded as ``features`` embeds them, so after the reranker most come from the cache."""
    sentences = [_sentence_text(texts[s.number - 1], s.start, s.end) for group in scored for s in group]
    if not sentences:
        return [list(group) for group in scored]
    vectors = _embed(embedder, [question, *sentences])
    cosines = iter((vectors[1:] @ vectors[0]).tolist())
    return [[replace(s, meaning=next(cosines)) for s in group] for group in scored]


def _embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """``embedder.embed(texts)``, from this process's cache where it holds them (least recently used dropped past
    ``CACHED_VECTORS``); the rest embedded shortest first: a batch is padded to its longest text, and a question's
    sentences are a tenth of its passages' length."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    model = embedder.identity
    with _cache_lock:
        known = {text: _cache[model, text] for text in texts if (model, text) in _cache}
    missing = sorted(set(texts) - known.keys(), key=lambda text: (len(text), text))
    if missing:
        known.update(zip(missing, (row.copy() for row in embedder.embed(missing))))  # a view keeps its whole batch
    with _cache_lock:
        for text in dict.fromkeys(texts):
            _cache[model, text] = known[text]
            _cache.move_to_end((model, text))
        while len(_cache) > CACHED_VECTORS:
            _cache.popitem(last=False)
    return np.stack([known[text] for text in texts])


def rerank_semantic(question: str, hits: list[Hit], store: Store | None,
                    embedder: Embedder) -> tuple[list[Hit], list[float]]:
    """``hits`` with the first ``DEPTH`` in the model's order (ranks renumbered from 1; each hit's ``details`` keep
    its retrieval rank and the model's score) and the scores of the new order (the model's for the reordered hits,
    the retriever's after them)."""
    head, tail = hits[:DEPTH], hits[DEPTH:]
    matrix = features(question, head, store, embedder)
    model = matrix @ np.asarray(WEIGHTS) if len(head) else np.zeros(0)
    order = sorted(range(len(head)), key=lambda i: (-model[i], i))
    ranked = [head[i].reranked(rank, semantic=round(float(model[i]), 4)) for rank, i in enumerate(order, start=1)]
    ranked += [h.reranked(rank) for rank, h in enumerate(tail, start=len(head) + 1)]
    return ranked, [float(model[i]) for i in order] + [h.score for h in tail]

