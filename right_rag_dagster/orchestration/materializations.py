"""Dagster materializations for the pipeline's step events, with the provenance Dagster reads to tell what is stale.

Each materialization records its inputs' data versions and pointers to their materialization events, so the UI
marks exactly what an edit made unsynced. In a backfill, every requested partition the run did not change is
confirmed, so the backfill completes.
"""

from collections.abc import Iterator
from typing import Any

import dagster as dg

from ..pipeline.indexer import StepEvent, units_asset
from ..pipeline.scan import DocumentFile
from ..store import Store, content
from .names import asset_key_for_step

BACKFILL_TAG = "dagster/backfill"  # the tag Dagster puts on every run of a backfill
ABSENT = "NULL"
"""Dagster's word for an input with no value (no data version, no materialization event)."""


def staged_materializations(instance: dg.DagsterInstance, events: list[StepEvent],
                            unit_keys: list[dg.AssetKey]) -> Iterator[dg.AssetMaterialization]:
    """Materializations for ``events``, stage by stage, so that each input's event is stored before the
    events that point to it."""
    for stage in ("raw_text", "units", "chunks", "coverage"):
        staged = [e for e in events if e.asset.split("/")[0] == stage]
        pointers = input_pointers(instance, staged)
        for event in staged:
            yield to_materialization(event, pointers, unit_keys)


def confirmations(store: Store, files: list[DocumentFile], selected: list[dg.AssetKey],
                  steps: dict[dg.AssetKey, tuple[str, str, str | None]],
                  yielded: set[tuple[dg.AssetKey, str]]) -> list[StepEvent]:
    """In a backfill, one event per requested asset partition the run did not change: "unchanged", with its
    stored versions, or "not owned" for the units of a parser that does not own the document. A backfill
    asked for these partitions; without a materialization, Dagster marks them failed."""
    with store.read() as con:
        stored = content.step_states(con, [f.document_id for f in files])
    state = {key: (version, owner) for key, (_, version, owner) in stored.items()}
    events = []
    for file in files:
        raw_version = state.get(("raw_text", file.document_id), (None, None))[0]
        units_version, owner = state.get(("units", file.document_id), (None, None))
        for key in selected:
            if (key, file.partition_key) in yielded:
                continue
            step, asset, code_version = steps[key]
            version, _ = state.get((step, file.document_id), (None, None))
            status, inputs = "unchanged", {}
            if step == "units":
                inputs = {"raw_text": raw_version} if raw_version else {}
                if asset != units_asset(owner):
                    status, version = "not owned", None
            elif step != "raw_text" and owner:
                inputs = {units_asset(owner): units_version} if units_version else {}
            if version is None and status == "unchanged":
                status = "not indexed"
            events.append(StepEvent(asset, file.document_id, file.partition_key, status, version, code_version, inputs,
                                    {"owner": owner} if owner else {}))
    return events


def input_pointers(instance: dg.DagsterInstance, events: list[StepEvent]) -> dict[tuple[dg.AssetKey, str], int]:
    """The storage id of the latest materialization of each input of ``events`` (per asset and partition)."""
    wanted: dict[dg.AssetKey, set[str]] = {}
    for event in events:
        for name in event.input_versions:
            key = asset_key_for_step(name)
            if key is not None:
                wanted.setdefault(key, set()).add(event.partition_key)
    pointers = {}
    for key, partitions in wanted.items():
        found = instance.get_latest_storage_id_by_partition(key, dg.DagsterEventType.ASSET_MATERIALIZATION,
                                                            partitions)
        pointers.update({(key, partition): storage_id for partition, storage_id in found.items()})
    return pointers


def to_materialization(event: StepEvent, pointers: dict[tuple[dg.AssetKey, str], int],
                       unit_keys: list[dg.AssetKey]) -> dg.AssetMaterialization:
    """A Dagster materialization for a step event, with the provenance Dagster reads to tell what is stale.

    For each input: its data version and a pointer to the materialization event it came from. Chunks and
    coverage depend on every parser's units asset, but only the owner's has this partition: the others are
    recorded as absent inputs ("NULL"), so the UI does not call them new dependencies."""
    key = asset_key_for_step(event.asset)
    tags = {}
    if event.data_version:
        tags["dagster/data_version"] = event.data_version
    if event.code_version:
        tags["dagster/code_version"] = event.code_version
    inputs = {asset_key_for_step(name): version for name, version in event.input_versions.items()}
    if event.asset.split("/")[0] in ("chunks", "coverage") and inputs:
        inputs.update({unit_key: ABSENT for unit_key in unit_keys if unit_key not in inputs})
    for upstream, version in inputs.items():
        if upstream is None:
            continue
        tags[f"dagster/input_data_version/{upstream.to_user_string()}"] = version
        pointer = pointers.get((upstream, event.partition_key))
        tags[f"dagster/input_event_pointer/{upstream.to_user_string()}"] = ABSENT if pointer is None else str(pointer)
    return dg.AssetMaterialization(
        asset_key=key,
        partition=event.partition_key,
        metadata={"document_id": event.document_id, "status": event.status, **to_metadata(event.metadata)},
        tags=tags,
    )


def to_metadata(values: dict[str, Any]) -> dict[str, Any]:
    """Plain values as Dagster metadata; {"md": text} becomes Markdown, dicts become JSON."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, dict) and set(value) == {"md"}:
            out[name] = dg.MetadataValue.md(value["md"])
        elif isinstance(value, (dict, list)):
            out[name] = dg.MetadataValue.json(value)
        elif name == "path":
            out[name] = dg.MetadataValue.path(value)
        else:
            out[name] = value
    return out
