"""Import the benchmark's modules (bench/ is a folder of scripts, not a package) the way its scripts do."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
