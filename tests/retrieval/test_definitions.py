"""Definition questions rank the unit that defines the term asked about (``retrieval.searching.definitions``)."""

from __future__ import annotations

import pytest

from right_rag_dagster.retrieval import search
from right_rag_dagster.retrieval.searching.definitions import asks_for_definition, reorder
from right_rag_dagster.store import Store
from tests.retrieval.store_builder import REPO_ROOT, sample_spec_store

HELDOUT = REPO_ROOT / "tests" / "fixtures" / "heldout" / "documents"


@pytest.mark.parametrize("question", [
    "How does the Mozilla Public License 2.0 define a Larger Work?",
    "What is the definition of Modifications?",
    "In the LGPL 2.1, what is a work that uses the Library?",
    "What does the FHS mean by shareable files?",
    "What's a Transparent copy?",
])
def test_questions_that_ask_what_a_term_means(question: str) -> None:
    assert asks_for_definition(question)


@pytest.mark.parametrize("question", [
    "If I distribute Covered Software in Executable Form, what must I make available?",
    "Under GPL version 2, may I charge money for handing someone a copy of the program?",
    "Which wildcards may be used in the Files field patterns?",
])
def test_questions_that_only_mention_a_term(question: str) -> None:
    assert not asks_for_definition(question)


def test_the_longest_defined_term_in_the_question_moves_up_and_only_its_first_definition() -> None:
    # (id, score, defined term, document, position)
    items = [("passage", 10.0, None, "a", 0), ("work", 8.0, "Work", "a", 10), ("later", 7.0, "Larger Work", "a", 90),
             ("larger", 6.0, "Larger Work", "a", 50), ("other", 5.0, None, "a", 70)]
    moved = reorder(items, "How does the licence define a Larger Work?", lambda i: i[2], lambda i: i[1],
                    lambda i, score, term: (i[0], score, term, i[3], i[4]), lambda i: (i[3], i[4]))
    assert [i[0] for i in moved] == ["larger", "passage", "work", "later", "other"]
    assert moved[0][1] == 6.0 + 0.5 * 10.0
    unchanged = reorder(items, "May I sell a Larger Work?", lambda i: i[2], lambda i: i[1],
                        lambda i, score, term: i, lambda i: (i[3], i[4]))
    assert unchanged == items


@pytest.fixture(scope="module")
def licences(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return sample_spec_store(tmp_path_factory, "definitions", (
        HELDOUT / "LGPL-2.1.txt", HELDOUT / "MPL-1.1.txt", REPO_ROOT / "data" / "documents" / "MPL-2.0.txt"))


def test_a_definition_question_gets_the_definition_first(licences: Store) -> None:
    """Section 5 of LGPL-2.1 defines "work that uses the Library"; its third paragraph, which opens with the
    term (and which the licence parser also marks as a definition), ranked first before."""
    hits = search(licences, "In the LGPL 2.1, what is a work that uses the Library?", chunker="domain", k=3)
    assert hits[0].document_id == "LGPL-2.1.txt" and hits[0].details.get("defines") == "work that uses the Library"
    assert hits[0].text.split("\n\n", 1)[1].startswith("5. A program that contains no derivative")
    mpl = search(licences, "How does MPL 1.1 define Modifications?", chunker="domain", k=3)
    assert mpl[0].document_id == "MPL-1.1.txt" and mpl[0].details.get("defines") == "Modifications"
