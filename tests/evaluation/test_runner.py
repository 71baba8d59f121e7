"""run_evaluation on a real indexed project: baselines beside the project's chunker, in a separate store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from right_rag_dagster.errors import ConfigError, StoreError
from right_rag_dagster.evaluation import run_evaluation
from right_rag_dagster.evaluation.spans import half_covered
from right_rag_dagster.evaluation.workspace import evaluation_store_path
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store


def chunkers_in(path: Path) -> set[str]:
    with Store(path).read() as con:
        return {row[0] for row in con.execute("SELECT DISTINCT chunker FROM chunks").fetchall()}


def test_baselines_are_measured_in_the_evaluation_store_only(indexed_project: Path) -> None:
    project = Project.load(indexed_project)
    report = run_evaluation(project, chunkers=["default", "baseline:paragraph-1000", "baseline:fixed-chars-500"],
                            retrievers=["bm25"])
    assert {run.chunker for run in report.runs} == {"default", "baseline:paragraph-1000", "baseline:fixed-chars-500"}
    assert chunkers_in(project.store_path) == {"default"}
    assert chunkers_in(evaluation_store_path(project)) == {"default", "baseline:paragraph-1000",
                                                           "baseline:fixed-chars-500"}
    keys = [run.sort_key() for run in report.runs]
    assert keys == sorted(keys)
    metrics = report.best.metrics
    assert (metrics["questions"], metrics["scored"], metrics["quotes_not_found"]) == (4, 3, 1)
    assert report.errors() == ["missing-quote: quote not found in fhs-3.0.pdf: 'an African or a European swallow'"]


def test_first_hit_rank_points_at_chunks_covering_the_quote(indexed_project: Path) -> None:
    report = run_evaluation(Project.load(indexed_project), chunkers=["baseline:sentence-1000"], retrievers=["bm25"])
    scored = [o for o in report.best.outcomes if o.resolved.scored]
    assert any(o.first_hit_rank for o in scored)
    for outcome in scored:
        rank = outcome.first_hit_rank
        target = outcome.resolved.targets[0]
        spans = [(h.source_start, h.source_end) for h in outcome.hits[:rank or len(outcome.hits)]
                 if h.document == target.document]
        assert half_covered(target.spans[0], spans) == (rank is not None)
        if rank is not None:
            earlier = [(h.source_start, h.source_end) for h in outcome.hits[:rank - 1] if h.document == target.document]
            assert not half_covered(target.spans[0], earlier)


@pytest.mark.slow
def test_compare_runs_every_chunker_and_retriever(indexed_project: Path) -> None:
    report = run_evaluation(Project.load(indexed_project), compare=True, k=5)
    assert {run.retriever for run in report.runs} == {"bm25", "dense", "hybrid"}
    assert len({run.chunker for run in report.runs}) == 9  # default + eight baselines
    assert len(report.runs) == 36  # 1 own chunker x 3 retrievers x 4 identity variants + 8 baselines x 3
    rows = report.rows()
    assert all("recall@5" in row and row["k"] == 5 for row in rows)
    assert len(report.markdown().splitlines()) == 2 + 36
    payload = json.loads(json.dumps(report.to_json()))
    assert len(payload["comparison"]) == 36 and all(len(q["hits"]) <= 10 for q in payload["questions"])
    assert payload["questions"][0]["hits"][0]["rank"] == 1


def test_a_flow_adds_the_answered_rate(indexed_project: Path) -> None:
    report = run_evaluation(Project.load(indexed_project), chunkers=["default"], retrievers=["bm25"], flow="simple")
    metrics = report.best.metrics
    assert 0.0 <= metrics["answered_rate"] <= 1.0
    assert all(o.answer for o in report.best.outcomes)
    assert "answered" in report.markdown().splitlines()[0]


def test_right_rag_cases_file(indexed_project: Path, tmp_path: Path) -> None:
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"cases": [
        {"id": "srv", "query": "What is the /srv directory for?",
         "expected": {"hit_contains": ["site-specific data"], "must_not_contain": ["re:^$"]}},
        {"id": "nothing-expected", "query": "Anything?", "expected": {}},
    ]}), encoding="utf-8")
    report = run_evaluation(Project.load(indexed_project), cases, chunkers=["default"], retrievers=["bm25"])
    srv, nothing = report.best.outcomes
    assert srv.resolved.scored and not nothing.resolved.scored
    assert report.best.metrics["scored"] == 1 and report.best.metrics["quotes_not_found"] == 0
    assert srv.to_json()["evidence"][0]["hit_contains"] == "site-specific data"


@pytest.mark.parametrize("kwargs, error, message", [
    ({"chunkers": ["nope"]}, ConfigError, "no chunk parser named 'nope'"),
    ({"chunkers": ["baseline:nope"]}, ConfigError, "unknown baseline chunker"),
    ({"retrievers": ["nope"]}, ConfigError, "no retriever named 'nope'"),
    ({"k": 0}, ConfigError, "k must be at least 1"),
])
def test_bad_choices_are_config_errors(indexed_project: Path, kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        run_evaluation(Project.load(indexed_project), **kwargs)


def test_unindexed_project_asks_for_an_index(tmp_path: Path) -> None:
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "questions.jsonl").write_text(
        '{"id": "a", "question": "Q?", "evidence": [{"document": "x.txt", "quote": "y"}]}\n', encoding="utf-8")
    with pytest.raises(StoreError, match="right-rag index"):
        run_evaluation(Project.load(tmp_path))


def test_a_damaged_evaluation_store_is_rebuilt(indexed_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = Project.load(indexed_project)
    path = evaluation_store_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not a DuckDB file" * 100)
    report = run_evaluation(project, chunkers=["baseline:page-4000"], retrievers=["bm25"])
    assert report.best.metrics["scored"] == 3
    assert "rebuilt the damaged evaluation store" in capsys.readouterr().err
    assert chunkers_in(path) == {"baseline:page-4000"}


def test_the_hybrid_fusion_is_a_setting_the_evaluation_follows(indexed_project: Path) -> None:
    """``fusion`` in ``[right-rag.retrieval]``: ``rrf`` (default) lets the fusion decide the documents,
    ``documents`` keeps BM25's documents in their places; the evaluation ranks as ``search`` does with it."""
    from dataclasses import replace

    from right_rag_dagster.retrieval import search
    from right_rag_dagster.retrieval.settings import RetrievalSettings

    project = Project.load(indexed_project)
    assert RetrievalSettings.from_dict(project.retrieval).fusion == "rrf"
    ranked = {}
    for fusion in ("rrf", "documents"):
        configured = replace(project, retrieval={**project.retrieval, "fusion": fusion})
        report = run_evaluation(configured, chunkers=["default"], retrievers=["hybrid"], k=5)
        ranked[fusion] = [[hit.chunk_id for hit in outcome.hits] for outcome in report.best.outcomes]
        store = Store(evaluation_store_path(project))  # where the evaluation searches (its vectors too)
        for outcome, ids in zip(report.best.outcomes, ranked[fusion]):
            if not ids:  # not searched: its quote is not in the documents
                continue
            question = outcome.resolved.question
            hits = search(store, question.question, chunker="default", retriever="hybrid", k=len(ids),
                          embedder="hashing:64", options={"fusion": fusion})
            assert [hit.chunk_id for hit in hits] == ids, (fusion, question.id)
    assert ranked["rrf"] != ranked["documents"]


def test_an_unknown_hybrid_fusion_is_named_with_the_known_ones() -> None:
    from right_rag_dagster.retrieval.settings import RetrievalSettings

    with pytest.raises(ConfigError, match="unknown hybrid fusion 'mean' in \\[right-rag.retrieval\\] fusion; use one "
                                          "of documents, rrf"):
        RetrievalSettings.from_dict({"fusion": "mean"})


def test_within_document_is_a_setting_that_reaches_the_retriever() -> None:
    """``within_document = false`` in ``[right-rag.retrieval]`` becomes the retriever option that keeps BM25's own
    order inside each document (tests/retrieval/test_within_document.py); anything but true or false is named."""
    from right_rag_dagster.retrieval.settings import RetrievalSettings

    assert "within_document" not in RetrievalSettings.from_dict({}).retriever_options()
    off = RetrievalSettings.from_dict({"within_document": False}).retriever_options()
    assert off == {"fusion": "rrf", "within_document": False}
    with pytest.raises(ConfigError, match="within_document must be true or false, got 'no'"):
        RetrievalSettings.from_dict({"within_document": "no"})


def test_the_document_prior_is_a_setting_that_reaches_the_retriever() -> None:
    """``document_prior`` in ``[right-rag.retrieval]`` becomes the retriever option (0 turns the weighing by whole
    documents off, tests/retrieval/test_bm25.py); a value that is not a number from 0 to 4 is named."""
    from right_rag_dagster.retrieval.settings import DOCUMENT_PRIOR, RetrievalSettings

    assert "document_prior" not in RetrievalSettings.from_dict({"document_prior": DOCUMENT_PRIOR}).retriever_options()
    assert RetrievalSettings.from_dict({"document_prior": 0}).retriever_options()["document_prior"] == 0.0
    for wrong in ("high", True, -1, 5):
        with pytest.raises(ConfigError, match=f"document_prior must be a number from 0 \\(off\\) to 4 .*got {wrong!r}"):
            RetrievalSettings.from_dict({"document_prior": wrong})


def test_retrieval_is_scored_in_the_order_a_query_answers_from(indexed_project: Path) -> None:
    """The project's reranker reorders the hits ``evaluate`` scores (no flow) as it reorders a query's, and the
    report names it; the default (``none`` with this embedder) reranks nothing."""
    from dataclasses import replace

    from right_rag_dagster.rag import query

    project = Project.load(indexed_project)
    plain = run_evaluation(project, chunkers=["default"], retrievers=["bm25"])
    assert plain.best.reranker == "none" and "reranker" not in plain.markdown()
    configured = replace(project, retrieval={**project.retrieval, "reranker": "coverage"})
    report = run_evaluation(configured, chunkers=["default"], retrievers=["bm25"])
    assert report.best.reranker == "coverage" and report.rows()[0]["reranker"] == "coverage"
    assert "| reranker |" in report.markdown().replace("  ", " ").replace("  ", " ")
    evaluated = replace(configured, store_path=evaluation_store_path(project), lake=None)
    moved = 0
    for before, outcome in zip(plain.best.outcomes, report.best.outcomes):
        if not outcome.hits:
            continue
        answer = query(evaluated, outcome.resolved.question.question, chunker="default", retriever="bm25")  # k = 5
        shown = len(answer.hits)
        assert [hit.chunk_id for hit in outcome.hits[:shown]] == [hit.chunk_id for hit in answer.hits]
        # below what a query shows, the retriever's order: a query never reranks rank 8 to rank 1
        assert [hit.chunk_id for hit in outcome.hits[shown:]] == [hit.chunk_id for hit in before.hits[shown:]]
        moved += [hit.chunk_id for hit in before.hits] != [hit.chunk_id for hit in outcome.hits]
    assert moved  # the reranker changed some order, so the comparisons above could fail


def test_the_default_reranker_follows_the_retriever_and_the_model() -> None:
    """``reranker_for``: the MiniLM default (``semantic``) only for a query ranked with MiniLM; a reranker the project
    or the caller names always; ``none`` by default with another embedder."""
    from right_rag_dagster.retrieval.embedders import LocalModelEmbedder, make_embedder
    from right_rag_dagster.retrieval.settings import RetrievalSettings

    minilm, other = LocalModelEmbedder(), make_embedder("hashing:64")
    settings = RetrievalSettings.from_dict({"embedder": "minilm"})
    assert settings.reranker_for("hybrid", minilm) == settings.reranker_for("dense", minilm) == "semantic"
    assert settings.reranker_for("bm25", minilm) == settings.reranker_for("hybrid", other) == "none"
    assert settings.reranker_for("bm25", None, requested="sentences") == "sentences"
    assert RetrievalSettings.from_dict({"embedder": "minilm", "reranker": "coverage"}).reranker_for("bm25", None) \
        == "coverage"
    assert RetrievalSettings.from_dict({"embedder": "hashing:64"}).reranker_for("hybrid", minilm) == "none"


PLUGIN = '''
from right_rag_dagster.retrieval import Retriever


class Lexical(Retriever):
    """BM25's ranking under another name."""

    @property
    def retriever_name(self):
        return "lexical"

    def retrieve(self, request):
        return request.bm25(request.k)
'''


@pytest.mark.parametrize("embedder", [None, "hashing:64"])
def test_a_plugin_retriever_is_evaluated_with_the_embedder_a_query_would_give_it(
        indexed_project: Path, tmp_path: Path, embedder: str | None) -> None:
    """A spec retriever gets the project's embedder, not the offline MiniLM the comparisons fall back on: with
    none configured, evaluating it embeds nothing (it did embed every chunk with MiniLM)."""
    import shutil

    root = tmp_path / "project"
    shutil.copytree(indexed_project, root)
    for earlier in evaluation_store_path(Project.load(root)).parent.glob("evaluation.duckdb*"):
        earlier.unlink()  # other tests' evaluations, with the hashing embedder's vectors
    settings = f'[right-rag.retrieval]\nembedder = "{embedder}"\n' if embedder else ""
    (root / "right_rag.toml").write_text(settings, encoding="utf-8")
    (root / "spec" / "retrievers").mkdir(parents=True)
    (root / "spec" / "retrievers" / "lexical.py").write_text(PLUGIN, encoding="utf-8")
    report = run_evaluation(Project.load(root), chunkers=["default"], retrievers=["lexical"])
    assert report.best.retriever == "lexical" and report.best.reranker == "none"
    assert sum(bool(o.hits) and o.hits[0].document == o.resolved.question.evidence[0].document
               for o in report.best.outcomes) >= 2
    with Store(evaluation_store_path(Project.load(root))).read() as con:
        dense = con.execute("SELECT model FROM search_indexes WHERE chunker = 'default' AND kind = 'dense'").fetchall()
    assert [model.split(":")[0] for (model,) in dense] == (["hashing"] if embedder else [])
