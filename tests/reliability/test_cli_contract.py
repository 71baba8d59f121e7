"""What a script or a shell sees of ``right-rag``: documented exit codes, one-line errors (a traceback only with
``--debug``), a quiet end when the reader of its output goes away (``| head``), arguments checked, settings
that cannot reach SQL."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .harness import (
    COMMAND,
    assert_clean_failure,
    chunk_counts,
    clone,
    environment,
    right_rag,
    rows,
)

SQL = "1GB'; DROP TABLE documents; --"


@pytest.fixture(scope="module")
def project(indexed_licences, tmp_path_factory):
    return clone(indexed_licences, tmp_path_factory.mktemp("cli") / "p")


@pytest.mark.parametrize("command", [["query", "What is a covered work?"], ["index"], ["report"]])
def test_a_memory_limit_holding_sql_is_refused(project, command):
    before = chunk_counts(project)
    done = right_rag(project, *command, env=environment(RIGHT_RAG_DUCKDB_MEMORY_LIMIT=SQL), timeout=120)
    assert done.code == 2, done
    assert_clean_failure(done)
    assert "RIGHT_RAG_DUCKDB_MEMORY_LIMIT" in done.err and "is not a memory size" in done.err
    assert chunk_counts(project) == before and rows(project, "SELECT count(*) FROM documents") == [(3,)]


ENTRY_POINTS = {"console-script": COMMAND, "python-m": [sys.executable, "-m", "right_rag_dagster"]}
READERS = {"query": ["query", "license", "--json", "--trace", "--k", "40"],  # ~70 KB: more than a pipe holds
           "lineage": ["lineage", "GPL-3.0.txt"]}


@pytest.mark.parametrize("read", [0, 100], ids=["closed-at-once", "read-a-little"])
@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("command", READERS)
def test_a_reader_that_goes_away_ends_it_quietly(project, command, entry, read):
    """``right-rag query ... | head``: no BrokenPipe traceback, no "Exception ignored" at exit."""
    process = subprocess.Popen([*ENTRY_POINTS[entry], "--project", str(project), *READERS[command]],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment())
    try:
        if read:
            assert len(process.stdout.read(read)) == read
        process.stdout.close()
        _, err_bytes = process.communicate(timeout=60)  # a hang fails the test (TimeoutExpired)
        err, code = err_bytes.decode("utf-8", "replace"), process.returncode
    finally:
        process.kill()
        process.wait()
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err
    assert code == 0, err


def test_k_0_is_a_usage_error(project):
    done = right_rag(project, "query", "anything", "--k", "0", timeout=60)
    assert done.code == 2 and "usage: right-rag query" in done.err
    assert "argument --k: must be at least 1, not 0" in done.err and "Traceback" not in done.err


def test_a_damaged_store_is_one_line_and_debug_shows_the_traceback(project, tmp_path):
    damaged = clone(project, tmp_path / "damaged")
    store = damaged / ".right-rag" / "right_rag.duckdb"
    store.write_bytes(b"this is not a duckdb file" * 100)
    for command in (["query", "license"], ["report"], ["lineage", "GPL-3.0.txt"], ["index"]):
        done = right_rag(damaged, *command, timeout=120)
        assert done.code == 2, done
        assert_clean_failure(done)
        assert str(store) in done.err and len(done.err.strip().splitlines()) == 1, done.err
    debug = right_rag(damaged, "query", "license", "--debug", timeout=60)
    assert debug.code != 0 and "Traceback (most recent call last)" in debug.err


@pytest.mark.parametrize(("toml", "words"), [
    ("[right-rag]\ndocuments_folder = 'x'\n", "unknown keys in"),
    ("[right-rag.limits]\ndocument_seconds = 'soon'\n", "document_seconds in"),
    ("[right-rag.limits]\nworkerz = 2\n", "unknown keys in [right-rag.limits]"),
    ("[right-rag\n", "cannot read"),
], ids=["unknown-key", "bad-limit", "unknown-limit", "bad-toml"])
def test_a_bad_right_rag_toml_is_one_line_naming_it(tmp_path, toml, words):
    (tmp_path / "right_rag.toml").write_text(toml)
    done = right_rag(tmp_path, "index", timeout=60)
    assert done.code == 2, done
    assert_clean_failure(done)
    assert words in done.err and "right_rag.toml" in done.err


def test_project_before_or_after_the_command(project):
    after = subprocess.run([*COMMAND, "report", "--project", str(project)], capture_output=True, text=True,
                           timeout=60, env=environment())
    assert after.returncode == 0 and "gnu-licence: 2" in after.stdout, after.stderr
