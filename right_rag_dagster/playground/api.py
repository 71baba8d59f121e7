"""The playground's JSON API, independent of HTTP: ``PlaygroundApi.handle(method, path, params, body)`` returns a
status and a JSON value. Errors of the package become 400 with the message telling the user what to do."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError, RightRagError
from ..project import Project
from ..rag.flows import FLOWS
from ..retrieval.http import Endpoint
from ..retrieval.searching.retrievers import BUILTIN_RETRIEVERS
from ..retrieval.searching.snapshot import file_stamp
from ..retrieval.settings import RetrievalSettings
from ..store import Store
from .evidence import evidence_marks, find_question, project_questions, question_json
from .fingerprint import changed_parts, fingerprint
from .live import RunRequest, lineage, run_live
from .metrics import questions_file_label, retrieval_metrics
from .recordings import (
    Recording,
    is_source_checkout,
    own_recording_path,
    recording_path,
)
from .stores import chunker_infos, store_path_for
from .units import citation_context, mark_quote

Reply = tuple[int, Any]


class PlaygroundApi:
    """Routes of the page's API for one project; the recording is read once, metrics are cached per store state."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.settings = RetrievalSettings.from_dict(project.retrieval)
        self.questions = project_questions(project.questions_file)
        path = recording_path(project)
        self.recording = Recording.load(path) if path.exists() else None
        self._metrics: dict[tuple, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.routes: dict[tuple[str, str], Callable[[dict[str, str], dict[str, Any]], Any]] = {
            ("GET", "/api/catalog"): self.catalog, ("POST", "/api/run"): self.run,
            ("GET", "/api/metrics"): self.metrics, ("GET", "/api/citation"): self.citation,
            ("GET", "/api/lineage"): self.lineage,
        }

    def handle(self, method: str, path: str, params: dict[str, str], body: dict[str, Any] | None = None) -> Reply:
        route = self.routes.get((method, path))
        if route is None:
            return 404, {"error": f"no {method} {path}; the API has {', '.join(p for _, p in self.routes)}"}
        try:
            return 200, route(params, body or {})
        except RightRagError as exc:
            return 400, {"error": str(exc)}

    def catalog(self, params: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        """Everything the page lists: chunkers (baselines included), retrievers, flows with their graphs,
        generators with their endpoints, the project's questions, the recording and the defaults."""
        infos = chunker_infos(self.project)
        indexed = any(i.chunks for i in infos if i.kind == "project")
        plugins = self.project.registry.names("retrievers") if "retrievers" in self.project.registry.plugins else []
        return {
            "project": {"root": str(self.project.root), "name": self.project.root.name,
                        "questions_file": questions_file_label(self.project.questions_file, self.project.root)
                        if self.questions else None},
            "live": {"available": indexed,
                     "reason": "" if indexed else f"no index at {self.project.store_path}: run `right-rag index`"},
            "chunkers": [info.to_json() for info in infos],
            "retrievers": [*BUILTIN_RETRIEVERS, *plugins],
            "flows": [{"name": name, "description": (flow.__doc__ or "").strip().splitlines()[0],
                       "graph": flow().graph().to_json()} for name, flow in FLOWS.items()],
            "generators": self.generators(),
            "questions": [question_json(q) for q in self.questions],
            "recorded": self.recorded_summary(),
            "defaults": {"mode": "live" if indexed else "recorded", "flow": self.settings.flow, "k": self.settings.k,
                         "retriever": "", "generator": self.settings.generator,
                         "chunker": self.settings.chunker or next((i.name for i in infos if i.chunks), infos[0].name)},
        }

    def generators(self) -> list[dict[str, Any]]:
        """The extractive generator (no model), and the configured one with the endpoint it talks to."""
        found = [{"name": "extractive", "endpoint": None, "note": "quotes the best sentences; no model"}]
        spec = self.settings.generator
        if spec != "extractive":
            kind = spec.partition(":")[0]
            endpoint = (Endpoint.ollama(self.settings.generator_url) if kind == "ollama"
                        else Endpoint.openai(self.settings.generator_url, api_key="") if kind == "openai" else None)
            found.insert(0, {"name": spec, "endpoint": endpoint.base_url if endpoint else None,
                             "note": "configured in right_rag.toml"})
        return found

    def recorded_summary(self) -> dict[str, Any]:
        if self.recording is None:
            return {"available": False, "reason": "no recording: run `right-rag playground --record`"}
        summary = self.recording.summary()
        own = is_source_checkout(self.project) or self.recording.path == own_recording_path(self.project)
        stale = changed_parts(self.recording.fingerprint, fingerprint(self.project)) if own else []
        return {"available": True, "of_this_project": own, "stale": stale, **summary}

    def run(self, params: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        """One question through one choice: replayed from the recording, or live through ``rag.query``."""
        request = RunRequest.from_json(body)
        offered = [g["name"] for g in self.generators()]
        if request.generator not in offered:
            raise ConfigError(f"generator {request.generator!r} is not offered here; choose one of {offered} "
                              "(set generator in [right-rag.retrieval] for another)")
        if body.get("mode") == "recorded":
            if self.recording is None:
                raise ConfigError("no recording to replay: run `right-rag playground --record`, or switch to Live")
            return {**self.recording.run(request.question, request.chunker, request.retriever, request.flow),
                    "mode": "recorded"}
        payload = run_live(self.project, request)
        question = find_question(self.questions, request.question)
        if question is not None:
            store = Store(store_path_for(self.project, request.chunker))
            payload["evidence"] = evidence_marks(question, store, payload)
        return {**payload, "mode": "live"}

    def metrics(self, params: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        """Retrieval metrics of a chunker x retriever on the questions file (recorded, or computed and cached)."""
        chunker, retriever = _required(params, "chunker"), _required(params, "retriever")
        if params.get("mode") == "recorded":
            found = self.recording.metrics(chunker, retriever) if self.recording else None
            if found is None:
                return {"available": False, "reason": f"no recorded metrics for {chunker} x {retriever}"}
            return {"available": True, **found}
        if not self.questions:
            return {"available": False, "reason": f"no questions file ({self.project.questions_file.name}): "
                                                  "write eval/questions.jsonl to see metrics"}
        path = store_path_for(self.project, chunker)
        key = (chunker, retriever, file_stamp(path))
        with self._lock:
            cached = self._metrics.get(key)
        if cached is None:
            cached = {"available": True, **retrieval_metrics(self.project, self.questions, chunker, retriever)}
            with self._lock:
                self._metrics[key] = cached
        return cached

    def citation(self, params: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        """The cited text inside its unit, chunk and quote spans marked, and the unit's place in the tree."""
        chunker, chunk_id = _required(params, "chunker"), _required(params, "chunk_id")
        quote = (_int(params.get("quote_start")), _int(params.get("quote_end")))
        if params.get("mode") == "recorded":
            if self.recording is None:
                raise ConfigError("no recording: switch to Live")
            return self.recording.citation(chunker, chunk_id, quote)
        return mark_quote(citation_context(Store(store_path_for(self.project, chunker)), chunker, chunk_id), *quote)

    def lineage(self, params: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        """What `right-rag lineage <chunk id>` prints for the chunk, from the store that holds it."""
        return lineage(self.project, _required(params, "chunker"), _required(params, "chunk_id"))


def _required(params: dict[str, str], name: str) -> str:
    value = params.get(name)
    if not value:
        raise ConfigError(f"the request needs a {name!r} parameter")
    return value


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "", "null") else None
    except ValueError:
        raise ConfigError(f"expected a whole number, not {value!r}") from None
