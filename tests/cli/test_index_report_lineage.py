"""`right-rag index`, `report` and `lineage` on a small real project, and help text for every command."""

from __future__ import annotations

import json

import pytest

from right_rag_dagster.cli import COMMANDS, build_parser, main

from ..orchestration.conftest import make_project


def test_every_command_has_help_text():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in COMMANDS:
        assert sub.choices[name].description or sub.choices[name].format_help(), name
        help_line = next(a.help for a in sub._choices_actions if a.dest == name)
        assert help_line and "not available" not in help_line, name


@pytest.fixture
def indexed(tmp_path, monkeypatch, capsys):
    project = make_project(tmp_path / "p")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    assert main(["--project", str(project), "index"]) == 0
    return project, capsys.readouterr().out


def test_index_prints_summary_then_skips_unchanged(indexed, capsys):
    project, out = indexed
    assert "documents indexed        3" in out or "indexed 3," in out
    assert main(["--project", str(project), "index", "--quiet"]) == 0
    assert "indexed 0, unchanged 3" in capsys.readouterr().out


def test_index_with_nothing_to_do_imports_none_of_the_run(indexed):
    """A no-change `right-rag index` in a fresh process (issue 11: < 0.5 s) loads neither Dagster nor the embedders
    nor the helpers ctypes.util drags in (subprocess, tempfile), nor runs the spec files (their plugins' names and
    versions are kept beside their bytecode by the run before): its time is mostly imports."""
    import os
    import subprocess
    import sys

    project, _ = indexed
    code = ("import atexit, sys\n"
            "from right_rag_dagster.cli import console_main\n"
            "heavy = ('dagster', 'right_rag_dagster.retrieval.embedders', 'right_rag_dagster.orchestration', 'torch',"
            " 'ctypes.util', 'subprocess', 'right_rag_spec')\n"
            "atexit.register(lambda: print('loaded:', sorted(m for m in sys.modules if m.startswith(heavy))))\n"
            f"sys.argv = ['right-rag', '--project', {str(project)!r}, 'index', '--quiet']\n"
            "console_main()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for run in ("keeps what discovery found", "uses it"):
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
        assert result.returncode == 0, result.stderr
        assert "indexed 0, unchanged 3" in result.stdout, run
    assert result.stdout.strip().splitlines()[-1] == "loaded: []"


def test_report_text_and_json(indexed, capsys):
    project, _ = indexed
    (project / "data" / "documents" / "notes.txt").write_text("nothing a licence parser accepts\n")
    assert main(["--project", str(project), "index", "--quiet"]) == 3  # a document was rejected
    capsys.readouterr()
    assert main(["--project", str(project), "report"]) == 0
    text = capsys.readouterr().out
    assert "gnu-licence: 2" in text and "apache-licence: 1" in text
    assert "notes.txt: [unsupported]" in text
    assert main(["--project", str(project), "report", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["documents_by_parser"] == {"apache-licence": 1, "gnu-licence": 2}
    assert data["rejected"][0]["document_id"] == "notes.txt"
    assert data["fallback_parser_used"] is True  # the default chunker is a smoke-test parser


def test_lineage_of_a_chunk_and_unknown_id(indexed, capsys):
    from right_rag_dagster.project import Project
    from right_rag_dagster.store import Store

    project, _ = indexed
    with Store(Project.load(project).store_path).read() as con:
        chunk_id = con.execute("SELECT chunk_id FROM chunks WHERE document_id = 'LGPL-3.0.txt' LIMIT 1").fetchone()[0]
    assert main(["--project", str(project), "lineage", chunk_id]) == 0
    out = capsys.readouterr().out
    assert "LGPL-3.0.txt" in out and "gnu-licence" in out and "sha256" in out and "run " in out
    assert main(["--project", str(project), "lineage", "no-such-thing"]) == 2
    assert "nothing with id" in capsys.readouterr().err


def test_lineage_of_a_unit_never_re_parsed_shows_its_add_history(indexed, capsys):
    """The first parse stores no history (it is what the unit's state implies): lineage rebuilds it, not []."""
    from right_rag_dagster.project import Project
    from right_rag_dagster.store import Store

    project, _ = indexed
    with Store(Project.load(project).store_path).read() as con:
        (unit_id,) = con.execute("SELECT unit_id FROM units WHERE changes IS NULL ORDER BY unit_id LIMIT 1").fetchone()
    assert main(["--project", str(project), "lineage", unit_id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["unit"]["history"] == ["AddUnit"]
    assert main(["--project", str(project), "lineage", unit_id]) == 0
    assert "AddUnit" in capsys.readouterr().out


def test_lineage_shows_paths_relative_to_the_project_after_it_moves(indexed, capsys):
    project, _ = indexed
    moved = project.rename(project.parent / "moved")
    assert main(["--project", str(moved), "lineage", "GPL-3.0.txt", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["document"]["path"] == "data/documents/GPL-3.0.txt"
    assert main(["--project", str(moved), "lineage", "GPL-3.0.txt"]) == 0
    out = capsys.readouterr().out
    assert "file      data/documents/GPL-3.0.txt" in out and str(project) not in out


def test_index_remakes_a_search_index_of_an_older_format_without_document_changes(indexed, capsys):
    from right_rag_dagster.project import Project
    from right_rag_dagster.retrieval import IndexMissingError, search
    from right_rag_dagster.retrieval.searching.snapshot import clear_cache
    from right_rag_dagster.store import Store

    project, _ = indexed
    store = Store(Project.load(project).store_path)
    with store.write() as con:  # what an index made by an earlier version of the library looks like
        con.execute("UPDATE search_indexes SET model = 'rr-tok-1' WHERE kind = 'bm25'")
    clear_cache()
    with pytest.raises(IndexMissingError, match="run `right-rag index` to rebuild it"):
        search(store, "license", chunker="default")
    assert main(["--project", str(project), "index", "--quiet"]) == 0
    assert "indexed 0, unchanged 3" in capsys.readouterr().out
    clear_cache()
    assert search(store, "license", chunker="default")


def test_vectors_of_an_older_format_start_no_run_when_the_project_has_no_embedder(indexed, capsys, monkeypatch):
    from right_rag_dagster.orchestration import local
    from right_rag_dagster.project import Project
    from right_rag_dagster.store import Store

    project, _ = indexed
    with Store(Project.load(project).store_path).write() as con:  # vectors left by an earlier version
        con.execute("INSERT INTO search_indexes VALUES ('default', 'dense', 'dense_x', 'hashing:old:8', 8, 1, NULL, "
                    "'b', now(), 0.1, '{}')")

    def no_run(*args, **kwargs):
        raise AssertionError("a Dagster run was launched")

    monkeypatch.setattr(local, "run_local", no_run)
    assert main(["--project", str(project), "index", "--quiet"]) == 0
    assert "indexed 0, unchanged 3" in capsys.readouterr().out
