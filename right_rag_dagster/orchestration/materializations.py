"""Dagster materializations for the pipeline's step events, with the provenance Dagster reads to tell what is stale.

Each materialization records its inputs' data versions and pointers to their materialization events, so the UI
marks exactly what an edit made unsynced. In a backfill, every requested partition the run did not change is
confirmed, so the backfill completes.
"""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg

from ..core.steps import CHUNKS, COVERAGE, StepEvent, units_asset
from ..pipeline.scan import DocumentFile
from ..store import Store, content
from .names import asset_key_for_step

BACKFILL_TAG = "dagster/backfill"  # the tag Dagster puts on every run of a backfill
ABSENT = "NULL"
"""Dagster's word for an input with no value (no data version, no materialization event)."""


def staged_materializations(instance: dg.DagsterInstance, events: list[StepEvent], unit_keys: list[dg.AssetKey],
                            root: Path) -> Iterator[dg.AssetMaterialization]:
    """Materializations for ``events``, stage by stage, so that each input's event is stored before the
    events that point to it; paths are shown relative to the project folder ``root``."""
    for stage in ("raw_text", "units", "chunks", "coverage"):
        staged = [e for e in events if e.stage == stage]
        pointers = input_pointers(instance, staged)
        for event in staged:
            yield to_materialization(event, pointers, unit_keys, root)


def confirmations(store: Store, files: list[DocumentFile], selected: list[dg.AssetKey],
                  steps: dict[dg.AssetKey, tuple[str, str, str | None]],
                  yielded: set[tuple[dg.AssetKey, str]]) -> list[StepEvent]:
    """In a backfill, one event per requested asset partition the run did not change, marked "unchanged" with
    its stored versions: a backfill asked for these partitions, and without a materialization Dagster marks
    them failed. Nothing is confirmed for what does not exist: a parser's units of a document it does not own
    (no longer its partition), the chunks and coverage of a rejected document (the backfill says they failed)."""
    with store.read() as con:
        stored = content.step_states(con, [f.document_id for f in files])
    state = {key: (version, owner) for key, (_, version, owner) in stored.items()}
    events = []
    for file in files:
        raw_version = state.get(("raw_text", file.document_id), (None, None))[0]
        units_version, owner = state.get(("units", file.document_id), (None, None))
        for key in selected:
            step, asset, code_version = steps[key]
            if (key, file.partition_key) in yielded or (step != "raw_text" and not owner) or (
                    step == "units" and asset != units_asset(owner)):
                continue
            version, _ = state.get((step, file.document_id), (None, None))
            if step == "units":
                inputs = {"raw_text": raw_version} if raw_version else {}
            elif step != "raw_text":
                inputs = {units_asset(owner): units_version} if units_version else {}
            else:
                inputs = {}
            events.append(StepEvent(asset, file.document_id, file.partition_key,
                                    "unchanged" if version else "not indexed", version, code_version, inputs,
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
                       unit_keys: list[dg.AssetKey], root: Path) -> dg.AssetMaterialization:
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
    if event.stage in (CHUNKS, COVERAGE) and inputs:
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
        metadata={"document_id": event.document_id, "status": event.status, **to_metadata(event.metadata, root)},
        tags=tags,
    )


def to_metadata(values: dict[str, Any], root: Path) -> dict[str, Any]:
    """Plain values as Dagster metadata; {"md": text} becomes Markdown, dicts become JSON, a path is shown
    relative to the project folder ``root`` (still right after the folder moves)."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, dict) and set(value) == {"md"}:
            out[name] = dg.MetadataValue.md(value["md"])
        elif isinstance(value, (dict, list)):
            out[name] = dg.MetadataValue.json(value)
        elif name == "path":
            out[name] = dg.MetadataValue.path(project_relative(value, root))
        else:
            out[name] = value
    return out


def project_relative(path: str, root: Path) -> str:
    """``path`` relative to the project folder (POSIX separators), or as it is when it lies outside it."""
    relative = os.path.relpath(path, root)
    return path if relative.startswith("..") else Path(relative).as_posix()
