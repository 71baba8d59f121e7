"""How many partition ranges ``right-rag index --writers N`` hands out to its writer processes."""

from __future__ import annotations

from right_rag_dagster.orchestration.writers import (
    MIN_RANGE_DOCUMENTS,
    RANGES_PER_WRITER,
    range_count,
)


def test_writers_share_more_ranges_once_each_range_holds_enough_documents() -> None:
    assert range_count(2, 1) == 1 and range_count(2, 3) == 2  # one per writer at least, never an empty one
    assert range_count(2, 2 * MIN_RANGE_DOCUMENTS) == 2
    assert range_count(2, 3 * MIN_RANGE_DOCUMENTS) == 3
    assert range_count(2, 710) == 2 * RANGES_PER_WRITER
    assert range_count(1, 710) == RANGES_PER_WRITER  # (the CLI runs one writer in one run, without ranges)
