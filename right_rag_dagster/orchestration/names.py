"""Asset keys and partitions: the mapping between pipeline step names and Dagster keys.

Every file is a partition of ``documents`` (raw_text, chunks, coverage); each unit parser's asset has its own
partitions, the documents that parser owns (kept in line with the store's routing by ``owners.py``), so no
parser's asset shows the documents of another as missing. The asset graph labels a node by its key's last part
alone, so a search index is ``search_index/<chunker>_index``, never the same label as ``chunks/<chunker>``."""

from __future__ import annotations

import re

import dagster as dg

DOCUMENTS_PARTITIONS = dg.DynamicPartitionsDefinition(name="documents")
RAW_TEXT_KEY = dg.AssetKey("raw_text")
COVERAGE_KEY = dg.AssetKey("coverage")
AUDIT_REPORT_KEY = dg.AssetKey("audit_report")
EVALUATION_KEY = dg.AssetKey("evaluation")
EVALUATION_GROUP = "evaluation"
"""The evaluation asset's own group: the indexing jobs select groups, and never this one."""
DOCUMENT_JOB = "index_documents"
LOCATION_NAME = "right_rag"
"""The code location's name in workspace.yaml; ``right-rag index`` attributes its runs to it (``origin.py``)."""
REFRESH_JOB = "refresh_indexes"
STORE_POOL = "right_rag_store"
"""The pool of the writing step: 1 on the embedded file, the number of writers on a DuckLake."""


def safe_name(name: str) -> str:
    """A plugin name as an asset key part (Dagster allows letters, digits and underscores)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def units_key(parser: str) -> dg.AssetKey:
    return dg.AssetKey(["units", safe_name(parser)])


def owned_partitions(parser: str) -> dg.DynamicPartitionsDefinition:
    """The documents ``parser`` owns: the partitions of its units asset (same keys as ``documents``)."""
    return dg.DynamicPartitionsDefinition(name=f"documents_of_{safe_name(parser)}")


def chunks_key(chunker: str) -> dg.AssetKey:
    return dg.AssetKey(["chunks", safe_name(chunker)])


SEARCH_INDEX_PREFIX = "search_index"


def search_index_key(chunker: str) -> dg.AssetKey:
    return dg.AssetKey([SEARCH_INDEX_PREFIX, f"{safe_name(chunker)}_index"])


def asset_key_for_step(asset: str) -> dg.AssetKey | None:
    """The Dagster key of a pipeline ``StepEvent.asset`` ("raw_text", "units/<p>", "chunks/<c>", "coverage")."""
    if asset == "raw_text":
        return RAW_TEXT_KEY
    if asset == "coverage":
        return COVERAGE_KEY
    kind, _, name = asset.partition("/")
    if kind == "units":
        return units_key(name)
    if kind == "chunks":
        return chunks_key(name)
    return None
