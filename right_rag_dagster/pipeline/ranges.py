"""The documents to index, split into contiguous partition ranges of about equal bytes: one per writer.

A Dagster run covers one partition range (``dagster/asset_partition_range_start`` and ``_end``), so several
writers that are Dagster runs each take a contiguous slice of the partition order. Slices are cut where the
running total of bytes passes the next ``total / writers`` mark, so writers get similar work, not merely similar
file counts. Unchanged documents inside a slice cost its run a hash comparison each and are not rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence

from .scan import DocumentFile


def contiguous_ranges(order: Sequence[str], todo: Sequence[DocumentFile], writers: int) -> list[list[DocumentFile]]:
    """``todo`` in partition ``order``, cut into at most ``writers`` non-empty slices of about equal bytes."""
    if writers < 1:
        raise ValueError(f"writers must be at least 1, not {writers}")
    position = {key: i for i, key in enumerate(order)}
    files = sorted(todo, key=lambda f: position.get(f.partition_key, len(position)))
    total = sum(max(f.size, 1) for f in files)
    slices: list[list[DocumentFile]] = [[]]
    done = 0
    for i, file in enumerate(files):
        left = len(files) - i  # never leave fewer files than slices still to fill
        if slices[-1] and len(slices) < writers and (done >= total * len(slices) / writers
                                                    or left <= writers - len(slices)):
            slices.append([])
        slices[-1].append(file)
        done += max(file.size, 1)
    return [s for s in slices if s]
