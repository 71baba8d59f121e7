"""``startup.bulk_imports``: the collector pauses for the block and resumes after it; it freezes what the block
made only in processes that asked for it (the ``right-rag`` executable), never in a long-lived one like this."""

from __future__ import annotations

import gc
import subprocess
import sys

from right_rag_dagster.startup import bulk_imports

FREEZE_COUNT = """
import gc
from right_rag_dagster import startup
{ask}
before = gc.get_freeze_count()
with startup.bulk_imports():
    import dagster  # noqa: F401
print(gc.get_freeze_count() - before, gc.isenabled())
"""


def test_the_collector_pauses_for_the_block_and_resumes_after_it() -> None:
    assert gc.isenabled()
    with bulk_imports():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_in_the_block_still_resumes_collecting() -> None:
    try:
        with bulk_imports():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.isenabled()


def test_a_paused_collector_stays_paused() -> None:
    gc.disable()
    try:
        with bulk_imports():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_this_process_freezes_nothing() -> None:
    before = gc.get_freeze_count()
    with bulk_imports():
        made = [[index] for index in range(1000)]
    assert gc.get_freeze_count() == before
    assert len(made) == 1000


def _frozen(ask: str) -> tuple[int, bool]:
    done = subprocess.run([sys.executable, "-c", FREEZE_COUNT.format(ask=ask)], capture_output=True, text=True,
                          timeout=120, check=True)
    frozen, enabled = done.stdout.split()
    return int(frozen), enabled == "True"


def test_a_process_that_asked_freezes_what_dagster_made() -> None:
    frozen, enabled = _frozen("startup.freeze_after_imports()")
    assert frozen > 100_000  # Dagster's import leaves several hundred thousand objects
    assert enabled


def test_a_process_that_did_not_ask_freezes_nothing() -> None:
    assert _frozen("") == (0, True)
