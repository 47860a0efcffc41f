"""The years chart in a real headless Chromium (issue 14, Time): a click on a bar narrows the
results to that year and sets the sidebar's year slider to it; a second click, or "All years",
restores them. On a real index of a paperlists-ml sample (tests/years_fixtures.py).

Screenshots land in test-output/years-*.png (look at them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.features.years.spread import corpus_spread
from explorer.query.engine import Explorer, Filters
from tests.app_fixtures import idle, streamlit_server
from tests.test_browser import CARDS, open_page, shot
from tests.years_fixtures import years_index  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

QUESTION = "diffusion models for image generation"
CHART = ".st-key-years-chart .js-plotly-plot"


@pytest.fixture(scope="module")
def years_app(years_index: Path) -> Iterator[str]:  # noqa: F811
    with streamlit_server(years_index) as url:
        yield url


def bar_years(page) -> list[int]:
    return page.evaluate(f"() => document.querySelector({CHART!r}).data[0].x")


def click_bar(page, year: int) -> None:
    """Click the middle of `year`'s bar (Plotly's drag layer lies over the bars)."""
    number = bar_years(page).index(year)
    page.locator(CHART).scroll_into_view_if_needed()  # drawn below the rows
    box = page.locator(f"{CHART} .bars .point").nth(number).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def settled_cards(page, count: int):
    """The result cards once the page shows exactly `count` of them (a rerun replaces them)."""
    cards = page.locator(CARDS).filter(has_text="Similar papers")
    playwright_api.expect(cards).to_have_count(count)
    idle(page)  # the rerun over: no card of it still to come or go
    playwright_api.expect(cards).to_have_count(count)
    return cards


def card_years(page) -> list[str]:
    cards = page.locator(CARDS).filter(has_text="Similar papers")
    return [re.findall(r"\b(?:19|20)\d\d\b", cards.nth(i).inner_text()) for i in
            range(cards.count())]


def slider_values(page) -> list[str]:
    """The sidebar's year slider's two values (its Filters expander opened if closed)."""
    filters = page.locator("[data-testid='stSidebar'] details").filter(has_text="Filters").first
    if filters.get_attribute("open") is None:
        filters.locator("summary").click()
    thumbs = page.locator("[data-testid='stSlider'] input[aria-label^='Years']")
    thumbs.last.wait_for(state="attached")
    return [thumbs.nth(i).input_value() for i in range(thumbs.count())]


def test_a_click_on_a_year_narrows_the_results_and_clearing_restores(browser, years_app,  # noqa: PLR0915 - one walk
                                                                     years_index):  # noqa: F811
    explorer = Explorer.open(years_index)
    page = open_page(browser, years_app)
    box = page.get_by_placeholder("Ask a question")
    box.fill(QUESTION)
    box.press("Enter")
    page.locator(CHART).wait_for()
    page.get_by_text("Click a bar to show that year only.").wait_for()
    cards = settled_cards(page, 10)
    before = page.locator(CARDS).all_inner_texts()
    shot(page, "years-01-results-and-chart")
    # the rows first, the chart below them (issue 32: titles above the fold)
    assert page.locator(CHART).bounding_box()["y"] > cards.first.bounding_box()["y"]

    years = bar_years(page)
    # the fullest year that is neither the corpus's first nor its last (a bound at the edge
    # is no bound: the slider shows "up to" / "and later" there)
    whole = corpus_spread(explorer)
    inner = [y for y in years if whole.years[0] < y < whole.years[-1]]
    year = max(inner, key=whole.count)
    click_bar(page, year)
    page.get_by_text(f"Showing {year} only.").wait_for()
    expected = explorer.search(QUESTION, 10, Filters(year_min=year, year_max=year))
    settled_cards(page, len(expected))
    assert len(card_years(page)) == len(expected) == min(10, whole.count(year))
    assert all(str(year) in found for found in card_years(page))
    titles = page.locator(CARDS).locator("strong").all_inner_texts()
    assert expected[0].title[:30] in " ".join(titles)
    assert f"year={year}-{year}" in page.url
    assert slider_values(page) == [str(year), str(year)]  # the filter shows the clicked year
    assert bar_years(page) == years  # every year stays on the chart
    shot(page, "years-02-clicked-a-year")

    click_bar(page, year)  # the same bar again: every year
    page.get_by_text("Click a bar to show that year only.").wait_for()
    settled_cards(page, 10)
    assert page.locator(CARDS).all_inner_texts() == before
    assert slider_values(page) == [str(whole.years[0]), str(whole.years[-1])]

    other = next(y for y in inner if y != year)
    click_bar(page, other)
    page.get_by_text(f"Showing {other} only.").wait_for()
    settled_cards(page, min(10, whole.count(other)))
    assert all(str(other) in found for found in card_years(page))
    shot(page, "years-03-another-year")
    page.get_by_role("button", name="All years").click()
    page.get_by_text("Click a bar to show that year only.").wait_for()
    settled_cards(page, 10)
    assert page.locator(CARDS).all_inner_texts() == before
    assert "year=" not in page.url
    shot(page, "years-04-all-years-again")

    page.locator(CARDS).first.get_by_role("button", name="Similar papers").click()
    page.get_by_role("heading", name="Similar papers").wait_for()
    page.locator(CHART).wait_for()
    shot(page, "years-05-neighbourhood-years")
    page.close()


def test_the_axis_labels_whole_years_and_the_corpus_marks(browser, years_app):
    """Issue 32: the years axis read "2017 2017 2018 2018" (Plotly's ticks between years,
    printed as whole numbers); each label is one year now, and the corpus's share of each
    year is drawn over the bars."""
    page = open_page(browser, years_app)
    box = page.get_by_placeholder("Ask a question")
    box.fill(QUESTION)
    box.press("Enter")
    page.locator(f"{CHART} .xtick text").first.wait_for()
    labels = page.locator(f"{CHART} .xtick text").all_text_contents()  # SVG: no innerText
    assert labels and all(re.fullmatch(r"(?:19|20)\d\d", label) for label in labels), labels
    assert len(set(labels)) == len(labels) and labels == sorted(labels)
    traces = page.evaluate(f"() => document.querySelector({CHART!r}).data.map(d => d.name)")
    assert traces == ["these papers", "the corpus"]
    page.close()
