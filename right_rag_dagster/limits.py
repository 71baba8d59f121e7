"""Limits of an index run, from ``[right-rag.limits]`` in right_rag.toml: workers, per-document time and memory,
file size, write-batch size and the share of documents a faulty plugin may spoil before the run stops."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import ConfigError


def default_workers() -> int:
    """One per CPU but the one the main process needs (it writes the store and Dagster's events), at most 4."""
    return max(1, min(4, (os.cpu_count() or 1) - 1))


@dataclass(frozen=True)
class Limits:
    """Defaults a user would not hit on normal documents; each one is a key of ``[right-rag.limits]``."""

    workers: int = -1  # parsing processes; -1 = one per CPU less one (1..4); 0 = in this process, without limits
    document_seconds: float = 300.0  # load + parse + chunk of one document
    document_memory_mb: int = 2048  # resident memory of a worker while it processes one document
    file_mb: float = 256.0  # larger files are rejected without being read
    # text, units and chunks of the documents written in one transaction (DuckDB's budget for it is 6x that): at 4
    # the sample project's full index peaked at 446-471 MB, at 8 at 470-486 MB, in the same time (at 2, 14% slower);
    # on the 10x corpus 536 MB against 573 MB, 2% slower (docs/performance.md, twenty-second round)
    batch_mb: float = 4.0
    plugin_fault_share: float = 0.5  # a plugin that fails on, or shares a claim to, more documents stops the run
    plugin_fault_minimum: int = 3  # ... once it spoiled at least this many

    @classmethod
    def from_settings(cls, settings: dict[str, Any], where: str) -> Limits:
        known = {f.name: type(f.default) for f in fields(cls)}
        unknown = set(settings) - set(known)
        if unknown:
            raise ConfigError(f"unknown keys in [right-rag.limits] of {where}: {sorted(unknown)}; known: {sorted(known)}")
        values: dict[str, Any] = {}
        for name, value in settings.items():
            kind = known[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (
                    kind is int and value != int(value)):
                what = "a whole number" if kind is int else "a number"
                raise ConfigError(f"[right-rag.limits] {name} in {where} must be {what} >= 0, not {value!r}")
            values[name] = kind(value)
        if values.get("plugin_fault_share", 0.5) > 1:
            raise ConfigError(f"[right-rag.limits] plugin_fault_share in {where} is a share of documents (0..1)")
        return cls(**values).resolved()

    def resolved(self) -> Limits:
        """With the number of workers decided (one per CPU when not set)."""
        return self if self.workers >= 0 else replace(self, workers=default_workers())
