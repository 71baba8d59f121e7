"""Stable identity: ids come from relative paths, key paths and names, so moving a project keeps them all."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from right_rag_dagster.core.ids import (
    chunk_id_for,
    document_id_for_path,
    partition_key_for,
    unit_id_for_path,
)
from right_rag_dagster.core.units import walk_units
from right_rag_dagster.pipeline.steps import chunk_units, load_document, parse_document
from right_rag_dagster.registry import build_registry


def index_ids(project: Path) -> dict[str, list[str]]:
    """Load, parse and chunk every document of a project with the default plugins; collect all ids."""
    documents_dir = project / "data" / "documents"
    registry = build_registry(project / "spec")
    loaders = registry.resolve("document_loaders", None)
    [parser] = registry.resolve("unit_parsers", None)
    [chunker] = registry.resolve("chunk_parsers", None)
    ids: dict[str, list[str]] = {"documents": [], "units": [], "chunks": []}
    for path in sorted(p for p in documents_dir.rglob("*") if p.is_file()):
        document_id = document_id_for_path(path, documents_dir)
        document = load_document(path, document_id, loaders).document
        units = parse_document(document, [parser]).units
        ids["documents"].append(document.id)
        ids["units"] += [u.id for u in walk_units(units)]
        ids["chunks"] += [c.id for c in chunk_units(document, units, chunker)]
    return ids


def test_moving_the_project_keeps_document_unit_and_chunk_ids(tmp_path, sample_documents):
    first = tmp_path / "first" / "my-rag"
    (first / "data" / "documents" / "licences").mkdir(parents=True)
    (first / "spec").mkdir()
    for name in ("GPL-3.0.txt", "MPL-2.0.txt"):
        shutil.copy(sample_documents / name, first / "data" / "documents" / "licences" / name)
    shutil.copy(sample_documents / "fhs-3.0.pdf", first / "data" / "documents" / "fhs-3.0.pdf")
    moved = tmp_path / "elsewhere" / "deeper" / "renamed-project"
    shutil.copytree(first, moved)

    before, after = index_ids(first), index_ids(moved)
    assert before == after
    assert before["documents"] == ["fhs-3.0.pdf", "licences/GPL-3.0.txt", "licences/MPL-2.0.txt"]
    assert len(before["units"]) > 20 and len(set(before["units"])) == len(before["units"])
    assert len(set(before["chunks"])) == len(before["chunks"]) > len(before["units"]) / 2
    assert index_ids(first) == before  # and re-runs in place give the same ids


def test_document_id_is_the_posix_path_relative_to_the_documents_folder(tmp_path):
    nested = tmp_path / "docs" / "a b" / "Ünïcode, file[1].txt"
    nested.parent.mkdir(parents=True)
    nested.write_text("x")
    assert document_id_for_path(nested, tmp_path / "docs") == "a b/Ünïcode, file[1].txt"
    assert document_id_for_path(str(nested), str(tmp_path / "docs" / ".")) == "a b/Ünïcode, file[1].txt"


def test_symlinks_keep_the_name_seen_in_the_documents_folder(tmp_path):
    project = tmp_path / "project"
    docs = project / "data" / "documents"
    docs.mkdir(parents=True)
    (tmp_path / "shared.txt").write_text("kept on a shared drive")
    (docs / "policy.txt").symlink_to(tmp_path / "shared.txt")  # a file outside, linked in
    (docs / "alias.txt").symlink_to(docs / "policy.txt")  # two names for one file stay two documents
    assert document_id_for_path(docs / "policy.txt", docs) == "policy.txt"
    assert document_id_for_path(docs / "alias.txt", docs) == "alias.txt"
    linked_project = tmp_path / "link-to-project"
    linked_project.symlink_to(project)  # the same project opened through a symlinked folder
    assert document_id_for_path(linked_project / "data" / "documents" / "policy.txt", docs) == "policy.txt"
    assert document_id_for_path(docs / "policy.txt", linked_project / "data" / "documents") == "policy.txt"


def test_unit_and_chunk_ids_depend_on_every_part():
    base = unit_id_for_path("a.txt", ("Chapter 1", "Section 2"))
    assert base == unit_id_for_path("a.txt", ["Chapter 1", "Section 2"])
    assert base != unit_id_for_path("b.txt", ("Chapter 1", "Section 2"))
    assert base != unit_id_for_path("a.txt", ("Section 2", "Chapter 1"))
    chunk = chunk_id_for(base, "domain", 1)
    assert chunk == chunk_id_for(base, "domain", 1)
    assert len({chunk, chunk_id_for(base, "domain", 2), chunk_id_for(base, "other", 1)}) == 3


@pytest.mark.parametrize("document_id", ["GPL-3.0.txt", "licences/GPL-3.0.txt", "a_b-c.d/e.pdf"])
def test_safe_paths_are_their_own_partition_keys(document_id):
    assert partition_key_for(document_id) == document_id


@pytest.mark.parametrize("document_id", [
    "my file, v2 [draft].pdf", "ก.พ.ร. คำสั่ง.txt", "a/../b.txt", "x...y.txt", "tab\there.txt", "x" * 300,
])
def test_unsafe_names_become_a_slug_plus_hash(document_id):
    key = partition_key_for(document_id)
    assert key != document_id
    assert all(bad not in key for bad in (",", "[", "]", " ", "..", "\t"))
    assert len(key) <= 100 and key.isascii()
    assert key == partition_key_for(document_id)
    assert key != partition_key_for(document_id + "2")  # the hash keeps similar names apart
