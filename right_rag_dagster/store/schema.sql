-- right-rag DuckDB store: the system of record for content and lineage.
-- Each migration is a named block "-- migration: <version> <name>", applied in order inside one transaction.
-- Never edit an applied block: append a new one.

-- migration: 1 initial
CREATE TABLE documents (
    document_id     VARCHAR PRIMARY KEY,   -- path relative to the documents folder (POSIX)
    partition_key   VARCHAR NOT NULL UNIQUE,
    path            VARCHAR NOT NULL,      -- absolute path when last loaded
    content_hash    VARCHAR NOT NULL,      -- sha256 of the file bytes
    size_bytes      BIGINT NOT NULL,
    mtime           DOUBLE,
    loader          VARCHAR,
    loader_version  VARCHAR,
    status          VARCHAR NOT NULL,      -- loaded | rejected
    text            VARCHAR,               -- full extracted text (spans index into it)
    page_starts     INTEGER[],
    page_labels     VARCHAR[],
    page_count      INTEGER,
    metadata        JSON,
    data_version    VARCHAR,               -- content hash + loader version
    loaded_at       TIMESTAMP NOT NULL
);

CREATE TABLE units (
    unit_id         VARCHAR PRIMARY KEY,
    document_id     VARCHAR NOT NULL,
    parser          VARCHAR NOT NULL,
    parser_version  VARCHAR NOT NULL,
    parent_id       VARCHAR,
    ordinal         INTEGER NOT NULL,      -- pre-order position in the document (for display order only)
    depth           INTEGER NOT NULL,
    key_path        JSON NOT NULL,         -- list of unit keys from the root: the identity path
    section_path    JSON NOT NULL,         -- the citation path: the unit's hierarchy attribute, else its topics from the root
    topic           VARCHAR NOT NULL,
    temporal_topic  VARCHAR,
    fulltext        VARCHAR NOT NULL,
    source_start    INTEGER,
    source_end      INTEGER,
    page_start      INTEGER,
    page_end        INTEGER,
    unit_type       VARCHAR,
    role            VARCHAR,
    attributes      JSON,
    metadata        JSON,
    changes         JSON,                  -- replayable history (list of UnitChange)
    active          BOOLEAN NOT NULL       -- false once the unit's history ends in DeleteUnit
);
CREATE INDEX units_document ON units (document_id);

CREATE TABLE chunks (
    chunker          VARCHAR NOT NULL,
    chunk_id         VARCHAR NOT NULL,
    document_id      VARCHAR NOT NULL,
    unit_id          VARCHAR NOT NULL,
    ordinal          INTEGER NOT NULL,     -- position in the document for this chunker
    topic            VARCHAR,
    fulltext         VARCHAR NOT NULL,
    source_start     INTEGER,
    source_end       INTEGER,
    page_start       INTEGER,
    page_end         INTEGER,
    page_label_start VARCHAR,
    page_label_end   VARCHAR,
    section_path     JSON,
    unit_type        VARCHAR,
    role             VARCHAR,
    attributes       JSON,
    metadata         JSON,
    chunker_version  VARCHAR,
    PRIMARY KEY (chunker, chunk_id)
);
CREATE INDEX chunks_document ON chunks (document_id);

CREATE TABLE coverage (
    document_id            VARCHAR PRIMARY KEY,
    parser                 VARCHAR NOT NULL,
    parser_version         VARCHAR,
    document_chars         INTEGER NOT NULL,
    covered_chars          INTEGER NOT NULL,
    uncovered_chars        INTEGER NOT NULL,
    coverage_percent       DOUBLE NOT NULL,
    units_total            INTEGER NOT NULL,
    units_with_source_span INTEGER NOT NULL,
    source_ranges          JSON,
    units_by_type          JSON,
    computed_at            TIMESTAMP NOT NULL
);

CREATE TABLE rejections (
    document_id    VARCHAR PRIMARY KEY,
    stage          VARCHAR NOT NULL,       -- load | route | parse | chunk
    status         VARCHAR NOT NULL,       -- rejected | unsupported | ambiguous | failed
    reason         VARCHAR NOT NULL,
    parser_names   JSON,
    rejected_at    TIMESTAMP NOT NULL
);

CREATE TABLE step_state (
    step           VARCHAR NOT NULL,       -- raw_text | units | chunks:<chunker> | coverage
    document_id    VARCHAR NOT NULL,
    cache_key      VARCHAR NOT NULL,       -- hash of input version + step name + step version + params
    data_version   VARCHAR,                -- hash of what the step produced
    owner          VARCHAR,                -- unit parser that owns the document (units step)
    updated_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (step, document_id)
);

CREATE TABLE materializations (
    asset          VARCHAR NOT NULL,
    partition_key  VARCHAR,
    document_id    VARCHAR,
    run_id         VARCHAR,
    code_version   VARCHAR,
    data_version   VARCHAR,
    input_hashes   JSON,
    started_at     TIMESTAMP,
    ended_at       TIMESTAMP,
    status         VARCHAR NOT NULL,       -- materialized | skipped | rejected | failed
    message        VARCHAR
);
CREATE INDEX materializations_document ON materializations (document_id);

-- migration: 2 search_index
-- One row per chunk parser and index kind. The rows themselves live in per-chunker tables created by
-- retrieval.build_search_index (``table_name``: BM25 tokens with DuckDB fts's ``fts_main_<table>`` schema and
-- postings, or dense vectors as FLOAT[dimensions]); search only ever returns chunks still in ``chunks``.
CREATE TABLE search_indexes (
    chunker        VARCHAR NOT NULL,
    kind           VARCHAR NOT NULL,       -- bm25 | dense
    table_name     VARCHAR NOT NULL,
    model          VARCHAR NOT NULL,       -- tokenizer version (bm25) or embedding model identity (dense)
    dimensions     INTEGER,                -- vector size (dense)
    chunks         INTEGER NOT NULL,
    tokens         BIGINT,
    build_id       VARCHAR NOT NULL,       -- new on every change: tells index versions apart
    built_at       TIMESTAMP NOT NULL,
    seconds        DOUBLE,
    details        JSON,
    PRIMARY KEY (chunker, kind)
);

-- migration: 3 no_key_indexes
-- DuckDB 1.5.5 can fail with "Failed to delete all rows from index" when rows under an ART index (primary key,
-- UNIQUE or secondary index) are deleted after later transactions wrote the file, and when a key is deleted and
-- re-inserted in one transaction -- which is exactly how a document's rows are replaced. The writers already
-- keep keys unique (a document's rows are deleted before they are re-inserted, in one transaction), so the
-- content tables drop their key constraints and indexes; scans by document are column scans, fast at this size.
DROP INDEX IF EXISTS units_document;
DROP INDEX IF EXISTS chunks_document;
DROP INDEX IF EXISTS materializations_document;
ALTER TABLE documents RENAME TO documents_v2;
CREATE TABLE documents AS SELECT * FROM documents_v2 WITH NO DATA;
INSERT INTO documents SELECT * FROM documents_v2;
DROP TABLE documents_v2;
ALTER TABLE units RENAME TO units_v2;
CREATE TABLE units AS SELECT * FROM units_v2 WITH NO DATA;
INSERT INTO units SELECT * FROM units_v2;
DROP TABLE units_v2;
ALTER TABLE chunks RENAME TO chunks_v2;
CREATE TABLE chunks AS SELECT * FROM chunks_v2 WITH NO DATA;
INSERT INTO chunks SELECT * FROM chunks_v2;
DROP TABLE chunks_v2;
ALTER TABLE coverage RENAME TO coverage_v2;
CREATE TABLE coverage AS SELECT * FROM coverage_v2 WITH NO DATA;
INSERT INTO coverage SELECT * FROM coverage_v2;
DROP TABLE coverage_v2;
ALTER TABLE rejections RENAME TO rejections_v2;
CREATE TABLE rejections AS SELECT * FROM rejections_v2 WITH NO DATA;
INSERT INTO rejections SELECT * FROM rejections_v2;
DROP TABLE rejections_v2;
ALTER TABLE step_state RENAME TO step_state_v2;
CREATE TABLE step_state AS SELECT * FROM step_state_v2 WITH NO DATA;
INSERT INTO step_state SELECT * FROM step_state_v2;
DROP TABLE step_state_v2;

-- migration: 4 chunk_text_hash
-- Each chunk row carries the hash of what its indexed text is made from (section path and text), written with
-- the row (store/content.py, CHUNK_TEXT_HASH), so an index build finds the chunks that changed by comparing
-- hashes, without reading or hashing every chunk's text.
ALTER TABLE chunks ADD COLUMN text_hash VARCHAR;
UPDATE chunks SET text_hash = md5(concat_ws(chr(31), '1', coalesce(CAST(section_path AS VARCHAR), ''), fulltext));

-- migration: 5 files_and_stale_versions
-- ``files`` is what the last run saw of each file in the documents folder (whatever came of it), so scans and the
-- sensor compare the folder with it; ``documents`` and the content tables hold the version that serves searches.
-- The two differ when a new version of a document failed: the last good version keeps serving and its rejection
-- is marked ``stale``.
CREATE TABLE files (
    document_id    VARCHAR NOT NULL,
    partition_key  VARCHAR NOT NULL,
    path           VARCHAR NOT NULL,       -- absolute path when last seen
    content_hash   VARCHAR NOT NULL,
    size_bytes     BIGINT NOT NULL,
    mtime          DOUBLE,
    seen_at        TIMESTAMP NOT NULL
);
INSERT INTO files SELECT document_id, partition_key, path, content_hash, size_bytes, mtime, loaded_at FROM documents;
ALTER TABLE rejections ADD COLUMN stale BOOLEAN DEFAULT false;  -- true: an earlier version of the document serves
ALTER TABLE rejections ADD COLUMN content_hash VARCHAR;         -- the file version that was rejected
-- Spec files that failed to import at the last index, so `report` and `query` can name them without importing.
CREATE TABLE plugin_errors (
    kind        VARCHAR NOT NULL,
    file        VARCHAR NOT NULL,
    message     VARCHAR NOT NULL,
    seen_at     TIMESTAMP NOT NULL
);

-- migration: 6 unit_text_from_document
-- A unit's text is most often exactly its span of the document's text: it is then stored as NULL and read back
-- from ``documents.text`` (store.content.UNIT_TEXT_SQL), so the text is stored once, not once per tree level.
ALTER TABLE units ALTER COLUMN fulltext DROP NOT NULL;
UPDATE units SET fulltext = NULL
WHERE source_start IS NOT NULL AND fulltext = (
    SELECT substr(d.text, units.source_start + 1, units.source_end - units.source_start)
    FROM documents AS d WHERE d.document_id = units.document_id);

-- migration: 7 compact_unit_history
-- A unit's history (``units.changes``) was stored as its full list of changes, each AddUnit with the unit's whole
-- subtree and each subunit change mirrored on every ancestor: 12.8-20 MB of an 85 MB store after re-indexing a
-- tenth of the 710-file corpus. It is now stored against the rows (store/unit_history.py): only what they do not
-- hold. The Python step re-encodes every stored history, document by document; NULL ones (derived on read) stay.
-- The record of the file's compact size is dropped, so the next index run copies the store and frees the space.
-- python: compact_unit_histories
DELETE FROM step_state WHERE step = 'store:compact-bytes';

-- migration: 8 document_texts
-- A document's text moves out of ``documents`` into pieces of 1,024 characters (store/texts.py, PIECE_CHARS):
-- every document's text sat in the row group each new document is appended to, which every fold of the log
-- rewrote whole (+84 MB with 454 documents in it, +161 MB with 1,362), and a cold read of one text loaded them
-- all. Piece k of a text holds its characters [k * 1024, (k + 1) * 1024); an empty text is one empty piece; a
-- document that failed to load has none. The record of the file's compact size is dropped, so the next index
-- run copies the store and frees the old column's space.
CREATE TABLE document_texts (
    document_id     VARCHAR NOT NULL,
    piece           INTEGER NOT NULL,
    text            VARCHAR NOT NULL
);
INSERT INTO document_texts
SELECT document_id, piece, substr(text, piece * 1024 + 1, 1024)
FROM (SELECT document_id, text, unnest(range(greatest(1, (length(text) + 1023) // 1024)::BIGINT)) AS piece
      FROM documents WHERE text IS NOT NULL);
ALTER TABLE documents DROP COLUMN text;
DELETE FROM step_state WHERE step = 'store:compact-bytes';
