"""right-rag 0.2.5 from PyPI, for the side-by-side benchmark: a cached Python 3.13 venv and an initialised project."""

from __future__ import annotations

import glob
import shutil
import subprocess
import sys
from pathlib import Path

VERSION = "0.2.5"
CACHE = Path(__file__).resolve().parent / ".cache"


class SetupError(RuntimeError):
    """right-rag 0.2.5 cannot be installed here; the message says what to install or pass."""


def find_python313() -> Path:
    """A Python 3.13 interpreter (right-rag 0.2.5 requires it): pyenv's first, then ``python3.13`` on PATH."""
    candidates = sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.13*/bin/python")))
    on_path = shutil.which("python3.13")
    if on_path:
        candidates.append(on_path)
    if not candidates:
        raise SetupError("right-rag 0.2.5 needs Python 3.13: install it (e.g. `pyenv install 3.13`) "
                         "or run the benchmark with --skip-right-rag")
    return Path(candidates[0])


def ensure_venv(cache: Path = CACHE) -> Path:
    """The ``right-rag`` script of a venv holding right-rag==0.2.5, created once under ``cache``."""
    venv = cache / f"right-rag-{VERSION}"
    script = venv / "bin" / "right-rag"
    marker = venv / ".installed"
    if script.exists() and marker.exists():
        return script
    shutil.rmtree(venv, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    _run([str(find_python313()), "-m", "venv", str(venv)], "create the Python 3.13 venv")
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"right-rag=={VERSION}"],
         f"pip install right-rag=={VERSION} (needs PyPI)")
    marker.write_text(VERSION, encoding="utf-8")
    return script


def init_project(script: Path, root: Path) -> None:
    """``right-rag init`` at ``root``; the caller copies the documents into its data/documents.

    0.2.5's default configuration loads every UTF-8 file under data/documents with all registered plugins
    (the init-generated spec/ re-exports the defaults), in ``incremental`` mode with a JSON state file.
    """
    _run([str(script), "init", str(root)], "right-rag init")


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise SetupError(f"could not {what}: " + " | ".join(tail))


if __name__ == "__main__":
    print(ensure_venv(), file=sys.stdout)
