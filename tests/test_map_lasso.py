"""Selecting papers on the map by box or lasso (explorer/features/topics/ui_lasso.py and the map
page's "Box or lasso" mode): the chart's points, colours and escaped hover text on the real
seeds index; a selection read back as paper ids; and, in headless Chromium, a box dragged over
the map, its papers marked "more like this" and the marking undone."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.corpus.papers import Paper
from explorer.features.topics.table import corpus_map, topic_table
from explorer.features.topics.ui_lasso import (
    SELECT_POINTS,
    hover,
    lasso_figure,
    lasso_rows,
    lassoed_ids,
)
from explorer.features.topics.ui_map import point_colours
from tests.app_fixtures import idle

WAIT = 120_000  # ms: a fresh server loads the model and the index on its first page


def test_the_lasso_chart_draws_the_maps_points_in_its_colours(seeds_explorer):
    stored = corpus_map(seeds_explorer)
    rows = lasso_rows(len(seeds_explorer.papers), None)
    assert list(rows) == list(range(len(seeds_explorer.papers)))
    trace = lasso_figure(stored, seeds_explorer.papers, rows)["data"][0]
    assert trace["customdata"] == list(range(len(rows)))
    assert trace["x"][5] == pytest.approx(stored["x"][5], abs=1e-3)
    palette, numbers = point_colours(stored, None)
    assert trace["marker"]["color"][5].startswith("rgba({},{},{},".format(*palette[numbers[5]][:3]))
    assert trace["hovertext"][0].startswith(seeds_explorer.papers[0].title[:30].replace("&", "&amp;"))
    area = topic_table(seeds_explorer).topics()[0]  # a zoomed area: its papers alone
    zoomed = lasso_rows(len(seeds_explorer.papers), topic_table(seeds_explorer).rows(area.topic_id))
    assert sorted(zoomed) == sorted(topic_table(seeds_explorer).rows(area.topic_id))
    assert len(lasso_rows(3 * SELECT_POINTS, None)) == SELECT_POINTS  # an even sample past it


def test_corpus_text_reaches_plotly_escaped():
    hostile = Paper("x", '<a href="https://evil.example">click</a> <img src=x onerror=alert(1)>',
                    False, "abstract", venue="<b>ICLR</b>", year=2018)
    text = hover(hostile)
    assert "<a" not in text and "<img" not in text and "<b>" not in text
    assert "&lt;a href=" in text and text.count("<br>") == 1  # the one tag: its line break


def test_a_selection_is_read_back_as_paper_ids_once_each():
    papers = [Paper(f"p{n}", f"t{n}", False, "a") for n in range(5)]
    rows = np.array([4, 2, 0])
    selection = {"points": [{"customdata": 2, "point_index": 1}, {"customdata": [4]},
                            {"point_index": 2}, {"customdata": 2}, {"customdata": 99},
                            {"point_index": 7}, "junk", {"customdata": "1"}]}
    assert lassoed_ids(selection, papers, rows) == ["p2", "p4", "p0"]
    assert lassoed_ids(None, papers, rows) == [] and lassoed_ids({}, papers, rows) == []


@pytest.mark.browser
def test_a_box_over_the_map_marks_its_papers_and_undo_unmarks(browser, seeds_server):
    """Drag a box in "Box or lasso" mode: the papers inside are counted, one button marks
    them, the page says how many, and Undo returns to none marked; nothing from outside
    127.0.0.1 is requested."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(WAIT)
    blocked: list[str] = []
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        "http://127.0.0.1") else (blocked.append(route.request.url), route.abort()))
    page.goto(seeds_server[0] + "/?view=map")
    page.get_by_text("Box or lasso").click()
    area = page.locator(".js-plotly-plot .nsewdrag").first
    area.wait_for()
    idle(page)  # the chart drawn by the run's end: a drag before then is lost
    box = area.bounding_box()
    left, top = box["x"] + box["width"] * 0.1, box["y"] + box["height"] * 0.1
    right, bottom = box["x"] + box["width"] * 0.9, box["y"] + box["height"] * 0.9
    page.mouse.move(left, top)
    page.mouse.down()
    for x, y in ((right, top), (right, bottom), (left, bottom), (left, top + 2)):
        page.mouse.move(x, y, steps=6)
    page.mouse.up()
    mark = page.get_by_role("button", name="as more like this")
    mark.wait_for()
    count = int(mark.inner_text().split("Mark ")[1].split()[0])
    assert 1 <= count <= 71
    mark.click()
    done = page.get_by_text(f"Marked {count} papers as more like this")
    done.wait_for()
    idle(page)  # the link is written last in the run
    assert page.url.count("like=") == count
    page.get_by_role("button", name="Undo").click()
    done.wait_for(state="detached")
    idle(page)
    assert "like=" not in page.url and blocked == []
    page.close()
