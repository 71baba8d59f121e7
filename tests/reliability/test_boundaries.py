"""What a project folder may reach: symbolic links out of the documents folder are not followed unless the
project allows it (and are reported either way); a ``generator_url`` written in a project's right_rag.toml never
receives the environment's API key unless the user lists it in RIGHT_RAG_TRUSTED_URLS."""

from __future__ import annotations

import os
import shutil

import pytest

from ..rag.llm_server import running_server
from .harness import (
    CORPUS,
    chunk_counts,
    clone,
    environment,
    rejections,
    right_rag,
    rows,
)


@pytest.fixture(scope="module")
def linked(indexed_licences, tmp_path_factory):
    root = tmp_path_factory.mktemp("links")
    project = clone(indexed_licences, root / "p")
    outside = root / "elsewhere"
    outside.mkdir()
    shutil.copy(CORPUS / "Apache-2.0.txt", outside / "their-Apache-2.0.txt")
    shutil.copy(CORPUS / "GPL-3.0.txt", outside / "GPL-copy.txt")
    docs = project / "data" / "documents"
    os.symlink("/etc/passwd", docs / "passwd")
    os.symlink(outside / "their-Apache-2.0.txt", docs / "outside.txt")
    os.symlink(outside, docs / "outside-folder")
    os.symlink(docs / "GPL-3.0.txt", docs / "inside-link.txt")  # stays inside: indexed as any file
    return project


def test_links_out_of_the_folder_are_skipped_and_reported(linked):
    done = right_rag(linked, "index")
    assert done.code == 0, done
    skipped = done.out.split("skipped (not indexed):", 1)[1]
    assert "  passwd: a symbolic link to /etc/passwd, outside the documents folder; not indexed (set " \
           "allow_outside_links = true in right_rag.toml to index it)" in skipped, done.out
    assert "  outside.txt: a symbolic link to " in skipped and "  outside-folder/: a symbolic link to " in skipped
    documents = {doc for (doc,) in rows(linked, "SELECT document_id FROM documents")}
    assert not documents & {"passwd", "outside.txt", "outside-folder/GPL-copy.txt"}
    assert chunk_counts(linked)["inside-link.txt"] == chunk_counts(linked)["GPL-3.0.txt"]
    answer = right_rag(linked, "query", "root:x:0:0 /bin/bash nologin", "--json", timeout=60)
    assert answer.code == 0 and "passwd" not in answer.out


def test_allowed_in_right_rag_toml_they_are_indexed_and_reported(linked, tmp_path):
    project = clone(linked, tmp_path / "allowed")
    toml = project / "right_rag.toml"
    toml.write_text(toml.read_text().replace("[right-rag]\n", "[right-rag]\nallow_outside_links = true\n", 1))
    done = right_rag(project, "index")
    assert done.code == 3, done  # /etc/passwd is no licence: rejected as unsupported
    listed = done.out.split("indexed through links that leave the documents folder", 1)[1]
    for name in ("passwd", "outside.txt", "outside-folder/GPL-copy.txt"):
        assert f"  {name}\n" in listed, done.out
    counts = chunk_counts(project)
    assert counts["outside.txt"] > 0 and counts["outside-folder/GPL-copy.txt"] > 0
    assert rejections(project)["passwd"][1] == "unsupported"


@pytest.fixture
def generator_project(indexed_licences, tmp_path):
    with running_server() as server:
        project = clone(indexed_licences, tmp_path / "p")
        toml = project / "right_rag.toml"
        toml.write_text(toml.read_text() + f'\n[right-rag.retrieval]\ngenerator = "openai:test-model"\n'
                                           f'generator_url = "{server.url}/v1"\n')
        yield project, server


def test_a_generator_url_from_the_project_never_receives_the_key(generator_project):
    project, server = generator_project
    done = right_rag(project, "query", "What is a covered work?", env=environment(OPENAI_API_KEY="sk-secret-1"),
                     timeout=60)
    assert done.code == 0, done
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions" and request["authorization"] is None


def test_listed_in_right_rag_trusted_urls_it_does(generator_project):
    project, server = generator_project
    env = environment(OPENAI_API_KEY="sk-secret-1", RIGHT_RAG_TRUSTED_URLS=f"https://example.org {server.url}/v1")
    done = right_rag(project, "query", "What is a covered work?", env=env, timeout=60)
    assert done.code == 0, done
    (request,) = server.requests
    assert request["authorization"] == "Bearer sk-secret-1"
