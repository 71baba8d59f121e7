"""Plugin contracts. Each plugin is a no-argument class with a name property and one or two methods.

Put subclasses under ``spec/<kind>/`` of a project; the registry finds them. A plugin's version is the hash
of its source file (with its ``_*.py`` helpers and the package modules it imports), so editing a parser changes its
version (and marks its Dagster assets unsynced).
Set ``selected_by_default = False`` on a class to keep it out of ``None`` ("all registered") selections.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import ClassVar

from .model import Chunk, Document, ParsedUnit, Unit


class DocumentLoader(ABC):
    """Reads one file into a ``Document``; raise ``DocumentRejected`` with a reason for bad input."""

    selected_by_default: ClassVar[bool] = True

    @property
    @abstractmethod
    def loader_name(self) -> str: ...

    @abstractmethod
    def can_load(self, path: Path) -> bool:
        """True when this loader reads files like ``path`` (usually by suffix)."""

    @abstractmethod
    def load_document(self, path: Path, document_id: str) -> Document:
        """Load ``path``; ``document_id`` is its path relative to the documents folder."""


class UnitParser(ABC):
    """Turns one document family into faithful ``ParsedUnit`` trees. Accept only the family you own."""

    selected_by_default: ClassVar[bool] = True

    @property
    @abstractmethod
    def parser_name(self) -> str: ...

    @abstractmethod
    def parser_can_handle_document(self, document: Document) -> bool: ...

    @abstractmethod
    def parse_document(self, document: Document) -> Iterable[ParsedUnit]: ...


class ChunkParser(ABC):
    """Cuts retrieval-ready ``Chunk`` records from one ``Unit`` (chunk inside units, never across them)."""

    selected_by_default: ClassVar[bool] = True

    @property
    @abstractmethod
    def parser_name(self) -> str: ...

    @abstractmethod
    def parse_unit(self, unit: Unit) -> Iterable[Chunk]: ...


class UnitSaver(ABC):
    """Writes a document's units somewhere besides the DuckDB store (files, another database, ...)."""

    selected_by_default: ClassVar[bool] = True

    @property
    @abstractmethod
    def saver_name(self) -> str: ...

    @abstractmethod
    def save_units(self, document_id: str, units: Sequence[Unit], output_dir: Path) -> None: ...

    def delete_document(self, document_id: str, output_dir: Path) -> None:
        """Remove what was saved for a document that left the corpus (default: nothing to remove)."""


class ChunkSaver(ABC):
    """Writes a document's chunks of one chunk parser somewhere besides the DuckDB store."""

    selected_by_default: ClassVar[bool] = True

    @property
    @abstractmethod
    def saver_name(self) -> str: ...

    @abstractmethod
    def save_chunks(self, document_id: str, chunker: str, chunks: Sequence[Chunk], output_dir: Path) -> None: ...

    def delete_document(self, document_id: str, output_dir: Path) -> None:
        """Remove what was saved for a document that left the corpus (default: nothing to remove)."""


PLUGIN_KINDS: dict[str, tuple[type, str]] = {
    "document_loaders": (DocumentLoader, "loader_name"),
    "unit_parsers": (UnitParser, "parser_name"),
    "chunk_parsers": (ChunkParser, "parser_name"),
    "unit_savers": (UnitSaver, "saver_name"),
    "chunk_savers": (ChunkSaver, "saver_name"),
}
"""Plugin kind (the folder under ``spec/``) -> (interface, name property). Later layers add their own."""
