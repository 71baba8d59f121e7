"""Broken plugins added to a project indexed before: the run says which plugin and why, nothing indexed is
deleted, and every document keeps answering from its last good version.

- a unit parser that accepts every document, or raises on every document: the circuit breaker stops the run
  before it writes (``PluginFaultError``, exit 2);
- a one-line SyntaxError in the sample project's licence parser: ``index`` exits 2 naming the file and the
  exception; the licences stay served (stale), are reported by ``report`` (text and JSON), by ``query`` (a warning)
  and by the audit report's asset check, and are not re-routed to the fallback parser;
- chunk and unit parsers returning broken output: the document is rejected naming the plugin and the fault,
  and a document indexed before with the good version keeps serving it (stale).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ..loaders.pdf_builder import make_pdf
from .conftest import LICENCES
from .harness import (
    CORPUS,
    REPO,
    add_limits,
    assert_clean_failure,
    chunk_counts,
    clone,
    consistency_problems,
    copy_documents,
    dagster_instance,
    rejections,
    right_rag,
    rows,
    write_spec,
    write_toml,
)
from .plugins import GREEDY, LINES, NUMBERED, RAISING


def add_unit_parser(project: Path, name: str, source: str) -> None:
    write_spec(project, "unit_parsers", f"{name}.py", source)
    toml = project / "right_rag.toml"
    toml.write_text(toml.read_text().replace('"apache-licence"]', f'"apache-licence", "{name}"]'))


@pytest.mark.parametrize(("name", "source", "what"), [
    ("greedy", GREEDY, "accepted, together with another parser, 3 of the 3 documents"),
    ("raising", RAISING, "failed on 3 of the 3 documents"),
], ids=["accepts-everything", "raises-on-everything"])
def test_a_parser_that_claims_or_fails_on_everything_stops_the_run_before_it_writes(
        tmp_path, indexed_licences, name, source, what):
    project = clone(indexed_licences, tmp_path / "p")
    before = chunk_counts(project)
    add_unit_parser(project, name, source)
    done = right_rag(project, "index")
    assert done.code == 2, done
    assert_clean_failure(done)
    assert f"plugin {name!r} ({project / 'spec' / 'unit_parsers' / f'{name}.py'}) {what}" in done.err, done
    assert "the run stopped before writing them" in done.err
    assert chunk_counts(project) == before and rejections(project) == {}
    answer = right_rag(project, "query", "What is a covered work?", timeout=60)
    assert answer.code == 0 and "[1] GPL-3.0.txt" in answer.out, answer
    (project / "spec" / "unit_parsers" / f"{name}.py").unlink()  # the user removes it: back to normal at once
    toml = project / "right_rag.toml"
    toml.write_text(toml.read_text().replace(f', "{name}"]', "]"))
    assert right_rag(project, "index", "--quiet", timeout=60).code == 0


SAMPLE_DOCUMENTS = ("GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt", "MPL-2.0.txt", "upgrading-checklist.txt")


@pytest.fixture(scope="module")
def broken_licence_parser(tmp_path_factory):
    """The sample project (its spec/ and right_rag.toml) on five documents, indexed; then a one-line syntax
    error in spec/unit_parsers/licence.py and ``index`` again."""
    project = tmp_path_factory.mktemp("syntax") / "sample"
    shutil.copytree(REPO / "spec", project / "spec", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "right_rag.toml", project / "right_rag.toml")
    copy_documents(SAMPLE_DOCUMENTS, project / "data" / "documents")
    first = right_rag(project, "index")
    assert first.code == 0, first
    owners = dict(rows(project, "SELECT document_id, parser FROM coverage"))
    before = chunk_counts(project)
    licence = project / "spec" / "unit_parsers" / "licence.py"
    licence.write_text(licence.read_text() + "\ndef broken(:\n")
    return project, owners, before, right_rag(project, "index")


def test_a_syntax_error_exits_2_naming_the_file_and_the_error(broken_licence_parser):
    project, _, _, done = broken_licence_parser
    assert done.code == 2, done
    assert "Traceback" not in done.text
    line = next(line for line in done.err.splitlines() if "failed to import" in line)
    assert "spec/unit_parsers/licence.py" in line and "SyntaxError" in line, done.err


def test_the_licences_keep_their_chunks_are_stale_and_are_not_rerouted(broken_licence_parser):
    project, owners, before, done = broken_licence_parser
    licences = sorted(doc for doc, parser in owners.items() if parser == "licence")
    assert len(licences) == 4, owners
    assert chunk_counts(project) == before
    assert dict(rows(project, "SELECT document_id, parser FROM coverage")) == owners  # not taken by 'generic'
    found = rejections(project)
    for doc in licences:
        stage, status, reason, stale = found[doc]
        assert stale and stage == "hold" and "its unit parser 'licence' is not available" in reason, found[doc]
        assert "SyntaxError" in reason
    assert set(found) == set(licences)
    assert "stale after this run" in done.out and all(doc in done.out for doc in licences)


def test_report_and_query_name_the_broken_file(broken_licence_parser):
    project, _, _, _ = broken_licence_parser
    report = right_rag(project, "report", timeout=60)
    assert report.code == 0
    assert "spec files that failed to import" in report.out and "licence.py" in report.out, report.out
    assert "documents whose last good version serves" in report.out and "MPL-2.0.txt" in report.out
    data = json.loads(right_rag(project, "report", "--json", timeout=60).out)
    assert [Path(e["file"]).name for e in data["plugin_errors"]] == ["licence.py"]
    assert "SyntaxError" in data["plugin_errors"][0]["message"]
    assert {s["document_id"] for s in data["stale"]} == {"GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt",
                                                         "MPL-2.0.txt"}
    answer = right_rag(project, "query", "What does the MPL say about larger works?", timeout=60)
    assert answer.code == 0 and "MPL-2.0.txt" in answer.out, answer
    assert "warning" in answer.err and "licence.py failed to import" in answer.err, answer.err


def test_the_audit_report_asset_check_fails_naming_the_file(broken_licence_parser):
    import dagster as dg

    project, _, _, _ = broken_licence_parser
    with dagster_instance(project) as instance:
        key = dg.AssetCheckKey(dg.AssetKey("audit_report"), "spec_plugins_import")
        (latest,) = instance.event_log_storage.get_asset_check_execution_history(key, limit=1)
        evaluation = latest.event.dagster_event.event_specific_data
        assert evaluation.passed is False
        assert any("licence.py" in file for file in evaluation.metadata["errors"].value), evaluation.metadata


def test_fixing_the_syntax_error_indexes_them_again(broken_licence_parser, tmp_path):
    project, owners, before, _ = broken_licence_parser
    fixed = clone(project, tmp_path / "fixed")
    licence = fixed / "spec" / "unit_parsers" / "licence.py"
    licence.write_text(licence.read_text().replace("\ndef broken(:\n", ""))
    done = right_rag(fixed, "index")
    assert done.code == 0, done
    assert rejections(fixed) == {} and chunk_counts(fixed) == before


# -- broken output --------------------------------------------------------------------------------------------------

FAULTS = {  # document -> words of its rejection
    "empty-doc.txt": "chunk parser 'lines' returned chunk",
    "unit-doc.txt": "for unit 'not-a-unit', which is not a unit of the document",
    "span-doc.txt": "with span (-10, 1000000000) outside the document",
    "pages-doc.pdf": "on page -3, but the document has 2 pages",
    "duplicate-doc.txt": "chunk parser 'lines' produced chunk id",
    "overlap-doc.txt": "unit parser 'numbered' returned overlapping sibling units",
}
SECTIONS = "1. Scope\nThis part says what the rules cover.\n\n2. Terms\nThis part defines the words used.\n"


@pytest.fixture(scope="module")
def broken_output(tmp_path_factory):
    """Documents indexed with good plugins, then indexed again after a new version of each plugin returns
    broken output for some of them (and for one new document)."""
    project = tmp_path_factory.mktemp("output") / "p"
    docs = project / "data" / "documents"
    docs.mkdir(parents=True)
    for name in [*FAULTS, "good-doc.txt"]:
        if name.endswith(".pdf"):
            (docs / name).write_bytes(make_pdf(["1. Scope of the rules", "2. Terms used in the rules"]))
        else:
            (docs / name).write_text(SECTIONS.replace("rules", name))
    write_spec(project, "unit_parsers", "numbered.py", NUMBERED)
    lines = write_spec(project, "chunk_parsers", "lines.py", LINES)
    write_toml(project, '[right-rag]\n\n[right-rag.pipeline]\nunit_parsers = ["numbered"]\n'
                        'chunk_parsers = ["lines"]\n')
    add_limits(project, plugin_fault_share=1)  # most documents fail on purpose: keep the breaker out of it
    first = right_rag(project, "index")
    assert first.code == 0, first
    before = {doc: sorted(r) for doc, r in _chunks(project).items()}
    lines.write_text(LINES.replace("FAULTY = False", "FAULTY = True"))
    numbered = project / "spec" / "unit_parsers" / "numbered.py"
    numbered.write_text(NUMBERED.replace("OVERLAP = False", "OVERLAP = True"))
    (docs / "span-new.txt").write_text(SECTIONS)
    return project, before, right_rag(project, "index")


def _chunks(project: Path) -> dict[str, list[tuple]]:
    found: dict[str, list[tuple]] = {}
    for doc, *rest in rows(project, "SELECT document_id, chunk_id, fulltext, source_start, source_end, page_start "
                                    "FROM chunks"):
        found.setdefault(doc, []).append(tuple(rest))
    return found


def test_each_fault_rejects_its_document_naming_the_plugin(broken_output):
    project, _, done = broken_output
    assert done.code == 3, done
    found = rejections(project)
    for doc, words in FAULTS.items():
        stage, status, reason, stale = found[doc]
        assert words in reason and status == "failed" and stale, (doc, found[doc])
        assert f"  {doc}: failed: " in done.out
    stage, status, reason, stale = found["span-new.txt"]
    assert not stale and "outside the document" in reason  # never indexed: rejected, nothing to serve
    assert "good-doc.txt" not in found


def test_documents_indexed_before_serve_their_last_good_chunks(broken_output):
    project, before, _ = broken_output
    after = {doc: sorted(r) for doc, r in _chunks(project).items()}
    for doc in FAULTS:
        assert after[doc] == before[doc], doc
    assert "span-new.txt" not in after
    bad = rows(project, "SELECT count(*) FROM chunks WHERE trim(fulltext) = '' OR unit_id = 'not-a-unit' "
                        "OR source_start < 0 OR page_start < 1 OR page_end > 2")
    assert bad == [(0,)]
    assert consistency_problems(project) == []
    answer = right_rag(project, "query", "What does overlap-doc.txt define?", "--filter",
                       "document=overlap-doc.txt", timeout=60)
    assert answer.code == 0 and "overlap-doc.txt" in answer.out, answer


@pytest.mark.parametrize("document", LICENCES)
def test_the_template_is_left_alone(indexed_licences, document):
    """The clones above never touched the indexed template they were made from."""
    assert chunk_counts(indexed_licences)[document] > 0
    assert (indexed_licences / "data" / "documents" / document).read_bytes() == (CORPUS / document).read_bytes()
