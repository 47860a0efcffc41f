"""Saved collections in a real headless Chromium: save the marked set, open a collection (its
missing ids named), share, rename and delete it; a hostile name stays text.

Screenshots land in test-output/ (look at them: they are how the app really looks).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.collections.store import Collections
from explorer.ui.text import WORD_JOINER
from tests.app_fixtures import (  # noqa: F401 (small_index is a fixture)
    SCREENSHOTS,
    small_index,
    streamlit_server,
)

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
WAIT = 90_000  # ms; the first page of a fresh server loads the model
HOSTILE = "[Session expired](https://example.org/login) <b>bold</b>"
IDLE = """() => !document.querySelector('[data-testid=stStatusWidget]')
    && !document.querySelector('[data-stale=true]')"""


@pytest.fixture(scope="module")
def app(small_index: Path, tmp_path_factory) -> Iterator[tuple[str, Collections]]:  # noqa: F811
    data = tmp_path_factory.mktemp("collections-data")
    index = data / "index"
    shutil.copytree(small_index, index)
    store = Collections.at(data)
    store.create("With a ghost", ["speech", "ghost-paper"])
    with streamlit_server(index, env={"EXPLORER_DATA": str(data)}) as url:
        yield url, store


def open_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(WAIT)
    page.goto(url)
    page.locator(".st-key-collection-save button").wait_for()
    page.wait_for_function(IDLE)
    return page


def settle(page, name: str | None = None) -> None:
    page.wait_for_function(IDLE)
    page.wait_for_timeout(600)  # let Streamlit finish painting
    if name:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def click_in_popover(page, panel, trigger: str, selector: str) -> None:
    """Click the button `selector` inside the popover opened by the button named `trigger`,
    opening the popover first when it is closed. A rerun under load (after Enter in its text
    box, say) may close the popover; the widget values in it survive, so it is opened again
    rather than waited on."""
    button = page.locator(selector)
    for _ in range(3):
        if button.is_visible():
            break
        panel.get_by_role("button", name=trigger).click()
        try:
            button.wait_for(state="visible", timeout=15_000)
        except playwright_api.TimeoutError:
            settle(page)
    button.click()


def test_save_the_marked_set_under_a_hostile_name(browser, app):
    url, store = app
    page = open_page(browser, f"{url}/?view=marked&like=gnn&like=protein")
    box = page.get_by_placeholder("a name, e.g. thesis chapter 2")
    box.fill(HOSTILE)
    box.press("Enter")
    settle(page)
    page.locator(".st-key-collection-save button").click()
    page.get_by_text("Saved 2 papers as").wait_for()
    settle(page, "20-collection-saved")
    assert store.get(HOSTILE).paper_ids == ("gnn", "protein")
    assert page.locator("a[href*='example.org']").count() == 0
    assert page.locator("b:has-text('bold')").count() == 0
    shown = page.inner_text("body").replace(WORD_JOINER, "")  # the joiner keeps "https://" plain
    assert "[Session expired](https://example.org/login) <b>bold</b>" in shown
    page.close()


def test_open_share_rename_delete(browser, app):
    url, store = app
    page = open_page(browser, f"{url}/?view=marked")
    page.get_by_test_id("stSelectbox").click()
    page.get_by_role("option", name="With a ghost").click()
    settle(page)
    page.locator(".st-key-collection-open button").click()
    page.get_by_text("Missing from this index: 1").wait_for()
    page.get_by_text("ghost-paper").first.wait_for()
    page.get_by_text("Robust speech recognition in noisy rooms").first.wait_for()
    settle(page, "21-collection-opened-with-a-missing-paper")
    panel = page.locator(".st-key-collections")
    panel.get_by_role("button", name="Share").click()
    link = page.locator("[data-testid=stCode]").last.inner_text()
    assert "view=marked" in link and "like=speech" in link and "like=ghost-paper" in link
    page.keyboard.press("Escape")

    panel.get_by_role("button", name="Rename").click()
    rename = page.get_by_label("New name")
    rename.fill("Speech, renamed")
    rename.press("Enter")
    settle(page)
    click_in_popover(page, panel, "Rename", ".st-key-collection-rename button")
    page.get_by_text("Renamed to").wait_for()
    assert "Speech, renamed" in store.names() and "With a ghost" not in store.names()
    assert store.get("Speech, renamed").paper_ids == ("speech", "ghost-paper")
    settle(page, "22-collection-renamed")

    click_in_popover(page, panel, "Delete", ".st-key-collection-delete button")
    page.get_by_text("the marked papers stay marked").wait_for()
    settle(page, "23-collection-deleted")
    assert "Speech, renamed" not in store.names()
    page.close()
