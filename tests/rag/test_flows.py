"""Every flow declares a consistent graph and every run follows it; a step off the graph fails loudly."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from right_rag_dagster.cli.query_cmd import format_answer
from right_rag_dagster.rag import FLOWS, FlowError, FlowGraph, Trace, query
from right_rag_dagster.rag.flows import Flow
from right_rag_dagster.retrieval import build_search_index
from right_rag_dagster.store import Store
from tests.retrieval.store_builder import copy_store

QUESTIONS = [
    "What must debian/rules do when DEB_BUILD_OPTIONS contains nostrip?",  # identifiers: routed to bm25
    "How long must a written offer for the source stay valid?",
    "How many moons does Jupiter have?",  # weak evidence: the adaptive flow rewrites and retries
]


def assert_follows_graph(trace: dict[str, Any]) -> None:
    graph = trace["flow"]
    nodes = [node["id"] for node in graph["nodes"]]
    edges = {tuple(edge) for edge in graph["edges"]}
    steps = [step["step"] for step in trace["steps"]]
    assert steps and steps[0] == nodes[0]
    for previous, step in zip(steps, steps[1:]):
        assert (previous, step) in edges, f"{previous} -> {step} is not an arrow of {graph['name']}"
    outputs = {node["id"] for node in graph["nodes"] if node["kind"] == "output"}
    assert steps[-1] in outputs
    for step in trace["steps"]:
        assert step["seconds"] >= 0 and step["started_ms"] >= 0 and isinstance(step["inputs"], dict)


@pytest.mark.parametrize("name", sorted(FLOWS))
def test_every_flow_declares_a_consistent_graph(name: str) -> None:
    flow = FLOWS[name]()
    graph = flow.graph()
    assert {node["kind"] for node in graph.nodes} <= {"search", "rule", "llm", "output"}
    assert graph.outputs and all(node["label"] for node in graph.nodes)


@pytest.mark.parametrize("name", sorted(FLOWS))
@pytest.mark.parametrize("question", QUESTIONS)
def test_runs_follow_their_graph(built_store: Store, name: str, question: str) -> None:
    answer = query(built_store, question, chunker="default", flow=name, k=4, trace=True)
    assert answer.flow == name
    assert_follows_graph(answer.trace)
    retrieve = [s for s in answer.trace["steps"] if s["step"] == "retrieve"]
    assert retrieve and all(len(s["scores"]) == len(s["outputs"]["hits"]) for s in retrieve)


def test_adaptive_flow_rewrites_and_retries_when_evidence_is_weak(built_store: Store) -> None:
    answer = query(built_store, "How many moons does Jupiter have?", chunker="default", flow="adaptive", trace=True)
    steps = [s["step"] for s in answer.trace["steps"]]
    assert steps.count("rewrite") == 2 and steps.count("retrieve") == 3
    assert not answer.found and answer.text == "Not found in the documents."


def test_adaptive_flow_without_vectors_routes_to_bm25(built_store: Store) -> None:
    answer = query(built_store, QUESTIONS[0], chunker="default", flow="adaptive", trace=True)
    route = answer.trace["steps"][0]
    assert route["step"] == "route" and route["outputs"]["retriever"] == "bm25"
    assert [s["step"] for s in answer.trace["steps"]] == ["route", "retrieve", "check_evidence", "generate"]


def test_adaptive_rule_steps_have_their_own_kind() -> None:
    kinds = {node["id"]: node["kind"] for node in FLOWS["adaptive"]().graph().nodes}
    assert kinds == {"route": "rule", "retrieve": "search", "check_evidence": "rule", "rewrite": "rule",
                     "generate": "output"}


@pytest.fixture(scope="module")
def store_with_vectors(built_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = copy_store(built_store, tmp_path_factory.mktemp("vectors"))
    build_search_index(store, "default", embedder="hashing:64")
    return store


@pytest.mark.parametrize("question, retriever", [
    ("What changed in version 4.5.0 about init scripts in /etc/init.d?", "hybrid"),  # numbers and paths
    ("How long must a written offer for the source stay valid?", "hybrid"),
    ("DEB_BUILD_OPTIONS nostrip", "bm25"),  # a bare lookup of exact terms
])
def test_adaptive_routing_with_vectors(store_with_vectors: Store, question: str, retriever: str) -> None:
    answer = query(store_with_vectors, question, chunker="default", flow="adaptive", trace=True)
    assert answer.trace["steps"][0]["outputs"]["retriever"] == retriever


def test_adaptive_footer_names_the_retriever_and_attempt_that_answered(store_with_vectors: Store) -> None:
    answer = query(store_with_vectors, QUESTIONS[1], chunker="default", flow="adaptive", trace=True)
    generate = answer.trace["steps"][-1]
    assert generate["step"] == "generate" and generate["inputs"]["retriever"] == "hybrid"
    assert answer.settings["retriever"] == "hybrid" and answer.settings["retriever_requested"] == "bm25"
    assert all(hit.retriever == "hybrid" for hit in answer.hits)
    assert "(default chunks, hybrid, k=5, adaptive flow, extractive)" in format_answer(answer)

    weak = query(store_with_vectors, "How many moons does Jupiter have?", chunker="default", flow="adaptive",
                 trace=True)
    retrievals = [s for s in weak.trace["steps"] if s["step"] == "retrieve"]
    chosen = weak.trace["steps"][-1]["inputs"]
    assert len(retrievals) == 3 and weak.settings["attempt"] == chosen["attempt"] + 1
    assert weak.settings["retriever"] == retrievals[chosen["attempt"]]["inputs"]["retriever"]
    assert weak.settings["query"] == retrievals[chosen["attempt"]]["inputs"]["query"]


def test_a_step_off_the_graph_raises(built_store: Store) -> None:
    class Shortcut(Flow):
        name = "shortcut"
        FLOW: ClassVar[dict[str, Any]] = {
            "nodes": [{"id": "retrieve", "label": "Retrieve", "kind": "search"},
                      {"id": "generate", "label": "Generate", "kind": "output"}],
            "edges": [["retrieve", "generate"]],
        }

        def run(self, question, context, trace):  # noqa: ANN001, ANN201
            with trace.step("generate"):  # skips retrieve: not allowed to start here
                pass

    with pytest.raises(FlowError, match="start at generate"):
        query(built_store, "anything", chunker="default", flow=Shortcut())


def test_graph_and_trace_checks() -> None:
    with pytest.raises(FlowError, match="unknown nodes"):
        FlowGraph.from_dict("bad", {"nodes": [{"id": "a", "label": "A", "kind": "output"}], "edges": [["a", "b"]]})
    trace = Trace(FlowGraph.from_dict("two", {"nodes": [{"id": "a", "label": "A", "kind": "search"},
                                                        {"id": "b", "label": "B", "kind": "output"}],
                                              "edges": [["a", "b"]]}))
    with trace.step("a", query="q") as step:
        step.output(scores=[1, 0.5], hits=2)
    with pytest.raises(FlowError, match="a -> a"):
        with trace.step("a"):
            pass
    with trace.step("b"):
        pass
    assert trace.finished() and [s["step"] for s in trace.to_json()["steps"]] == ["a", "b"]
    assert trace.to_json()["steps"][0]["scores"] == [1.0, 0.5]
