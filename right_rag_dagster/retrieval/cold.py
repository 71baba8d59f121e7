"""The first BM25 search of a process, straight from DuckDB: only the question's postings and the top rows.

Loading a chunker's whole snapshot costs ~0.5 s on 40k chunks, which a one-shot ``right-rag query`` would pay
for one question. So the first unfiltered BM25 search of a chunker weighs and sums only the postings of the
question's terms in SQL and reads only the rows it returns; the snapshot is loaded from the second search on.
Both paths use the same formula and statistics and order ties by document and ordinal, so they rank alike.
"""

from __future__ import annotations

from ..store import Store
from .bm25_index import K1, B
from .bm25_search import has_terms, stem_tokens
from .chunk_table import COLUMNS, Candidate, ChunkTable
from .hits import Hit
from .tables import IndexTables, literal
from .tokenize import tokenize


def cold_bm25(store: Store, query: str, chunker: str, k: int, retriever: str = "bm25") -> list[Hit]:
    """The ``k`` best chunks for ``query`` by BM25, read directly from the store."""
    stems = stem_tokens(tokenize(query))
    t = IndexTables(chunker)
    with store.read() as con:
        if not has_terms(con, chunker) or not stems:
            return []
        termids = [row[0] for row in con.execute(
            f"SELECT termid FROM {t.terms} WHERE term IN ({literal(stems)[1:-1]})").fetchall()]
        if not termids:
            return []
        terms = ", ".join(str(int(i)) for i in termids)
        k1, b = f"{K1}::DOUBLE", f"{B}::DOUBLE"  # doubles like the snapshot, not DECIMAL literals
        scores = f"""
            WITH stats AS (SELECT count(*) AS n, avg(len) AS avgdl FROM {t.bm25}),
                 hits AS (SELECT termid, doc_key, tf FROM {t.postings} WHERE termid IN ({terms})),
                 df AS (SELECT termid, count(*) AS df FROM hits GROUP BY termid)
            SELECT hits.doc_key,
                   sum(log(((stats.n - df.df) + 0.5) / (df.df + 0.5) + 1)
                       * ((hits.tf * ({k1} + 1)) / (hits.tf + {k1} * ((1 - {b}) + {b} * (c.len / stats.avgdl)))))
                       AS score
            FROM hits JOIN df USING (termid) JOIN {t.bm25} AS c USING (doc_key) CROSS JOIN stats
            GROUP BY hits.doc_key"""
        con.execute(f"CREATE TEMP TABLE _scores AS {scores}")  # in memory: the store stays read-only
        total = con.execute("SELECT count(*) FROM _scores").fetchone()[0]
        depth = k
        while True:  # join only the best rows (ties included); look deeper when some of them left the store
            rows = con.execute(f"""
                WITH best AS (SELECT * FROM _scores WHERE score >= (SELECT min(score) FROM
                              (SELECT score FROM _scores ORDER BY score DESC LIMIT {depth})))
                SELECT {', '.join('c.' + column for column in COLUMNS)}, best.score
                FROM best JOIN {t.bm25} AS b USING (doc_key)
                     JOIN chunks AS c ON c.chunker = {literal(chunker)} AND c.chunk_id = b.chunk_id
                ORDER BY best.score DESC, c.document_id, c.ordinal LIMIT {int(k)}""").fetchall()
            if len(rows) >= k or depth >= total:
                break
            depth *= 4
    table = ChunkTable(chunker, [row[:-1] for row in rows])
    return [table.hit(Candidate(row[0], row[-1]), rank, retriever) for rank, row in enumerate(rows, start=1)]
