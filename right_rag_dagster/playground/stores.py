"""Which DuckDB file holds a chunker's chunks and indexes: the project's store, or for ``baseline:`` chunkers the
evaluation store (``right-rag evaluate --compare`` cuts them there, never into the project's index)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import ConfigError, SchemaVersionError
from ..evaluation.baselines import PREFIX, default_baselines
from ..evaluation.workspace import evaluation_store_path
from ..project import Project
from ..store import Store
from ..store.chunk_reads import chunk_counts
from ..store.search_tables import index_models


@dataclass(frozen=True)
class ChunkerInfo:
    """A chunker the page can offer: where its chunks live, how many there are, which indexes exist."""

    name: str
    kind: str  # project | baseline
    store_path: Path
    chunks: int
    indexes: tuple[str, ...]  # "bm25", "dense"
    embedder: str | None = None  # the dense index's model identity

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "chunks": self.chunks, "indexes": list(self.indexes),
                "embedder": self.embedder, "store": self.store_path.name}


def store_path_for(project: Project, chunker: str) -> Path:
    """The evaluation store for baselines, the project's store otherwise."""
    return evaluation_store_path(project) if chunker.startswith(PREFIX) else project.store_path


def project_on(project: Project, chunker: str) -> Project:
    """The project with its store pointed at the file holding ``chunker`` (same settings and plugins)."""
    path = store_path_for(project, chunker)
    return project if path == project.store_path else replace(project, store_path=path, lake=None)


def chunker_infos(project: Project) -> list[ChunkerInfo]:
    """The project's chunkers, then every baseline, each with what is indexed for it (0 chunks: not indexed)."""
    own = _indexed(project.store_path)
    try:
        baselines = _indexed(evaluation_store_path(project))
    except SchemaVersionError:  # a cache left by another version: `evaluate --compare` remakes it
        baselines = {}
    names = list(dict.fromkeys([*project.selected("chunk_parsers"), *(n for n in own if n != "default")]))
    infos = [_info(name, "project", project.store_path, own) for name in names]
    infos += [_info(b.name, "baseline", evaluation_store_path(project), baselines) for b in default_baselines()]
    return infos


def chunker_info(project: Project, chunker: str) -> ChunkerInfo:
    for info in chunker_infos(project):
        if info.name == chunker:
            return info
    raise ConfigError(f"no chunker named {chunker!r} in this project; see the list on the page")


def _info(name: str, kind: str, path: Path, indexed: dict[str, tuple[int, dict[str, str]]]) -> ChunkerInfo:
    chunks, indexes = indexed.get(name, (0, {}))
    return ChunkerInfo(name, kind, path, chunks, tuple(sorted(indexes)), indexes.get("dense"))


def _indexed(path: Path) -> dict[str, tuple[int, dict[str, str]]]:
    """``chunker -> (chunk count, {index kind: model})`` read from one store (empty when it does not exist)."""
    if not path.exists():
        return {}
    with Store(path).read() as con:
        counts = chunk_counts(con)
        rows = index_models(con)
    indexes: dict[str, dict[str, str]] = {}
    for chunker, kind, model in rows:
        indexes.setdefault(chunker, {})[kind] = model
    return {name: (int(count), indexes.get(name, {})) for name, count in counts.items()}
