"""A small real project for the playground: the development store (real documents, ``default`` chunks, BM25), three
evaluation questions, and one baseline cut into the evaluation store; plus a running playground server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from right_rag_dagster.evaluation.baselines import baselines_by_name
from right_rag_dagster.evaluation.workspace import prepare_workspace
from right_rag_dagster.playground.server import start_in_thread, url_of
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval import build_search_index
from tests.retrieval.store_builder import copy_store, session_store

BASELINE = "baseline:fixed-chars-500"
QUESTIONS = [
    {"id": "gpl3-offer-duration", "question": "When I convey object code inside a physical product with a written "
     "offer for the source, how long must that offer stay valid?", "evidence": [{"document": "GPL-3.0.txt", "quote":
     "valid for at least three years and valid for as long as you offer spare parts or customer support for that "
     "product model"}]},
    {"id": "gpl3-reinstatement", "question": "After I stop violating the GPL, when does my license become "
     "permanently reinstated if the copyright holder says nothing?",
     "evidence": [{"document": "GPL-3.0.txt", "quote": "prior to 60 days after the cessation"}]},
    {"id": "policy-nostrip", "question": "What must debian/rules do when DEB_BUILD_OPTIONS contains nostrip?",
     "evidence": [{"document": "debian-policy.pdf", "quote": "nostrip"}]},
]


def make_project(folder: Path, tmp_path_factory: pytest.TempPathFactory, settings: str = "") -> Path:
    """A project folder whose store is a copy of the development store, with ``eval/questions.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    store = copy_store(session_store(tmp_path_factory), folder)
    (folder / "eval").mkdir(exist_ok=True)
    (folder / "eval" / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    (folder / "right_rag.toml").write_text(f'[right-rag]\nstore_path = "{store.path.name}"\n{settings}',
                                           encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def project_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project, with the fixed 500-character baseline cut and BM25-indexed in its evaluation store."""
    root = make_project(tmp_path_factory.mktemp("playground") / "project", tmp_path_factory)
    project = Project.load(root)
    workspace = prepare_workspace(project, ["default"], baselines_by_name([BASELINE]))
    build_search_index(workspace.store, BASELINE)
    return root


@pytest.fixture(scope="module")
def server_url(project_dir: Path) -> Iterator[str]:
    server = start_in_thread(Project.load(project_dir))
    yield url_of(server)
    server.shutdown()
    server.server_close()


def call(url: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """GET (or POST ``body`` as JSON) and decode the JSON reply, errors included."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url.rstrip("/") + path, data=data,
                                     headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
