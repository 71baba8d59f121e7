"""Evaluation results: per-question outcomes, metrics per chunker x retriever, the table and the JSON report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..retrieval.settings import DEFAULT_IDENTITY, preferred_chunker
from . import metrics as m
from .answers import CitedSpan, citations_in_hits, quotes_evidence
from .baselines.base import PREFIX
from .judge import ResolvedQuestion, RetrievedChunk, pattern_matches


@dataclass(frozen=True)
class QuestionOutcome:
    """What one chunker x retriever (x flow) returned for one question, and how it was judged."""

    resolved: ResolvedQuestion
    hits: tuple[RetrievedChunk, ...]
    latency_ms: float
    answer: str | None = None
    answered: bool | None = None
    citations: tuple[CitedSpan, ...] = ()

    @property
    def answered_ranks(self) -> list[int | None]:
        return self.resolved.answered_ranks(self.hits)

    @property
    def first_hit_rank(self) -> int | None:
        return m.first_hit_rank(self.answered_ranks) if self.resolved.scored else None

    @property
    def quotes_evidence(self) -> bool | None:
        """The answer holds at least half of every evidence quote (None: no answer, or no scored quote)."""
        quotes = [t.value for t in self.resolved.targets if t.kind == "quote"]
        if self.answer is None or not quotes or not self.resolved.scored:
            return None
        return all(quotes_evidence(self.answer, quote) for quote in quotes)

    @property
    def citations_retrieved(self) -> bool | None:
        """Every citation lies inside a retrieved chunk (None: no answer)."""
        return None if self.answer is None else citations_in_hits(self.citations, self.hits)

    @property
    def answer_failures(self) -> list[str]:
        """right-rag's answer checks: expected text missing from the answer, or forbidden text present."""
        if self.answer is None:
            return []
        question = self.resolved.question
        return ([f"answer lacks {p!r}" for p in question.answer_contains if not pattern_matches(p, self.answer)]
                + [f"answer contains {p!r}" for p in question.must_not_contain if pattern_matches(p, self.answer)])

    def to_json(self) -> dict[str, Any]:
        question = self.resolved.question
        ranks = self.answered_ranks
        payload: dict[str, Any] = {
            "id": question.id, "question": question.question,
            "evidence": [t.to_json(r) for t, r in zip(self.resolved.targets, ranks)],
            "first_hit_rank": self.first_hit_rank,
            "hits": [hit.to_json() for hit in self.hits],
        }
        if self.resolved.errors:
            payload["errors"] = self.resolved.errors
        if self.answer is not None:
            payload.update(answer=self.answer, answered=self.answered, answer_failures=self.answer_failures,
                           answer_quotes_evidence=self.quotes_evidence, citations_retrieved=self.citations_retrieved)
        return payload


def aggregate(outcomes: Sequence[QuestionOutcome], k: int) -> dict[str, Any]:
    """The metrics of one run. Questions with errors are left out of the ranking scores and counted apart."""
    scored = [o.answered_ranks for o in outcomes if o.resolved.scored]
    flow_ran = any(o.answered is not None for o in outcomes)
    checked = [o for o in outcomes if o.answer is not None
               and (o.resolved.question.answer_contains or o.resolved.question.must_not_contain)]
    latencies = [o.latency_ms for o in outcomes]
    quoting = [o.quotes_evidence for o in outcomes if o.quotes_evidence is not None]
    citing = [o.citations_retrieved for o in outcomes if o.citations_retrieved is not None]

    def over_scored(metric: Any, *args: int) -> float | None:
        return m.mean([metric(ranks, *args) for ranks in scored])

    return {
        "questions": len(outcomes),
        "scored": len(scored),
        "hit@1": over_scored(m.hit_at, 1),
        "hit@5": over_scored(m.hit_at, 5),
        f"recall@{k}": over_scored(m.recall_at, k),
        "mrr@10": over_scored(m.reciprocal_rank, 10),
        "ndcg@10": over_scored(m.ndcg_at, 10),
        "context_chars@5": m.mean([sum(len(h.text) for h in o.hits[:5]) for o in outcomes]),
        "answered_rate": m.mean([1.0 if o.answered else 0.0 for o in outcomes]) if flow_ran else None,
        "answer_checks_passed": m.mean([0.0 if o.answer_failures else 1.0 for o in checked]) if checked else None,
        "answer_quotes_evidence": m.mean([1.0 if ok else 0.0 for ok in quoting]) if quoting else None,
        "citations_retrieved": m.mean([1.0 if ok else 0.0 for ok in citing]) if citing else None,
        "quotes_not_found": sum(o.resolved.quotes_not_found for o in outcomes),
        "questions_with_errors": sum(1 for o in outcomes if o.resolved.errors),
        "latency_p50_ms": m.percentile(latencies, 50),
        "latency_p95_ms": m.percentile(latencies, 95),
    }


@dataclass(frozen=True)
class RunResult:
    """One chunker x retriever (x flow) over all questions."""

    chunker: str
    retriever: str
    flow: str | None
    k: int
    outcomes: tuple[QuestionOutcome, ...]
    index_seconds: float = 0.0
    identity: str = DEFAULT_IDENTITY
    reranker: str = "none"

    @cached_property
    def metrics(self) -> dict[str, Any]:
        return aggregate(self.outcomes, self.k)

    def sort_key(self) -> tuple[float, ...]:
        """Best first: MRR@10, then hit@1, hit@5, nDCG@10, then the smaller context."""
        values = self.metrics
        score = [values[name] or 0.0 for name in ("mrr@10", "hit@1", "hit@5", "ndcg@10")]
        return (*(-s for s in score), values["context_chars@5"] or 0.0)

    def config(self) -> dict[str, Any]:
        return {"chunker": self.chunker, "retriever": self.retriever, "identity": self.identity, "flow": self.flow,
                "reranker": self.reranker, "k": self.k}


# (column title, metric key or None for the run's own fields, number format)
_COLUMNS = [("hit@1", "hit@1", ".2f"), ("hit@5", "hit@5", ".2f"), ("recall@{k}", "recall@{k}", ".2f"),
            ("MRR@10", "mrr@10", ".3f"), ("nDCG@10", "ndcg@10", ".3f"), ("ctx chars@5", "context_chars@5", ",.0f"),
            ("answered", "answered_rate", ".2f"), ("answer quotes", "answer_quotes_evidence", ".2f"),
            ("cites hits", "citations_retrieved", ".2f"), ("not found", "quotes_not_found", "d"),
            ("p50 ms", "latency_p50_ms", ".1f"), ("p95 ms", "latency_p95_ms", ".1f")]


_FLOW_ONLY = {"answered_rate", "answer_quotes_evidence", "citations_retrieved"}


@dataclass(frozen=True)
class EvaluationReport:
    """All runs of one evaluation, best first, with the settings they ran with."""

    config: dict[str, Any]
    runs: tuple[RunResult, ...]

    @property
    def best(self) -> RunResult:
        return self.runs[0]

    def configured(self, chunker: str | None, retriever: str, identity: str) -> RunResult:
        """The run of what ``right-rag query`` uses: ``chunker`` (None: of the own chunkers, the one
        ``preferred_chunker`` picks, as a query does), ``retriever`` and ``identity``; the best run when none matches
        (an evaluation restricted to other chunkers or retrievers)."""
        own = sorted({run.chunker for run in self.runs if not run.chunker.startswith(PREFIX)})
        chunker = chunker or preferred_chunker(own)
        return next((run for run in self.runs if (run.chunker, run.retriever, run.identity)
                     == (chunker, retriever, identity)), self.best)

    def rows(self) -> list[dict[str, Any]]:
        """One flat dict per chunker x retriever (x flow): its settings and metrics, best first."""
        return [{**run.config(), **run.metrics, "index_seconds": round(run.index_seconds, 3)} for run in self.runs]

    def markdown(self) -> str:
        """The comparison as a Markdown table (also readable as plain text in a terminal)."""
        k = self.config.get("k", 10)
        with_flow = any(run.flow for run in self.runs)
        with_identity = len({run.identity for run in self.runs}) > 1
        with_reranker = any(run.reranker != "none" for run in self.runs)
        columns = [(t.format(k=k), key.format(k=k), fmt) for t, key, fmt in _COLUMNS
                   if with_flow or key not in _FLOW_ONLY]
        header = ["chunker", "retriever", *(["identity"] if with_identity else []),
                  *(["flow"] if with_flow else []), *(["reranker"] if with_reranker else []), *(c[0] for c in columns)]
        body = []
        for row in self.rows():
            cells = [row["chunker"], row["retriever"], *([row["identity"]] if with_identity else []),
                     *([row["flow"] or "-"] if with_flow else []), *([row["reranker"]] if with_reranker else [])]
            cells += ["-" if row[key] is None else format(row[key], fmt) for _, key, fmt in columns]
            body.append(cells)
        widths = [max(len(str(line[i])) for line in [header, *body]) for i in range(len(header))]

        def line(cells: list[str]) -> str:
            return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"

        return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, body)])

    def to_json(self) -> dict[str, Any]:
        """``{"metrics", "config", "questions"}`` of the best run; with several runs, ``comparison`` lists all rows."""
        best = self.best
        payload: dict[str, Any] = {
            "metrics": best.metrics,
            "config": {**self.config, **best.config()},
            "questions": [o.to_json() for o in best.outcomes],
        }
        if len(self.runs) > 1:
            payload["comparison"] = self.rows()
        return payload

    def errors(self) -> list[str]:
        """One line per question that could not be scored (shared by every run)."""
        return [f"{o.resolved.question.id}: {error}" for o in self.best.outcomes for error in o.resolved.errors]
