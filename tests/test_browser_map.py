"""The corpus map and the neighbourhood graph in headless Chromium at 1400x900 on the venue
corpus (ICLR and NeurIPS 2017-18): the map takes the page's width, nothing is requested from
outside 127.0.0.1 (every such request is blocked and recorded), and a click on a point of the
map or on a node of the graph opens that paper. Points are clicked where the app's own chart
spec (the same JSON it sends) puts them; screenshots go to EXPLORER_SHOTS (default: none)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from explorer.features.graph.query import neighbourhood
from explorer.features.graph.ui import graph_chart
from explorer.features.topics.ui import corpus_chart
from explorer.query.engine import Explorer
from explorer.ui.links import Location
from tests.app_fixtures import idle, until_shown

pytestmark = pytest.mark.browser
WAIT = 120_000  # ms: the first page of a fresh server loads the model and the index
LOCAL = "http://127.0.0.1"
DECK = "[data-testid='stDeckGlJsonChart']"


@pytest.fixture(scope="module")
def venue_app(venue_server: tuple) -> str:
    return venue_server[0]  # tests/shared.py: shared with test_browser_dashboard and _facets


@pytest.fixture(scope="module")
def venue_explorer(venue_index: Path) -> Explorer:
    return Explorer.open(venue_index)


def offline_page(browser, url: str) -> tuple:
    """A 1400x900 page that lets through only requests to 127.0.0.1; (page, blocked urls)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(WAIT)
    blocked: list[str] = []

    def route(request_route) -> None:
        if request_route.request.url.startswith(LOCAL):
            request_route.continue_()
        else:
            blocked.append(request_route.request.url)
            request_route.abort()

    page.route("**/*", route)
    page.goto(url)
    return page, blocked


def shot(page, name: str) -> None:
    """A screenshot of the viewport, when EXPLORER_SHOTS names a folder (never committed)."""
    folder = os.environ.get("EXPLORER_SHOTS")
    if folder:
        page.wait_for_timeout(1500)  # deck.gl draws on the next frames
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def pixel(page, chart: int, spec: dict, x: float, y: float) -> tuple[float, float]:
    """Where the `chart`-th deck on the page draws the point (x, y) of `spec`'s first view: the
    canvas centre plus the offset from the view's target, 2**zoom pixels per unit (y down)."""
    box = page.locator(f"{DECK} canvas").nth(chart).bounding_box()
    view = spec["initialViewState"]
    scale = 2 ** view["zoom"]
    return (box["x"] + box["width"] / 2 + (x - view["target"][0]) * scale,
            box["y"] + box["height"] / 2 + (y - view["target"][1]) * scale)


def hover_until_tooltip(page, spec: dict, at: tuple[float, float], title: str) -> None:
    """Point at `at` on the page's first map until its tooltip names `title`: deck.gl picks
    nothing until its layers are drawn (seconds on a loaded machine), so the pointer leaves and
    comes back until it does, its pixel taken again each time (the page may still move)."""
    def point() -> None:
        idle(page)  # the run over: the map on the page is the one that stays
        canvas = page.locator(f"{DECK} canvas").first
        canvas.wait_for(state="visible")
        page.mouse.move(0, 0)
        if canvas.bounding_box() is not None:  # None: redrawn just now, taken at the next try
            page.mouse.move(*pixel(page, 0, spec, *at), steps=4)

    until_shown(point, page.locator(".deck-tooltip").filter(has_text=title), WAIT / 1000)


def loneliest(points: list[list[float]], among: list[list[float]]) -> int:
    """The index of the point of `points` farthest from every other point of `among`."""
    def gap(point: list[float]) -> float:
        return min((math.dist(point, other) for other in among if other != point), default=1e9)
    return max(range(len(points)), key=lambda n: gap(points[n]))


def test_the_map_fills_the_page_loads_nothing_from_outside_and_a_click_opens_a_paper(
        browser, venue_app, venue_explorer):
    paper_id = venue_explorer.papers[0].paper_id
    page, blocked = offline_page(browser, f"{venue_app}/?view=map&paper={paper_id}")
    canvas = page.locator(f"{DECK} canvas").first
    canvas.wait_for()
    idle(page)  # laid out: the run over
    content = page.locator("[data-testid='stMainBlockContainer'] [data-testid='stVerticalBlock']")
    column = content.first.bounding_box()  # the page's content column, inside its padding
    width = canvas.bounding_box()["width"]
    assert width >= column["width"] - 2 and width >= 900, (width, column)
    shot(page, "map-open-paper")
    spec = json.loads(corpus_chart(venue_explorer, Location(page="map", paper_id=paper_id)).to_json())
    # The open paper is drawn on top (its nearest papers lie within a few pixels of it).
    opened = next(layer["data"][0] for layer in spec["layers"] if layer["id"] == "open")
    hover_until_tooltip(page, spec, opened["p"], venue_explorer.papers[0].title[:30])
    shot(page, "map-hover")
    page.mouse.click(*pixel(page, 0, spec, *opened["p"]))
    page.get_by_role("heading", name="Similar papers").wait_for()  # the paper's page
    page.get_by_role("heading", name=venue_explorer.papers[0].title[:40]).first.wait_for()
    assert blocked == [], blocked
    page.close()


def test_a_click_on_the_neighbourhood_graph_opens_that_paper(browser, venue_app, venue_explorer):
    paper_id = venue_explorer.papers[0].paper_id
    page, blocked = offline_page(browser, f"{venue_app}/?paper={paper_id}")
    canvas = page.locator(f"{DECK} canvas").first
    canvas.wait_for()
    canvas.scroll_into_view_if_needed()
    graph = neighbourhood(venue_explorer, paper_id)
    spec = json.loads(graph_chart(venue_explorer, graph).to_json())
    nodes = next(layer["data"] for layer in spec["layers"] if layer["id"] == "nodes")
    target = loneliest([n["p"] for n in nodes][1:], [n["p"] for n in nodes]) + 1
    opened = venue_explorer.paper(nodes[target]["i"])
    tip = nodes[target]["t"].split("\n")[0][:30]  # the tooltip's text (its title, as plain text)
    hover_until_tooltip(page, spec, nodes[target]["p"], tip)  # drawn: a click is picked
    shot(page, "graph")
    page.mouse.click(*pixel(page, 0, spec, *nodes[target]["p"]))
    page.get_by_role("heading", name=opened.title[:40]).first.wait_for()
    assert blocked == [], blocked
    page.close()
