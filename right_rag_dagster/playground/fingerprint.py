"""What a recording depends on, hashed part by part: the flows' graphs, the answer code (every module of ``rag/``),
how text is indexed, tokenized, searched and ranked (every module of ``retrieval/``), the chunkers and unit parsers
(plugin versions, baseline code), the documents and the questions. A changed part makes the recording stale.

Whole folders, not a list of files: a list missed ``rag/extractive.py``, whose answers the recording holds."""

from __future__ import annotations

from pathlib import Path

from ..core.hashing import file_hash, stable_hash
from ..project import Project
from ..rag.flows import FLOWS

PACKAGE = Path(__file__).resolve().parents[1]
CODE_FOLDERS = ("rag", "retrieval", "evaluation/baselines")


def fingerprint(project: Project) -> dict[str, str]:
    """``part name -> short hash`` for every input of a recording of ``project``."""
    parts = {f"flow {name}": stable_hash(flow.FLOW)[:16] for name, flow in sorted(FLOWS.items())}
    code = [p.relative_to(PACKAGE).as_posix() for folder in CODE_FOLDERS
            for p in sorted((PACKAGE / folder).rglob("*.py"))]
    parts.update({f"code {name}": file_hash(PACKAGE / name)[:16] for name in code})
    registry = project.registry
    for kind in ("unit_parsers", "chunk_parsers"):
        parts.update({f"{kind} {name}": registry.version(kind, name)[:16] for name in project.selected(kind)})
    folder = project.documents_dir
    documents = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
    parts.update({f"document {p.relative_to(folder).as_posix()}": file_hash(p)[:16] for p in documents})
    if project.questions_file.is_file():
        parts["questions"] = file_hash(project.questions_file)[:16]
    return parts


def changed_parts(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """Parts added, removed or changed since the recording, by name."""
    return sorted(name for name in set(recorded) | set(current) if recorded.get(name) != current.get(name))
