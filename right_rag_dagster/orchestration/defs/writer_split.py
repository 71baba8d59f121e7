"""The sensor's side of several writers: the new and changed documents cut into one run request per writer.

Only on a DuckLake whose ``right_rag_store`` pool allows several writing steps (``writers.pool_writers``). Each
request is a run of ``index_documents`` over one contiguous partition range, selecting the per-document assets
only; its retries are counted per range (its own changes key). The refresh follows the last writer of the group
(``refresh_indexes_after_documents``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import dagster as dg

from ...core.hashing import stable_hash
from ...pipeline.plan import FolderChanges
from ...pipeline.scan import DocumentFile
from ..names import DOCUMENTS_PARTITIONS
from ..resources import RightRagProject
from ..writers import (
    document_selection,
    parallel_writers,
    pool_writers,
    prepare_pool,
    writer_slices,
    writer_tags,
)


@dataclass(frozen=True)
class WriterSplit:
    slices: list[list[DocumentFile]]
    selection: list[dg.AssetKey]

    def requests(self, group: str) -> Iterator[tuple[str, dict[str, str]]]:
        """(changes key, tags) of each writer's run."""
        for index, files in enumerate(self.slices):
            key = "docs-" + stable_hash(sorted((f.document_id, f.content_hash) for f in files))[:20]
            yield key, writer_tags(files, group, index, len(self.slices))


def writer_split(instance: dg.DagsterInstance, right_rag: RightRagProject, changes: FolderChanges
                 ) -> WriterSplit | None:
    """The writers' slices for ``changes`` (partition order: the existing keys, then the added ones), or None
    when one run does it (the embedded file, a pool of 1, a single document)."""
    writers = parallel_writers(right_rag.get_store(), pool_writers(instance), len(changes.to_index))
    if writers < 2:
        return None
    prepare_pool(instance)
    deleted = {key for _, key in changes.delete}
    order = [k for k in instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name) if k not in deleted]
    order += list(changes.add_keys)
    return WriterSplit(writer_slices(order, changes.to_index, writers), document_selection(right_rag.get_project()))
