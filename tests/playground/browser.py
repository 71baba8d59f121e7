"""Debian's chromium driven by Playwright's Python client, for the browser test and the screenshots in docs/.

``python -m tests.playground.browser docs`` takes the README's screenshots of the sample project's recording.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = os.environ.get("RIGHT_RAG_CHROMIUM", "/usr/bin/chromium")
# Without the background-networking flags, Chromium's own connections are refused on a closed network.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1500, "height": 1000}


def missing() -> str | None:
    """Why the browser cannot run here, or None."""
    if not shutil.which(CHROMIUM):
        return f"{CHROMIUM} is missing: run scripts/setup as root (it installs Debian's chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed: pip install -e '.[dev]'"
    return None


def launch(driver):  # noqa: ANN001, ANN201 (playwright objects)
    return driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)


@contextmanager
def browser_tab(what: str, timeout_ms: int) -> Iterator:
    """A tab of headless Chromium for a test, or the test skipped with the reason (failed in CI: it must run)."""
    import pytest

    reason = missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"{what} must run in CI: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = launch(driver)
        tab = browser.new_page(viewport=VIEWPORT)
        tab.set_default_timeout(timeout_ms)
        yield tab
        browser.close()


def choose(page, side: str, **choices: str) -> None:  # noqa: ANN001
    """Set a side's selects; chunker, then flow, then retriever: each narrows the next in recorded mode."""
    for field in ("chunker", "flow", "retriever"):
        if field in choices:
            page.select_option(f'fieldset[data-side="{side}"] select[name={field}]', choices[field])


def take_screenshots(out: Path) -> list[Path]:
    """The sample project's recording: a looping adaptive run with a step open, a citation, a comparison."""
    from playwright.sync_api import sync_playwright

    from right_rag_dagster.playground.server import start_in_thread, url_of
    from right_rag_dagster.project import Project

    server = start_in_thread(Project.load(Path(__file__).resolve().parents[2]))
    shots = [out / "playground-flow.png", out / "playground-citation.png", out / "playground-compare.png"]
    try:
        with sync_playwright() as driver:
            browser = launch(driver)
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(url_of(server) + "?mode=recorded")
            page.wait_for_selector("body[data-ready=true]")
            choose(page, "a", chunker="domain", flow="adaptive", retriever="")
            page.select_option("#dev-questions", index=[o.split(":")[0] for o in page.locator(
                "#dev-questions option").all_inner_texts()].index("fhs-tmp"))
            page.click("#ask-button")
            page.locator('article[data-side="a"] .step[data-step="retrieve"]').nth(2).click()
            page.wait_for_timeout(1500)  # the steps light up one after another
            page.screenshot(path=shots[0])
            page.click('article[data-side="a"] button.citation >> nth=0')
            page.wait_for_selector(".citation-detail")
            page.screenshot(path=shots[1])
            page.click("#detail-close")
            page.check("#compare-toggle")
            choose(page, "a", chunker="domain", flow="simple", retriever="hybrid")
            choose(page, "b", chunker="baseline:fixed-chars-500", flow="simple", retriever="bm25")
            page.click("#ask-button")
            page.locator('article[data-side="b"] .metric').first.wait_for()
            page.wait_for_timeout(1000)
            page.screenshot(path=shots[2], full_page=True)
            browser.close()
    finally:
        server.shutdown()
    return shots


if __name__ == "__main__":
    reason = missing()
    if reason:
        sys.exit(reason)
    for path in take_screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(path)
