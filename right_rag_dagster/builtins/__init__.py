"""Built-in plugins: one module per plugin, handed to the registry by kind (``builtin_plugins``)."""

from __future__ import annotations

from types import ModuleType


def builtin_plugins() -> dict[str, tuple[ModuleType, ...]]:
    """The built-in plugin modules by kind (a project's spec plugin of the same name replaces one)."""
    from .chunk_parsers import default as default_chunker
    from .chunk_savers import default as default_chunk_saver
    from .document_loaders import default as default_loader
    from .unit_parsers import default as default_unit_parser
    from .unit_parsers import generic as generic_unit_parser
    from .unit_savers import default as default_unit_saver

    return {
        "document_loaders": (default_loader,),
        "unit_parsers": (default_unit_parser, generic_unit_parser),
        "chunk_parsers": (default_chunker,),
        "unit_savers": (default_unit_saver,),
        "chunk_savers": (default_chunk_saver,),
    }
