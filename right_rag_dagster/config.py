"""``PipelineConfig``: which plugins a run uses (right-rag's names and semantics)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PipelineConfig:
    """Plugin selection for a run. ``None`` = every registered plugin (smoke-test defaults excluded once a
    user plugin of that kind exists), ``[]`` = none, an unknown name = an error listing the available ones.
    """

    spec_root_package: str = "spec"
    document_root_folder: str = "data/documents"
    output_folder: str = "output"
    document_loader_names: list[str] | None = None
    unit_parser_names: list[str] | None = None
    chunk_parser_names: list[str] | None = None
    unit_saver_names: list[str] | None = None
    chunk_saver_names: list[str] | None = None
    fallback_unit_parser_name: str | None = None
    """A unit parser used only for documents no selected unit parser accepts (never competing with them)."""

    def names_for(self, kind: str) -> list[str] | None:
        return {
            "document_loaders": self.document_loader_names,
            "unit_parsers": self.unit_parser_names,
            "chunk_parsers": self.chunk_parser_names,
            "unit_savers": self.unit_saver_names,
            "chunk_savers": self.chunk_saver_names,
        }.get(kind)
