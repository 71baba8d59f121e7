"""The two jobs: index the documents of a run's partitions (and refresh what spans all documents), or only
refresh what spans all documents. Neither selects the ``evaluation`` group: the evaluation runs on its own."""

from __future__ import annotations

import dagster as dg

from ..names import DOCUMENT_JOB, REFRESH_JOB

index_documents_job = dg.define_asset_job(
    DOCUMENT_JOB,
    # The units assets are partitioned by the documents each parser owns, which a run only learns by routing:
    # the run reports them as it goes (``documents.py``), so the job selects the ``documents``-partitioned rest.
    selection=dg.AssetSelection.groups("documents", "units", "chunks", "search", "reports")
    - dg.AssetSelection.key_prefixes("units"),
    description="Index the run's documents (text, units, chunks, coverage; one step, batched), then update the "
                "search indexes, the audit report and its checks. The evaluation runs apart, after it.",
)

refresh_indexes_job = dg.define_asset_job(
    REFRESH_JOB,
    selection=dg.AssetSelection.groups("search", "reports"),
    description="Refresh the search indexes, the audit report and its checks after documents change.",
)
