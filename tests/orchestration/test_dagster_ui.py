"""The Dagster UI as a user sees it, in real headless Chromium driving ``dagster dev`` (daemon included): after
``right-rag index`` the catalog has no missing partitions and the Overview shows the CLI's run; a parser edit fails
that parser's check; the backfill launched from the asset's dialog completes; lineage names the new parser version.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator

import pytest

from right_rag_dagster.project import Project
from right_rag_dagster.store import Store
from tests.playground.browser import browser_tab

from .dagster_ui import dagster_dev, graphql, make_sample_project, right_rag

pytestmark = pytest.mark.slow

PARTITIONED = ("raw_text", "chunks/domain", "coverage", "units/licence", "units/policy_changelog")
BACKFILL = "query($id: String!) { partitionBackfillOrError(backfillId: $id) { ... on PartitionBackfill { status } } }"


SENSOR_TICKS = """query($after: Float!) { sensorOrError(sensorSelector: {repositoryLocationName: "right_rag",
  repositoryName: "__repository__", sensorName: "parser_versions_sensor"}) {
  ... on Sensor { sensorState { ticks(afterTimestamp: $after, statuses: [SUCCESS, SKIPPED], limit: 1) { tickId } } } } }"""


RUNS = """query($id: String!) { runsOrError(filter: {tags: [{key: "dagster/backfill", value: $id}]}) {
  ... on Runs { results { status } } } }"""


def backfill_runs(url: str, backfill_id: str) -> list[str]:
    """The statuses of the runs the backfill launched (none before the daemon's tick)."""
    return [run["status"] for run in graphql(url, RUNS, {"id": backfill_id})["runsOrError"]["results"]]


@pytest.fixture
def page() -> Iterator:
    with browser_tab("the Dagster UI test", 30_000) as tab:
        yield tab


def open_page(page, url: str) -> None:  # noqa: ANN001 (playwright objects)
    """Open ``url`` and dismiss Dagster's one-time community dialog if it shows."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    skip = page.get_by_role("button", name="Skip")
    if skip.count():
        skip.click()


def sensor_ticked_since(url: str, since: float) -> bool:
    """Whether the parser check's sensor has finished a tick that started after ``since`` (a Unix time)."""
    sensor = graphql(url, SENSOR_TICKS, {"after": since})["sensorOrError"]
    return bool(sensor["sensorState"]["ticks"])


def eventually(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {seconds:.0f} s: {what}")
        time.sleep(2)


def test_catalog_parser_edit_backfill_and_lineage_in_the_dagster_ui(tmp_path, page) -> None:  # noqa: ANN001
    project = make_sample_project(tmp_path / "project")
    env = {**os.environ, "DAGSTER_HOME": str(project / ".dagster")}
    indexed = right_rag("index", "--project", str(project), env=env)
    assert indexed.returncode == 0, indexed.stdout + indexed.stderr
    with dagster_dev(project, env, tmp_path / "dagster-dev.log") as url:
        for key in PARTITIONED:  # every partitioned asset, each parser's units included: nothing missing
            open_page(page, f"{url}/assets/{key}?view=partitions")
            page.get_by_text(re.compile(r"Materialized \([1-9]\d*\)")).wait_for()
            assert page.get_by_text("Missing (0)").count() == 1, key
        open_page(page, f"{url}/assets")
        page.get_by_text("search_index / domain_index").first.wait_for()  # never labelled like chunks/domain
        page.get_by_role("link", name="Overview").first.click()
        page.get_by_text("index_documents").first.wait_for()  # the CLI's run, on the timeline of location right_rag

        licence = project / "spec" / "unit_parsers" / "licence.py"
        licence.write_text(licence.read_text() + "\n# edited: a new code version, same units\n")
        open_page(page, f"{url}/assets")
        page.get_by_role("button", name="Reload definitions").click()
        checks = f"{url}/assets/units/licence?view=checks"
        eventually(lambda: open_page(page, checks) or page.get_by_text("Failed").count() > 0, 60,
                   "the parser's check failing after its edit")
        assert page.get_by_text("parsed_by_current_version").count() >= 1

        open_page(page, f"{url}/assets/units/licence?view=partitions")
        page.get_by_role("button", name="Materialize…").first.click()
        dialog = page.get_by_role("dialog")
        dialog.get_by_role("button", name="All", exact=True).click()
        dialog.get_by_text("4 partitions").wait_for()  # the documents licence owns
        dialog.get_by_role("button", name="Launch backfill").click()
        backfill_id = re.search(r"Created backfill (\w+)", page.get_by_text("Created backfill").inner_text()).group(1)
        # the daemon launches the backfill's runs on a tick and marks it completed on a later one (30 s apart, not
        # configurable): the runs succeeding and the check passing are what the user waits for
        eventually(lambda: backfill_runs(url, backfill_id) and all(
            status == "SUCCESS" for status in backfill_runs(url, backfill_id)), 120, "the backfill's runs succeeding")
        assert graphql(url, BACKFILL, {"id": backfill_id})["partitionBackfillOrError"]["status"] in (
            "REQUESTED", "IN_PROGRESS", "COMPLETED_SUCCESS")
        # the check is re-evaluated by parser_versions_sensor: wait for the daemon to run a tick that started after
        # the runs (its pace, not ours, under a loaded machine), then the check must show as passed on the page
        finished = time.time()
        eventually(lambda: sensor_ticked_since(url, finished), 180, "a tick of parser_versions_sensor after the backfill")
        eventually(lambda: open_page(page, checks) or page.get_by_text("Passed").count() > 0, 20,
                   "the parser's check passing after the sensor's tick")

    version = Project.load(project).registry.version("unit_parsers", "licence")
    with Store(Project.load(project).store_path).read() as con:
        [chunk_id] = con.execute("SELECT chunk_id FROM chunks WHERE document_id = 'GPL-3.0.txt' LIMIT 1").fetchone()
    lineage = right_rag("lineage", chunk_id, "--project", str(project), env=env)
    assert lineage.returncode == 0, lineage.stderr
    assert f"parser    licence version {version}" in lineage.stdout
    assert "file      data/documents/GPL-3.0.txt" in lineage.stdout
