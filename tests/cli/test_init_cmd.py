"""`right-rag init`: the scaffold loads as a project, its example plugins work, and nothing is overwritten silently."""

from __future__ import annotations

import importlib.util
import tomllib

import pytest
import yaml

from right_rag_dagster.cli import main
from right_rag_dagster.cli.init_cmd import scaffold_project
from right_rag_dagster.core.interfaces import PLUGIN_KINDS
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import walk_units
from right_rag_dagster.errors import ConfigError
from right_rag_dagster.evaluation.questions import load_questions
from right_rag_dagster.pipeline.steps import (
    chunk_units,
    document_coverage,
    parse_document,
)
from right_rag_dagster.project import Project
from right_rag_dagster.registry import build_registry

KINDS = ("document_loaders", "unit_parsers", "chunk_parsers", "unit_savers", "chunk_savers", "retrievers")

NUMBERED = """Widget Safety Rules
Issued by the Example Board.

1 Scope
These rules apply to every widget.

1.1 Exclusions
Toy widgets are excluded. Steps to check:
1. Look at the label.
2. Ask the seller.

1.2 Definitions
A widget is a small device.

2 Duties
Owners must keep widgets dry.
3 Widgets are listed on page 3 of the register.

2.1 Penalties
A breach costs 10 coins.
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "my-rag"
    scaffold_project(root)
    return root


def test_init_writes_the_documented_layout(project):
    for relative in ("right_rag.toml", "workspace.yaml", ".gitignore", "eval/questions.example.jsonl",
                     "data/documents/.gitkeep", "spec/unit_parsers/example_sections.py",
                     "spec/chunk_parsers/example_chunks.py"):
        assert (project / relative).is_file(), relative
    assert {p.name for p in (project / "spec").iterdir() if p.is_dir()} == set(KINDS)
    assert [p.name for p in (project / "data" / "documents").iterdir()] == [".gitkeep"]
    ignored = (project / ".gitignore").read_text().split()
    assert {".venv/", ".dagster/", ".right-rag/", "output/"} <= set(ignored)
    assert not list(project.rglob("__pycache__")) and not list(project.rglob("dot-*"))


def test_every_plugin_kind_has_a_folder():
    import right_rag_dagster.retrieval.retrievers  # noqa: F401  (registers the "retrievers" kind)

    assert set(PLUGIN_KINDS) <= set(KINDS)


def test_the_settings_file_loads_and_documents_every_key(project):
    loaded = Project.load(project)
    assert loaded.documents_dir == project / "data" / "documents"
    assert loaded.spec_dir == project / "spec"
    assert loaded.store_path == project / ".right-rag" / "right_rag.duckdb"
    assert loaded.dagster_home == project / ".dagster"
    assert loaded.questions_file == project / "eval" / "questions.jsonl"
    assert (loaded.min_coverage_percent, loaded.smoke_test) == (90.0, False)
    settings = tomllib.loads((project / "right_rag.toml").read_text())["right-rag"]
    assert set(settings) == {"documents_dir", "spec_dir", "output_dir", "store_path", "dagster_home",
                             "questions_file", "pipeline", "checks", "retrieval"}


def test_the_commented_examples_are_valid_settings(project):
    path = project / "right_rag.toml"
    path.write_text("\n".join(line[2:] if line.startswith("# ") and " = " in line else line
                              for line in path.read_text().splitlines()))
    loaded = Project.load(project)
    assert loaded.pipeline.unit_parser_names == ["example-sections"]
    assert loaded.pipeline.chunk_parser_names == ["example-chunks"]
    assert loaded.selected("unit_parsers") == ["example-sections"]
    from right_rag_dagster.retrieval.settings import (
        DEFAULT_FUSION,
        DEFAULT_IDENTITY,
        DEFAULT_MIN_COVERAGE,
        RetrievalSettings,
    )

    settings = RetrievalSettings.from_dict(loaded.retrieval)
    assert settings.k == 5
    assert settings.identity == DEFAULT_IDENTITY  # the template shows the defaults
    assert settings.fusion == DEFAULT_FUSION
    assert settings.answer_min_coverage == pytest.approx(DEFAULT_MIN_COVERAGE, abs=0.01)


def test_the_workspace_loads_the_orchestration_module_from_the_project_folder(project):
    workspace = yaml.safe_load((project / "workspace.yaml").read_text())
    [entry] = workspace["load_from"]
    module = entry["python_module"]
    assert module == {"module_name": "right_rag_dagster.orchestration.definitions", "working_directory": ".",
                      "location_name": "right_rag"}  # the location right-rag index attributes its runs to
    assert importlib.util.find_spec(module["module_name"]) is not None


def test_the_example_question_file_is_readable_and_not_the_projects_questions_yet(project):
    [question] = load_questions(project / "eval" / "questions.example.jsonl")
    assert question.evidence and question.tags == ("example",)
    loaded = Project.load(project)
    assert not loaded.questions_file.exists()  # no evaluation asset scoring a placeholder after every index


def test_the_example_plugins_are_discovered_and_selected_instead_of_the_defaults(project):
    registry = build_registry(project / "spec")
    assert registry.errors == []
    assert registry.resolve_names("unit_parsers", None) == ["example-sections"]
    assert registry.resolve_names("chunk_parsers", None) == ["example-chunks"]


def test_the_example_parsers_build_a_faithful_tree_and_cite_exact_spans(project):
    registry = build_registry(project / "spec")
    parser = registry.create("unit_parsers", "example-sections")
    chunker = registry.create("chunk_parsers", "example-chunks")
    document = Document(id="widgets.txt", text=NUMBERED)

    outcome = parse_document(document, [parser])
    assert outcome.rejection is None
    tree = [(u.key, [s.key for s in u.subunits]) for u in walk_units(outcome.units)]
    assert tree == [("Preamble", []), ("1", ["1.1", "1.2"]), ("1.1", []), ("1.2", []), ("2", ["2.1"]),
                    ("2.1", [])]  # the numbered list and the "3 Widgets ..." line are not sections
    units = {u.key: u for u in walk_units(outcome.units)}
    assert units["1.1"].raw_text == NUMBERED[NUMBERED.index("1.1 Exclusions"):NUMBERED.index("\n\n1.2")]
    assert units["1"].fulltext == "1 Scope\nThese rules apply to every widget."
    assert units["2.1"].temporal_topic == "2 Duties 2.1 Penalties"
    coverage = document_coverage(document, outcome.units)
    assert coverage.source_ranges == [  # top-level units contain their subsections; only blank lines are left
        {"start": 0, "end": NUMBERED.index("\n\n1 Scope")},
        {"start": NUMBERED.index("1 Scope"), "end": NUMBERED.index("\n\n2 Duties")},
        {"start": NUMBERED.index("2 Duties"), "end": len(NUMBERED.rstrip())},
    ]

    chunks = chunk_units(document, outcome.units, chunker)
    assert [c.topic for c in chunks] == [u.topic for u in walk_units(outcome.units)]
    for chunk in chunks:
        assert NUMBERED[chunk.source_start:chunk.source_end] == chunk.fulltext
    assert "These rules apply" in chunks[1].fulltext and "Exclusions" not in chunks[1].fulltext


def test_the_example_parser_is_narrow(project, sample_documents):
    parser = build_registry(project / "spec").create("unit_parsers", "example-sections")
    accepted = [p.name for p in sorted(sample_documents.glob("*.txt"))
                if parser.parser_can_handle_document(Document(id=p.name, text=p.read_text(encoding="utf-8")))]
    assert accepted == ["MPL-2.0.txt"]  # numbered "1. Definitions" at line start; the others indent or differ
    as_pdf = Document(id="x.pdf", text=NUMBERED, page_starts=(0,))
    assert not parser.parser_can_handle_document(as_pdf)
    assert not parser.parser_can_handle_document(Document(id="x", text="2 Start\n3 Then\n"))


def test_init_refuses_to_overwrite_a_project_unless_forced(project):
    settings = project / "right_rag.toml"
    settings.write_text("[right-rag]\ndocuments_dir = 'mine'\n")
    (project / "data" / "documents" / "mine.txt").write_text("my document")
    with pytest.raises(ConfigError) as caught:
        scaffold_project(project)
    assert "already holds a right-rag project" in str(caught.value)
    assert "right_rag.toml" in str(caught.value) and "--force" in str(caught.value)
    assert "mine" in settings.read_text()

    written = scaffold_project(project, force=True)
    assert settings in written and "mine" not in settings.read_text()
    assert (project / "data" / "documents" / "mine.txt").read_text() == "my document"


def test_init_into_a_folder_with_other_files_keeps_them_and_merges_gitignore(tmp_path):
    (tmp_path / "notes.md").write_text("mine")
    (tmp_path / ".gitignore").write_text("node_modules/\n.venv/")
    scaffold_project(tmp_path)
    assert (tmp_path / "notes.md").read_text() == "mine"
    lines = (tmp_path / ".gitignore").read_text().splitlines()
    assert lines[:2] == ["node_modules/", ".venv/"] and lines.count(".venv/") == 1 and "output/" in lines


def test_init_into_a_file_is_an_error(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is not a folder"):
        scaffold_project(tmp_path / "file")


def test_the_command_line_creates_then_refuses_with_one_line(tmp_path, capsys):
    target = tmp_path / "cli-project"
    assert main(["init", str(target)]) == 0
    out = capsys.readouterr().out
    assert f"Created a right-rag project in {target}" in out and "right-rag index" in out
    assert main(["init", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("right-rag: error: ") and err.count("\n") == 1
    assert main(["--project", str(tmp_path / "via-option"), "init"]) == 0
    assert (tmp_path / "via-option" / "right_rag.toml").is_file()


def test_init_has_help(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["init", "--help"])
    assert caught.value.code == 0
    assert "--force" in capsys.readouterr().out
