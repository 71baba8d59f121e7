"""Writer slices: contiguous in partition order, about equal estimated work (bytes plus a cost per document), never
empty, never more than the writers; tapered, of decreasing work."""

from __future__ import annotations

from pathlib import Path

import pytest

from right_rag_dagster.pipeline.ranges import DOCUMENT_COST_BYTES, contiguous_ranges, estimated_work
from right_rag_dagster.pipeline.scan import DocumentFile


def doc(key: str, size: int) -> DocumentFile:
    return DocumentFile(key, key, Path(key), size, 0.0, key)


def test_slices_are_contiguous_and_balanced_by_estimated_work() -> None:
    order = [f"d{i:02}" for i in range(10)]
    big = 9 * (100 + DOCUMENT_COST_BYTES) - DOCUMENT_COST_BYTES  # as much work as the nine others together
    todo = [doc(k, big if k == "d00" else 100) for k in reversed(order)]
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



def test_files_count_besides_their_bytes() -> None:
    """Many small files are more work than their bytes say: cut by bytes, the first half would be d00 alone (20
    of 40 units) and hold 21 units of work against the other half's 40."""
    order = [f"d{i:02}" for i in range(21)]
    todo = [doc(k, 20 * DOCUMENT_COST_BYTES if k == "d00" else DOCUMENT_COST_BYTES) for k in order]
    first, second = contiguous_ranges(order, todo, 2)
    assert [f.partition_key for f in first] == order[:6]  # 31 units of work against 30


def test_tapered_slices_shrink_and_keep_every_file() -> None:
    order = [f"d{i:03}" for i in range(400)]
    todo = [doc(k, 1000) for k in order]
    slices = contiguous_ranges(order, todo, 8, taper=True)
    work = [sum(estimated_work(f) for f in s) for s in slices]
    assert len(slices) == 8 and work == sorted(work, reverse=True) and 6 < work[0] / work[-1] < 10
    assert [f.partition_key for s in slices for f in s] == order
