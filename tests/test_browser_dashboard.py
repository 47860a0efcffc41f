"""The dashboard in a real headless Chromium at 1400x900 on the venue corpus (ICLR and NeurIPS
2017-18, tests/venue_fixtures.py): titles above the fold after many questions, Back and Forward,
old links, visited marks, the collections list after saving and "add to a collection" on a row.

Screenshots land in test-output/ (look at them: they are how the app really looks).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import pytest

from explorer.features.collections.store import Collections
from explorer.features.topics.table import topic_table
from explorer.query.engine import Explorer
from tests.app_fixtures import IDLE, SCREENSHOTS, painted, until_shown

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

WAIT = 90_000  # ms; the first page of a fresh server loads the model
VIEWPORT = {"width": 1400, "height": 900}
CARDS = "[class*='st-key-card-']"


def starts_with(title: str) -> re.Pattern:
    """A heading's text: the title, then its status badge when it has one ("... Rejected")."""
    return re.compile("^" + re.escape(title))


QUESTIONS = ("How do generative adversarial networks avoid mode collapse?",
             "Which methods defend neural networks against adversarial examples?",
             "How can reinforcement learning agents explore with sparse rewards?",
             "What makes stochastic gradient descent generalise well?",
             "How do graph neural networks learn node representations?",
             "Which models translate between languages without parallel data?",
             "How can neural networks be compressed by pruning or quantisation?",
             "What are variational autoencoders with discrete latent variables?")


@pytest.fixture(scope="module")
def venue_app(venue_server: tuple[str, Collections]) -> tuple[str, Collections]:
    return venue_server  # tests/shared.py: shared with test_browser_facets and _map


@pytest.fixture(scope="module")
def venue_explorer(venue_index: Path) -> Explorer:
    return Explorer.open(venue_index)


def open_page(browser, url: str):
    page = browser.new_page(viewport=VIEWPORT)
    page.set_default_timeout(WAIT)
    page.goto(url)
    page.get_by_placeholder("Ask a question").wait_for()
    settle(page)
    return page


def settle(page, name: str | None = None) -> None:
    page.wait_for_function(IDLE)
    painted(page)
    if name:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def ask(page, question: str) -> None:
    box = page.get_by_placeholder("Ask a question")
    box.fill(question)
    box.press("Enter")
    expect(page.locator(CARDS).first).to_be_visible()
    page.wait_for_url(lambda url: urlencode({"q": question}) in url)
    settle(page)


def titles_in_view(page, count: int = 10) -> int:
    """How many of the first `count` result titles lie wholly inside the viewport (no scroll)."""
    seen = 0
    for card in page.locator(CARDS).all()[:count]:
        box = card.locator("strong").first.bounding_box()
        if box and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"]:
            seen += 1
    return seen


def card_titles(page) -> list[str]:
    return [card.locator("strong").first.inner_text() for card in page.locator(CARDS).all()]


def open_details(page, card, button: str = "More like this") -> None:
    """Open a result row's popover (the abstract, marks, collections) until its `button` shows
    (a rerun that ends after the click closes the popover: it is opened again)."""
    body = page.locator("[data-testid=stPopoverBody]").last
    until_shown(card.get_by_role("button", name="Abstract").click,
                body.get_by_role("button", name=button), WAIT / 1000)


def test_five_of_ten_titles_above_the_fold_after_eight_questions(browser, venue_app):
    page = open_page(browser, venue_app[0])
    for question in QUESTIONS:
        ask(page, question)
    assert page.locator(CARDS).count() >= 10
    settle(page, "dash-01-after-eight-questions")
    assert titles_in_view(page) >= 5
    expect(page.locator(".st-key-trail").get_by_role("button", name="4 earlier")).to_be_visible()
    page.close()


def test_back_and_forward_walk_the_moves(browser, venue_app):
    url = venue_app[0]
    page = open_page(browser, url)
    ask(page, QUESTIONS[0])
    first_titles = card_titles(page)
    first = page.locator(CARDS).first
    opened = first.locator("strong").first.inner_text()
    first.get_by_role("button", name="Similar papers").click()
    page.get_by_role("heading", name="Similar papers").wait_for()
    settle(page)
    assert "paper=" in page.url
    page.get_by_role("button", name="Marked (0)").click()  # a page move
    page.get_by_role("heading", name="Marked papers").wait_for()
    settle(page)

    page.go_back()  # to the paper
    page.get_by_role("heading", name="Similar papers").wait_for()
    expect(page.get_by_role("heading", level=3).first).to_have_text(starts_with(opened))
    page.go_back()  # to the question's results
    expect(page.get_by_role("heading", name="Similar papers")).to_have_count(0)
    settle(page)
    assert card_titles(page) == first_titles
    expect(page.get_by_placeholder("Ask a question")).to_have_value(QUESTIONS[0])
    page.go_forward()  # the paper again
    page.get_by_role("heading", name="Similar papers").wait_for()
    page.go_forward()
    page.get_by_role("heading", name="Marked papers").wait_for()
    settle(page, "dash-02-forward-to-marked")
    page.close()


def test_visited_papers_are_marked(browser, venue_app):
    page = open_page(browser, venue_app[0])
    ask(page, QUESTIONS[2])
    second = page.locator(CARDS).nth(1)
    assert second.get_by_text("visited").count() == 0
    second.get_by_role("button", name="Similar papers").click()
    page.get_by_role("heading", name="Similar papers").wait_for()
    page.go_back()
    expect(page.locator(CARDS).nth(1).get_by_text("visited")).to_be_visible()
    assert page.locator(CARDS).first.get_by_text("visited").count() == 0
    settle(page, "dash-03-visited")
    page.close()


def test_old_links_open_the_same_views(browser, venue_app, venue_explorer):
    url = venue_app[0]
    paper = venue_explorer.search(QUESTIONS[1])[0].paper
    topic = next(t for t in topic_table(venue_explorer).topics() if t.parent)  # e.g. "2.3"
    page = open_page(browser, f"{url}/?{urlencode({'q': QUESTIONS[1]})}")
    expect(page.locator(CARDS).first).to_be_visible()
    page.goto(f"{url}/?paper={paper.paper_id}")
    expect(page.get_by_role("heading", level=3).first).to_have_text(starts_with(paper.title))
    page.goto(f"{url}/?view=map")
    page.get_by_role("button", name="Corpus map").wait_for()
    expect(page.get_by_role("button", name="Corpus map")).to_have_attribute("kind", "primary")
    page.goto(f"{url}/?view=topic&topic={topic.topic_id}")
    expect(page.get_by_role("heading").filter(has_text=topic.name).first).to_be_visible()
    page.goto(f"{url}/?view=marked&like={paper.paper_id}")
    page.get_by_role("heading", name="Marked papers").wait_for()
    expect(page.get_by_role("button", name="Marked (1)")).to_be_visible()
    venue = paper.venue
    page.goto(f"{url}/?{urlencode({'q': QUESTIONS[1], 'venue': venue, 'year': '2018-'})}")
    expect(page.locator(CARDS).first).to_be_visible()
    settle(page)
    facts = [card.locator("[data-testid=stCaptionContainer]").first.inner_text()
             for card in page.locator(CARDS).all()]
    assert facts and all(venue in fact and "2018" in fact for fact in facts), facts
    page.close()


def test_the_collection_list_shows_a_saved_collection_and_rows_add_to_it(browser, venue_app):
    url, store = venue_app
    page = open_page(browser, url)
    ask(page, QUESTIONS[4])
    ids = [card.get_attribute("class") for card in page.locator(CARDS).all()[:2]]
    first = page.locator(CARDS).first
    open_details(page, first)
    page.locator("[data-testid=stPopoverBody]").get_by_role("button", name="More like this").click()
    settle(page)
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Marked (1)").click()
    box = page.get_by_placeholder("a name, e.g. thesis chapter 2")
    box.fill("Graph reading")
    box.press("Enter")
    settle(page)
    page.locator(".st-key-collection-save button").click()
    page.get_by_text("Saved 1 paper as").wait_for()
    settle(page, "dash-04-collection-saved")
    picker = page.locator(".st-key-collection_pick").get_by_role("combobox")
    expect(picker).to_have_value("Graph reading")  # not "none saved yet"

    page.go_back()  # to the results: the second row joins the collection
    expect(page.get_by_role("heading", name="Marked papers")).to_have_count(0)
    second = page.locator(CARDS).nth(1)
    second.wait_for()
    settle(page)
    open_details(page, second, "Add")
    body = page.locator("[data-testid=stPopoverBody]")
    body.get_by_role("button", name="Add").click()
    page.get_by_text("Added to").wait_for()
    settle(page, "dash-05-added-to-collection")
    saved = store.get("Graph reading").paper_ids
    keys = [f"card-q-{pid.replace(':', '-')} " for pid in saved]  # a key's ':' is a '-'
    assert len(saved) == 2 and all(any(k in cls for cls in ids) for k in keys), (saved, ids)
    page.close()
