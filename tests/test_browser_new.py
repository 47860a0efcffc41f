"""The What's new page and a paper's references in a real headless Chromium, on an index of
OpenAlex works built twice (the second build adds papers that cite old ones): the new papers
near each saved collection, the unrelated one "weak", a hostile collection name as text; the
paper page's references and cited-by, and Open follows them.

Screenshots land in test-output/ (look at them: they are how the app really looks).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from explorer.features.collections.store import Collections
from explorer.ingest.run import build
from explorer.ui.text import WORD_JOINER
from tests.app_fixtures import IDLE, SCREENSHOTS, painted, streamlit_server
from tests.citation_fixtures import BREAD, work, write_page

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
WAIT = 90_000  # ms; the first page of a fresh server loads the model
HOSTILE = "[Session expired](https://example.org/login) <b>bold</b>"


@pytest.fixture(scope="module")
def new_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    corpus = tmp_path_factory.mktemp("new-app-corpus")
    write_page(corpus / "old.json", [work(n, [n - 1] if n > 1 else [], seed=n)
                                     for n in range(1, 7)])
    out = tmp_path_factory.mktemp("new-app") / "index"
    build([corpus], out, "default")
    write_page(corpus / "added.json", [
        work(7, [1, 2], seed=7), work(8, [], seed=8),
        work(9, [], abstract=BREAD, title="Feeding a sourdough starter through winter")])
    build([corpus], out, "default")
    data = tmp_path_factory.mktemp("new-app-data")
    store = Collections.at(data)
    store.create("sequence models", ["W1", "W2", "W3"])
    store.create(HOSTILE, ["W4"])
    with streamlit_server(out, env={"EXPLORER_DATA": str(data)}) as url:
        yield url


def settle(page, name: str | None = None) -> None:
    page.wait_for_function(IDLE)
    painted(page)
    if name:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def opened(browser, url: str, shown: str, name: str):
    """(a page at `url` once `shown` is on it and the app is idle, the page's main part)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(WAIT)
    page.goto(url)
    page.get_by_text(shown).wait_for()
    settle(page, name)
    return page, page.locator("[data-testid=stMain]")


def test_whats_new_near_each_collection(browser, new_app):
    page, main = opened(browser, f"{new_app}/?view=new", "3 papers added since", "60-whats-new")
    assert main.get_by_text("Near “sequence models”").is_visible()
    hostile = main.locator("h4").filter(has_text="Session expired")
    assert hostile.inner_text().replace(WORD_JOINER, "") == f"Near “{HOSTILE}”"  # as text
    assert main.locator("a[href='https://example.org/login']").count() == 0
    bread = main.locator("[class*=st-key-new-c1-]").filter(has_text="sourdough")
    assert "weak" in bread.inner_text()  # "sequence models" sorts second (case-blind)
    page.close()


def test_the_paper_page_lists_references_and_cited_by(browser, new_app):
    page, main = opened(browser, f"{new_app}/?paper=W2", "Cited by, in this corpus (2)",
                        "61-paper-references")
    assert main.get_by_text("References in this corpus (1)").is_visible()
    cited = main.locator(".st-key-references-citedby")
    assert cited.get_by_text("Feeding", exact=False).count() == 0  # W9 cites nothing
    cited.get_by_role("button", name="Open").first.click()
    page.wait_for_url(re.compile(r"paper=W(3|7)\b"))  # either citing paper
    page.get_by_text("References in this corpus").wait_for()  # it cites W2
    settle(page)
    page.close()
