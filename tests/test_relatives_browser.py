"""Close relatives in a real headless Chromium: the corpus-wide page (?view=relatives, and an
older link's ?view=twins) and a paper's "Close relatives" part, on the seeds plus two versions
of one short abstract (its last sentence rewritten) that share a sentence of hostile markup.

Screenshots land in test-output/ (relatives-*.png).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator

import pytest

from tests.app_fixtures import SCREENSHOTS, idle, painted, streamlit_server
from tests.conftest import SEEDS

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

COPY_ID, EDITED_ID = "annealer-a", "annealer-b"
HOSTILE = ("We also release <b>markup</b> <img src='x' onerror='window.__pwned=1'> and "
           "[a link](javascript:window.__pwned=1) with the benchmark.")
WAIT = 90_000


@pytest.fixture(scope="module")
def relatives_app(seeds_index, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    from explorer.ingest.run import build

    corpus = tmp_path_factory.mktemp("relatives-corpus")
    shutil.copytree(SEEDS, corpus / "seeds")
    shared = (f"{HOSTILE} We map graph colouring onto a quantum annealer and solve instances "
              "with up to 500 nodes on current hardware.")
    records = [{"id": COPY_ID, "abstract": f"{shared} Our embedding halves the number of "
                "physical qubits that a colouring needs."},
               {"id": EDITED_ID, "abstract": f"{shared} Our embedding needs a third fewer "
                "physical qubits than the usual minor embedding."}]
    (corpus / "extra.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records),
                                        encoding="utf-8")
    out = tmp_path_factory.mktemp("relatives-index") / "index"
    shutil.copytree(seeds_index, out)  # the seeds' vectors: only the two new papers are embedded
    build([corpus], out, "default", sentences=False)  # no sentence vectors, as a fresh build
    with streamlit_server(out) as url:
        yield url


def _open(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(url)
    return page, dialogs


def _inert(page, dialogs: list[str]) -> None:
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("a[href^='javascript']").count() == 0
    assert page.locator("b:has-text('markup')").count() == 0
    assert dialogs == []


def test_relatives_page_lists_the_near_copy_with_its_sentences(browser, relatives_app):
    url = relatives_app
    page, dialogs = _open(browser, f"{url}/?view=twins")  # an older link: the same page
    page.get_by_role("heading", name="Close relatives in this corpus").wait_for()
    first = page.locator("[class*='st-key-relative-all-0']")
    # the card's key is on the page before its text (Streamlit fills it in): wait for the text
    playwright_api.expect(first).to_contain_text("cos 0.9", timeout=WAIT)
    first.get_by_text("<b>markup</b>", exact=False).first.wait_for()  # shown as typed
    page.get_by_text(re.compile(r"Pairs this close: [1-9][0-9]*, among 73 papers")).wait_for()
    idle(page)
    painted(page)
    page.screenshot(path=str(SCREENSHOTS / "relatives-page.png"), full_page=True)
    _inert(page, dialogs)

    first.get_by_role("button", name="Open").last.click()  # the near copy's page
    page.get_by_role("heading", name="Close relatives", exact=True).wait_for()
    part = page.locator("[class*='st-key-relative-rel-0']")
    playwright_api.expect(part).to_contain_text("cos 0.9", timeout=WAIT)
    idle(page)
    painted(page)
    page.screenshot(path=str(SCREENSHOTS / "relatives-paper-part.png"), full_page=True)
    _inert(page, dialogs)
    page.close()


def test_sidebar_opens_the_relatives_page(browser, relatives_app):
    url = relatives_app
    page, dialogs = _open(browser, url)
    page.get_by_role("button", name="Close relatives").click()
    page.get_by_role("heading", name="Close relatives in this corpus").wait_for()
    assert "view=relatives" in page.url
    _inert(page, dialogs)
    page.close()
