"""The projects the benchmark indexes, each made as a user would make it, and how to run `index` in each.

- same plugin: right-rag's ``paragraph_stanzas.py`` as the only unit parser (default loader and chunker), in
  right-rag 0.2.5 as it is and in right-rag-dagster with ``right_rag.`` imports swapped for ``right_rag_dagster.``;
- sample: this repository's ``spec/`` and ``right_rag.toml`` as they are, with or without its questions file.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from _corpus import copy_corpus
from _rightrag025 import ensure_venv, init_project

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" if (REPO.parent / "shared").is_dir() else Path("/work/shared")
PLUGIN = SHARED / "corpus" / "plugins" / "paragraph_stanzas.py"
PLUGIN_NAME = "paragraph-stanzas"
RIGHT_RAG = Path(sys.executable).parent / "right-rag"
ENGINE_ENV_PREFIXES = ("RIGHT_RAG_", "DAGSTER_")
"""Variables stripped from right-rag-dagster's environment, so every run uses the project's defaults."""


@dataclass(frozen=True)
class Project:
    """One indexed project: its name in the table, its folder, how to run ``index`` there, and which engine."""

    name: str
    label: str
    root: Path
    command: list[str]
    env: dict[str, str]
    engine: str  # "right-rag-dagster" or "right-rag 0.2.5"
    documents: Path = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "documents", self.root / "data" / "documents")

    @property
    def ours(self) -> bool:
        return self.engine == "right-rag-dagster"

    def store_files(self) -> list[Path]:
        """The DuckDB store and its write-ahead log (right-rag-dagster's default store path)."""
        store = self.root / ".right-rag" / "right_rag.duckdb"
        return [store, Path(f"{store}.wal")]

    def other_store_files(self) -> list[Path]:
        """Everything else under ``.right-rag/`` (the evaluation store, ...), reported beside the store."""
        folder = self.root / ".right-rag"
        keep = set(self.store_files())
        return sorted(p for p in folder.glob("*") if p.is_file() and p not in keep) if folder.is_dir() else []


def ours_env(extra: dict[str, str]) -> dict[str, str]:
    """This environment without the engine's settings (defaults apply) and without PYTHONDONTWRITEBYTECODE (an
    installed package has its bytecode; compiled from source, every run paid ~0.3 s more), plus ``extra``."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(ENGINE_ENV_PREFIXES) and k != "PYTHONDONTWRITEBYTECODE"} | extra


def compile_engine() -> None:
    """Write the engine's bytecode once, as installing it does (an editable checkout has none)."""
    import compileall

    compileall.compile_dir(REPO / "right_rag_dagster", quiet=1)


def add_documents(root: Path, corpus: Path, link: bool = False) -> None:
    """Copy ``corpus`` to the project's data/documents (``link``: a symlink, for read-only uses)."""
    documents = root / "data" / "documents"
    if link:
        documents.parent.mkdir(parents=True, exist_ok=True)
        documents.symlink_to(corpus, target_is_directory=True)
    else:
        copy_corpus(corpus, documents)


def same_plugin_ours(root: Path, corpus: Path, extra_env: dict[str, str], link: bool = False) -> Project:
    """right-rag-dagster project whose only unit parser is the right-rag plugin, imports swapped."""
    (root / "spec" / "unit_parsers").mkdir(parents=True)
    source = PLUGIN.read_text(encoding="utf-8").replace("right_rag.", "right_rag_dagster.")
    (root / "spec" / "unit_parsers" / PLUGIN.name).write_text(source, encoding="utf-8")
    (root / "right_rag.toml").write_text(
        f'[right-rag]\n\n[right-rag.pipeline]\nunit_parsers = ["{PLUGIN_NAME}"]\n', encoding="utf-8")
    add_documents(root, corpus, link)
    return Project("same-plugin", "same plugin, right-rag-dagster", root, _index_command(root), ours_env(extra_env),
                   "right-rag-dagster")


def same_plugin_025(root: Path, corpus: Path) -> Project:
    """right-rag 0.2.5 (cached venv) after ``right-rag init``, with the plugin as its only unit parser."""
    script = ensure_venv()
    init_project(script, root)
    shutil.copy2(PLUGIN, root / "spec" / "unit_parsers" / PLUGIN.name)
    with (root / "right_rag.toml").open("a", encoding="utf-8") as config:
        config.write(f'unit_parser_names = ["{PLUGIN_NAME}"]\n')
    add_documents(root, corpus)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return Project("same-plugin-025", "same plugin, right-rag 0.2.5", root, [str(script), "index"], env,
                   "right-rag 0.2.5")


def sample(name: str, label: str, root: Path, corpus: Path, questions: bool, extra_env: dict[str, str],
           link: bool = False) -> Project:
    """This repository's sample project (spec/, right_rag.toml, workspace.yaml) over ``corpus``; its questions
    file (eval/questions.jsonl, where right_rag.toml points) only with ``questions``."""
    root.mkdir(parents=True)
    shutil.copytree(REPO / "spec", root / "spec", ignore=shutil.ignore_patterns("__pycache__"))
    for name_ in ("right_rag.toml", "workspace.yaml"):
        shutil.copy2(REPO / name_, root / name_)
    if questions:
        (root / "eval").mkdir()
        shutil.copy2(REPO / "eval" / "questions.jsonl", root / "eval" / "questions.jsonl")
    add_documents(root, corpus, link)
    return Project(name, label, root, _index_command(root), ours_env(extra_env), "right-rag-dagster")


def _index_command(root: Path) -> list[str]:
    return [str(RIGHT_RAG), "--project", str(root), "index", "--quiet"]
