"""Fixtures for the sample project's parsers: the registry of spec/ and the development documents, loaded once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from right_rag_dagster.core.model import Document, Unit
from right_rag_dagster.core.units import build_units
from right_rag_dagster.registry import Registry, build_registry

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCALE_DIR = Path("/work/shared/corpus/scale")


@pytest.fixture(scope="session")
def spec_registry() -> Registry:
    """Built-ins plus the plugins of the sample project's ``spec/`` folder."""
    registry = build_registry(REPO_ROOT / "spec")
    assert not registry.errors, [str(e) for e in registry.errors]
    return registry


@pytest.fixture(scope="session")
def load_document(spec_registry: Registry) -> Callable[[Path], Document]:
    """Load a file with the default loader (cached: Docling and the 193-page PDF are slow to read)."""
    loader = spec_registry.create("document_loaders", "default")
    cache: dict[Path, Document] = {}

    def load(path: Path) -> Document:
        if path not in cache:
            cache[path] = loader.load_document(path, path.name)
        return cache[path]

    return load


@pytest.fixture(scope="session")
def parse(spec_registry: Registry, load_document: Callable[[Path], Document]) -> Callable[[str, Path], tuple]:
    """``parse(parser_name, path)`` -> (document, unit trees), cached per parser and file."""
    cache: dict[tuple[str, Path], tuple[Document, list[Unit]]] = {}

    def run(parser_name: str, path: Path) -> tuple[Document, list[Unit]]:
        key = (parser_name, path)
        if key not in cache:
            document = load_document(path)
            parser = spec_registry.create("unit_parsers", parser_name)
            assert parser.parser_can_handle_document(document), f"{parser_name} should accept {path.name}"
            cache[key] = (document, build_units(document, parser.parse_document(document), parser_name))
        return cache[key]

    return run
