"""The half-quote hit rule over ranked chunks, quotes not found, and right-rag's id and text expectations."""

from __future__ import annotations

from pathlib import Path

from right_rag_dagster.builtins.document_loaders.default import DefaultDocumentLoader
from right_rag_dagster.evaluation.judge import (
    RetrievedChunk,
    pattern_matches,
    resolve_question,
)
from right_rag_dagster.evaluation.questions import Evidence, Question
from right_rag_dagster.evaluation.spans import CollapsedText

TEXT = "0123456789 " * 10 + "The answer to the question is forty two, as everyone\nknows. " + "filler text " * 20
QUOTE = "The answer to the question is forty two, as everyone knows."
Q_START = TEXT.index("The answer")
Q_END = TEXT.index("knows.") + len("knows.")


def chunk(rank: int, start: int, end: int, document: str = "doc.txt", text: str | None = None) -> RetrievedChunk:
    return RetrievedChunk(rank=rank, chunk_id=f"c{start}-{end}", document=document, unit_id=f"u{rank}",
                          source_start=start, source_end=end, page_start=None, page_end=None, score=1.0 / rank,
                          text=TEXT[start:end] if text is None else text)


def resolved(*evidence: Evidence, **expected: tuple[str, ...]):
    question = Question(id="q", question="What is the answer?", evidence=evidence, **expected)
    return resolve_question(question, {"doc.txt": CollapsedText.of(TEXT), "other.txt": CollapsedText.of(TEXT)})


def test_quote_located_across_a_line_break() -> None:
    target = resolved(Evidence("doc.txt", QUOTE)).targets[0]
    assert target.spans == ((Q_START, Q_END),) and target.error is None


def test_chunk_covering_half_the_quote_answers_it() -> None:
    question = resolved(Evidence("doc.txt", QUOTE))
    length = Q_END - Q_START
    half = Q_START + (length + 1) // 2
    assert question.answered_ranks([chunk(1, 0, half - 1), chunk(2, half - 10, len(TEXT))]) == [2]
    assert question.answered_ranks([chunk(1, 0, half)]) == [1]
    assert question.answered_ranks([chunk(1, 0, Q_START + 5)]) == [None]


def test_quote_split_across_two_chunks_is_answered_when_both_are_retrieved() -> None:
    question = resolved(Evidence("doc.txt", QUOTE))
    middle = Q_START + (Q_END - Q_START) // 2
    head, tail = chunk(2, 0, middle - 5), chunk(4, middle - 5, len(TEXT))  # each under half, together all
    assert not any(r for r in question.answered_ranks([chunk(1, Q_END + 5, Q_END + 30), head]))
    assert question.answered_ranks([chunk(1, Q_END + 5, Q_END + 30), head, chunk(3, 0, 20), tail]) == [4]


def test_a_joined_hit_covers_its_two_chunks_not_the_gap_between_them() -> None:
    """A hit joined with its neighbour (``Hit.joined``) answers with its chunks' spans: a quote that lies in the
    heading line between them is not in its text, so it is not retrieved."""
    question = resolved(Evidence("doc.txt", QUOTE))
    joined = RetrievedChunk(rank=1, chunk_id="a", document="doc.txt", unit_id="ua", source_start=0,
                            source_end=len(TEXT), page_start=None, page_end=None, score=1.0, text="",
                            joined=(("a", "ua", 0, Q_START), ("b", "ub", Q_END, len(TEXT))))
    assert question.answered_ranks([joined]) == [None]
    assert question.answered_ranks([joined, chunk(2, Q_START, Q_END)]) == [2]
    by_part = resolved(Evidence("doc.txt", QUOTE), hit_ids=("ub",))
    assert by_part.answered_ranks([joined]) == [None, 1]  # the second chunk's unit is retrieved


def test_overlapping_chunks_are_not_counted_twice() -> None:
    question = resolved(Evidence("doc.txt", QUOTE))
    quarter = Q_START + (Q_END - Q_START) // 3
    assert question.answered_ranks([chunk(1, 0, quarter), chunk(2, Q_START, quarter + 2)]) == [None]


def test_chunks_of_another_document_never_answer() -> None:
    question = resolved(Evidence("doc.txt", QUOTE))
    assert question.answered_ranks([chunk(1, 0, len(TEXT), document="other.txt")]) == [None]


def test_multi_evidence_question_gets_a_rank_per_item() -> None:
    question = resolved(Evidence("doc.txt", QUOTE), Evidence("other.txt", "filler text filler text"))
    hits = [chunk(1, Q_START, Q_END), chunk(2, 0, 10, document="other.txt"),
            chunk(3, Q_END, len(TEXT), document="other.txt")]
    assert question.answered_ranks(hits) == [1, 3]


def test_quote_not_found_and_unknown_document_are_errors_not_misses() -> None:
    question = resolved(Evidence("doc.txt", QUOTE), Evidence("doc.txt", "not in the text at all"),
                        Evidence("missing.pdf", "anything"))
    assert not question.scored and question.quotes_not_found == 2
    assert question.errors[0].startswith("quote not found in doc.txt")
    assert "'missing.pdf' is not in the index" in question.errors[1]
    assert question.answered_ranks([chunk(1, 0, len(TEXT))]) == [1, None, None]


def test_hit_ids_match_chunk_or_unit_ids() -> None:
    question = resolved(hit_ids=("u3", "c0-10"))
    hits = [chunk(1, 0, 10), chunk(2, 20, 30), chunk(3, 40, 50)]
    assert question.answered_ranks(hits) == [3, 1] and question.scored


def test_hit_contains_uses_text_of_chunks_so_far() -> None:
    question = resolved(hit_contains=("FORTY TWO", "re:as\\s+everyone", "absent"))
    hits = [chunk(1, 0, 20), chunk(2, Q_START, Q_START + 45), chunk(3, Q_START + 40, Q_END)]
    assert question.answered_ranks(hits) == [2, 3, None]


def test_pattern_matches_like_right_rag() -> None:
    assert pattern_matches("Hello", "say hello there")
    assert pattern_matches("re:^b", "a\nb")
    assert not pattern_matches("re:^c", "a\nb")


def test_pdf_quote_split_over_two_real_chunks(sample_documents: Path) -> None:
    document = DefaultDocumentLoader().load_document(sample_documents / "fhs-3.0.pdf", "fhs-3.0.pdf")
    quote = "Programs must not assume that any files or directories in /tmp are preserved between"
    question = resolve_question(Question("fhs-tmp", "tmp?", (Evidence("fhs-3.0.pdf", quote),)),
                                {"fhs-3.0.pdf": CollapsedText.of(document.text)})
    [(start, end)] = question.targets[0].spans
    cut = start + (end - start) // 2 - 3  # the first chunk holds a little less than half
    first = RetrievedChunk(1, "a", "fhs-3.0.pdf", "u", start - 400, cut, 24, 24, 2.0, document.text[start - 400:cut])
    second = RetrievedChunk(2, "b", "fhs-3.0.pdf", "u", cut, end + 300, 24, 24, 1.0, document.text[cut:end + 300])
    assert question.answered_ranks([first]) == [None]
    assert question.answered_ranks([first, second]) == [2]
