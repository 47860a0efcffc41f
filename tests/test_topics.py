"""Topics at two levels on the real seeds index: every paper in an area and a finer topic, names
that are phrases the papers use, the most central papers first, the CLI and the topic page
agreeing with the library, hostile text inert, old indexes, updates and many threads."""

from __future__ import annotations

import dataclasses
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from explorer.cli.main import main
from explorer.errors import UnknownTopicError
from explorer.features.topics import stage as maps
from explorer.features.topics.table import AREA, TOPIC, TopicTable, corpus_map, growth_line, topic_table
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.conftest import SEEDS

NEW_PAPERS = [
    {"id": "new-1", "title": "Protein folding with generative diffusion",
     "abstract": "We fold proteins with a generative diffusion model over residue frames."},
    {"id": "new-2", "title": "Millimetre robots walking on sand",
     "abstract": "Millimetre-scale legged robots walk on granular media using learned gaits."},
]


def _words(text: str) -> list[str]:
    """Lower-case words with a plural s dropped, for matching a name against the papers."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w
            for w in re.findall(r"[a-z0-9]+(?:['-][a-z0-9]+)*", text.lower())]


def _used_by(phrase: str, texts: list[str]) -> bool:
    """True when some text holds the phrase's words in a row (plurals and hyphens folded)."""
    wanted = " " + " ".join(_words(phrase.replace("-", " "))) + " "
    return any(wanted in " " + " ".join(_words(t.replace("-", " "))) + " " for t in texts)


def test_every_paper_has_a_broad_area_and_a_finer_topic_inside_it(seeds_explorer: Explorer):
    table = topic_table(seeds_explorer)
    areas, fine = table.topics(AREA), table.topics(TOPIC)
    assert 2 <= len(areas) < len(fine) and table.has_areas
    for row, topic_id in enumerate(table.paper_topic):
        topic = table.topic(topic_id)
        assert topic.level == TOPIC and topic.parent is not None
        assert row in table.rows(topic_id) and row in table.rows(topic.parent)
    assert sum(a.size for a in areas) == sum(t.size for t in fine) == len(seeds_explorer.papers)
    for area in areas:
        assert area.children and all(table.topic(c).parent == area.topic_id for c in area.children)
        assert area.size == sum(table.topic(c).size for c in area.children)


def test_names_are_short_phrases_the_papers_use_not_bags_of_words(seeds_explorer: Explorer):
    table = topic_table(seeds_explorer)
    names = [t.name for t in table.topics()]
    assert len(set(t.name.lower() for t in table.topics(TOPIC))) == len(table.topics(TOPIC))
    for topic in table.topics():
        texts = [f"{p.title} {p.abstract}" for p in table.papers(topic.topic_id)]
        parts = topic.name.split(" and ") if topic.level == AREA else [topic.name]
        assert "," not in topic.name and not re.fullmatch(r"(topic|area) \d+", topic.name)
        assert 1 <= len(topic.name.split()) <= (7 if topic.level == AREA else 3), names
        for part in parts:
            assert _used_by(part, texts), (topic.name, part)  # a phrase as its papers write it
        assert topic.phrases[0] in topic.name and len(topic.phrases) >= 3


def test_papers_come_most_central_first_and_neighbours_are_the_closest(seeds_explorer: Explorer):
    table, vectors = topic_table(seeds_explorer), seeds_explorer.vectors
    for topic in table.topics():
        rows = table.rows(topic.topic_id)
        centre = vectors[rows].astype(np.float64).mean(axis=0)
        centre /= np.linalg.norm(centre)
        if topic.level == TOPIC:  # closeness is to the paper's own (finer) topic
            cosines = vectors[rows] @ centre
            np.testing.assert_allclose([table.closeness(r) for r in rows], cosines, atol=2e-4)
            assert list(rows) == list(rows[np.argsort(-cosines, kind="stable")])
    fine = table.topics(TOPIC)
    centres = {}
    for t in fine:
        mean = vectors[table.rows(t.topic_id)].astype(np.float64).mean(axis=0)
        centres[t.topic_id] = mean / np.linalg.norm(mean)
    for topic in fine:
        others = sorted((t.topic_id for t in fine if t is not topic),
                        key=lambda o: -centres[o] @ centres[topic.topic_id])
        assert list(topic.neighbours) == others[:len(topic.neighbours)] and topic.neighbours


def test_the_cli_json_is_what_the_library_says(capsys, seeds_index: Path,
                                               seeds_explorer: Explorer):
    assert main(["topics", "--index", str(seeds_index), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["topics"]
    assert listed == [t.to_dict() for t in topic_table(seeds_explorer).topics()]
    fine = topic_table(seeds_explorer).topics(TOPIC)[0]
    assert main(["topic", fine.topic_id, "--index", str(seeds_index), "--json", "--k", "5"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown == json.loads(json.dumps(topic_table(seeds_explorer).report(fine.topic_id, 5)))
    assert [p["paper_id"] for p in shown["papers"]] == [
        p.paper_id for p in topic_table(seeds_explorer).papers(fine.topic_id, 5)]
    assert main(["topic", fine.topic_id, "--index", str(seeds_index)]) == 0
    text = capsys.readouterr().out
    assert fine.name in text and topic_table(seeds_explorer).topic(fine.parent).name in text
    assert main(["topics", "--index", str(seeds_index)]) == 0
    out = capsys.readouterr().out
    assert all(f"{t.topic_id} " in out and t.name in out for t in topic_table(seeds_explorer).topics())
    assert main(["topic", "42.7", "--index", str(seeds_index)]) == 1
    error = capsys.readouterr().err
    assert "No topic '42.7'" in error and "explorer topics" in error and "Traceback" not in error


def test_the_topic_page_shows_what_the_library_says(seeds_explorer: Explorer):
    from explorer.features.topics.ui import topic_page

    area = topic_table(seeds_explorer).topics(AREA)[0]
    page = topic_page(seeds_explorer, area.topic_id, top_k=7)
    assert [h.paper_id for h in page.hits] == [
        p.paper_id for p in topic_table(seeds_explorer).papers(area.topic_id, 7)]
    assert [t.topic_id for t in page.related["topics"]] == list(area.children)
    assert page.report["growth"] == growth_line(topic_table(seeds_explorer).spread(area.topic_id))
    with pytest.raises(UnknownTopicError, match="explorer topics"):
        topic_page(seeds_explorer, "99")


def test_the_growth_line_counts_years():
    from explorer.corpus.papers import Paper

    papers = [Paper(f"p{i}", "t", False, "a b c", year=year)
              for i, year in enumerate([2019, 2023, 2023, 2021, None])]
    corpus_map = {"x": [0.0] * 5, "y": [0.0] * 5, "topic": [0] * 5, "closeness": [1.0] * 5,
                  "topics": [{"id": 0, "label": "a", "terms": ["a"], "size": 5}]}
    spread = TopicTable(corpus_map, papers).spread("1")
    assert growth_line(spread) == "5 papers, 2019-2023, 1 without a year"
    assert spread.counts == {2019: 1, 2021: 1, 2023: 2}


HOSTILE = ('<img src=x onerror="alert(1)"> **bold** [link](javascript:alert(2)) '
           ':red[red] $\\href{javascript:x}{y}$ <script>alert(3)</script>')


def test_hostile_text_stays_inert_in_names(tmp_path: Path):
    """Names of a built index are words (no markup characters survive); labels an old or
    foreign map may hold are escaped for Markdown, and reach the map only as canvas text (a
    TextLayer's data; the tooltip is a `text` template, set with innerText, never HTML)."""
    from explorer.features.topics.ui import heading_markdown, map_zoom, name_markdown, phrases_markdown
    from explorer.features.topics.ui_map import TOOLTIP, map_chart

    corpus = tmp_path / "hostile.jsonl"
    records = [{"id": f"h{i}", "title": f"Script alert onerror study {i}",
                "abstract": f"{HOSTILE} Script alert onerror payloads in paper {i}. " * 2}
               for i in range(8)]
    corpus.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    build([corpus], tmp_path / "index", "default")
    explorer = Explorer.open(tmp_path / "index")
    for topic in topic_table(explorer).topics():
        for text in (topic.name, *topic.phrases):
            assert not set(text) & set("<>[]()*$:`\\=\"") and text.strip()
    bad = {**corpus_map(explorer), "topics": [
        {**t, "label": HOSTILE, "terms": [HOSTILE]} for t in corpus_map(explorer)["topics"]],
        "areas": [{**a, "label": HOSTILE, "terms": [HOSTILE]}
                  for a in corpus_map(explorer)["areas"]]}
    table = TopicTable(bad, explorer.papers)
    raw = re.compile(r"(?<!\\)[<>\[\]()*:`$]")  # markup characters not escaped
    for topic in table.topics():
        badges = phrases_markdown(topic).replace(":gray-badge[", "").replace("] ", " ")
        for markdown in (name_markdown(topic), heading_markdown(topic)[4:], badges[:-1]):
            assert not raw.search(markdown), markdown
        labels, _ = map_zoom(bad, table, topic.topic_id if topic.level == AREA else None)
        spec = json.loads(map_chart(bad, explorer.papers, labels=labels).to_json())
        texts = [row["t"] for layer in spec["layers"] if layer["@@type"] == "TextLayer"
                 for row in layer["data"]]
        assert texts and all(text.startswith("<img src=x") for text in texts)
        assert "html" not in json.dumps(spec).lower() and set(TOOLTIP) == {"text", "style"}


def test_an_update_keeps_topics_names_and_areas_consistent(index_copy: Path, tmp_path: Path):
    before = Explorer.open(index_copy)
    extra = tmp_path / "extra.jsonl"
    extra.write_text("\n".join(json.dumps(p) for p in NEW_PAPERS))
    build([SEEDS, extra], index_copy, "default")
    after = Explorer.open(index_copy)
    assert corpus_map(after)["changed"] == 2  # updated, not laid out afresh
    assert [(t.topic_id, t.name, t.phrases, t.children, t.parent)
            for t in topic_table(after).topics()] == [
        (t.topic_id, t.name, t.phrases, t.children, t.parent) for t in topic_table(before).topics()]
    for paper in before.papers:
        assert topic_table(after).paper_topic[after.row(paper.paper_id)] == (
            topic_table(before).paper_topic[before.row(paper.paper_id)])
    vectors = after.vectors
    for new_id in ("new-1", "new-2"):  # the topic of the nearest paper already on the map
        row = after.row(new_id)
        others = [r for r in range(len(after.papers))
                  if after.papers[r].paper_id not in ("new-1", "new-2")]
        nearest = others[int(np.argmax(vectors[others] @ vectors[row]))]
        assert topic_table(after).paper_topic[row] == topic_table(after).paper_topic[nearest]
    assert sum(t.size for t in topic_table(after).topics(AREA)) == 73
    assert len(corpus_map(after)["closeness"]) == 73


def test_an_update_of_a_map_from_before_names_it_without_moving_it():
    from tests.test_maps import _clustered, _hashes, _papers

    vectors, _ = _clustered(30, 4)
    papers = _papers(120)
    first = maps.compute_map(papers[:115], vectors[:115])
    old = {k: first[k] for k in ("x", "y", "topic", "method")}
    old["topics"] = [{k: t[k] for k in ("id", "label", "terms", "size")} for t in first["topics"]]
    updated = maps.update_map(papers, vectors, _hashes(papers[:115]), old)
    assert updated["x"][:115] == first["x"] and updated["topic"][:115] == first["topic"]
    assert updated["areas"] and all("area" in t for t in updated["topics"])


def test_many_threads_get_the_answers_one_gets(seeds_index: Path):
    explorer = Explorer.open(seeds_index)  # fresh: the table is built by the racing threads

    def ask(number: int) -> tuple:
        topics = topic_table(explorer).topics()
        chosen = topics[number % len(topics)]
        return (tuple(t.to_dict()["id"] for t in topics), chosen.name,
                tuple(p.paper_id for p in topic_table(explorer).papers(chosen.topic_id, 10)),
                json.dumps(topic_table(explorer).report(chosen.topic_id, 5)))

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(ask, range(64)))
    alone = Explorer.open(seeds_index)
    expected = [None] * 64
    for number in range(64):
        topics = topic_table(alone).topics()
        chosen = topics[number % len(topics)]
        expected[number] = (tuple(t.topic_id for t in topics), chosen.name,
                            tuple(p.paper_id for p in topic_table(alone).papers(chosen.topic_id, 10)),
                            json.dumps(topic_table(alone).report(chosen.topic_id, 5)))
    assert answers == expected
    assert dataclasses.is_dataclass(topic_table(alone).topics()[0])


def test_the_app_shows_the_library_topic_and_an_unknown_one_as_the_list(seeds_index: Path,
                                                                       seeds_explorer: Explorer,
                                                                       monkeypatch):
    from tests.test_app import card_ids, click, run_app

    fine = topic_table(seeds_explorer).topics(TOPIC)[1]
    app = run_app(seeds_index, monkeypatch, {"view": "topic", "topic": fine.topic_id})
    table = topic_table(seeds_explorer)
    assert card_ids(app, "t") == [p.paper_id for p in table.papers(fine.topic_id, 20)]
    assert any(fine.name in m.value for m in app.markdown)
    assert any(topic_table(seeds_explorer).report(fine.topic_id)["growth"] in c.value
               for c in app.caption)
    click(app, f"topic-in-{fine.parent}")
    assert app.query_params["topic"] == fine.parent
    assert card_ids(app, "t") == [p.paper_id for p in table.papers(fine.parent, 20)]
    listing = run_app(seeds_index, monkeypatch, {"view": "topic", "topic": "77.7"})
    keys = {b.key for b in listing.button if b.key and b.key.startswith("topics-")}
    assert keys == {f"topics-{t.topic_id}" for t in topic_table(seeds_explorer).topics()}
    zoomed = run_app(seeds_index, monkeypatch, {"view": "map", "topic": fine.parent})
    assert zoomed.selectbox(key=f"zoom-{fine.parent}").value == fine.parent


def test_a_paper_page_links_its_topic(seeds_index: Path, seeds_explorer: Explorer, monkeypatch):
    from tests.test_app import card_ids, click, run_app

    paper = seeds_explorer.papers[5]
    topic_id = topic_table(seeds_explorer).paper_topic[5]
    app = run_app(seeds_index, monkeypatch, {"paper": paper.paper_id})
    click(app, f"open-topic-{topic_id}")
    assert app.query_params["view"] == "topic" and app.query_params["topic"] == topic_id
    table = topic_table(seeds_explorer)
    assert card_ids(app, "t")[:3] == [p.paper_id for p in table.papers(topic_id, 3)]
