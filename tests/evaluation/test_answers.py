"""The answer metric: an answer must hold half of the evidence quote, and cite only spans of retrieved chunks."""

from __future__ import annotations

from right_rag_dagster.evaluation.answers import (
    CitedSpan,
    citations_in_hits,
    quotes_evidence,
)
from right_rag_dagster.evaluation.searching import to_retrieved
from right_rag_dagster.rag import query
from right_rag_dagster.store import Store
from tests.retrieval.conftest import built_store  # noqa: F401  (the session store of real documents)

QUOTE = "valid for at least three years and valid for as long as you offer spare parts or customer support"


def test_half_of_the_quote_in_one_run_counts() -> None:
    assert quotes_evidence("It must be valid for at least three years and valid for as long as you offer spare", QUOTE)
    assert quotes_evidence("VALID  FOR AT LEAST\nTHREE YEARS and valid for as long as you offer", QUOTE)
    assert not quotes_evidence("valid for at least three years", QUOTE)  # a third of it
    assert not quotes_evidence("years three least at for valid ... spare parts or customer support", QUOTE)
    assert not quotes_evidence("Not found in the documents.", QUOTE) and not quotes_evidence("", QUOTE)


def test_real_answers_pass_or_fail_the_metric(built_store: Store) -> None:  # noqa: F811
    answer = query(built_store, "How long must a written offer for the source stay valid?", chunker="default", k=5)
    hits = [to_retrieved(hit) for hit in answer.hits]
    cited = [CitedSpan(c.hit.chunk_id, c.hit.document_id, c.quote_start, c.quote_end) for c in answer.citations]
    assert quotes_evidence(answer.text, "valid for at least three years")
    assert not quotes_evidence(answer.text, "Init scripts are placed in /etc/init.d.")
    assert cited and citations_in_hits(cited, hits)
    assert not citations_in_hits(cited, hits[cited[0].start is not None and 0:0])  # nothing retrieved
    moved = [CitedSpan(c.chunk_id, c.document, c.start + 10**7, c.end + 10**7) for c in cited]
    assert not citations_in_hits(moved, hits)  # a span outside every retrieved chunk
    elsewhere = [CitedSpan(c.chunk_id, "another.txt", c.start, c.end) for c in cited]
    assert not citations_in_hits(elsewhere, hits)
    assert citations_in_hits([CitedSpan(hits[0].chunk_id, hits[0].document, None, None)], hits)
    assert not citations_in_hits([CitedSpan("no-such-chunk", hits[0].document, None, None)], hits)
