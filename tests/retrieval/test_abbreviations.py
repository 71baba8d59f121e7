"""Short forms meet the words they shorten in BM25's tokens (``retrieval/abbreviations.py``)."""

from __future__ import annotations

import pytest

from right_rag_dagster.retrieval import build_search_index, search
from right_rag_dagster.retrieval.abbreviations import full_form
from right_rag_dagster.retrieval.tokenize import tokenize
from right_rag_dagster.store import Store
from tests.retrieval.store_builder import index_documents


@pytest.mark.parametrize(("short", "full"), [
    ("config", "configuration"), ("repo", "repository"), ("repos", "repositories"), ("deps", "dependencies"),
    ("prod", "production"), ("env", "environment"), ("args", "arguments"), ("dir", "directory"),
    ("db", "database"), ("cert", "certificate"),
])
def test_short_forms_are_written_out(short: str, full: str) -> None:
    assert full_form(short) == full
    assert tokenize(f"the {short.upper()}")[1:] == [full, short]


@pytest.mark.parametrize("word", ["dev", "lib", "doc", "info", "perf", "min", "var", "tmp", "pkg", "impl",
                                  "configuration", "product"])
def test_ambiguous_short_forms_and_other_words_are_left_alone(word: str) -> None:
    assert full_form(word) == word


def test_a_compound_keeps_its_parts_as_written_and_a_short_word_meets_them() -> None:
    """``pkg-config`` and ``TLS_CERT`` are names: their parts are not the words a short form stands for. A short word
    keeps its own form beside the written-out one, so "config" still meets the part of ``config.yaml``."""
    assert tokenize("pkg-config") == ["pkg-config", "pkg", "config"]
    assert tokenize("TLS_CERT") == ["tls_cert", "tls", "cert"]
    assert tokenize("config") == ["configuration", "config"] and "config" in tokenize("config.yaml")


@pytest.fixture(scope="module")
def short_form_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    documents = tmp_path_factory.mktemp("short-forms")
    (documents / "repository.txt").write_text(
        "Each repository keeps its configuration in a settings file of its own, beside the objects.\n",
        encoding="utf-8")
    (documents / "servers.txt").write_text(
        "Each user keeps a list of servers in a settings file, and each server keeps its own keys.\n",
        encoding="utf-8")
    (documents / "workspaces.txt").write_text(
        "Workspace packages are always counted as production dependencies, whatever their type.\n",
        encoding="utf-8")
    (documents / "scripts.txt").write_text(
        "Lifecycle scripts of packages run before the files are packed.\n", encoding="utf-8")
    store = Store(tmp_path_factory.mktemp("store") / "right_rag.duckdb")
    index_documents(documents, store)
    build_search_index(store, "default")
    return store


@pytest.mark.parametrize(("question", "document"), [
    ("Where does each repo keep its config?", "repository.txt"),
    ("Which ones are prod deps?", "workspaces.txt"),
])
def test_a_question_in_short_forms_finds_the_passage_in_full_words(short_form_store: Store, question: str,
                                                                   document: str) -> None:
    hits = search(short_form_store, question, chunker="default", k=3)
    assert hits and hits[0].document_id == document
