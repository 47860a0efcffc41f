"""In a real headless Chromium: a card whose abstract carries LaTeX text markup shows it as text
a person reads (no `\\emph`, no `\\citet{...}`), math still rendered; a question that is an
author's name says whose papers come first."""

from __future__ import annotations

import pytest

from tests.app_fixtures import MARKED_TITLE, SCREENSHOTS, idle, painted

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

QUESTION = "deep networks memorise random labels generalization capacity"
CARDS = "[class*='st-key-card-']"
WAIT = 90_000


@pytest.fixture(scope="module")
def markup_app(small_server: tuple) -> str:
    return small_server[0]  # tests/shared.py: the small corpus with app_fixtures.MARKED_ID


def test_a_card_shows_latex_markup_as_text_and_math_as_math(browser, markup_app):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT)
    page.goto(f"{markup_app}/?q={QUESTION.replace(' ', '+')}")
    page.get_by_text("in the order of the score on their badges").wait_for()
    idle(page)
    card = page.locator(CARDS).first
    card.get_by_text(MARKED_TITLE).wait_for()
    card.get_by_role("button", name="Abstract").click()  # the row's popover: its abstract
    body = page.locator("[data-testid=stPopoverBody]")
    body.get_by_text("for every trained network").first.wait_for()
    text = card.inner_text() + body.inner_text()
    assert "Deep networks memorise random labels, so generalization is not explained" in text
    for raw in ("\\emph", "emph{", "citet", "zhang2016", "\\textbf", "\\em ", "arpit"):
        assert raw not in text, raw
    body.locator(".katex").first.wait_for()  # $\epsilon^2 / n$ still rendered
    painted(page)
    page.screenshot(path=str(SCREENSHOTS / "31-latex-markup-as-text.png"), full_page=True)
    page.close()


def test_a_name_asked_says_whose_papers_come_first(browser, markup_app):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(WAIT)
    page.goto(f"{markup_app}/?q=S.+Levine")
    page.get_by_text("Papers by Sergey Levine").wait_for()
    idle(page)
    playwright_api.expect(page.locator(CARDS).first).to_contain_text(MARKED_TITLE)
    painted(page)
    page.screenshot(path=str(SCREENSHOTS / "32-papers-by-an-author.png"), full_page=True)
    page.close()

