"""Spec plugins share code through private helper modules beside them (``load_helper``), part of their version."""

from __future__ import annotations

from pathlib import Path

from right_rag_dagster.core.model import Document
from right_rag_dagster.registry import build_registry

PARSER = '''
from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.registry import load_helper

H = load_helper(__file__, "_words.py")


class ShoutParser(UnitParser):
    @property
    def parser_name(self):
        return "shout"

    def parser_can_handle_document(self, document):
        return H.LOUD in document.text

    def parse_document(self, document):
        return []
'''


def test_helpers_are_loaded_beside_the_plugin_and_change_its_version(tmp_path: Path, write_plugin) -> None:
    write_plugin(tmp_path, "unit_parsers", "shout.py", PARSER)
    helper = write_plugin(tmp_path, "unit_parsers", "_words.py", 'LOUD = "HEY"\n')
    first = build_registry(tmp_path)
    assert not first.errors and first.names("unit_parsers") == ["default", "generic", "shout"]  # the helper is no plugin
    assert first.create("unit_parsers", "shout").parser_can_handle_document(Document("a.txt", "HEY you"))
    helper.write_text('LOUD = "HO"\n', encoding="utf-8")
    second = build_registry(tmp_path)
    assert second.version("unit_parsers", "shout") != first.version("unit_parsers", "shout")
    assert second.create("unit_parsers", "shout").parser_can_handle_document(Document("a.txt", "HO there"))
