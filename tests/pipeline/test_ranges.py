"""Writer slices: contiguous in partition order, about equal bytes, never empty, never more than the writers."""

from __future__ import annotations

from pathlib import Path

import pytest

from right_rag_dagster.pipeline.ranges import contiguous_ranges
from right_rag_dagster.pipeline.scan import DocumentFile


def doc(key: str, size: int) -> DocumentFile:
    return DocumentFile(key, key, Path(key), size, 0.0, key)


def test_slices_are_contiguous_and_balanced_by_bytes() -> None:
    order = [f"d{i:02}" for i in range(10)]
    todo = [doc(k, 1000 if k == "d00" else 100) for k in reversed(order)]
    slices = contiguous_ranges(order, todo, 2)
    assert [[f.partition_key for f in s] for s in slices] == [["d00"], [f"d{i:02}" for i in range(1, 10)]]
    four = contiguous_ranges(order, [doc(k, 10) for k in order], 4)
    assert [len(s) for s in four] == [3, 2, 3, 2]
    assert [f.partition_key for s in four for f in s] == order


@pytest.mark.parametrize("writers", [1, 2, 3, 7])
def test_never_more_slices_than_writers_or_files(writers: int) -> None:
    order = ["a", "b", "c"]
    slices = contiguous_ranges(order, [doc(k, 5) for k in order], writers)
    assert len(slices) == min(writers, 3) and all(slices)
    with pytest.raises(ValueError):
        contiguous_ranges(order, [], 0)

