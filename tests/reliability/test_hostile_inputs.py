"""Hostile files dropped into a project indexed before: each bad one is rejected naming the file and the reason,
the good ones (whatever their names) are indexed, nothing indexed before is lost, and nothing hangs.

One ``right-rag index`` covers them all (a run costs seconds): empty, binary, random bytes, truncated,
encrypted and image-only PDFs, bad UTF-8, a text file and a plain zip named .docx, a .docx bomb that expands
to 120 MB (the project's ``document_memory_mb`` stops it), a file 30 folders deep, names with escape
sequences, a newline, unicode, spaces, commas and brackets, and two identical files.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from .conftest import LICENCES
from .files import (
    bomb_docx,
    encrypted_pdf,
    image_only_pdf,
    random_bytes,
    truncated_pdf,
    zip_without_document,
)
from .harness import (
    CORPUS,
    Done,
    add_limits,
    assert_clean_failure,
    chunk_counts,
    clone,
    consistency_problems,
    rejections,
    right_rag,
    rows,
)

DEEP = "/".join(f"level-{n:02d}" for n in range(1, 31)) + "/GPL-3.0.txt"
ESCAPE_NAME = "\x1b[31mred\x1b[0m.txt"
TITLE_NAME = "\x1b]0;pwned\x07notes.txt"  # sets the terminal's title when printed raw
GOOD_NAMES = {  # indexed: a real licence under a hostile name
    ESCAPE_NAME: "GPL-3.0.txt",
    "new\nline.txt": "GPL-3.0.txt",
    "ünïcødé 文書 ✓.txt": "GPL-3.0.txt",
    "spaces, commas [brackets] (1) {x}.txt": "GPL-3.0.txt",
    DEEP: "GPL-3.0.txt",
    "copies/a/Apache-2.0.txt": "Apache-2.0.txt",  # identical files: two documents
    "copies/b/Apache-2.0.txt": "Apache-2.0.txt",
    "n" * 240 + ".txt": "GPL-3.0.txt",  # a name near the file system's limit
}
BAD = {  # rejected: what the file is, and words of the reason
    "empty.txt": (b"", "file is empty"),
    "blank.txt": (b"\n \n\t\n", "file is empty"),
    "nul-bytes.txt": (random_bytes(4096), "binary file (contains NUL bytes)"),
    "program.bin": (random_bytes(4096, seed=1), "unsupported binary format '.bin'"),
    "random.dat": (random_bytes(4096, seed=2, nul=False), "invalid UTF-8 at byte"),
    "latin-1.txt": ("1. Définitions du contrat\n".encode("latin-1"), "invalid UTF-8 at byte"),
    "truncated.pdf": (truncated_pdf(CORPUS / "fhs-3.0.pdf"), "not a readable PDF (corrupt or truncated)"),
    "encrypted.pdf": (encrypted_pdf(), "encrypted PDF: it needs a password"),
    "scan.pdf": (image_only_pdf(), "PDF has no text layer"),
    "text.docx": (b"this is not a word document\n", "Docling could not convert it"),
    "archive.docx": (None, "Docling could not convert it"),
    "bomb.docx": (None, "stopped at"),
    TITLE_NAME: (b"Shopping list: eggs, milk.\n", "unsupported: no unit parser accepts this document"),
}
MEMORY_MB = 800  # Docling alone takes ~400 MB; the bomb passes 1 GB within seconds


def escaped(name: str) -> str:
    return name.encode("unicode_escape").decode("ascii") if any(ord(c) < 32 for c in name) else name


@pytest.fixture(scope="module")
def hostile(indexed_licences, tmp_path_factory) -> tuple[Path, dict[str, int], Done]:
    project = clone(indexed_licences, tmp_path_factory.mktemp("hostile") / "p")
    add_limits(project, document_memory_mb=MEMORY_MB, document_seconds=120)
    before = chunk_counts(project)
    docs = project / "data" / "documents"
    for name, source in GOOD_NAMES.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CORPUS / source, docs / name)
    for name, (data, _) in BAD.items():
        if data is not None:
            (docs / name).write_bytes(data)
    zip_without_document(docs / "archive.docx")
    bomb_docx(docs / "bomb.docx", expanded_mb=120)
    os.mkfifo(docs / "pipe.txt")  # reading it would wait forever
    os.symlink(docs / "gone.txt", docs / "dangling.txt")
    (docs / ".hidden.txt").write_bytes(b"\x00" * 10)
    return project, before, right_rag(project, "index")


def test_exit_status_3_and_every_bad_file_named_with_its_reason(hostile):
    project, _, done = hostile
    assert done.code == 3, done
    assert "Traceback" not in done.text
    found = rejections(project)
    for name, (_, reason) in BAD.items():
        assert name in found, f"{name!r} not recorded as a rejection: {found}"
        stage, status, stored_reason, stale = found[name]
        assert not stale
        assert reason in f"{status}: {stored_reason}", (name, found[name])
        line = next((line for line in done.out.splitlines() if line.startswith(f"  {escaped(name)}: ")), "")
        assert reason in line, (name, done.out)
    assert len(found) == len(BAD)


def test_the_bomb_is_stopped_by_the_memory_limit_naming_the_setting(hostile):
    project, _, done = hostile
    stage, status, reason, _ = rejections(project)["bomb.docx"]
    assert stage == "limit" and status == "failed"
    assert "while loading" in reason and f"document_memory_mb = {MEMORY_MB}" in reason, reason


def test_documents_indexed_before_keep_every_chunk_and_still_answer(hostile):
    project, before, done = hostile
    after = chunk_counts(project)
    assert {name: after.get(name) for name in LICENCES} == before
    answer = right_rag(project, "query", "What is a covered work?", "--filter", "document=GPL-3.0.txt", timeout=60)
    assert answer.code == 0 and "[1] GPL-3.0.txt" in answer.out, answer


def test_hostile_names_deep_folders_and_identical_files_are_indexed_as_distinct_documents(hostile):
    project, _, _ = hostile
    counts = chunk_counts(project)
    for name, source in GOOD_NAMES.items():
        assert counts.get(name) == counts[source], (name, counts)
    assert consistency_problems(project) == []
    keys = rows(project, "SELECT document_id, partition_key FROM documents")
    assert len({key for _, key in keys}) == len(keys)
    copies = rows(project, "SELECT count(DISTINCT chunk_id) FROM chunks WHERE document_id LIKE 'copies/%'")
    assert copies == [(2 * counts["Apache-2.0.txt"],)]


def test_escape_sequences_and_newlines_in_names_are_shown_escaped(hostile):
    """A file name must not drive the terminal (colours, its title) nor forge a line of the output."""
    project, _, done = hostile
    assert "\x1b" not in done.text and "\x07" not in done.text
    assert escaped(TITLE_NAME) in done.out
    newline = "new\nline.txt"
    report = right_rag(project, "report", timeout=60)
    assert report.code == 0 and "\x1b" not in report.out and escaped(TITLE_NAME) in report.out
    assert escaped(newline) in report.out and "\nline.txt" not in report.out, report
    for name in (ESCAPE_NAME, newline):
        lineage = right_rag(project, "lineage", name, timeout=60)
        assert lineage.code == 0 and f"document  {escaped(name)}  (" in lineage.out, lineage
        assert "\x1b" not in lineage.text and "\nline.txt" not in lineage.out
    answer = right_rag(project, "query", "What is a covered work?", "--filter", f"document={newline}", timeout=60)
    assert answer.code == 0 and f"[1] {escaped(newline)}, Section" in answer.out, answer


def test_report_lists_the_rejections_and_allow_rejections_exits_0(hostile):
    project, _, _ = hostile
    data = json.loads(right_rag(project, "report", "--json", timeout=60).out)
    assert {r["document_id"] for r in data["rejected"]} == set(BAD)
    again = right_rag(project, "index", "--quiet", timeout=60)
    assert again.code == 3 and "unchanged" in again.out, again  # still rejected: still status 3
    allowed = right_rag(project, "index", "--quiet", "--allow-rejections", timeout=60)
    assert allowed.code == 0, allowed


def test_a_missing_documents_folder_is_one_line_not_a_traceback(tmp_path):
    (tmp_path / "right_rag.toml").write_text('[right-rag]\ndocuments_dir = "nowhere"\n')
    done = right_rag(tmp_path, "index", timeout=60)
    assert done.code == 2
    assert_clean_failure(done)
    assert "nowhere" in done.err and "does not exist" in done.err


def test_a_fifo_a_dangling_link_and_hidden_files_never_hang_the_scan(hostile):
    project, _, done = hostile
    skipped = done.out.split("skipped (not indexed):", 1)[1]
    assert "  dangling.txt: cannot be read: No such file or directory" in skipped, done.out
    known = {doc for (doc,) in rows(project, "SELECT document_id FROM files")}
    assert not known & {"pipe.txt", "dangling.txt", ".hidden.txt"}
