"""Acronyms a document defines ("Continuous Integration (CI)") expand a question that writes them in capitals."""

from __future__ import annotations

from right_rag_dagster.retrieval.searching.acronyms import MAX_EXPANSIONS, definitions, expansion, writes_acronym


def test_a_definition_is_the_words_whose_initials_spell_the_acronym() -> None:
    text = ("the infrastructure team must approve the integration of the target into Continuous Integration (CI), "
            "and the Filesystem Hierarchy Standard (FHS) lists the Debian Free Software Guidelines (DFSG); "
            "see the Bug Tracking System (BTS). Files (see below) and user IDs (UIDs) are not acronyms here.")
    found = definitions(text)
    assert found == {"CI": {"continuous integration"}, "FHS": {"filesystem hierarchy standard"},
                     "DFSG": {"debian free software guidelines"}, "BTS": {"bug tracking system"}}


def test_filler_words_may_sit_inside_an_expansion() -> None:
    assert definitions("the Institute of Electrical and Electronics Engineers (IEEE) says") == {
        "IEEE": {"institute of electrical and electronics engineers"}}


def test_a_question_gets_the_expansions_of_the_acronyms_it_writes() -> None:
    table = {"CI": frozenset({"continuous integration"}), "FHS": frozenset({"filesystem hierarchy standard"})}
    assert expansion("What does the policy guarantee about tier 2 targets in CI?", table) == "continuous integration"
    assert expansion("Is CI the same as continuous integration?", table) == ""  # already spelled out
    assert expansion("what does ci mean", table) == ""  # only capitals are acronyms
    assert writes_acronym("targets in CI") and not writes_acronym("targets in ci")
    assert MAX_EXPANSIONS >= 1
