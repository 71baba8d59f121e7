"""The one change planner: classification, and the sensor's reading by content and partitions."""

from __future__ import annotations

from pathlib import Path

from right_rag_dagster.pipeline.plan import folder_changes, plan_changes
from right_rag_dagster.pipeline.scan import DocumentFile


def _file(doc: str, content_hash: str) -> DocumentFile:
    return DocumentFile(doc, doc, Path(doc), 1, 0.0, content_hash)


def test_plan_changes_classifies_against_what_was_done():
    files = [_file("a.txt", "h1"), _file("b.txt", "h2"), _file("c.txt", "h3")]
    done = {"a.txt": "h1", "b.txt": "old"}
    changes = plan_changes(files, done, lambda f, mark: mark == f.content_hash,
                           {"a.txt": "a.txt", "b.txt": "b.txt", "gone.txt": "gone.txt"})
    assert [f.document_id for f in changes.new] == ["c.txt"]
    assert [f.document_id for f in changes.changed] == ["b.txt"]
    assert [f.document_id for f in changes.unchanged] == ["a.txt"]
    assert changes.removed == (("gone.txt", "gone.txt"),)


def test_folder_changes_adds_deletes_and_covers_the_range():
    files = [_file("a.txt", "h1"), _file("b.txt", "h2"), _file("d.txt", "h4")]
    indexed = {"a.txt": ("a.txt", "h1"), "b.txt": ("b.txt", "old"), "c.txt": ("c.txt", "h3")}
    changes = folder_changes(files, ["a.txt", "b.txt", "c.txt", "stray"], indexed)
    assert changes.add_keys == ("d.txt",)
    assert changes.delete == (("c.txt", "c.txt"), ("", "stray"))
    assert [f.document_id for f in changes.to_index] == ["b.txt", "d.txt"]
    assert (changes.range_start, changes.range_end) == ("b.txt", "d.txt")
    assert changes.run_key.startswith("docs-")
