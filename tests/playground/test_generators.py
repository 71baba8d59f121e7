"""Live mode answers with the configured generator (an Ollama or OpenAI-compatible server), its endpoint shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from right_rag_dagster.playground.server import start_in_thread, url_of
from right_rag_dagster.project import Project
from tests.playground.conftest import QUESTIONS, call, make_project
from tests.rag.llm_server import running_server


@pytest.mark.parametrize(("kind", "base"), [("ollama", ""), ("openai", "/v1")])
def test_the_configured_generator_is_listed_with_its_endpoint_and_answers(
        kind: str, base: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    with running_server() as llm:
        endpoint = llm.url + base
        root = make_project(tmp_path / "project", tmp_path_factory,
                            f'\n[right-rag.retrieval]\ngenerator = "{kind}:tiny"\ngenerator_url = "{endpoint}"\n')
        server = start_in_thread(Project.load(root))
        try:
            _, catalog = call(url_of(server), "/api/catalog")
            assert catalog["generators"][0] == {"name": f"{kind}:tiny", "endpoint": endpoint,
                                                "note": "configured in right_rag.toml"}
            assert catalog["defaults"]["generator"] == f"{kind}:tiny"
            status, run = call(url_of(server), "/api/run", {"mode": "live", "question": QUESTIONS[0]["question"],
                                                            "chunker": "default", "flow": "simple",
                                                            "generator": f"{kind}:tiny"})
        finally:
            server.shutdown()
            server.server_close()
        assert status == 200, run
        assert run["settings"]["generator"] == f"llm:{kind}:tiny" and run["answer"].endswith("[1][2]")
        assert [c["number"] for c in run["citations"]] == [1, 2]
        generate = run["trace"]["steps"][-1]
        assert generate["step"] == "generate" and generate["outputs"]["model"] == f"{kind}:tiny"
        assert len(llm.requests) == 1 and "Excerpts:" in llm.requests[0]["body"]["messages"][-1]["content"]
