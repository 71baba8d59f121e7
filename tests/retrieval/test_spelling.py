"""British spellings meet American ones in BM25's tokens (``retrieval/spelling.py``)."""

from __future__ import annotations

import pytest

from right_rag_dagster.retrieval.spelling import american
from right_rag_dagster.retrieval.tokenize import tokenize


@pytest.mark.parametrize(("british", "us"), [
    ("licence", "license"), ("licences", "licenses"), ("licenced", "licensed"), ("licencing", "licensing"),
    ("behaviour", "behavior"), ("colours", "colors"), ("centre", "center"), ("catalogue", "catalog"),
    ("organisation", "organization"), ("customised", "customized"), ("initialise", "initialize"),
    ("analysed", "analyzed"), ("modelling", "modeling"), ("defence", "defense"),
])
def test_british_spellings_fold_into_american(british: str, us: str) -> None:
    assert american(british) == us


@pytest.mark.parametrize("word", ["promise", "exercise", "otherwise", "premise", "analysis", "emphasis",
                                  "programmer", "license", "licensee", "wise", "raise", "noise"])
def test_words_spelt_alike_are_left_alone(word: str) -> None:
    assert american(word) == word


def test_a_question_in_british_english_has_the_licences_terms() -> None:
    assert tokenize("Under which licence are talloc's files?")[2] == "license"
    assert "license" in tokenize("GPL-licence-compatible")
