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


def test_documents_are_planned_in_groups_bounded_by_count_and_bytes():
    from right_rag_dagster.pipeline.runner import PLAN_BYTES, PLAN_GROUP, plan_groups

    def files(*sizes: int) -> list[DocumentFile]:
        return [DocumentFile(f"{n}.txt", f"{n}.txt", Path(f"{n}.txt"), size, 0.0, "h") for n, size in enumerate(sizes)]

    small = files(*[1000] * (PLAN_GROUP + 5))  # the scale corpus's copyright files: a few KB each
    assert [len(g) for g in plan_groups(small)] == [PLAN_GROUP, 5]
    large = files(PLAN_BYTES // 2, PLAN_BYTES // 2, 1, 3 * PLAN_BYTES, 1)  # a file over the budget goes alone
    assert [[f.document_id for f in g] for g in plan_groups(large)] == [["0.txt", "1.txt"], ["2.txt"], ["3.txt"],
                                                                        ["4.txt"]]
    assert list(plan_groups([])) == []
