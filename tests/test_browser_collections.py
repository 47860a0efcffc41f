"""Saved collections in a real headless Chromium: save the marked set, open a collection (its
missing ids named), share, rename and delete it; a hostile name stays text.

Screenshots land in test-output/ (look at them: they are how the app really looks).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.features.collections.store import Collections
from explorer.ui.text import WORD_JOINER
from tests.app_fixtures import (  # noqa: F401 (small_index is a fixture)
    IDLE,
    SCREENSHOTS,
    painted,
    small_index,
    streamlit_server,
    until_shown,
)

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
WAIT = 90_000  # ms; the first page of a fresh server loads the model
VIEWPORT = {"width": 1280, "height": 1000}
HOSTILE = "[Session expired](https://example.org/login) <b>bold</b>"


@pytest.fixture(scope="module")
def app(small_server: tuple[str, Collections]) -> tuple[str, Collections]:
    return small_server  # tests/shared.py: a copy of small_index, "With a ghost" saved


def open_page(browser, url: str):
    """A page of `browser` (or of a browser context: another visitor) at `url`, idle."""
    page = browser.new_page(**({"viewport": VIEWPORT} if hasattr(browser, "new_context") else {}))
    page.set_default_timeout(WAIT)
    page.goto(url)
    page.locator(".st-key-collection-save button").wait_for()
    page.wait_for_function(IDLE)
    return page


def settle(page, name: str | None = None) -> None:
    page.wait_for_function(IDLE)
    painted(page)
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
    option = page.get_by_role("option", name="With a ghost")
    until_shown(page.get_by_test_id("stSelectbox").click, option, WAIT / 1000)
    option.click()
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


# -- a shared server: each browser its own collections; a full disk ---------------------------
FULL_DISK_APP = '''
import errno, os, runpy
from pathlib import Path
from explorer.features.collections import records

if not getattr(records, "full_disk_test", False):  # the script runs again at every rerun
    real = records.atomic_write

    def write(path, writer):
        if Path(os.environ["FULL_DISK_FLAG"]).exists():  # the disk is full from now on
            def partly(tmp):
                tmp.write_bytes(b"{")
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(path, partly)
        return real(path, writer)

    records.atomic_write, records.full_disk_test = write, True
runpy.run_path(os.environ["REAL_APP"], run_name="__main__")
'''
KEY_NAME = "paper-explorer.visitor-key"


@pytest.fixture(scope="module")
def shared(small_index: Path, tmp_path_factory) -> Iterator[tuple[str, Path]]:  # noqa: F811
    """A server whose visitors keep their own collections (EXPLORER_VISITORS=private: the
    server listens on 127.0.0.1 here, as behind a proxy), and whose disk can be made full."""
    from tests.app_fixtures import APP

    data = tmp_path_factory.mktemp("shared-data")
    shutil.copytree(small_index, data / "index")
    Collections.at(data).create("Lab reading", ["speech", "protein"])
    app = data / "full_disk_app.py"
    app.write_text(FULL_DISK_APP, encoding="utf-8")
    env = {"EXPLORER_DATA": str(data), "EXPLORER_VISITORS": "private", "REAL_APP": str(APP),
           "FULL_DISK_FLAG": str(data / "disk-is-full")}
    with streamlit_server(data / "index", app=app, env=env) as url:
        yield url, data


def visit(context, url: str):
    """A visitor's page, once the browser has given the session its key (Save enabled)."""
    page = open_page(context, url)
    page.wait_for_function(f"localStorage.getItem('{KEY_NAME}') !== null")
    page.locator(".st-key-collection-save button:not([disabled])").wait_for()
    settle(page)
    return page


def save_as(page, name: str, expect: str) -> None:
    box = page.get_by_placeholder("a name, e.g. thesis chapter 2")
    box.fill(name)
    box.press("Enter")
    settle(page)
    page.locator(".st-key-collection-save button").click()
    page.get_by_text(expect).first.wait_for()
    settle(page)


def options(page) -> list[str]:
    page.get_by_test_id("stSelectbox").first.click()
    shown = [option.inner_text() for option in page.get_by_role("option").all()]
    page.keyboard.press("Escape")
    return shown


def test_visitors_keep_their_own_collections_and_only_read_the_owners(browser, shared):
    url, data = shared
    alice_context, bob_context = (browser.new_context(viewport=VIEWPORT) for _ in range(2))
    alice = visit(alice_context, f"{url}/?view=marked&like=gnn")
    page_key = alice.evaluate(f"localStorage.getItem('{KEY_NAME}')")
    assert len(page_key) == 64
    save_as(alice, "Alice's graphs", "Saved 1 paper as")
    settle(alice, "24-visitor-saved")
    bob = visit(bob_context, f"{url}/?view=marked&like=protein")
    assert options(bob) == ["Lab reading · the server owner's, read-only"]
    assert bob.evaluate(f"localStorage.getItem('{KEY_NAME}')") != page_key
    assert options(alice) == ["Alice's graphs", "Lab reading · the server owner's, read-only"]
    alice.reload()  # the key stays in the browser: the same collections after a reload
    alice.locator(".st-key-collection-save button:not([disabled])").wait_for()
    settle(alice)
    assert options(alice)[0] == "Alice's graphs"
    bob.get_by_test_id("stSelectbox").first.click()
    bob.get_by_role("option", name="Lab reading").click()
    settle(bob)
    bob.locator(".st-key-collection-open button").click()
    bob.get_by_text("Opened").first.wait_for()
    settle(bob, "25-visitor-opened-the-owners-collection")
    panel = bob.locator(".st-key-collections")
    assert panel.get_by_role("button", name="Delete").count() == 0
    assert panel.get_by_role("button", name="Rename").count() == 0
    assert bob.get_by_text("you can use it, not change it").count() == 1
    panel.get_by_role("button", name="Share").click()
    shared_link = bob.locator("[data-testid=stCode]").last.inner_text()
    for page in (alice, bob):
        assert page_key not in page.url and page_key not in page.content()
    assert page_key not in shared_link
    assert Collections.at(data).names() == ["Lab reading"]
    assert Collections.at(data).get("Lab reading").paper_ids == ("speech", "protein")
    alice_context.close()
    bob_context.close()


def test_a_full_disk_shows_a_plain_message(browser, shared):
    url, data = shared
    context = browser.new_context(viewport=VIEWPORT)
    page = visit(context, f"{url}/?view=marked&like=gnn")
    (data / "disk-is-full").touch()
    try:
        save_as(page, "Never written", "could not be saved")
    finally:
        (data / "disk-is-full").unlink()
    settle(page, "26-collection-save-on-a-full-disk")
    body = page.inner_text("body")
    assert "No space left on device" in body and "This app has encountered an error" not in body
    assert str(data) not in body and "Traceback" not in body
    assert page.locator("[data-testid=stException]").count() == 0
    log = next(data.glob("streamlit-*.log")).read_text(encoding="utf-8", errors="replace")
    assert "callback on_collection failed" in log and "Traceback" in log
    save_as(page, "Written", "Saved 1 paper as")  # room again: saving works
    context.close()
