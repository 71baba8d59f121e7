"""Dagster's own floor: do-nothing assets with right-rag-dagster's partitioning, on a fresh SQLite DAGSTER_HOME.

Run as a subprocess by ``bench/real_projects.py`` (so its memory and imports are its own):
``python bench/_dagster_floor.py --partitions 710 --assets 4 --naive-sample 20 --home DIR --json OUT``.
Measures single-run backfills over all partitions (each asset yields one AssetMaterialization per
partition, as ``document_pipeline`` does) and the naive one-run-per-partition cost on a sample. Then, in a fresh
process on the same DAGSTER_HOME (``--cold-one``), what a one-file ``right-rag index`` cannot avoid: importing
dagster, creating the instance (which imports its SQLite storage) and a first run of one partition.
``--count --home PROJECT/.dagster`` counts the materializations a project's runs recorded, so the floor can be
scaled to the same number.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

DAGSTER_YAML = "telemetry:\n  enabled: false\n"
SUBSET_PLANNED = "DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS"


def build(asset_count: int):
    """A dynamic partitions definition and one multi-asset step computing ``asset_count`` do-nothing assets."""
    import dagster as dg

    partitions = dg.DynamicPartitionsDefinition(name="documents")
    keys = [dg.AssetKey(f"floor_{i}") for i in range(asset_count)]
    specs = [dg.AssetSpec(key, deps=keys[:i][-1:], partitions_def=partitions, skippable=True) for i, key in
             enumerate(keys)]

    @dg.multi_asset(name="floor_step", specs=specs, partitions_def=partitions,
                    backfill_policy=dg.BackfillPolicy.single_run())
    def floor_step(context):  # a local annotation would not resolve (postponed annotations)
        for partition in context.partition_keys:
            for key in keys:
                yield dg.AssetMaterialization(asset_key=key, partition=partition,
                                              tags={"dagster/data_version": partition})

    job = dg.define_asset_job("floor_job", selection=dg.AssetSelection.assets(*keys))
    defs = dg.Definitions(assets=[floor_step], jobs=[job])
    return partitions, defs.resolve_job_def("floor_job")


def measure(partition_count: int, asset_count: int, naive_sample: int, home: Path,
            subset_planned: bool = True, per_partition_planned: bool = True) -> dict[str, float]:
    """Seconds for: importing dagster, adding the partitions, the batched runs, a run of one partition, the naive
    runs, and a fresh process running one partition.

    ``per_partition_planned``: one batched run as Dagster does by default (one planned event per asset and
    partition); ``subset_planned``: one with ``DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS=1`` (one planned
    event per asset, what ``right-rag index`` sets). ``per_asset_partition_ms`` comes from the cheaper of the two.
    """
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text(DAGSTER_YAML, encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    os.environ.pop(SUBSET_PLANNED, None)
    quiet = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    out: dict[str, float] = {}

    clock = _Clock(out)
    import dagster as dg

    clock.lap("import")
    partitions, job = build(asset_count)
    instance = dg.DagsterInstance.get()
    keys = [f"doc-{i:05d}.copyright" for i in range(partition_count)]
    whole = {"dagster/asset_partition_range_start": keys[0], "dagster/asset_partition_range_end": keys[-1]}

    clock.reset()
    instance.add_dynamic_partitions(partitions.name, keys)
    clock.lap("add_partitions")

    if per_partition_planned:
        job.execute_in_process(instance=instance, run_config=quiet, tags=whole)
        clock.lap("batched_run")

    if subset_planned:  # Dagster's switch: one planned event per asset for the run, not one per partition
        os.environ[SUBSET_PLANNED] = "1"
        clock.reset()
        job.execute_in_process(instance=instance, run_config=quiet, tags=whole)
        clock.lap("batched_run_subset_planned")
        del os.environ[SUBSET_PLANNED]

    clock.reset()
    job.execute_in_process(instance=instance, run_config=quiet, tags={
        "dagster/asset_partition_range_start": keys[0], "dagster/asset_partition_range_end": keys[0]})
    clock.lap("one_partition_run")

    sample = keys[1:1 + naive_sample]
    clock.reset()
    for key in sample:
        job.execute_in_process(instance=instance, run_config=quiet, partition_key=key)
    clock.lap("naive_sample")
    out["naive_sample_runs"] = len(sample)
    out["naive_extrapolated_seconds"] = out["naive_sample_seconds"] / max(len(sample), 1) * partition_count
    materializations = partition_count * asset_count
    out["asset_partitions"] = materializations
    out["partitions"] = partition_count
    batched = [out[f"{name}_seconds"] for name in ("batched_run", "batched_run_subset_planned")
               if f"{name}_seconds" in out]
    out["per_asset_partition_ms"] = min(batched) / materializations * 1000 if batched else 0.0
    instance.dispose()
    out.update(cold_one_process(asset_count, home, keys[len(keys) // 2]))
    return out


def count_materializations(home: Path) -> dict[str, int]:
    """Asset materializations and runs recorded so far in the instance at ``home`` (a project's DAGSTER_HOME)."""
    os.environ["DAGSTER_HOME"] = str(home)
    import dagster as dg

    with dg.DagsterInstance.get() as instance:
        runs = instance.get_runs()
        total = sum(instance.get_run_stats(run.run_id).materializations for run in runs)
    return {"materializations": total, "runs": len(runs)}


def cold_one_process(asset_count: int, home: Path, key: str) -> dict[str, float]:
    """A fresh process: import dagster, create the instance, run one partition; its wall seconds and laps."""
    out_file = home.parent / "cold-one.json"
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--cold-one", key, "--assets", str(asset_count), "--home", str(home),
                    "--json", str(out_file)], check=True, env={**os.environ, SUBSET_PLANNED: "1"})
    figures = {f"cold_one_{name}": value for name, value in json.loads(out_file.read_text()).items()}
    figures["cold_one_process_seconds"] = time.perf_counter() - started
    return figures


def run_cold_one(key: str, asset_count: int, home: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    os.environ["DAGSTER_HOME"] = str(home)
    clock = _Clock(out)
    import dagster as dg

    clock.lap("import")
    instance = dg.DagsterInstance.get()
    clock.lap("instance")
    _, job = build(asset_count)
    job.execute_in_process(instance=instance, run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
                           tags={"dagster/asset_partition_range_start": key, "dagster/asset_partition_range_end": key})
    clock.lap("run")
    return out


class _Clock:
    """Wall and CPU seconds of each phase, stored as ``<name>_seconds`` and ``<name>_cpu_seconds``."""

    def __init__(self, out: dict[str, float]) -> None:
        self.out = out
        self.reset()

    def reset(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def lap(self, name: str) -> None:
        self.out[f"{name}_seconds"] = time.perf_counter() - self.wall
        self.out[f"{name}_cpu_seconds"] = time.process_time() - self.cpu
        self.reset()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=710)
    parser.add_argument("--assets", type=int, default=4)
    parser.add_argument("--naive-sample", type=int, default=20)
    parser.add_argument("--no-subset-planned", action="store_true",
                        help=f"skip the batched run with {SUBSET_PLANNED}=1")
    parser.add_argument("--no-per-partition-planned", action="store_true",
                        help="skip the batched run with Dagster's default planned events (one per asset-partition)")
    parser.add_argument("--count", action="store_true",
                        help="only count the asset materializations and runs recorded in the instance at --home")
    parser.add_argument("--home", type=Path, required=True, help="a fresh DAGSTER_HOME folder")
    parser.add_argument("--json", type=Path, required=True, help="where to write the seconds")
    parser.add_argument("--cold-one", metavar="KEY", help="(internal) the fresh-process run of partition KEY")
    args = parser.parse_args()
    if args.count:
        args.json.write_text(json.dumps(count_materializations(args.home)), encoding="utf-8")
        return
    if args.cold_one:
        figures = run_cold_one(args.cold_one, args.assets, args.home)
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
        gc.freeze()  # as `right-rag index` does: no final collection of Dagster's objects at exit
        return
    figures = measure(args.partitions, args.assets, args.naive_sample, args.home, not args.no_subset_planned,
                      not args.no_per_partition_planned)
    args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
