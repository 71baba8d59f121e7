"""glibc's arenas are capped where our processes start (``heap.limit_arenas``), unless the user's environment says
how many; checked in a fresh process, as the CLI starts one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = ("from right_rag_dagster.pipeline.heap import limit_arenas; "
         "import sys; sys.exit(0 if limit_arenas() else 3)")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_arenas_are_capped_unless_the_environment_sets_them() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    assert subprocess.run([sys.executable, "-c", PROBE], env=env).returncode == 0
    assert subprocess.run([sys.executable, "-c", PROBE], env={**env, "MALLOC_ARENA_MAX": "4"}).returncode == 3
