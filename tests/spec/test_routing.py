"""Every development document is accepted by exactly one registered parser of the sample project, the right one."""

from __future__ import annotations

import pytest

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.routing import route_document
from right_rag_dagster.pipeline.steps import parse_document

from .conftest import REPO_ROOT

DOCUMENTS = REPO_ROOT / "data" / "documents"
OWNERS = {
    "GPL-3.0.txt": "licence", "LGPL-3.0.txt": "licence", "Apache-2.0.txt": "licence", "MPL-2.0.txt": "licence",
    "debian-policy.pdf": "manual", "fhs-3.0.pdf": "manual", "copyright-format-1.0.html": "markdown-spec",
    "upgrading-checklist.txt": "policy-changelog",
}


def test_the_sample_project_registers_the_domain_parsers(spec_registry) -> None:
    names = spec_registry.resolve_names("unit_parsers", None)
    assert names == sorted(["debian-copyright", "english-act", "licence", "man-page", "manual", "markdown-spec",
                            "policy-changelog", "text-manual", "thai-order", "thai-organic-act", "info-manual",
                            "pod", "org", "vim-help"])
    assert "domain" in spec_registry.names("chunk_parsers")


def test_documents_folder_matches_the_table() -> None:
    assert sorted(p.name for p in DOCUMENTS.iterdir()) == sorted(OWNERS)


@pytest.mark.parametrize("name", sorted(OWNERS))
def test_exactly_one_parser_accepts_each_document(spec_registry, load_document, name: str) -> None:
    document = load_document(DOCUMENTS / name)
    parsers = spec_registry.resolve("unit_parsers", None)
    accepting = [p.parser_name for p in parsers if p.parser_can_handle_document(document)]
    assert accepting == [OWNERS[name]]
    assert route_document(document, parsers).parser.parser_name == OWNERS[name]
    outcome = parse_document(document, parsers)
    assert outcome.rejection is None
    assert compute_coverage(len(document.text), outcome.units).coverage_percent >= 95
