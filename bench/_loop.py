"""A plain in-process loop over the pipeline's steps, without Dagster: what our code costs for a full index.

Run as a subprocess by ``bench/real_projects.py`` (so its time and memory are its own):
``python bench/_loop.py --project DIR --out LOOP.duckdb --json OUT``. For every file of the project's documents
folder: ``load_document`` -> ``parse_document`` (routing to the one parser that owns it) -> ``chunk_units`` for
each selected chunk parser -> ``document_coverage``, with the project's own plugins; the rows (documents, units,
chunks) go to a fresh DuckDB file in one bulk insert per table every 64 documents, with no indexes, no
incremental state and no search index. Prints nothing; writes counts and seconds per phase to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

BATCH = 64
TABLES = {
    "documents": "document_id VARCHAR, text VARCHAR",
    "units": "document_id VARCHAR, unit_id VARCHAR, parent_id VARCHAR, parser VARCHAR, topic VARCHAR, "
             "text VARCHAR, source_start BIGINT, source_end BIGINT",
    "chunks": "document_id VARCHAR, chunk_id VARCHAR, unit_id VARCHAR, chunker VARCHAR, text VARCHAR, "
              "source_start BIGINT, source_end BIGINT",
}


def run(project_root: Path, out: Path) -> dict[str, float]:
    """Index every document of the project at ``project_root`` into ``out``; returns counts and seconds."""
    import duckdb

    from right_rag_dagster.core.units import walk_units
    from right_rag_dagster.pipeline.steps import chunk_units, document_coverage, load_document, parse_document
    from right_rag_dagster.project import Project

    clock = {name: 0.0 for name in ("load", "parse", "chunk", "coverage", "write")}
    counts = {"documents": 0, "rejected": 0, "units": 0, "chunks": 0}
    started = time.perf_counter()
    project = Project.load(project_root)

    def plugins(kind: str) -> list:
        return [project.registry.create(kind, name) for name in project.selected(kind)]

    loaders, parsers, chunkers = plugins("document_loaders"), plugins("unit_parsers"), plugins("chunk_parsers")
    setup = time.perf_counter() - started
    files = sorted(p for p in project.documents_dir.rglob("*") if p.is_file() and not p.name.startswith("."))
    out.unlink(missing_ok=True)
    con = duckdb.connect(str(out))
    for table, columns in TABLES.items():
        con.execute(f"CREATE TABLE {table} ({columns})")
    rows: dict[str, list[tuple]] = {table: [] for table in TABLES}
    for number, path in enumerate(files, 1):
        document_id = path.relative_to(project.documents_dir).as_posix()
        tick = time.perf_counter()
        loaded = load_document(path, document_id, loaders)
        clock["load"] += time.perf_counter() - tick
        counts["documents"] += 1
        document = loaded.document
        if document is None:
            counts["rejected"] += 1
        else:
            rows["documents"].append((document_id, document.text))
            tick = time.perf_counter()
            parsed = parse_document(document, parsers)
            clock["parse"] += time.perf_counter() - tick
            if parsed.parser is None or not parsed.units:
                counts["rejected"] += 1
            else:
                units = list(walk_units(parsed.units))
                rows["units"].extend((document_id, u.id, u.parent_id, parsed.parser, u.topic, u.fulltext,
                                      u.source_start, u.source_end) for u in units)
                counts["units"] += len(units)
                for chunker in chunkers:
                    tick = time.perf_counter()
                    chunks = chunk_units(document, parsed.units, chunker)
                    clock["chunk"] += time.perf_counter() - tick
                    rows["chunks"].extend((document_id, c.id, c.unit_id, chunker.parser_name, c.fulltext,
                                           c.source_start, c.source_end) for c in chunks)
                    counts["chunks"] += len(chunks)
                tick = time.perf_counter()
                document_coverage(document, parsed.units)
                clock["coverage"] += time.perf_counter() - tick
        if number % BATCH == 0 or number == len(files):
            tick = time.perf_counter()
            write(con, rows)
            clock["write"] += time.perf_counter() - tick
    con.close()
    return {**counts, "setup_seconds": setup, **{f"{k}_seconds": v for k, v in clock.items()},
            "total_seconds": time.perf_counter() - started}


def write(con, rows: dict[str, list[tuple]]) -> None:  # noqa: ANN001 (duckdb, imported lazily)
    """One bulk insert per table through a DataFrame (DuckDB reads it in milliseconds), then clear the rows."""
    import pandas as pd

    con.execute("BEGIN")
    for table, pending in rows.items():
        if pending:
            frame = pd.DataFrame(pending, dtype=object)
            con.register("_rows", frame)
            con.execute(f"INSERT INTO {table} SELECT * FROM _rows")
            con.unregister("_rows")
            pending.clear()
    con.execute("COMMIT")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, required=True, help="a right-rag-dagster project folder")
    parser.add_argument("--out", type=Path, required=True, help="the DuckDB file to write (replaced)")
    parser.add_argument("--json", type=Path, required=True, help="where to write counts and seconds")
    args = parser.parse_args()
    args.json.write_text(json.dumps(run(args.project, args.out), indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
