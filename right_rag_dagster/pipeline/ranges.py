"""The documents to index, split into contiguous partition ranges of about equal estimated work.

A Dagster run covers one partition range (``dagster/asset_partition_range_start`` and ``_end``), so several
writers that are Dagster runs each take a contiguous slice of the partition order. Slices are cut where the
running total of estimated work passes the next mark, so writers get similar work, not merely similar file
counts. A document's work is its bytes plus a fixed cost per document (``DOCUMENT_COST_BYTES``). Unchanged
documents inside a slice cost its run a hash comparison each and are not rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

from .scan import DocumentFile

DOCUMENT_COST_BYTES = 20_000
"""What a document costs besides its bytes, in bytes of text that cost as much. On the scale corpus a 2 MB file
took ~5 CPU s to parse and write (~2.4 s per MB), while its other 706 files (9 MB) took ~55 s: ~0.05 s each for
its Dagster events, rows and files. By bytes alone, two ranges of equal bytes held 79 and 201 documents, and the
second took twice as long."""


TAPER = 8.0
"""With ``taper``, how many times the first slice's work the last one's is. Estimated work is not work (a fresh
writer's first range, a parser slow on some files), and the writer that takes the last slice finishes alone: at 8,
for 2 writers and 8 slices, the last holds 3.5% of the work (the first 28%), where a linear taper from 2 to 1 left
it 9%."""


def estimated_work(file: DocumentFile) -> int:
    return max(file.size, 0) + DOCUMENT_COST_BYTES


def contiguous_ranges(order: Sequence[str], todo: Sequence[DocumentFile], writers: int,
                      taper: bool = False) -> list[list[DocumentFile]]:
    """``todo`` in partition ``order``, cut into at most ``writers`` non-empty slices of about equal work; with
    ``taper``, of geometrically decreasing work (the first ``TAPER`` times the last), for slices handed out in
    order to fewer writers as they become free: the last ones, small, leave little for one writer to finish
    alone."""
    if writers < 1:
        raise ValueError(f"writers must be at least 1, not {writers}")
    position = {key: i for i, key in enumerate(order)}
    files = sorted(todo, key=lambda f: position.get(f.partition_key, len(position)))
    total = sum(estimated_work(f) for f in files)
    shares = [TAPER ** (-i / (writers - 1)) for i in range(writers)] if taper and writers > 1 else [1.0] * writers
    marks = [total * s / sum(shares) for s in accumulate(shares)]
    slices: list[list[DocumentFile]] = [[]]
    done = 0
    for i, file in enumerate(files):
        left = len(files) - i  # never leave fewer files than slices still to fill
        if slices[-1] and len(slices) < writers and (done >= marks[len(slices) - 1]
                                                    or left <= writers - len(slices)):
            slices.append([])
        slices[-1].append(file)
        done += estimated_work(file)
    return [s for s in slices if s]
