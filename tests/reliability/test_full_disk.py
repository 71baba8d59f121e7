"""A full disk under the store: ``right-rag index`` stops with one line naming the store and what to do, the
documents indexed before still answer, and once there is room the next index completes. The disk is a real
tmpfs of a few MB (mounting needs root; elsewhere the test is skipped)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from right_rag_dagster.store import Store

from .harness import SHARED_CORPUS, assert_clean_failure, copy_documents, right_rag, write_spec
from .plugins import STANZAS

SCALE = SHARED_CORPUS / "scale"
TOML = ('[right-rag]\nstore_path = "{store}"\n\n[right-rag.pipeline]\nunit_parsers = ["stanzas"]\n'
        'chunk_parsers = ["default"]\n\n[right-rag.checks]\nsmoke_test = true\n')


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", str(disk)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def chunk_counts(store: Path) -> dict[str, int]:
    with Store(store).read() as con:
        return dict(con.execute("SELECT document_id, count(*) FROM chunks GROUP BY document_id").fetchall())


def fill(disk: Path, leave: int) -> Path:
    """A file taking all but ``leave`` bytes of ``disk``."""
    filler = disk / "filler"
    free = shutil.disk_usage(disk).free
    with open(filler, "wb") as handle:
        handle.write(b"\0" * max(free - leave, 0))
    return filler


def test_a_full_disk_stops_the_index_with_what_to_do_and_loses_nothing(tmp_path, small_disk):
    project = tmp_path / "project"
    names = sorted(os.listdir(SCALE))
    documents = project / "data" / "documents"
    copy_documents(names[:3], documents, SCALE)
    write_spec(project, "unit_parsers", "stanzas.py", STANZAS)
    store = small_disk / "right_rag.duckdb"
    (project / "right_rag.toml").write_text(TOML.format(store=store), encoding="utf-8")
    assert right_rag(project, "index").code == 0
    before = chunk_counts(store)

    copy_documents(names[3:40], documents, SCALE)
    filler = fill(small_disk, leave=64 * 1024)
    done = right_rag(project, "index")
    assert done.code != 0
    assert_clean_failure(done)
    assert f"no room to write the store {store}" in done.err and "free some space" in done.err, done

    assert chunk_counts(store) == before  # the documents indexed before are all there, and still answer
    first = names[0].removesuffix(".copyright")
    answer = right_rag(project, "query", f"Who holds the copyright of {first}?", timeout=60)
    assert answer.code == 0 and names[0] in answer.out, answer

    filler.unlink()
    again = right_rag(project, "index")
    assert again.code == 0, again
    assert len(chunk_counts(store)) == 40
