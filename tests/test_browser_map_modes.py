"""The map's two ways of selecting and the Topics list, in headless Chromium at 1400x900 on the
seeds index: each click mode shows its own caption (never the other mode's, also while a rerun
runs), and the areas' key-phrase lines hold phrases, not single words. Screenshots go to
EXPLORER_SHOTS (default: none)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from explorer.features.topics.ui_lasso import LASSO_NOTE
from tests.app_fixtures import painted

pytestmark = pytest.mark.browser
WAIT = 120_000  # ms: the first page of a fresh server loads the model and the index
CLICK_NOTE = "click to open it"  # ui_map.caption's words for the "Open a paper" mode
CAPTIONS = "[data-testid='stCaptionContainer']"
DONE = "[data-testid='stApp'][data-test-script-state='notRunning']"  # the script's run ended


def shot(page, name: str) -> None:
    """A screenshot of the viewport, when EXPLORER_SHOTS names a folder (never committed)."""
    folder = os.environ.get("EXPLORER_SHOTS")
    if folder:
        painted(page)
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def offline_page(browser, url: str):
    """A 1400x900 page that lets through only requests to 127.0.0.1; (page, blocked urls)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(WAIT)
    blocked: list[str] = []
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        "http://127.0.0.1") else (blocked.append(route.request.url), route.abort()))
    page.goto(url)
    return page, blocked


def test_each_click_mode_shows_its_own_caption(browser, seeds_server):
    page, blocked = offline_page(browser, seeds_server[0] + "/?view=map")
    page.locator("[data-testid='stDeckGlJsonChart'] canvas").first.wait_for()
    page.locator(CAPTIONS).filter(has_text=CLICK_NOTE).wait_for()
    shot(page, "map-click-mode")
    page.get_by_text("Box or lasso").click()
    # The mode's note is up before its chart is, and the click mode's is gone by then.
    page.locator(CAPTIONS).filter(has_text=LASSO_NOTE[:40]).wait_for()
    assert page.locator(CAPTIONS).filter(has_text=CLICK_NOTE).count() == 0
    page.locator(".js-plotly-plot .nsewdrag").first.wait_for()
    page.locator("[data-testid='stDeckGlJsonChart']").wait_for(state="detached")
    assert page.locator(CAPTIONS).filter(has_text=CLICK_NOTE).count() == 0
    assert page.locator(CAPTIONS).filter(has_text=LASSO_NOTE[:40]).count() == 1
    shot(page, "map-lasso-mode")
    page.get_by_text("Open a paper").click()
    page.locator(CAPTIONS).filter(has_text=CLICK_NOTE).wait_for()
    page.locator(".js-plotly-plot").wait_for(state="detached")
    assert page.locator(CAPTIONS).filter(has_text=LASSO_NOTE[:40]).count() == 0
    assert blocked == [], blocked
    page.close()


def test_the_areas_key_phrase_lines_hold_phrases(browser, seeds_server):
    """Each area's line of key phrases on the Topics list: phrases of two words at least
    ("Node", "Understanding" alone say nothing)."""
    page, blocked = offline_page(browser, seeds_server[0] + "/?view=topic")
    boxes = page.locator("[class*='st-key-area-box-']")
    boxes.first.wait_for()
    page.locator(DONE).wait_for()  # every area drawn, not the first few
    lines = [boxes.nth(n).locator(CAPTIONS).first.inner_text() for n in range(boxes.count())]
    phrases = [p.strip() for line in lines for p in line.split("·") if p.strip()]
    assert phrases, lines
    assert all(len(re.split(r"[\s-]+", p)) >= 2 for p in phrases), phrases
    shot(page, "topics")
    assert blocked == [], blocked
    page.close()
