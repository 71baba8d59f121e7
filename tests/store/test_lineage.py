"""Lineage reads one unit's tree to rebuild its history, and finds what rebuilding the whole document finds."""

from __future__ import annotations

import shutil

from right_rag_dagster.core.units import walk_units
from right_rag_dagster.store import Store
from right_rag_dagster.store.content import read_units
from right_rag_dagster.store.lineage import _history
from tests.retrieval.store_builder import REPO_ROOT, index_documents


def test_a_units_history_is_rebuilt_from_its_own_tree(tmp_path):
    documents = tmp_path / "documents"
    documents.mkdir()
    shutil.copy(REPO_ROOT / "data" / "documents" / "upgrading-checklist.txt", documents)
    store = Store(tmp_path / "right_rag.duckdb")
    index_documents(documents, store, unit_parsers=("generic",))
    with store.read() as con:
        whole = {u.id: [c.change_type for c in u.changes] for u in walk_units(read_units(con, "upgrading-checklist.txt"))}
        parents = [row[0] for row in con.execute("SELECT DISTINCT parent_id FROM units WHERE parent_id IS NOT NULL "
                                                 "ORDER BY parent_id LIMIT 10").fetchall()]
        assert parents and all(_history(con, unit_id, "upgrading-checklist.txt", None) == whole[unit_id]
                               for unit_id in parents)
        (tree,) = read_units(con, "upgrading-checklist.txt", root_id=parents[0])
    assert tree.id == parents[0] and tree.subunits and "AddSubUnit" in whole[parents[0]]
    assert {u.id for u in walk_units([tree])} < set(whole)
