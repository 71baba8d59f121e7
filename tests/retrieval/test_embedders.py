"""Embedders over real HTTP (Ollama and OpenAI-compatible APIs on 127.0.0.1), functions and settings."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.retrieval import (
    EmbedderMismatchError,
    FunctionEmbedder,
    HashingEmbedder,
    LocalModelEmbedder,
    OllamaEmbedder,
    OpenAIEmbedder,
    ServiceError,
    build_search_index,
    make_embedder,
    search,
)
from right_rag_dagster.retrieval.embedders import embedder_for_identity
from right_rag_dagster.store import Store
from tests.rag.llm_server import embedding, running_server


@pytest.fixture(scope="module")
def server() -> Iterator:
    with running_server() as server:
        yield server


def _unit(vector: list[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    return array / np.linalg.norm(array)


@pytest.mark.parametrize("make, path", [
    (lambda url: OllamaEmbedder("nomic-embed-text", url), "/api/embed"),
    (lambda url: OpenAIEmbedder("text-embed", url + "/v1", api_key="sk-test"), "/v1/embeddings"),
])
def test_http_embedders_batch_normalize_and_keep_order(server, make, path) -> None:  # noqa: ANN001
    embedder = make(server.url)
    embedder.batch_size = 2
    texts = ["alpha", "a longer sentence here", "x", "the fourth text"]
    server.requests.clear()
    matrix = embedder.embed(texts)
    assert matrix.shape == (4, 4) and matrix.dtype == np.float32
    for row, text in zip(matrix, texts):
        assert np.allclose(row, _unit(embedding(text)), atol=1e-6)
    assert [r["path"] for r in server.requests] == [path, path]
    assert [r["body"]["input"] for r in server.requests] == [texts[:2], texts[2:]]


def test_openai_embedder_sends_the_api_key(server) -> None:  # noqa: ANN001
    server.requests.clear()
    OpenAIEmbedder("text-embed", server.url + "/v1", api_key="sk-test").embed(["hello"])
    assert server.requests[0]["authorization"] == "Bearer sk-test"


def test_server_errors_name_the_url(server) -> None:  # noqa: ANN001
    with pytest.raises(ServiceError, match=r"/api/embed answered HTTP 500"):
        OllamaEmbedder("broken", server.url).embed(["x"])
    with pytest.raises(ServiceError, match="cannot reach"):
        OllamaEmbedder("m", "http://127.0.0.1:9").embed(["x"])


def test_dense_search_through_an_http_embedder(store_copy: Store, server) -> None:  # noqa: ANN001
    embedder = OllamaEmbedder("stats", server.url)
    stats = build_search_index(store_copy, "default", embedder=embedder)
    assert stats["stored_embedder"] == "ollama:stats" and stats["dimensions"] == 4
    hits = search(store_copy, "some question", chunker="default", retriever="dense", k=3, embedder=embedder)
    assert len(hits) == 3
    with pytest.raises(EmbedderMismatchError, match="pass that embedder"):  # an HTTP model is never guessed
        search(store_copy, "some question", chunker="default", retriever="dense", k=3)


def test_function_embedder_and_identities() -> None:
    fn = FunctionEmbedder(lambda texts: [[1.0, 0.0]] * len(texts), model="constant")
    assert fn.identity == "function:constant" and fn.embed(["a", "b"]).tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert make_embedder("hashing:64").identity == HashingEmbedder(64).identity
    assert isinstance(make_embedder("minilm"), LocalModelEmbedder)
    assert make_embedder("ollama:m", url="http://x").identity == "ollama:m"
    assert make_embedder(None) is None
    assert embedder_for_identity(HashingEmbedder(32).identity).identity == HashingEmbedder(32).identity
    assert embedder_for_identity("ollama:m") is None
    with pytest.raises(ConfigError, match="unknown embedder"):
        make_embedder("word2vec")


def test_hashing_embedder_is_deterministic_and_lexical() -> None:
    embedder = HashingEmbedder(64)
    a, b, c = embedder.embed(["debian rules build", "build debian rules", "thai มาตรา"])
    assert np.allclose(a, b) and not np.allclose(a, c)
    assert np.allclose(embedder.embed(["debian rules build"])[0], a)
