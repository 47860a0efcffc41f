"""The neighbourhood graph (explorer/features/graph/): its nodes, links, layout and chart, on
the real seeds index; the layout's clusters on vectors drawn in clusters."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from explorer.corpus.papers import Paper
from explorer.features.graph.query import (
    CITES,
    Link,
    centrality,
    citation_links,
    force_layout,
    neighbourhood,
    strongest_links,
)
from explorer.features.graph.ui import graph_chart, labelled, legend, node_label
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.test_references import BIB


def test_a_papers_graph_is_it_and_its_nearest_papers_linked_by_their_cosines(seeds_explorer):
    paper_id = seeds_explorer.papers[0].paper_id
    graph = neighbourhood(seeds_explorer, paper_id, 8)
    nearest = [hit.paper_id for hit in seeds_explorer.similar(paper_id, 8, mode="dense")]
    assert graph.paper_ids == (paper_id, *nearest)
    vectors = seeds_explorer.vectors[[seeds_explorer.row(p) for p in graph.paper_ids]]
    pairs = [(link.source, link.target) for link in graph.links]
    assert len(pairs) == len(set(pairs)) and all(a < b for a, b in pairs)
    for link in graph.links:
        assert link.weight == pytest.approx(float(vectors[link.source] @ vectors[link.target]),
                                            abs=1e-5)
    touched = {n for pair in pairs for n in pair}
    assert touched == set(range(9))  # every paper keeps its strongest links
    assert graph.positions.shape == (9, 2) and np.abs(graph.positions).max() <= 1 + 1e-9
    assert graph.centrality.max() == pytest.approx(1.0) and graph.centrality.min() > 0
    again = neighbourhood(seeds_explorer, paper_id, 8)
    assert np.array_equal(again.positions, graph.positions)  # the same picture every time
    with pytest.raises(ValueError, match="size"):
        neighbourhood(seeds_explorer, paper_id, 0)


def test_graphs_asked_from_many_threads_are_each_their_own(seeds_explorer):
    ids = [paper.paper_id for paper in seeds_explorer.papers[:8]]
    alone = {paper_id: neighbourhood(seeds_explorer, paper_id, 6).paper_ids for paper_id in ids}
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda p: neighbourhood(seeds_explorer, p, 6).paper_ids, ids * 3))
    assert together == [alone[p] for p in ids * 3]


def test_the_layout_draws_clusters_apart():
    rng = np.random.default_rng(5)
    centres = rng.normal(size=(3, 32)) * 3
    labels = np.repeat(np.arange(3), 8)
    vectors = centres[labels] + rng.normal(size=(24, 32)) * 0.6
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    position = force_layout(vectors, strongest_links(vectors @ vectors.T))
    distance = np.linalg.norm(position[:, None] - position[None], axis=2)
    same = labels[:, None] == labels[None]
    inside = distance[same & ~np.eye(24, dtype=bool)].mean()
    assert inside < 0.5 * distance[~same].mean(), (inside, distance[~same].mean())


def test_a_bib_entrys_cites_field_is_an_orange_citation_line_in_the_graph(tmp_path: Path):
    """The reported bug: devlin2019 `cites = {vaswani2017}` (a citation key, while the paper's
    id is its DOI) was drawn as a grey similarity line. It is one orange CITES link, citing ->
    cited, with no similarity line beside it, and the legend explains it (test_references's
    reference list: later2020 cites both by DOI and key)."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "refs.bib").write_text(BIB, encoding="utf-8")
    build([tmp_path / "corpus"], tmp_path / "index", "default", sentences=False)
    explorer = Explorer.open(tmp_path / "index")
    by_word = {paper.title.split()[0]: paper.paper_id for paper in explorer.papers}
    graph = neighbourhood(explorer, by_word["Pre-training"], 2)
    nodes = {paper_id: n for n, paper_id in enumerate(graph.paper_ids)}
    pair = (nodes[by_word["Pre-training"]], nodes[by_word["Attention"]])
    later = nodes[by_word["A"]]
    assert sorted((link.source, link.target) for link in graph.links if link.kind == CITES) == \
        sorted([pair, (later, pair[0]), (later, pair[1])])
    assert sum(set(pair) == {link.source, link.target} for link in graph.links) == 1
    assert citation_links(explorer, (graph.paper_ids[pair[0]],)) == []  # one end: no line
    spec = json.loads(graph_chart(explorer, graph).to_json())
    lines = next(layer["data"] for layer in spec["layers"] if layer["id"] == "links")
    points = [n["p"] for n in next(layer["data"] for layer in spec["layers"]
                                   if layer["id"] == "nodes")]
    joined = [line["c"] for line in lines if {tuple(line["s"]), tuple(line["e"])}
              == {tuple(points[pair[0]]), tuple(points[pair[1]])}]
    assert joined == [[230, 120, 20, 200]]  # orange, once
    assert "Orange lines" in legend(explorer, graph)
    assert list(centrality(3, [Link(0, 1, 0.5), Link(1, 2, 0.25)])) == [2 / 3, 1.0, 1 / 3]


def test_graph_labels_never_overlap_at_the_first_view():
    nodes = [{"p": [0.0, 0.0], "r": 7, "l": "open paper"},
             {"p": [0.01, 0.0], "r": 18, "l": "a central paper right beside it"},
             {"p": [0.0, 0.5], "r": 9, "l": "far below"}]
    assert [n["l"] for n in labelled(nodes, zoom=8)] == ["open paper", "far below"]
    assert len(labelled(nodes, zoom=0)) == 1  # zoomed out: all three boxes touch


def test_the_chart_holds_corpus_text_as_data_and_rings_the_open_paper(seeds_explorer):
    paper_id = seeds_explorer.papers[0].paper_id
    spec = json.loads(graph_chart(seeds_explorer, neighbourhood(seeds_explorer, paper_id, 5))
                      .to_json())
    nodes = next(layer["data"] for layer in spec["layers"] if layer["id"] == "nodes")
    assert nodes[0]["i"] == paper_id and len(nodes) == 6
    assert nodes[0]["k"] == [214, 39, 40, 255] and all(n["k"] != nodes[0]["k"] for n in nodes[1:])
    assert nodes[0]["t"].startswith(seeds_explorer.papers[0].title[:40])
    assert spec["mapProvider"] is None and "html" not in json.dumps(spec).lower()
    assert nodes[0]["l"] == node_label(seeds_explorer.papers[0])
    labels = next(layer for layer in spec["layers"] if layer["id"] == "node-labels")
    assert "extensions" not in labels  # deck.gl's collision filter hid every label
    assert labels["data"][0]["i"] == paper_id and 1 <= len(labels["data"]) <= len(nodes)
    title = "Attention is all you need for neural machine translation"
    assert node_label(Paper("p", title, False, "a")) == "Attention is all you need for…"
    assert node_label(Paper("p", "Short  title", False, "a")) == "Short title"
    assert node_label(Paper("p", "x" * 50, False, "a")) == "x" * 29 + "…"
