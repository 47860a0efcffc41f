""""Check my draft" in a real headless Chromium, on the seeds index: paste a draft, upload a
.bib, check, see the missed papers by passage, mark one, export it as BibTeX; a binary upload
is a message. The upload is read in memory: no file appears on the server's side.

Screenshots land in test-output/ (look at them: they are how the app really looks).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from explorer.corpus.references import read_references
from tests.app_fixtures import IDLE, SCREENSHOTS, painted
from tests.test_missed_cli import ZOTERO

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
WAIT = 120_000  # ms; the first page of a fresh server loads the model
CARDS = "[class*='st-key-card-d-']"
CITED_TITLE = "Expressivity of input-Dependent Complex-valued Diagonal"  # in zotero.bib
DRAFT = ("We ask which diagonal state-space layers can track the state of a group, and what a "
         "single layer cannot do <b>at all</b> [3].\n\n"
         "A second paragraph: pairing up the nodes of two graphs, step by step, to compute their "
         "edit distance <img src=x onerror=\"window.__pwned=1\">.")


def files_under(folder: Path) -> dict[str, int]:
    return {str(path): path.stat().st_size for path in folder.rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def app(seeds_server: tuple[str, Path]) -> tuple[str, Path]:
    return seeds_server  # tests/shared.py: the seeds server and its data folder


def open_draft_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 2600}, accept_downloads=True)
    page.set_default_timeout(WAIT)
    page.goto(f"{url}/?view=draft")
    page.get_by_role("heading", name="Check my draft").wait_for()
    page.wait_for_function(IDLE)
    return page


def settle(page, name: str | None = None) -> None:
    page.wait_for_function(IDLE)
    painted(page)
    if name:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def downloaded(page, button: str, target: Path) -> list:
    """Click the download button named `button`, save the file as `target`, read its entries."""
    with page.expect_download() as waiting:
        page.get_by_role("button", name=button).click()
    waiting.value.save_as(target)
    return read_references(target.read_bytes(), target.name).entries


def test_paste_upload_check_mark_and_export(browser, app, seeds_index, tmp_path):
    url, data = app
    before = files_under(data), files_under(seeds_index)
    page = open_draft_page(browser, url)
    page.get_by_placeholder("Paste the text of your draft here").fill(DRAFT)
    page.get_by_text("A reference list (.bib, .ris, CSL-JSON)").click()
    settle(page)
    page.locator(".st-key-draft_bib input[type=file]").set_input_files(str(ZOTERO))
    page.get_by_text("zotero.bib").first.wait_for()
    settle(page, "30-draft-filled")
    page.locator(".st-key-draft-check button").click()
    page.get_by_text("Passage 1").first.wait_for()
    page.get_by_text("Passage 2").first.wait_for()
    settle(page, "31-draft-checked")
    titles = [t.inner_text() for t in page.locator(f"{CARDS} strong").all()]
    assert titles and not [t for t in titles if CITED_TITLE in t]
    page.get_by_text("2 of 5 entries are in this index").wait_for()
    page.get_by_text("closest to your cited").first.wait_for()
    assert page.evaluate("window.__pwned") is None
    assert page.locator("[data-testid=stMain] b").count() == 0  # the draft's <b> is text
    first = page.locator(CARDS).first
    first_title = first.locator("strong").first.inner_text()
    first.get_by_role("button", name="Abstract").click()  # the row's popover: its actions
    page.locator("[data-testid=stPopoverBody]").get_by_role("button", name="More like this").click()
    export = page.get_by_role("button", name="BibTeX of the 1 marked to add")
    export.wait_for()
    page.keyboard.press("Escape")
    export.scroll_into_view_if_needed()
    settle(page, "32-draft-marked")
    for label, suffix in (("BibTeX", "bib"), ("RIS", "ris"), ("CSL-JSON", "json")):
        (entry,) = downloaded(page, f"{label} of the 1 marked to add", tmp_path / f"add.{suffix}")
        assert entry.title == first_title.replace("\n", " ")
    assert (files_under(data), files_under(seeds_index)) == before  # the upload stayed in memory
    page.close()


def test_a_binary_upload_is_a_message(browser, app, tmp_path):
    url, _ = app
    page = open_draft_page(browser, url)
    picture = tmp_path / "draft.txt"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(64))
    page.locator(".st-key-draft_file input[type=file]").set_input_files(str(picture))
    page.get_by_text("draft.txt").first.wait_for()
    settle(page)
    page.locator(".st-key-draft-check button").click()
    page.get_by_text("is not UTF-8 text").wait_for()
    settle(page, "33-draft-binary")
    assert page.locator(CARDS).count() == 0
    page.close()
