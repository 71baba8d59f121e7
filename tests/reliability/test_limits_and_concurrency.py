"""A parser that never returns and one that eats memory, in a project indexed before, with commands run
while it is stuck: each stuck document is stopped by its limit and rejected naming the stage and the plugin,
the other documents are indexed, ``right-rag query`` answers at once, a second ``right-rag index`` says at once
that it waits for the first (by pid) or, with ``--no-wait``, exits 75; and no one reports the other's work.
"""

from __future__ import annotations

import shutil
import time

import pytest

from .harness import (
    CORPUS,
    FLAGS_VARIABLE,
    Done,
    Running,
    add_limits,
    chunk_counts,
    clone,
    environment,
    rejections,
    right_rag,
    wait_for,
    write_spec,
)
from .plugins import RUNAWAY

SECONDS = 12  # document_seconds: long enough for the commands below to run while the parser hangs
MEMORY_MB = 400
QUERY_SECONDS = 30.0
"""A cold ``right-rag query`` takes 1-2 s; on a loaded 2-core machine give it room, but not the 120 s a locked
store used to cost."""


@pytest.fixture(scope="module")
def stuck(indexed_licences, tmp_path_factory):
    root = tmp_path_factory.mktemp("stuck")
    project = clone(indexed_licences, root / "p")
    before = chunk_counts(project)
    write_spec(project, "unit_parsers", "runaway.py", RUNAWAY)
    toml = project / "right_rag.toml"
    toml.write_text(toml.read_text().replace('"apache-licence"]', '"apache-licence", "runaway"]'))
    add_limits(project, document_seconds=SECONDS, document_memory_mb=MEMORY_MB)
    docs = project / "data" / "documents"
    (docs / "hang.txt").write_text("1. A document its parser never finishes.\n")
    (docs / "hog.txt").write_text("1. A document its parser allocates memory for, forever.\n")
    shutil.copy(CORPUS / "LGPL-3.0.txt", docs / "new-LGPL-3.0.txt")
    flags = root / "flags"
    flags.mkdir()
    env = environment(**{FLAGS_VARIABLE: str(flags)})

    first = Running(project, ["index"], env=env)
    others: dict[str, Done] = {}
    try:
        wait_for(lambda: (flags / "PARSING-hang.txt").exists(), 120, "the runaway parser starting on hang.txt")
        others["query"] = right_rag(project, "query", "What is a covered work?", timeout=QUERY_SECONDS)
        others["no-wait"] = right_rag(project, "index", "--no-wait", timeout=QUERY_SECONDS)
        second = Running(project, ["index"], env=env)
        try:
            wait_for(lambda: "waiting" in second.err_so_far() or not second.alive(), QUERY_SECONDS,
                     "the second index saying that it waits")
            others["waiting-line"] = Done((), 0, "", second.err_so_far(), time.monotonic() - second.started)
            others["hang-still-running"] = Done((), int(first.alive()), "", "", 0)
            others["first"] = first.finish()
            others["second"] = second.finish()
        finally:
            second.stop()
    finally:
        first.stop()
    return project, before, first.pid, others


def test_the_hanging_and_the_hungry_document_are_stopped_by_their_limits(stuck):
    project, _, _, done = stuck
    first = done["first"]
    assert first.code == 3, first
    found = rejections(project)
    stage, status, reason, stale = found["hang.txt"]
    assert stage == "limit" and not stale
    assert f"stopped after {SECONDS} s while parsing with 'runaway'" in reason and "document_seconds" in reason
    stage, status, reason, stale = found["hog.txt"]
    assert stage == "limit" and "while parsing with 'runaway'" in reason, reason
    assert f"document_memory_mb = {MEMORY_MB}" in reason
    for name in ("hang.txt", "hog.txt"):
        assert any(line.startswith(f"  {name}: failed: stopped") for line in first.out.splitlines()), first.out
    assert first.seconds < SECONDS + 120


def test_the_other_documents_are_indexed_and_nothing_indexed_before_is_lost(stuck):
    project, before, _, _ = stuck
    after = chunk_counts(project)
    assert {doc: after[doc] for doc in before} == before
    assert after["new-LGPL-3.0.txt"] == before["LGPL-3.0.txt"]
    assert set(rejections(project)) == {"hang.txt", "hog.txt"}


def test_a_query_during_the_hang_answers_at_once(stuck):
    _, _, _, done = stuck
    query = done["query"]
    assert query.code == 0 and "[1] GPL-3.0.txt" in query.out, query
    assert query.seconds < QUERY_SECONDS
    assert done["hang-still-running"].code == 1  # the query really ran while the parser hung


def test_a_second_index_says_at_once_that_it_waits_for_the_first(stuck):
    project, _, pid, done = stuck
    line = done["waiting-line"].err
    assert f"another right-rag index (pid {pid}, started " in line and "waiting for it to finish" in line, line
    assert done["waiting-line"].seconds < QUERY_SECONDS
    second = done["second"]
    assert "indexed 0, unchanged 6, rejected 2" in second.out, second  # not the first one's work
    assert second.code == 3  # the two rejections are still there


def test_no_wait_exits_75_naming_the_running_index(stuck):
    _, _, pid, done = stuck
    no_wait = done["no-wait"]
    assert no_wait.code == 75, no_wait
    assert f"(pid {pid}," in no_wait.err and "not started (--no-wait)" in no_wait.err
    assert no_wait.out == "" and "Traceback" not in no_wait.err


def test_a_query_while_the_only_changed_document_hangs_answers_at_once(indexed_licences, tmp_path):
    """A run of one document must not hold the store while its parser runs: a plugin that hangs on the one file a
    user edited would lock every query out until ``document_seconds``."""
    project = clone(indexed_licences, tmp_path / "p")
    write_spec(project, "unit_parsers", "runaway.py", RUNAWAY)
    toml = project / "right_rag.toml"
    toml.write_text(toml.read_text().replace('"apache-licence"]', '"apache-licence", "runaway"]'))
    add_limits(project, document_seconds=SECONDS, document_memory_mb=MEMORY_MB)
    (project / "data" / "documents" / "hang.txt").write_text("1. A document its parser never finishes.\n")
    flags = tmp_path / "flags"
    flags.mkdir()
    index = Running(project, ["index"], env=environment(**{FLAGS_VARIABLE: str(flags)}))
    try:
        wait_for(lambda: (flags / "PARSING-hang.txt").exists(), 120, "the runaway parser starting on hang.txt")
        query = right_rag(project, "query", "What is a covered work?", timeout=QUERY_SECONDS)
        still_parsing = index.alive()
        index.finish()
    finally:
        index.stop()
    assert query.code == 0 and "GPL-3.0.txt" in query.out, query
    assert still_parsing  # the query ran while the parser hung, not after the limit stopped it
