"""The Topics page and the years in the app (issue 32): the sidebar's Topics button opens the
list of areas and topics (it opened the last zoomed area), the list shows every one; on the
venue corpus (ICLR and NeurIPS 2017-18: two years) no years chart is drawn, the years are said in
words against the corpus's."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.features.topics.table import topic_table
from explorer.features.years import ui as ui_years
from explorer.query.engine import Explorer
from tests.venue_fixtures import venue_index  # noqa: F401 (a fixture)


def listed(app) -> set[str]:
    return {b.key for b in app.button if b.key and b.key.startswith("topics-")}


def test_the_sidebar_topics_button_opens_the_list(seeds_index: Path, seeds_explorer: Explorer,
                                                  monkeypatch):
    from tests.test_app import click, run_app

    area = topic_table(seeds_explorer).topics("area")[0]
    every = {f"topics-{t.topic_id}" for t in topic_table(seeds_explorer).topics()}
    for params in ({"view": "map", "topic": area.topic_id}, {"view": "topic", "topic": area.topic_id}):
        app = click(run_app(seeds_index, monkeypatch, params), "nav-topic")
        assert "topic" not in app.query_params, params
        assert app.query_params["view"] == ["topic"] or app.query_params["view"] == "topic"
        assert listed(app) == every, params
        assert any(m.value == "### Topics" for m in app.markdown)
    mapped = click(run_app(seeds_index, monkeypatch, {"view": "topic", "topic": area.topic_id}),
                   "nav-map")  # the map opens whole, not zoomed to the last topic
    assert "topic" not in mapped.query_params


@pytest.mark.slow
def test_the_venue_corpus_says_its_two_years_in_words(venue_index: Path, monkeypatch):  # noqa: F811
    from tests.test_app import ask, run_app

    explorer = Explorer.open(venue_index)
    topic = topic_table(explorer).topics("topic")[0]
    app = run_app(venue_index, monkeypatch, {"view": "topic", "topic": topic.topic_id})
    assert not app.get("plotly_chart")
    words = [c.value for c in app.caption if "of these; the corpus" in c.value]
    assert len(words) == 1 and "2017: " in words[0] and "2018: " in words[0]
    asked = ask(run_app(venue_index, monkeypatch), "generative adversarial networks")
    assert not asked.get("plotly_chart")
    said = [c.value for c in asked.caption if c.value.startswith("Years of the top 200")]
    assert len(said) == 1 and "the corpus" in said[0] and ui_years.HINT not in said[0]
    listing = run_app(venue_index, monkeypatch, {"view": "topic"})
    assert listed(listing) == {f"topics-{t.topic_id}" for t in topic_table(explorer).topics()}
