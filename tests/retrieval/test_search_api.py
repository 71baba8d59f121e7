"""Context expansion, retriever plugins from spec/retrievers, searching while another process writes, and
the rule that retrieval never imports Dagster."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

from right_rag_dagster.project import Project
from right_rag_dagster.rag import query
from right_rag_dagster.retrieval import search
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store


def test_expansion_returns_the_enclosing_unit_once(built_store: Store) -> None:
    plain = search(built_store, "modify convey covered work", chunker="default", k=10,
                   filters={"document": "GPL-3.0.txt"})
    assert max(Counter(h.unit_id for h in plain).values()) >= 2  # several chunks of one unit matched
    hits = search(built_store, "modify convey covered work", chunker="default", k=10,
                  filters={"document": "GPL-3.0.txt"}, expand=True)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert len({h.unit_id for h in hits}) == len(hits)
    expanded = [h for h in hits if "expanded_to_unit" in h.details]
    assert expanded
    with built_store.read() as con:
        for hit in expanded:
            text, start, end = con.execute("SELECT fulltext, source_start, source_end FROM units WHERE unit_id = ?",
                                           [hit.unit_id]).fetchone()
            assert (hit.text, hit.source_start, hit.source_end) == (text, start, end)
            assert len(hit.details["chunks"]) >= 2 and hit.chunk_id in hit.details["chunks"]


def test_a_spec_retriever_plugin_is_found_and_used(built_store: Store, tmp_path: Path) -> None:
    # neighbours off: the plugin's own order is what is checked
    (tmp_path / "right_rag.toml").write_text(f'[right-rag]\nstore_path = "{built_store.path.as_posix()}"\n'
                                             '[right-rag.retrieval]\nneighbours = false\n')
    plugin = tmp_path / "spec" / "retrievers" / "longest.py"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(textwrap.dedent('''
        from right_rag_dagster.retrieval import Retriever


        class LongestFirst(Retriever):
            """BM25's candidates, longest chunk first."""

            @property
            def retriever_name(self):
                return "longest"

            def retrieve(self, request):
                found = request.bm25(request.depth)
                rows = request.index.chunks
                found.sort(key=lambda c: -len(rows.rows[rows.row_of[c.chunk_id]][3]))
                return found
    '''))
    answer = query(Project.load(tmp_path), "license", k=5, retriever="longest", chunker="default")
    lengths = [len(h.text) for h in answer.hits]
    assert len(lengths) == 5 and lengths == sorted(lengths, reverse=True)
    assert {h.retriever for h in answer.hits} == {"longest"}


def test_search_waits_for_a_writer_in_another_process(store_copy: Store) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import time
            from right_rag_dagster.store import Store
            with Store({str(store_copy.path)!r}).write() as con:
                con.execute("UPDATE chunks SET topic = topic")
                print("locked", flush=True)
                time.sleep(1.5)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        clear_cache()
        started = time.monotonic()
        hits = search(store_copy, "DEB_BUILD_OPTIONS", chunker="default", k=3)
        waited = time.monotonic() - started
    finally:
        holder.wait(timeout=30)
    assert holder.returncode == 0
    assert len(hits) == 3 and waited > 0.5


def test_retrieval_rag_and_the_query_command_never_import_dagster() -> None:
    code = ("import sys, right_rag_dagster.retrieval, right_rag_dagster.rag, right_rag_dagster.cli.query_cmd; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'dagster'))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_search_is_the_function_whatever_was_imported_first() -> None:
    import subprocess
    import sys

    code = ("import right_rag_dagster.rag.flows\n"
            "from right_rag_dagster.retrieval import search, build_search_index\n"
            "assert callable(search) and callable(build_search_index), (search, build_search_index)\n")
    subprocess.run([sys.executable, "-c", code], check=True)
