"""The asset factory: raw_text -> units[parser] -> chunks[chunker] -> coverage, then search_index[chunker] and
audit_report.

One multi-asset step computes them all: the run's partitions first, then the unpartitioned indexes and report
that span every document. A run that changes documents so leaves everything current at the cost of one run
and one step, with a single DuckDB writer. The step yields one ``AssetMaterialization`` per partitioned asset
and partition that really changed (unchanged ones yield nothing and keep their history; see
``orchestration/materializations.py`` for their provenance and for backfills); the step is subsettable, so the
indexes and report can also be refreshed alone (the ``refresh_indexes`` job). Each parser's units asset is
partitioned by the documents it owns, which only routing tells: a run over ``documents`` reports them as it goes,
after moving each document to its owner's partitions (``orchestration/owners.py``); a backfill of one parser's
asset runs the same step over that parser's partitions.
"""


import contextlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any

import dagster as dg

from ...core.steps import COVERAGE_VERSION, StepEvent, chunks_asset, units_asset
from ...pipeline.plan import known_files
from ...pipeline.plugins import record_plugin_errors
from ...pipeline.runner import (
    BATCH_SECONDS,
    mark_refresh,
    process_documents,
    remove_gone,
)
from ...pipeline.scan import DocumentFile, scan_documents
from ...project import Project
from ...store.db import utcnow
from ..materializations import BACKFILL_TAG, confirmations, staged_materializations
from ..names import (
    AUDIT_REPORT_KEY,
    COVERAGE_KEY,
    DOCUMENTS_PARTITIONS,
    RAW_TEXT_KEY,
    STORE_POOL,
    asset_key_for_step,
    chunks_key,
    owned_partitions,
    search_index_key,
    units_key,
)
from ..owners import OwnedPartitions, stored_owners
from ..resources import RightRagProject
from ..writers import is_writer_run, writer_count
from .backfill_refresh import refresh_after_backfill
from .reports import audit_check_specs, audit_report_spec, materialize_audit_report
from .search import materialize_search_indexes, search_index_specs

SESSION_MAX_DOCUMENTS = 20
"""A run that wrote at most this many documents refreshes the search indexes and the report with the store file
held open (``Store.session``): its few short steps would otherwise spend more time opening it than working."""
SESSION_MAX_BYTES = 4 * 2**20
"""A run of at most ``SESSION_MAX_DOCUMENTS`` documents holding at most this many bytes of files keeps the store
file open from its scan on, except while they are parsed; a larger one lets readers in between its transactions
(a 100 MB file's write and its savers kept a query waiting 82 s)."""
FROM_OWNER = dg.SpecificPartitionsPartitionMapping([])
"""How chunks and coverage depend on the units assets: a document's chunks come from its owner's units only, which no
built-in mapping expresses (the identity mapping asks every parser's asset for the partition, and Dagster then
refuses any backfill of chunks or coverage: "depends on non-existent partitions"). So the graph keeps the edges
without a partition-level dependency; each materialization's tags and DuckDB's lineage name the owner's units."""


@dataclass(frozen=True)
class PluginAssetSpec:
    """One registered plugin turned into an asset: key, version, where its source lives."""

    kind: str
    name: str
    version: str
    source_file: str
    fallback: bool = False


def plugin_specs(project: Project) -> tuple[list[PluginAssetSpec], list[PluginAssetSpec], PluginAssetSpec]:
    """The unit parsers, chunk parsers and combined loader spec this project's pipeline selects."""
    registry = project.registry
    def spec(kind: str, name: str, fallback: bool = False) -> PluginAssetSpec:
        info = registry.info(kind, name)
        return PluginAssetSpec(kind, name, info.version, info.source_file, fallback)

    fallback = project.fallback_unit_parser()
    parsers = [spec("unit_parsers", n) for n in project.selected("unit_parsers")]
    parsers += [spec("unit_parsers", fallback, fallback=True)] if fallback else []
    chunkers = [spec("chunk_parsers", n) for n in project.selected("chunk_parsers")]
    loaders = [spec("document_loaders", n) for n in project.selected("document_loaders")]
    loader = PluginAssetSpec("document_loaders", ",".join(l.name for l in loaders),
                             "-".join(l.version for l in loaders), ", ".join(l.source_file for l in loaders))
    return parsers, chunkers, loader


def plugin_errors_note(project: Project) -> str:
    """A warning for asset descriptions when spec files fail to import (the UI shows it where users look)."""
    errors = project.registry.errors
    if not errors:
        return ""
    return ("\n\n**Spec files that failed to import** (documents they owned keep their last good version): "
            + "; ".join(f"`{e.file}`: {e.message}" for e in errors))


def build_document_assets(project: Project) -> dg.AssetsDefinition:
    """The factory: one asset spec per selected plugin, all computed by one multi-asset step."""
    parsers, chunkers, loader = plugin_specs(project)
    unit_keys = [units_key(p.name) for p in parsers]
    unit_deps = [dg.AssetDep(key, partition_mapping=FROM_OWNER) for key in unit_keys]
    chunk_keys = [chunks_key(c.name) for c in chunkers]
    chunker_names = [c.name for c in chunkers]
    steps = {RAW_TEXT_KEY: ("raw_text", "raw_text", loader.version),  # asset key -> (step, step asset, code version)
             **{units_key(p.name): ("units", units_asset(p.name), p.version) for p in parsers},
             **{chunks_key(c.name): (f"chunks:{c.name}", chunks_asset(c.name), c.version) for c in chunkers},
             COVERAGE_KEY: ("coverage", "coverage", COVERAGE_VERSION)}
    document_specs = [
        dg.AssetSpec(RAW_TEXT_KEY, group_name="documents", kinds={"duckdb", "python"}, code_version=loader.version,
                     partitions_def=DOCUMENTS_PARTITIONS, skippable=True,
                     description=f"Extracted text and page map of each document (loader: {loader.name})."
                                 + plugin_errors_note(project),
                     metadata={"loader": loader.name, "source_file": loader.source_file}),
        *[dg.AssetSpec(units_key(p.name), deps=[RAW_TEXT_KEY], group_name="units", kinds={"duckdb", "python"},
                       code_version=p.version, partitions_def=owned_partitions(p.name), skippable=True,
                       description=f"Unit tree from unit parser `{p.name}` for the documents it owns"
                                   + (" (the fallback: documents no domain parser accepts)." if p.fallback else ".")
                                   + " Its partitions are those documents, kept by the run that routes them; after "
                                     "an edit of the parser, backfill all of them (its check says when).",
                       metadata={"parser": p.name, "source_file": p.source_file,
                                 "routed_as": "fallback" if p.fallback else "domain"}) for p in parsers],
        *[dg.AssetSpec(chunks_key(c.name), deps=unit_deps, group_name="chunks", kinds={"duckdb", "python"},
                       code_version=c.version, partitions_def=DOCUMENTS_PARTITIONS, skippable=True,
                       description=f"Chunks cut inside units by chunk parser `{c.name}`, with spans and pages.",
                       metadata={"chunker": c.name, "source_file": c.source_file}) for c in chunkers],
        dg.AssetSpec(COVERAGE_KEY, deps=unit_deps, group_name="units", kinds={"duckdb"},
                     code_version=COVERAGE_VERSION, partitions_def=DOCUMENTS_PARTITIONS, skippable=True,
                     description="Share of each document's text covered by its units' source spans."),
    ]
    document_keys = {spec.key for spec in document_specs}
    refresh_keys = {*(search_index_key(c) for c in chunker_names), AUDIT_REPORT_KEY}

    @dg.multi_asset(
        name="document_pipeline",
        specs=[*document_specs, *search_index_specs(chunker_names), audit_report_spec(unit_keys, chunk_keys)],
        check_specs=audit_check_specs(project),
        can_subset=True,
        backfill_policy=dg.BackfillPolicy.single_run(),
        pool=STORE_POOL,
        description="Load, parse, chunk and measure coverage for the run's documents (incremental), then update "
                    "the search indexes and the audit report." + plugin_errors_note(project),
    )
    def document_pipeline(context: dg.AssetExecutionContext, right_rag: RightRagProject) -> Iterator[Any]:
        selected = set(context.selected_asset_keys)
        project, store = right_rag.get_project(), right_rag.get_store()
        keys = set(context.partition_keys) if selected & document_keys else set()
        with contextlib.ExitStack() as held:
            # A run of a few small documents holds the store from its scan to its refresh, letting go while the
            # workers parse (``process_documents``): a parser that hangs on the one file a user edited must not lock
            # every query out until document_seconds. A larger run holds it only for the scan and a small refresh.
            if len(keys) <= SESSION_MAX_DOCUMENTS:
                held.enter_context(store.session())
            with store.session():
                files = scan_documents(project.documents_dir, known_files(store), project.allow_outside_links)
                writer = is_writer_run(context.run)  # one of several writers: the refresh run after them does the rest
                removed = [] if writer else remove_gone(right_rag.get_indexer(), store, files, context.run.run_id)
                owned = OwnedPartitions(context.instance, [p.name for p in parsers])
                if not writer:
                    owned.sync(stored_owners(store, files), complete=True)
            if sum(f.size for f in files if f.partition_key in keys) > SESSION_MAX_BYTES:
                held.close()  # its write, and the savers after it, would keep readers out for long
            if removed:
                context.log.info(f"removed {len(removed)} documents whose files left the folder: "
                                 f"{[e.document_id for e in removed][:10]}")
            changed: set[str] = {e.document_id for e in removed}
            if selected & document_keys:  # no session while parsing: readers get in between the batches
                changed |= yield from run_document_pipeline(context, right_rag, steps, files, owned)
                if not selected & refresh_keys:
                    yield from refresh_after_backfill(context, right_rag, chunker_names)
            if len(changed) > SESSION_MAX_DOCUMENTS:
                held.close()  # a large refresh writes in many short transactions, between which readers get in
            with store.session() if len(changed) <= SESSION_MAX_DOCUMENTS else contextlib.nullcontext():
                refresh_started = utcnow()
                yield from materialize_search_indexes(right_rag, chunker_names, selected)
                if AUDIT_REPORT_KEY in selected:
                    yield materialize_audit_report(right_rag)
                if refresh_keys <= selected:
                    mark_refresh(store, pending=False, unless_marked_since=refresh_started)
                share = len(changed) / max(1, len(files) + len(removed))
                compact = store.compaction_due(rewritten_share=share)
        compacted = store.compact(rewritten_share=share) if compact else None  # the copy needs the file let go
        if compacted:
            context.log.info(f"store compacted from {compacted[0] / 2**20:.0f} MB to {compacted[1] / 2**20:.0f} MB "
                             "(free blocks of earlier versions reclaimed)")

    return document_pipeline


def run_document_pipeline(context: dg.AssetExecutionContext, right_rag: RightRagProject,
                          steps: dict[dg.AssetKey, tuple[str, str, str | None]],
                          scanned: list[DocumentFile], owned: OwnedPartitions) -> Generator[Any, None, set[str]]:
    """Process the run's partitions; after each batch is committed, move its documents to their owners'
    partitions, then yield their materializations (a parser's units only for a document it owns). Returns the
    documents it wrote."""
    unit_keys = [key for key, (step, _, _) in steps.items() if step == "units"]
    project_root = right_rag.get_project().root
    store = right_rag.get_store()
    indexer = right_rag.get_indexer()
    for problem in record_plugin_errors(indexer, store):
        context.log.error(f"spec plugin failed to import (documents it owned keep their last good version): {problem}")
    files = {f.partition_key: f for f in scanned}
    keys = context.partition_keys
    missing = [k for k in keys if k not in files]
    if missing:
        context.log.warning(f"{len(missing)} partitions have no file any more (the sensor removes them): "
                            f"{missing[:5]}")
    todo = [files[k] for k in keys if k in files]
    counts = {"materialized": 0, "rejected": 0, "unchanged": len(todo)}
    changed_docs: set[str] = set()
    yielded: set[tuple[dg.AssetKey, str]] = set()
    writer = is_writer_run(context.run)
    if writer and todo:  # once, not with every batch: concurrent replacements of that one row would conflict
        store.retry_conflicts(lambda: mark_refresh(store, pending=True))
    written_owners: dict[str, str | None] = {}  # read in each batch's own transaction
    for events in process_documents(indexer, store, todo, context.run.run_id, mark_pending=not writer,
                                    owners=written_owners, batch_seconds=BATCH_SECONDS * writer_count(context.run)):
        for event in events:
            changed_docs.add(event.document_id)
            counts[event.status] = counts.get(event.status, 0) + 1
            if event.status in ("unsupported", "ambiguous", "failed", "rejected", "stale", "warning"):
                context.log.warning(f"{event.document_id}: {event.status}: {event.metadata.get('reason')}")
        batch = [files[k] for k in {e.partition_key for e in events} if k in files]
        unread = [f for f in batch if f.document_id not in written_owners]
        owned.sync({**{f.partition_key: written_owners.pop(f.document_id) for f in batch
                       if f.document_id in written_owners}, **stored_owners(store, unread)})
        materialized = [e for e in events if e.status in ("materialized", "rejected") and asset_key_for_step(e.asset)
                        and owned_or_not_units(e, owned)]
        for materialization in staged_materializations(context.instance, materialized, unit_keys, project_root):
            yielded.add((materialization.asset_key, materialization.partition))
            yield materialization
    counts["unchanged"] = len(todo) - len(changed_docs)
    context.log.info(f"documents: {len(todo)} in run, {counts['unchanged']} unchanged; events: {counts}")
    if context.run.tags.get(BACKFILL_TAG) and todo:
        confirmed = confirmations(store, todo, [k for k in context.selected_asset_keys if k in steps], steps, yielded)
        yield from staged_materializations(context.instance, confirmed, unit_keys, project_root)
    return changed_docs


def owned_or_not_units(event: StepEvent, owned: OwnedPartitions) -> bool:
    """Whether a step event may be reported: a parser's units only for a document that parser owns (one it
    rejected is not its partition)."""
    kind, _, parser = event.asset.partition("/")
    return kind != "units" or owned.owns(parser, event.partition_key)
