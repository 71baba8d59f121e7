"""Live runs: a question through the real query code (``rag.query``) with the page's choices, on the store that
holds the chosen chunker, and the lineage ``right-rag lineage`` prints for a cited chunk."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..lineage_view import format_lineage, with_project_paths
from ..project import Project
from ..rag import query
from ..retrieval.embedders import Embedder, embedder_for_identity, make_embedder
from ..retrieval.settings import RetrievalSettings
from ..store import Store
from ..store.lineage import walk
from .payload import answer_payload
from .stores import ChunkerInfo, chunker_info, project_on

_embedders: dict[str, Embedder] = {}
_embedders_lock = threading.Lock()


@dataclass(frozen=True)
class RunRequest:
    """The page's choices for one run. An empty retriever lets the flow decide (the adaptive flow routes)."""

    question: str
    chunker: str
    flow: str
    retriever: str = ""
    generator: str = "extractive"
    k: int = 5

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> RunRequest:
        question = str(body.get("question") or "").strip()
        if not question:
            raise ConfigError("type a question first")
        try:
            k = int(body.get("k") or 5)
        except (TypeError, ValueError):
            raise ConfigError(f"k must be a whole number, not {body.get('k')!r}") from None
        if not 1 <= k <= 50:
            raise ConfigError(f"k must be between 1 and 50, not {k}")
        return cls(question, str(body.get("chunker") or ""), str(body.get("flow") or "simple"),
                   str(body.get("retriever") or ""), str(body.get("generator") or "extractive"), k)


def run_live(project: Project, request: RunRequest) -> dict[str, Any]:
    """Answer with the project's own settings except for the page's choices; the trace is always recorded."""
    info = chunker_info(project, request.chunker)
    if not info.chunks:
        hint = ("run `right-rag evaluate --compare` to cut the baselines" if info.kind == "baseline"
                else "run `right-rag index`")
        raise ConfigError(f"{request.chunker} has no chunks in {info.store_path.name}: {hint}")
    target = project_on(project, request.chunker)
    answer = query(target, request.question, k=request.k, retriever=request.retriever or None,
                   chunker=request.chunker, flow=request.flow, generator=request.generator, trace=True,
                   embedder=shared_embedder(project, info))
    return answer_payload(answer, Store(target.store_path))


def shared_embedder(project: Project, info: ChunkerInfo) -> Embedder | None:
    """One embedder per model for the server's life (a local model takes seconds to load), or None when the
    chunker has no dense index. The project's setting is used when it names the index's model."""
    if info.embedder is None:
        return None
    with _embedders_lock:
        if info.embedder not in _embedders:
            settings = RetrievalSettings.from_dict(project.retrieval)
            configured = make_embedder(settings.embedder, url=settings.embedder_url)
            made = configured if configured and configured.identity == info.embedder else None
            made = made or embedder_for_identity(info.embedder)
            if made is None:
                return None
            _embedders[info.embedder] = made
        return _embedders[info.embedder]


def lineage(project: Project, chunker: str, chunk_id: str) -> dict[str, Any]:
    """What ``right-rag lineage <chunk id>`` prints (text and JSON), read from the store holding the chunker."""
    store = Store(project_on(project, chunker).store_path)
    if not store.exists():
        raise ConfigError(f"no index at {store.path}: run `right-rag index` to see lineage")
    with store.read() as con:
        result = with_project_paths(project, walk(con, chunk_id))
    if "chunk" not in result:
        raise ConfigError(f"chunk {chunk_id} is not in {store.path.name}: this project's index does not hold it "
                          "(run `right-rag index` on the project the answer came from)")
    return {"command": f"right-rag lineage {chunk_id}", "text": format_lineage(result), "lineage": result}
