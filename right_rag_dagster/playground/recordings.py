"""Recorded runs: traces of a project's questions through a few chunker x retriever x flow choices, with the
chunks, citation contexts and metrics they need, replayed by the page without a model or an index.

The sample project's recording ships in the package (``recordings/sample-project.json.gz``); a project's own
(``right-rag playground --record``) lives beside its store. ``fingerprint`` tells when a recording is stale.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import right_rag_dagster

from ..errors import ConfigError
from ..project import Project
from .evidence import find_question, questions_from_json
from .units import mark_quote

SCHEMA = 1
PACKAGED = Path(__file__).resolve().parent / "recordings" / "sample-project.json.gz"
OWN_NAME = "playground-recording.json.gz"
RECORD_HINT = "re-record with `right-rag playground --record`"


def own_recording_path(project: Project) -> Path:
    return project.store_path.parent / OWN_NAME


def is_source_checkout(project: Project) -> bool:
    """True for the sample project at the root of a right-rag-dagster checkout (its recording ships in the package)."""
    return Path(right_rag_dagster.__file__).resolve().parent.parent == project.root.resolve()


def recording_path(project: Project, for_writing: bool = False) -> Path:
    """The package's file for the sample project of a checkout; else the project's own (``--record`` writes
    it), read when it exists and the sample project's otherwise."""
    if is_source_checkout(project):
        return PACKAGED
    own = own_recording_path(project)
    return own if for_writing or own.exists() else PACKAGED


def run_key(question_id: str, chunker: str, retriever: str, flow: str) -> str:
    return "|".join((question_id, chunker, retriever, flow))


def metrics_key(chunker: str, retriever: str) -> str:
    return f"{chunker}|{retriever}"


@dataclass(frozen=True)
class Recording:
    """One recording file's content, with lookups shaped like the live answers."""

    path: Path
    data: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> Recording:
        try:
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the recording {path}: {exc}; {RECORD_HINT}") from exc
        if data.get("schema") != SCHEMA:
            raise ConfigError(f"{path} is a recording of schema {data.get('schema')}, this version reads {SCHEMA}; "
                              f"{RECORD_HINT}")
        return cls(path, data)

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        with gzip.GzipFile(self.path, "wb", mtime=0) as handle:  # mtime 0: same content, same bytes
            handle.write(text.encode("utf-8"))

    @property
    def fingerprint(self) -> dict[str, str]:
        return self.data["fingerprint"]

    def summary(self) -> dict[str, Any]:
        """What the page needs to offer recorded runs: the choices and questions recorded, and when."""
        keys = ("recorded_at", "project", "configs", "questions", "settings", "chunkers", "generator")
        return {key: self.data[key] for key in keys} | {"file": self.path.name}

    def run(self, question: str, chunker: str, retriever: str, flow: str) -> dict[str, Any]:
        """The recorded payload of a run, its chunks filled in from the shared table."""
        found = find_question(questions_from_json(self.data["questions"]), question)
        if found is None:
            raise ConfigError("this question was not recorded: pick one of the recorded questions, or switch to "
                              "Live to ask your own")
        payload = self.data["runs"].get(run_key(found.id, chunker, retriever, flow))
        if payload is None:
            raise ConfigError(f"{chunker} x {retriever or 'flow decides'} x {flow} was not recorded; recorded "
                              f"choices are listed on the page (or switch to Live)")
        chunks = self.data["chunks"]
        return {**payload, "chunks": {chunk_id: chunks[chunk_id] for chunk_id in payload["chunk_ids"]}}

    def citation(self, chunker: str, chunk_id: str, quote: tuple[int | None, int | None]) -> dict[str, Any]:
        context = self.data["citations"].get(f"{chunker}|{chunk_id}")
        if context is None:
            raise ConfigError(f"no recorded context for chunk {chunk_id}; {RECORD_HINT}")
        return mark_quote(context, *quote)

    def metrics(self, chunker: str, retriever: str) -> dict[str, Any] | None:
        return self.data["metrics"].get(metrics_key(chunker, retriever))
