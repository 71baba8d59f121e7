"""A right-rag project on disk: ``right_rag.toml``, its folders, the DuckDB store and the plugin registry."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from .config import PipelineConfig
from .core.registry import Registry
from .errors import ConfigError
from .limits import Limits
from .registry import build_registry
from .store.settings import LakeSettings, lake_settings

CONFIG_FILE = "right_rag.toml"
SECTION = "right-rag"
_PATH_KEYS = {"documents_dir": "data/documents", "spec_dir": "spec", "output_dir": "output",
              "store_path": ".right-rag/right_rag.duckdb", "dagster_home": ".dagster",
              "questions_file": "eval/questions.jsonl"}
_TABLES = {"pipeline", "checks", "retrieval", "limits", "store"}
_FLAGS = {"allow_outside_links": False}
_PIPELINE_KEYS = {"document_loaders", "unit_parsers", "chunk_parsers", "unit_savers", "chunk_savers",
                  "fallback_unit_parser"}


@dataclass(frozen=True)
class Project:
    """Paths and settings of one project, read from ``right_rag.toml`` (all keys optional)."""

    root: Path
    documents_dir: Path
    spec_dir: Path
    output_dir: Path
    store_path: Path
    dagster_home: Path
    questions_file: Path
    pipeline: PipelineConfig
    min_coverage_percent: float = 90.0
    smoke_test: bool = False
    retrieval: dict[str, Any] = field(default_factory=dict)
    limits: Limits = field(default_factory=lambda: Limits().resolved())
    allow_outside_links: bool = False  # index files reached through symbolic links that leave documents_dir
    lake: LakeSettings | None = None
    """``[right-rag.store] backend = "ducklake"``: the store is that DuckLake, not the file at ``store_path``."""

    @classmethod
    def load(cls, root: str | Path | None = None) -> Project:
        """Read the project at ``root`` (default: ``RIGHT_RAG_PROJECT`` or the current directory)."""
        base = Path(root or os.environ.get("RIGHT_RAG_PROJECT") or ".").resolve()
        config_path = base / CONFIG_FILE
        settings: dict[str, Any] = {}
        if config_path.is_file():
            try:
                payload = tomllib.loads(config_path.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"cannot read {config_path}: {exc}") from exc
            settings = payload.get(SECTION, {})
            if not isinstance(settings, dict):
                raise ConfigError(f"{config_path} must contain a [{SECTION}] table")
        unknown = set(settings) - set(_PATH_KEYS) - _TABLES - set(_FLAGS)
        if unknown:
            raise ConfigError(f"unknown keys in {config_path}: {sorted(unknown)}; "
                              f"known: {sorted(set(_PATH_KEYS) | _TABLES | set(_FLAGS))}")
        for flag in _FLAGS:
            if not isinstance(settings.get(flag, False), bool):
                raise ConfigError(f"{flag} in {config_path} must be true or false")
        paths = {key: (base / str(settings.get(key, default))).resolve() for key, default in _PATH_KEYS.items()}
        pipeline = settings.get("pipeline", {})
        unknown = set(pipeline) - _PIPELINE_KEYS
        if unknown:
            raise ConfigError(f"unknown keys in [{SECTION}.pipeline] of {config_path}: {sorted(unknown)}; "
                              f"known: {sorted(_PIPELINE_KEYS)}")
        checks = settings.get("checks", {})
        return cls(
            root=base,
            pipeline=PipelineConfig(
                spec_root_package=str(paths["spec_dir"]),
                document_root_folder=str(paths["documents_dir"]),
                output_folder=str(paths["output_dir"]),
                document_loader_names=pipeline.get("document_loaders"),
                unit_parser_names=pipeline.get("unit_parsers"),
                chunk_parser_names=pipeline.get("chunk_parsers"),
                unit_saver_names=pipeline.get("unit_savers"),
                chunk_saver_names=pipeline.get("chunk_savers"),
                fallback_unit_parser_name=pipeline.get("fallback_unit_parser") or None,
            ),
            min_coverage_percent=float(checks.get("min_coverage_percent", 90.0)),
            smoke_test=bool(checks.get("smoke_test", False)),
            retrieval=dict(settings.get("retrieval", {})),
            limits=Limits.from_settings(dict(settings.get("limits", {})), str(config_path)),
            allow_outside_links=bool(settings.get("allow_outside_links", False)),
            lake=lake_settings(dict(settings.get("store", {})), str(base), str(config_path)),
            **paths,
        )

    @cached_property
    def registry(self) -> Registry:
        return build_registry(self.spec_dir)

    def selected(self, kind: str) -> list[str]:
        """Names of the plugins of ``kind`` this project's pipeline uses."""
        return self.registry.resolve_names(kind, self.pipeline.names_for(kind))

    def fallback_unit_parser(self) -> str | None:
        """The configured fallback unit parser, validated: a registered name that is not also a domain parser."""
        name = self.pipeline.fallback_unit_parser_name
        if name is None:
            return None
        self.registry.info("unit_parsers", name)  # unknown name: ConfigError listing the available ones
        if name in self.selected("unit_parsers"):
            raise ConfigError(f"fallback_unit_parser {name!r} is also a selected unit parser; a fallback only takes "
                              "documents no unit parser accepts, so leave it out of [right-rag.pipeline] unit_parsers")
        return name
