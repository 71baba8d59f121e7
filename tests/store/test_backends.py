"""The store on both backends: the embedded DuckDB file and DuckLake (catalog in a real local PostgreSQL, data
files in a folder). The same index, reads, lineage walk and BM25 search must give the same answers."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.pipeline import pipeline
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval import build_search_index, search
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store, content, lineage
from right_rag_dagster.store.migrations import SCHEMA_VERSION

from ..orchestration.conftest import make_project

BACKENDS = ["duckdb", pytest.param("ducklake", marks=pytest.mark.slow)]
_databases = itertools.count()


def lake_section(server, folder: Path) -> str:
    """``[right-rag.store]`` for a fresh DuckLake whose catalog is a new database of ``server``."""
    catalog = server.create_database(f"lake_{next(_databases)}")
    return f'\n[right-rag.store]\nbackend = "ducklake"\ncatalog = "postgres:{catalog}"\ndata_path = "{folder}"\n'


@pytest.fixture(params=BACKENDS)
def backend_project(request: pytest.FixtureRequest, tmp_path: Path) -> Project:
    """The licence project of the orchestration tests, its store on the parametrized backend."""
    root = make_project(tmp_path / "project")
    if request.param == "ducklake":
        server = request.getfixturevalue("local_postgres")
        with open(root / "right_rag.toml", "a", encoding="utf-8") as config:
            config.write(lake_section(server, tmp_path / "lake-data"))
    clear_cache()
    return Project.load(root)


def test_the_backend_is_chosen_in_right_rag_toml(backend_project: Project) -> None:
    store = Store.for_project(backend_project)
    assert (store.lake is not None) == ("ducklake" in (backend_project.root / "right_rag.toml").read_text())
    assert not store.exists()
    store.ensure()
    assert store.exists()
    with store.read() as con:
        assert con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == SCHEMA_VERSION


def test_index_reads_back_walks_lineage_and_searches(backend_project: Project) -> None:
    counts = pipeline(project_dir=backend_project.root)
    assert counts.get("documents:materialized", counts.get("raw_text:materialized", 0)) >= 0
    store = Store.for_project(backend_project)
    if store.lake:
        assert not backend_project.store_path.exists()  # nothing went to the embedded file
        assert list(Path(store.lake.data_path).rglob("*.parquet"))
    with store.read() as con:
        documents = content.read_documents(con, ["GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt"])
        assert sorted(documents) == ["Apache-2.0.txt", "GPL-3.0.txt", "LGPL-3.0.txt"]
        units = content.read_units(con, "GPL-3.0.txt")
        assert [u.topic for u in units[:3]] == ["Section 0", "Section 1", "Section 2"]
        assert units[0].fulltext.startswith("0. Definitions.")  # stored as NULL, read from the document's text
        chunk_id, unit_id = con.execute("SELECT chunk_id, unit_id FROM chunks WHERE document_id = 'GPL-3.0.txt' "
                                        "ORDER BY ordinal LIMIT 1").fetchone()
        duplicates = con.execute("SELECT count(*) - count(DISTINCT (chunker, chunk_id)) FROM chunks").fetchone()[0]
        walked = lineage.walk(con, chunk_id)
    assert duplicates == 0
    assert walked["unit"]["unit_id"] == unit_id and walked["unit"]["parser"] == "gnu-licence"
    assert walked["document"]["document_id"] == "GPL-3.0.txt"
    assert {run["status"] for run in walked["runs"]} >= {"materialized"}
    stats = build_search_index(store, "default")
    assert stats["chunks_indexed"] > 0
    hits = search(store, "Corresponding Source conveying object code", chunker="default", k=3)
    assert hits and hits[0].document_id in {"GPL-3.0.txt", "LGPL-3.0.txt"}


def test_a_changed_document_replaces_its_rows_without_duplicates(backend_project: Project) -> None:
    pipeline(project_dir=backend_project.root)
    gpl = backend_project.documents_dir / "GPL-3.0.txt"
    gpl.write_text(gpl.read_text(encoding="utf-8").replace("0. Definitions.", "0. Definitions (edited)."),
                   encoding="utf-8")
    (backend_project.documents_dir / "Apache-2.0.txt").unlink()
    counts = pipeline(project_dir=backend_project.root)
    assert counts["removed"] == 1
    store = Store.for_project(backend_project)
    with store.read() as con:
        rows = dict(con.execute("SELECT document_id, count(*) FROM documents GROUP BY 1").fetchall())
        units = con.execute("SELECT count(*) - count(DISTINCT unit_id) FROM units").fetchone()[0]
        states = con.execute("SELECT count(*) - count(DISTINCT (step, document_id)) FROM step_state").fetchone()[0]
        topic = content.read_units(con, "GPL-3.0.txt")[0].fulltext
    assert rows == {"GPL-3.0.txt": 1, "LGPL-3.0.txt": 1}
    assert units == 0 and states == 0
    assert topic.startswith("0. Definitions (edited).")


def test_a_lake_without_catalog_is_a_configuration_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RIGHT_RAG_STORE_CATALOG", raising=False)
    root = make_project(tmp_path / "project")
    with open(root / "right_rag.toml", "a", encoding="utf-8") as config:
        config.write('\n[right-rag.store]\nbackend = "ducklake"\ndata_path = "lake"\n')
    with pytest.raises(ConfigError, match="needs catalog"):
        Project.load(root)
    monkeypatch.setenv("RIGHT_RAG_STORE_CATALOG", "postgres:dbname=rag host=db")
    assert Project.load(root).lake.catalog == "postgres:dbname=rag host=db"


def test_an_unreachable_catalog_is_a_store_error_naming_it(tmp_path: Path) -> None:
    from right_rag_dagster.errors import StoreError
    from right_rag_dagster.store.local_postgres import free_port
    from right_rag_dagster.store.settings import LakeSettings

    catalog = f"postgres:dbname=rag host=127.0.0.1 port={free_port()} user=rag password=secret"
    store = Store(tmp_path / "unused.duckdb", lake=LakeSettings(catalog, str(tmp_path / "data") + "/"))
    with pytest.raises(StoreError, match="cannot open the store's DuckLake") as raised:
        store.exists()
    assert "password=***" in str(raised.value) and "secret" not in str(raised.value)
