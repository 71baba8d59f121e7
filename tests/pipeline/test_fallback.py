"""The fallback unit parser: enabled in right_rag.toml, used only for documents no unit parser accepts, never
making a document ambiguous, and labelled as such in the audit report and in the step metadata."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from right_rag_dagster.cli import main
from right_rag_dagster.errors import ConfigError
from right_rag_dagster.pipeline.plugins import PluginSet
from right_rag_dagster.project import Project

from ..orchestration.conftest import make_project

BSD = Path(__file__).resolve().parents[1] / "spec" / "fixtures" / "families" / "BSD.txt"


def _enable_fallback(project: Path, line: str = 'fallback_unit_parser = "generic"') -> None:
    config = project / "right_rag.toml"
    config.write_text(config.read_text().replace("[right-rag.pipeline]\n", f"[right-rag.pipeline]\n{line}\n"))


def test_the_fallback_name_is_validated_like_other_plugin_names(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    _enable_fallback(project, 'fallback_unit_parser = "generik"')
    with pytest.raises(ConfigError, match="no unit parser named 'generik'; available: .*generic"):
        PluginSet.for_project(Project.load(project))


def test_a_fallback_may_not_also_be_a_domain_parser(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    _enable_fallback(project, 'fallback_unit_parser = "gnu-licence"')
    with pytest.raises(ConfigError, match="also a selected unit parser"):
        PluginSet.for_project(Project.load(project))


def test_the_generic_parser_is_never_selected_by_default(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    (project / "right_rag.toml").write_text("[right-rag]\n")
    loaded = Project.load(project)
    assert "generic" in loaded.registry.names("unit_parsers")
    assert "generic" not in loaded.selected("unit_parsers") and PluginSet.for_project(loaded).fallback is None


@pytest.fixture
def with_unclaimed_document(tmp_path, monkeypatch) -> Path:
    """The licence project plus the BSD licence, which neither of its parsers accepts."""
    project = make_project(tmp_path / "p")
    shutil.copy(BSD, project / "data" / "documents" / "BSD.txt")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    return project


def _report(project: Path, capsys) -> tuple[dict, str]:
    assert main(["--project", str(project), "index", "--quiet", "--allow-rejections"]) == 0
    capsys.readouterr()
    assert main(["--project", str(project), "report", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["--project", str(project), "report"]) == 0
    return data, capsys.readouterr().out


def test_without_the_fallback_the_document_is_unsupported(with_unclaimed_document, capsys) -> None:
    data, _ = _report(with_unclaimed_document, capsys)
    assert [(r["document_id"], r["status"]) for r in data["rejected"]] == [("BSD.txt", "unsupported")]
    assert data["fallback_unit_parser"] is None and data["fallback_documents"] == []


def test_the_fallback_takes_only_the_unclaimed_document_and_is_labelled(with_unclaimed_document, capsys) -> None:
    _enable_fallback(with_unclaimed_document)
    data, text = _report(with_unclaimed_document, capsys)
    assert data["rejected"] == []
    assert data["documents_by_parser"] == {"apache-licence": 1, "generic": 1, "gnu-licence": 2}
    assert [d["document_id"] for d in data["fallback_documents"]] == ["BSD.txt"]
    assert data["fallback_documents"][0]["coverage_percent"] >= 95
    routed = {row["document_id"]: row["routed_as"] for row in data["coverage"]}
    assert routed == {"Apache-2.0.txt": "domain", "BSD.txt": "fallback", "GPL-3.0.txt": "domain",
                      "LGPL-3.0.txt": "domain"}
    assert "generic: 1 (fallback)" in text
    assert "documents taken by the fallback unit parser 'generic'" in text and "  BSD.txt: " in text
    used = "yes" if data["fallback_parser_used"] else "no"  # right-rag's key; the line named it "fallback parser"
    assert text.rstrip().endswith(f'smoke-test ("default") parser used: {used}') and "fallback parser used" not in text


def test_the_fallback_never_makes_a_document_ambiguous(with_unclaimed_document, capsys) -> None:
    """A document two domain parsers accept stays ambiguous: the fallback is not asked."""
    _enable_fallback(with_unclaimed_document)
    both = with_unclaimed_document / "spec" / "unit_parsers" / "any_gpl.py"
    both.write_text((with_unclaimed_document / "spec" / "unit_parsers" / "gnu.py").read_text()
                    .replace('"gnu-licence"', '"any-gpl"').replace("class GnuLicenceParser", "class AnyGplParser"))
    config = with_unclaimed_document / "right_rag.toml"
    config.write_text(config.read_text().replace('"apache-licence"]', '"apache-licence", "any-gpl"]'))
    data, _ = _report(with_unclaimed_document, capsys)
    statuses = {r["document_id"]: r["status"] for r in data["rejected"]}
    assert statuses == {"GPL-3.0.txt": "ambiguous", "LGPL-3.0.txt": "ambiguous"}
    assert [d["document_id"] for d in data["fallback_documents"]] == ["BSD.txt"]
