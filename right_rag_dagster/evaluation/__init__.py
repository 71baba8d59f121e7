"""Evaluation: evidence-quote questions, retrieval metrics, baseline chunkers and side-by-side comparison.

Never imports Dagster; the CLI's ``right-rag evaluate`` and the Dagster ``evaluation`` asset call
``run_evaluation``.
"""

from __future__ import annotations

from .questions import Evidence, Question, load_questions
from .report import EvaluationReport, QuestionOutcome, RunResult
from .runner import run_evaluation

__all__ = ["EvaluationReport", "Evidence", "Question", "QuestionOutcome", "RunResult", "load_questions",
           "run_evaluation"]
