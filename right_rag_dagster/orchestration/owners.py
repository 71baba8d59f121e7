"""Each unit parser's partitions follow the store's routing: a document is a partition of the parser that owns it.

The run that routes keeps them in line, before it reports the units, so after a normal index every parser's asset
is fully materialized without a "not owned" event per parser and document: the cost is one storage call per
parser whose documents changed, and none when routing did not change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import dagster as dg

from ..pipeline.scan import DocumentFile
from ..store import Store, content
from .names import owned_partitions


def stored_owners(store: Store, files: Sequence[DocumentFile]) -> dict[str, str | None]:
    """Partition key -> the parser that owns the document in the store (None: rejected or never parsed)."""
    if not files or not store.exists():
        return {f.partition_key: None for f in files}
    with store.read(scan=True) as con:
        owners = content.document_owners(con, [f.document_id for f in files])
    return {f.partition_key: owners[f.document_id] for f in files}


class OwnedPartitions:
    """The per-parser partition sets of one run, read once and changed in place."""

    def __init__(self, instance: dg.DagsterInstance, parsers: Sequence[str]) -> None:
        self.instance = instance
        self.names = {parser: owned_partitions(parser).name for parser in parsers}
        self.keys = {parser: set(instance.get_dynamic_partitions(name)) for parser, name in self.names.items()}

    def owns(self, parser: str, partition_key: str) -> bool:
        return partition_key in self.keys.get(parser, ())

    def sync(self, owners: Mapping[str, str | None], complete: bool = False) -> tuple[int, int]:
        """Make each parser's partitions hold exactly the keys it owns in ``owners``; with ``complete``, keys
        missing from ``owners`` (documents that left the folder) leave every parser. Returns (added, deleted)."""
        added = deleted = 0
        for parser, name in self.names.items():
            have = self.keys[parser]
            wanted = {key for key, owner in owners.items() if owner == parser}
            gone = have - wanted if complete else {key for key in have & owners.keys() if owners[key] != parser}
            new = wanted - have
            if new:
                self.instance.add_dynamic_partitions(name, sorted(new))
            for key in sorted(gone):
                self.instance.delete_dynamic_partition(name, key)
            have |= new
            have -= gone
            added, deleted = added + len(new), deleted + len(gone)
        return added, deleted
