"""Facets and versions in a real headless Chromium, on the venue corpus (ICLR + NeurIPS
2017-18, with statuses): a link filtered by status shows only rejects, badged; a work with two
versions is one card that names the other; the paper page lists the versions and fields."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.app_fixtures import SCREENSHOTS, idle

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

CARDS = "[class*='st-key-card-']"
WAIT = 90_000
PROTO = "Prototypical Networks for Few-shot Learning"


@pytest.fixture(scope="module")
def venue_app(venue_server: tuple) -> str:
    return venue_server[0]  # tests/shared.py: shared with test_browser_dashboard and _map


def open_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT)
    page.goto(url)
    return page


def test_a_status_filter_in_a_link_shows_only_rejects(browser, venue_app: str):
    query = urlencode({"q": "few-shot learning", "filter": "status:Rejected"})
    page = open_page(browser, f"{venue_app}/?{query}")
    cards = page.locator(CARDS)
    playwright_api.expect(cards).to_have_count(10)  # cards are drawn one after another
    idle(page)  # ...and filled in: the run over
    statuses = [cards.nth(i).inner_text() for i in range(cards.count())]
    assert all("Rejected" in text for text in statuses)
    page.get_by_text("Status").first.wait_for()  # the sidebar's facet box
    page.screenshot(path=str(SCREENSHOTS / "facets-rejected.png"), full_page=True)
    page.close()


def test_a_version_pair_is_one_card_and_the_paper_page_lists_it(browser, venue_app: str):
    page = open_page(browser, f"{venue_app}/?{urlencode({'q': PROTO})}")
    cards = page.locator(CARDS)
    playwright_api.expect(cards).to_have_count(10)
    idle(page)
    texts = [cards.nth(i).inner_text() for i in range(cards.count())]
    with_title = [text for text in texts if PROTO in text]
    assert len(with_title) == 1 and "also" in with_title[0]
    page.goto(f"{venue_app}/?paper=iclr2017:B1-Hhnslg")
    page.get_by_text("Other versions of this work:").wait_for()
    page.get_by_role("button", name="NeurIPS 2017 Poster").wait_for()
    page.get_by_text("All fields of this record").wait_for()
    page.screenshot(path=str(SCREENSHOTS / "facets-versions.png"), full_page=True)
    page.close()
