"""The benchmark's documents: the scale corpus, a deterministic N-times corpus made from it (cached), and edits.

The N-times corpus keeps copy 0 of every file as it is and adds copies 1..N-1 named ``<stem>.copy<k><suffix>``,
each with a marker appended to one line of every blank-line-separated block, so that no unit or chunk text is
shared between copies (an engine that deduplicated text across documents would otherwise look faster here
than on real files) while every block keeps its structure (a DEP-5 field stays a field).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
GENERATOR_VERSION = "1"
"""Part of the cache key: change it with how copies are made, so a stale cache is not reused."""
_BLOCK_END = re.compile(r"(\S)([ \t]*)(?=\n[ \t]*\n|\n?\Z)")


def corpus_files(corpus: Path) -> list[Path]:
    """Every file under ``corpus`` (hidden ones left out), sorted."""
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and not p.name.startswith("."))
    if not files:
        raise SystemExit(f"no files in {corpus}: pass --corpus DIR with the documents to index")
    return files


def copy_corpus(corpus: Path, target: Path) -> list[Path]:
    """Copy ``corpus`` into ``target`` (a fresh documents folder); returns the copies, sorted."""
    copies = []
    for path in corpus_files(corpus):
        destination = target / path.relative_to(corpus)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
        destination.chmod(destination.stat().st_mode | stat.S_IWUSR)  # the benchmark edits its copies
        copies.append(destination)
    return copies


def text_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder``: the document text's size for plain-text corpora (UTF-8 files)."""
    return sum(p.stat().st_size for p in corpus_files(folder))


def scaled_corpus(source: Path, factor: int, cache: Path = CACHE) -> Path:
    """``factor`` copies of every file of ``source`` (see the module docstring), made once under ``cache``."""
    if factor == 1:
        return source
    files = corpus_files(source)
    fingerprint = hashlib.sha256("\n".join(
        [GENERATOR_VERSION, str(factor), *(f"{p.relative_to(source)}:{p.stat().st_size}" for p in files)]
    ).encode()).hexdigest()[:12]
    target = cache / f"corpus-x{factor}-{source.name}-{fingerprint}"
    if (target / ".complete").is_file():
        return target
    shutil.rmtree(target, ignore_errors=True)
    for path in files:
        relative = path.relative_to(source)
        text = path.read_text(encoding="utf-8", errors="replace")
        for k in range(factor):
            destination = target / relative.with_name(copy_name(relative.name, k))
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_text(text if k == 0 else mark_blocks(text, k), encoding="utf-8")
    (target / ".complete").write_text(str(len(files) * factor), encoding="utf-8")
    return target


def copy_name(name: str, k: int) -> str:
    """``name`` for copy 0, ``<stem>.copy<k><suffix>`` for the others (keeps ``.copyright`` at the end)."""
    if k == 0:
        return name
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}.copy{k}.{suffix}" if dot and stem else f"{name}.copy{k}"


def mark_blocks(text: str, k: int) -> str:
    """Append `` [copy k]`` to the last line of every blank-line-separated block of ``text``."""
    return _BLOCK_END.sub(lambda m: f"{m.group(1)} [copy {k}]{m.group(2)}", text)


def append_line(path: Path, tag: str) -> None:
    """The 'changed file' edit: one line appended, so content hash and size change."""
    with path.open("a", encoding="utf-8") as out:
        out.write(f"\nEdited by bench/real_projects.py ({tag}).\n")


def edit_share(documents: Path, share: float, tag: str) -> list[Path]:
    """Append a line to every ``round(1/share)``-th file of ``documents`` (sorted): ``share`` of the files."""
    files = corpus_files(documents)
    step = max(1, round(1 / share))
    edited = files[::step]
    for path in edited:
        append_line(path, tag)
    return edited


def middle_file(files: Sequence[Path]) -> Path:
    """The file the one-changed-file case edits: the middle one of the sorted list."""
    return sorted(files)[len(files) // 2]
