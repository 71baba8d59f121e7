"""The Celery and Kubernetes configurations in deploy/: each dagster.yaml loads as a Dagster instance config, its
run launcher and run coordinator configs pass their classes' schemas, and each run_config.yaml validates against
the index job built with that executor (dagster-celery and dagster-k8s 0.29.27, the ``executors`` extra; the
schema checks are skipped without it). The Helm values have no schema here: their structure is checked, and that
they agree with k8s/dagster.yaml."""

from __future__ import annotations

import importlib
from pathlib import Path

import dagster as dg
import pytest
import yaml
from dagster._config import process_config
from dagster._core.instance.config import dagster_instance_config
from dagster._core.run_coordinator import QueuedRunCoordinator

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.orchestration.definitions import build_definitions
from right_rag_dagster.orchestration.executors import EXECUTOR_ENV, executor_named
from right_rag_dagster.orchestration.names import DOCUMENT_JOB, REFRESH_JOB
from right_rag_dagster.project import Project

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def load(path: str) -> dict:
    return yaml.safe_load((DEPLOY / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize("target", ["celery", "k8s"])
def test_each_dagster_yaml_is_a_valid_instance_config(target: str, monkeypatch) -> None:
    monkeypatch.setenv("RIGHT_RAG_DAGSTER_POSTGRES_URL", "postgresql://u:p@localhost:5432/dagster")
    config, _ = dagster_instance_config(str(DEPLOY / target))  # raises on a schema error
    assert config["storage"]["postgres"]["postgres_url"] == {"env": "RIGHT_RAG_DAGSTER_POSTGRES_URL"}
    coordinator = config["run_coordinator"]
    assert coordinator["class"] == "QueuedRunCoordinator"
    checked = process_config(QueuedRunCoordinator.config_type(), coordinator.get("config") or {})
    assert checked.success, checked.errors
    # one writer per run: the run queue and the store pool allow the same number
    assert config["concurrency"]["runs"]["max_concurrent_runs"] == config["concurrency"]["pools"]["default_limit"]


def test_the_k8s_run_launcher_config_passes_its_schema() -> None:
    pytest.importorskip("dagster_k8s")
    launcher = load("k8s/dagster.yaml")["run_launcher"]
    module = importlib.import_module(launcher["module"])
    launcher_class = getattr(module, launcher["class"])
    checked = process_config(launcher_class.config_type(), launcher["config"])
    assert checked.success, checked.errors


@pytest.mark.parametrize(("executor", "path", "module"), [
    ("celery", "celery/run_config.yaml", "dagster_celery"), ("k8s", "k8s/run_config.yaml", "dagster_k8s")])
def test_each_run_config_validates_against_the_index_jobs(executor: str, path: str, module: str, project_dir: Path,
                                                           monkeypatch) -> None:
    pytest.importorskip(module)
    monkeypatch.setenv(EXECUTOR_ENV, executor)
    monkeypatch.setenv("RIGHT_RAG_CELERY_BROKER", "pyamqp://guest@localhost//")
    monkeypatch.setenv("RIGHT_RAG_CELERY_BACKEND", "rpc://")
    defs = build_definitions(Project.load(project_dir))
    for job in (DOCUMENT_JOB, REFRESH_JOB):
        job_def = defs.resolve_job_def(job)
        assert job_def.executor_def is executor_named(executor)
        dg.validate_run_config(job_def, load(path))  # raises DagsterInvalidConfigError
    with pytest.raises(dg.DagsterInvalidConfigError):
        dg.validate_run_config(defs.resolve_job_def(DOCUMENT_JOB), {"execution": {"config": {"no_such_key": 1}}})


def test_the_executor_defaults_to_in_process_and_unknown_names_are_refused(project_dir: Path, monkeypatch) -> None:
    monkeypatch.delenv(EXECUTOR_ENV, raising=False)
    assert build_definitions(Project.load(project_dir)).resolve_job_def(DOCUMENT_JOB).executor_def is \
        dg.in_process_executor
    with pytest.raises(ConfigError):
        executor_named("spark")


def test_the_helm_values_match_the_k8s_instance_config() -> None:
    values, instance = load("k8s/values.yaml"), load("k8s/dagster.yaml")
    (deployment,) = values["dagster-user-deployments"]["deployments"]
    assert deployment["dagsterApiGrpcArgs"] == ["--module-name", "right_rag_dagster.orchestration.definitions"]
    assert values["runLauncher"]["type"] == instance["run_launcher"]["class"] == "K8sRunLauncher"
    launcher = values["runLauncher"]["config"]["k8sRunLauncher"]
    assert launcher["jobNamespace"] == instance["run_launcher"]["config"]["job_namespace"]
    assert launcher["volumes"] == instance["run_launcher"]["config"]["volumes"] == deployment["volumes"]
    queue = values["dagsterDaemon"]["runCoordinator"]
    assert queue["type"] == instance["run_coordinator"]["class"]
    assert (queue["config"]["queuedRunCoordinator"]["maxConcurrentRuns"]
            == instance["concurrency"]["runs"]["max_concurrent_runs"]
            == values["concurrency"]["pools"]["defaultLimit"] == instance["concurrency"]["pools"]["default_limit"])
    assert values["postgresql"]["enabled"] is False  # the shared PostgreSQL of the DuckLake catalog, not the chart's
