"""The default savers write right-rag's JSON files: the same bytes as one ``json.dumps`` of the whole payload,
written item by item, and an old file stays whole when a write fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from right_rag_dagster.builtins.chunk_savers.default import DefaultChunkSaver
from right_rag_dagster.builtins.unit_parsers.generic import GenericUnitParser
from right_rag_dagster.builtins.unit_savers.default import DefaultUnitSaver
from right_rag_dagster.core.hashing import to_jsonable
from right_rag_dagster.core.model import Chunk, Document
from right_rag_dagster.core.units import build_units, walk_units
from right_rag_dagster.store.files import document_file_name, write_json_atomic

FAMILIES = Path(__file__).resolve().parents[1] / "spec" / "fixtures" / "families"


def _expected(payload: dict) -> str:
    return json.dumps(to_jsonable(payload), ensure_ascii=False, separators=(",", ":")) + "\n"


@pytest.fixture(scope="module")
def units():
    document = Document("policy.txt", (FAMILIES / "menu-policy.txt").read_text(encoding="utf-8"))
    parser = GenericUnitParser()
    return build_units(document, parser.parse_document(document), parser.parser_name)


def test_unit_file_is_the_json_of_the_whole_tree(tmp_path: Path, units) -> None:
    assert any(u.subunits for u in units)  # nested trees are written whole, inside their top-level item
    DefaultUnitSaver().save_units("policy.txt", units, tmp_path)
    written = (tmp_path / "units" / document_file_name("policy.txt")).read_text(encoding="utf-8")
    assert written == _expected({"document_id": "policy.txt", "units": list(units)})
    assert len(json.loads(written)["units"]) == len(units)


def test_chunk_file_is_the_json_of_every_chunk(tmp_path: Path, units) -> None:
    chunks = [Chunk(id=f"c{i}", document_id="policy.txt", unit_id=u.id, topic=u.topic, fulltext=u.fulltext + " ü")
              for i, u in enumerate(walk_units(units))]
    DefaultChunkSaver().save_chunks("policy.txt", "domain", chunks, tmp_path)
    written = (tmp_path / "chunks" / "domain" / document_file_name("policy.txt")).read_text(encoding="utf-8")
    assert written == _expected({"document_id": "policy.txt", "chunker": "domain", "chunks": chunks})


def test_empty_lists_scalars_and_tuples(tmp_path: Path) -> None:
    payload = {"a": [], "b": ("x", 1), "c": {"d": None}, "e": "ü\n"}
    write_json_atomic(tmp_path / "f.json", payload)
    assert (tmp_path / "f.json").read_text(encoding="utf-8") == _expected(payload)


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    write_json_atomic(path, {"items": [1, 2]})
    with pytest.raises(TypeError):
        write_json_atomic(path, {"items": [1, object()]})
    assert json.loads(path.read_text(encoding="utf-8")) == {"items": [1, 2]}
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]
