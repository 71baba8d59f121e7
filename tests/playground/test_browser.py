"""The page in real headless Chromium (Debian's package, driven by Playwright's Python client): pick a flow, ask a
development question, see the steps lit in trace order, open a step and a citation, compare two chunkers, go live.

Needs /usr/bin/chromium (``scripts/setup`` installs it as root); skipped with the reason elsewhere, never in CI.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from right_rag_dagster.evaluation.spans import collapse_whitespace
from right_rag_dagster.playground.recordings import PACKAGED, Recording
from tests.playground.browser import browser_tab, choose
from tests.playground.conftest import BASELINE, QUESTIONS


@pytest.fixture(scope="module")
def page(server_url: str) -> Iterator:
    with browser_tab("the browser test", 20_000) as tab:
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        yield tab
        assert not errors, errors


def side(page, name: str):  # noqa: ANN001, ANN201 (playwright objects)
    return page.locator(f'article[data-side="{name}"]')


def test_recorded_mode_flow_steps_citation_and_comparison(page, server_url: str) -> None:  # noqa: ANN001
    recording = Recording.load(PACKAGED)
    question = next(q for q in recording.data["questions"] if q["id"] == "gpl3-reinstatement")
    expected = recording.run(question["question"], "domain", "", "adaptive")
    page.goto(server_url + "?mode=recorded")
    page.wait_for_selector("body[data-ready=true]")
    assert page.get_attribute('#mode button[data-mode="recorded"]', "aria-checked") == "true"
    choose(page, "a", chunker="domain", flow="adaptive", retriever="")
    pane = side(page, "a")
    nodes = [n["id"] for n in expected["trace"]["flow"]["nodes"]]  # drawn from FLOW before anything runs
    assert pane.locator("g.node").evaluate_all("els => els.map(e => e.dataset.node)") == nodes
    assert pane.locator("g.node.visited").count() == 0
    page.select_option("#dev-questions", question["question"])
    page.click("#ask-button")
    pane.locator(".step").first.wait_for()
    trace = [s["step"] for s in expected["trace"]["steps"]]
    assert pane.locator(".step").evaluate_all("els => els.map(e => e.dataset.step)") == trace
    for node in expected["trace"]["flow"]["nodes"]:
        visits = [str(i + 1) for i, step in enumerate(trace) if step == node["id"]]
        element = pane.locator(f'g.node[data-node="{node["id"]}"]')
        assert element.get_attribute("data-visits") == ",".join(visits)
        assert ("visited" in element.get_attribute("class")) == bool(visits)
    lit = pane.locator("path.edge.lit, path.edge.loop").evaluate_all("els => els.map(e => e.dataset.edge)")
    assert set(lit) == {f"{a}>{b}" for a, b in zip(trace, trace[1:])}
    assert "retrieved at rank" in pane.locator(".evidence-banner").inner_text()
    assert pane.locator('.metric[data-metric="mrr@10"] b').inner_text() == format(
        recording.metrics("domain", expected["settings"]["retriever"])["metrics"]["mrr@10"], ".3f")

    pane.locator('.step[data-step="retrieve"]').first.click()
    detail = page.locator("#detail .step-detail")
    assert detail.get_attribute("data-step") == "retrieve"
    hits = expected["trace"]["steps"][trace.index("retrieve")]["outputs"]["hits"]
    assert detail.locator("tr.hit").count() == len(hits)
    first = detail.locator("tr.hit").first
    assert first.locator("td").nth(1).inner_text() == hits[0]["document"]
    if expected["settings"]["retriever"] == "hybrid":
        assert "bm25 #" in first.locator("td.details").inner_text()
    assert detail.locator("tr.hit.evidence").count() >= 1

    citation = expected["citations"][0]
    pane.locator(f'button.citation[data-number="{citation["number"]}"]').click()
    cited = page.locator("#detail .citation-detail")
    cited.wait_for()
    marked = cited.locator(".unit-text mark.quote").evaluate_all("els => els.map(e => e.textContent).join('')")
    assert collapse_whitespace(marked) == citation["quote"]
    assert cited.locator(".tree li.on-path").count() >= 2

    page.check("#compare-toggle")
    choose(page, "b", chunker="baseline:fixed-chars-500", flow="simple", retriever="bm25")
    page.click("#ask-button")
    other = side(page, "b")
    other.locator(".step").first.wait_for()
    assert other.locator("header h2").inner_text() == "baseline:fixed-chars-500 × bm25 × simple"
    steps = other.locator(".step").evaluate_all("els => els.map(e => e.dataset.step)")
    assert steps == ["retrieve", "rerank", "generate"]
    other.locator(".metric").first.wait_for()
    assert pane.locator("header h2").inner_text().startswith("domain ×")


def test_a_joined_hit_shows_every_chunk_it_joins_in_document_order(page, server_url: str) -> None:  # noqa: ANN001
    """A hit that joins neighbouring chunks (``retrieval/searching/neighbours.py``) is one row that says how many it
    joins, and its text is every chunk's, in the order of the document (not of rank)."""
    recording = Recording.load(PACKAGED)
    runs = ((q, recording.run(q["question"], "domain", "bm25", "simple")) for q in recording.data["questions"])
    question, run, hit = next((q, run, h) for q, run in runs for h in _retrieved(run) if len(h.get("joined", ())) > 2)
    page.goto(server_url + "?mode=recorded")
    page.wait_for_selector("body[data-ready=true]")
    choose(page, "a", chunker="domain", flow="simple", retriever="bm25")
    page.select_option("#dev-questions", question["question"])
    page.click("#ask-button")
    side(page, "a").locator('.step[data-step="retrieve"]').first.click()
    row = page.locator(f'#detail tr.hit[data-chunk="{hit["chunk_id"]}"]')
    assert f"joins {len(hit['joined'])} neighbouring chunks" in row.locator("td.details").inner_text()
    row.click()
    shown = row.locator("xpath=following-sibling::tr[1]").locator("pre").inner_text()
    in_text_order = sorted(hit["joined"], key=lambda part: part[2])
    assert [part[0] for part in in_text_order] != [part[0] for part in hit["joined"]]  # rank order differs
    assert collapse_whitespace(shown) == collapse_whitespace(
        " ".join(run["chunks"][part[0]]["text"] for part in in_text_order))


def _retrieved(run: dict) -> list[dict]:
    return next(step for step in run["trace"]["steps"] if step["step"] == "retrieve")["outputs"]["hits"]


def test_live_mode_runs_the_real_query_code_side_by_side(page, server_url: str) -> None:  # noqa: ANN001
    page.goto(server_url + "?mode=live")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#dev-questions", QUESTIONS[0]["question"])
    choose(page, "a", chunker="default", flow="simple", retriever="bm25")
    page.check("#compare-toggle")
    choose(page, "b", chunker=BASELINE, flow="simple", retriever="bm25")
    page.click("#ask-button")
    for name, chunker in (("a", "default"), ("b", BASELINE)):
        pane = side(page, name)
        pane.locator(".metric").first.wait_for()
        assert pane.locator(".badge.live").count() == 1
        assert pane.locator("header h2").inner_text() == f"{chunker} × bm25 × simple"
        assert pane.locator(".evidence-banner").count() == 1
    assert "three years" in side(page, "a").locator(".answer").inner_text()
