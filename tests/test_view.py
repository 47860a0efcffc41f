"""Page logic without Streamlit: safe Markdown of corpus text, the trail, labels and facts."""

from __future__ import annotations

import dataclasses
import json
import re
import string

import pytest

from explorer.artifacts.manifest import Manifest, ModelInfo
from explorer.corpus.papers import Paper
from explorer.features.explanations.ui import terms_note
from explorer.features.topics.table import corpus_map, topic_table
from explorer.features.topics.ui import corpus_chart
from explorer.features.topics.ui_map import Focus, map_chart, picked_ids, shown_rows
from explorer.query.engine import Explorer, Filters, Hit
from explorer.ranking.calibration import PAPERS, QUESTIONS
from explorer.ui.links import Location
from explorer.ui.page import (
    build_key,
    corpus_markdown,
    example_questions,
    facts_markdown,
    fit_to_corpus,
    loaded_facts,
    meta_parts,
    public_hint,
    query_note,
    score_help,
    score_text,
    title_markdown,
    widget_values,
    with_filters,
    year_range,
)
from explorer.ui.public import corpus_root, public_message, public_paper, safe_url, source_names
from explorer.ui.results import Memo, ranked
from explorer.ui.text import HIGHLIGHT, WORD_JOINER, escape_markdown, math_spans, plain, rich_markdown
from explorer.ui.trail import go_to, push, step_label, step_of, trail_parts
from tests.app_fixtures import small_index  # noqa: F401 (fixture)


def unescape(markdown: str) -> str:
    """What CommonMark displays for backslash escapes (the only markup escape_markdown emits),
    without the invisible word joiners that keep web addresses from becoming links."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace(WORD_JOINER, "")


@pytest.mark.parametrize("text", [
    "<script>alert(1)</script>", '<img src=x onerror="alert(1)">', "[x](javascript:alert(1))",
    "**bold** _it_ `code` # head", "> quote\n- item\n1. one", ":red[colour] :material/home:",
    "a | table | row", "&amp; &lt;b&gt;", string.punctuation, "emoji 🎉 and 状态空间",
])
def test_escaped_text_displays_exactly_its_characters(text):
    markdown = escape_markdown(text)
    assert unescape(markdown) == " ".join(text.split())  # whitespace collapsed, nothing else
    unescaped_specials = re.sub(r"\\[!-/:-@\[-`{-~]", "", markdown)
    assert not set(unescaped_specials) & set(string.punctuation)


def test_latex_escapes_outside_math_display_as_their_character():
    text = r"only 1-4\% of R\&D runs, a\_b and \#3 cost \$5; $x \% y$ stays"
    markdown = rich_markdown(text)
    assert unescape(markdown) == r"only 1-4% of R&D runs, a_b and #3 cost $5; $x % y$ stays"
    assert r"$x \% y$" in markdown  # math goes to KaTeX as written


def test_paragraph_breaks_survive_and_edges_keep_their_space():
    assert escape_markdown("one.\n\n two") == "one\\.\n\ntwo"
    assert escape_markdown(" a b ") == " a b "


def test_math_is_found_and_kept_but_prices_are_text():
    text = "We show $k$-layer bounds, $$\\sum_i x_i$$ and $O(n^2)$; it costs $5 and $10."
    assert [text[s:e] for s, e in math_spans(text)] == ["$k$", "$$\\sum_i x_i$$", "$O(n^2)$"]
    markdown = rich_markdown(text)
    assert "$k$" in markdown and "$$\\sum_i x_i$$" in markdown and "$O(n^2)$" in markdown
    assert "costs \\$5 and \\$10\\." in markdown


def test_highlights_wrap_sentences_and_never_split_a_formula():
    text = "First sentence here. Second has $a + b$ inside. Third."
    second = (text.index("Second"), text.index(" Third"))
    markdown = rich_markdown(text, [second])
    assert HIGHLIGHT.format("Second has $a + b$ inside\\.") in markdown
    inside_math = (text.index("+"), len(text))  # starts inside the formula: widened to it
    assert HIGHLIGHT.format("$a + b$ inside\\. Third\\.") in rich_markdown(text, [inside_math])
    assert rich_markdown(text, [(5, 5), (-3, 2)]) == rich_markdown(text)


def test_labels_are_cut_with_an_ellipsis():
    assert plain("  a   b  c ", 100) == "a b c"
    assert plain("abcdefghij", 5) == "abcd…"


def test_the_trail_keeps_every_place_once():
    question, paper = Location(query="q1"), Location(page="paper", paper_id="p1")
    trail = push(push((), step_of(question)), step_of(paper))
    assert trail == (("q", "q1"), ("paper", "p1"))
    assert push(trail, step_of(question)) == trail  # going back adds nothing
    assert push(trail, step_of(Location(page="map"))) == trail
    assert push(trail, step_of(Location())) == trail  # an empty question is no step
    long = ()
    for number in range(30):
        long = push(long, ("q", str(number)))
    assert len(long) == 12 and long[-1] == ("q", "29")


def test_going_to_a_step_keeps_the_marked_set_and_filters():
    state = Location(page="map", like=("a",), venues=("V",))
    assert go_to(state, ("q", "x")) == Location(query="x", like=("a",), venues=("V",))
    assert go_to(state, ("paper", "p")).page == "paper"
    with pytest.raises(ValueError):
        go_to(state, ("map", ""))


def test_scores_read_as_score_and_rarity():
    paper = Paper(paper_id="p", title="t", title_is_derived=False, abstract="a")
    assert score_text(Hit(1, 0.61234, 99.95, paper)) == "score 0.612 · top <0.1%"
    assert score_text(Hit(1, 0.5, 99.5, paper)) == "score 0.500 · top 0.5%"
    assert score_text(Hit(1, 0.2, 70.0, paper)) == "score 0.200 · top 30%"
    assert score_text(Hit(1, 0.2, 50.0, paper)) == "score 0.200 · top 50%"
    assert score_text(Hit(1, 0.15, 6.0, paper)) == "score 0.150 · weak"
    assert score_text(Hit(1, 0.2, None, paper)) == "score 0.200"
    # with a strength word: the word; a question's score against paper pairs (an index built
    # before question scores were stored): the rarity among paper pairs, as before
    assert score_text(Hit(1, 0.61234, 99.95, paper, QUESTIONS, "strong match")) == (
        "score 0.612 · strong match")
    assert score_text(Hit(1, 0.3, 96.0, paper, PAPERS, "related")) == "score 0.300 · related"
    assert score_text(Hit(1, 0.2, 70.0, paper, PAPERS)) == "score 0.200 · top 30% of paper pairs"
    assert score_text(Hit(1, 0.15, 6.0, paper, PAPERS)) == "score 0.150 · weak"
    assert "above 99.9% of random question-paper cosines" in score_help(
        Hit(1, 0.6, 99.9, paper, QUESTIONS, "strong match", cosine=0.55))
    assert "above all random paper-paper cosines" in score_help(
        Hit(1, 0.9, 100.0, paper, PAPERS, "strong match", cosine=0.9))
    assert "rebuild" in score_help(Hit(1, 0.2, 70.0, paper, PAPERS))


def test_facts_about_papers_and_the_index():
    paper = Paper(paper_id="p", title="t", title_is_derived=False, abstract="a",
                  authors=("A", "B", "C", "D"), year=2020, venue="V",
                  sources=("data/x.jsonl:1", "data/x.jsonl:9"))
    assert meta_parts(paper) == ["A, B, C et al.", "V", "2020", "from x.jsonl"]
    assert meta_parts(dataclasses.replace(paper, status="rejected"))[:4] == [
        "A, B, C et al.", "V", "2020", "rejected"]  # a status without a badge: in the facts
    rejected = dataclasses.replace(paper, status="Rejected")  # badged: named once, on the title
    assert "Rejected" not in meta_parts(rejected) and "Rejected" not in facts_markdown(rejected)
    assert title_markdown(rejected).count("Rejected") == 1
    facts = loaded_facts(_manifest(count=91908, built_at="2026-11-29T23:22:33+0000",
                                   model=ModelInfo(384, "sentence-transformers/all-MiniLM-L6-v2"),
                                   index_type="flat", inputs=("seeds",)))
    assert facts["papers"] == "91,908" and facts["model"] == "all-MiniLM-L6-v2"
    assert facts["built"] == "2026-11-29 23:22 UTC"


def test_questions_without_words_get_a_note():
    assert query_note("?!? ...") and query_note("   ") is None and query_note("why?") is None


def test_the_map_marks_the_open_paper_and_its_neighbours(small_index):  # noqa: F811
    explorer = Explorer.open(small_index)
    neighbours = [hit.paper_id for hit in explorer.similar("gnn", 3)]
    focus = Focus(open_row=explorer.row("gnn"),
                  neighbour_rows=[explorer.row(pid) for pid in neighbours])
    spec = json.loads(map_chart(corpus_map(explorer), explorer.papers, focus).to_json())
    layers = {layer["id"]: layer for layer in spec["layers"]}
    assert [p["i"] for p in layers["open"]["data"]] == ["gnn"]
    assert [p["i"] for p in layers["neighbours"]["data"]] == neighbours
    assert len(layers["papers"]["data"]) == len(explorer.papers)
    hover = [p["t"] for p in layers["papers"]["data"]]
    assert any(t.startswith("Rendering untrusted <b>markup</b> & text") for t in hover)  # innerText
    assert spec["mapProvider"] is None and spec["views"][0]["@@type"] == "OrthographicView"
    whole = json.loads(corpus_chart(explorer, Location(page="map")).to_json())
    labels = [row for layer in whole["layers"] if layer["id"].startswith("labels")
              for row in layer["data"]]
    areas = [label for label in labels if label["c"] == [10, 10, 10, 255]]  # areas: darkest
    assert len(areas) == len(topic_table(explorer).topics("area"))
    assert len(labels) - len(areas) == len(topic_table(explorer).topics("topic"))


def test_the_papers_layer_can_be_a_served_file_of_the_same_data(small_index, tmp_path):  # noqa: F811
    explorer = Explorer.open(small_index)
    inline = json.loads(corpus_chart(explorer, Location(page="map")).to_json())
    served = json.loads(corpus_chart(explorer, Location(page="map"), tmp_path).to_json())
    (papers,) = [layer for layer in served["layers"] if layer["id"] == "papers"]
    files = list((tmp_path / "maps").glob("papers-*.json"))
    assert papers["data"] == f"app/static/maps/{files[0].name}" and len(files) == 1
    assert json.loads(files[0].read_text()) == inline["layers"][0]["data"]
    assert {**inline["layers"][0], "data": 0} == {**papers, "data": 0}
    blocked = tmp_path / "file"  # not a folder: the layer goes inline, the map still draws
    blocked.write_text("")
    fallback = json.loads(corpus_chart(explorer, Location(page="map", topic="0"), blocked).to_json())
    assert isinstance(fallback["layers"][0]["data"], list)


def test_big_maps_draw_an_even_sample():
    assert list(shown_rows(5, limit=10)) == [0, 1, 2, 3, 4]
    rows = shown_rows(100_000, limit=20_000)
    assert len(rows) == 20_000 and rows[0] == 0 and rows[-1] == 99_999


def test_trail_labels_name_questions_and_papers(small_index):  # noqa: F811
    explorer = Explorer.open(small_index)
    assert step_label(explorer, ("q", "  what   is it? ")) == "what is it?"
    assert step_label(explorer, ("paper", "gnn")) == "Message passing on molecular graphs"
    assert step_label(explorer, ("paper", "gone"), limit=10) == "gone"


def test_filters_from_a_link_are_fitted_to_the_corpus():
    facets = {"years": [2018, 2020, 2023], "venues": ["ICML"], "sources": ["a.jsonl"]}
    fitted = fit_to_corpus(Location(year_min=1000, year_max=2000, venues=("ICML", "X"),
                                     sources=("/etc/passwd",)), facets)
    assert (fitted.year_min, fitted.year_max) == (None, 2018)
    assert (fitted.venues, fitted.sources) == (("ICML",), ())
    assert fit_to_corpus(Location(year_min=2030), facets).year_min == 2023
    assert fit_to_corpus(Location(year_max=2030), facets).year_max is None
    assert fit_to_corpus(Location(year_min=2019), {"years": []}).year_min is None
    values = widget_values(facets, fit_to_corpus(Location(year_min=2030), facets), [5, 10])
    assert values["years"] == (2023, 2023)


def test_web_users_see_paths_relative_to_the_corpus_root():
    files = ["/srv/data/corpus/a.jsonl", "/srv/data/corpus/sub/b.csv"]
    assert corpus_root(files) == "/srv/data/corpus"
    assert source_names(files) == {"a.jsonl": files[0], "sub/b.csv": files[1]}
    assert source_names(["x/a.jsonl", "/y/a.jsonl"]) == {"a.jsonl": "x/a.jsonl",
                                                          "a.jsonl (2)": "/y/a.jsonl"}
    paper = Paper(paper_id="p", title="t", title_is_derived=False, abstract="a",
                  sources=("/srv/data/corpus/sub/b.csv:7", "/srv/data/corpus/a.jsonl#3"))
    assert public_paper(paper, "/srv/data/corpus").sources == ("sub/b.csv:7", "a.jsonl#3")
    manifest = _manifest(inputs=("/srv/data/corpus",))
    assert public_hint("/srv/index", manifest, "/srv/data/corpus") == "explorer build corpus --out index"


def test_messages_lose_their_server_paths():
    text = ("No index in /srv/indexes/acm/ (no manifest.json). Build one first: "
            "`explorer build /srv/data/acm-cr --out /srv/indexes/acm`; see https://example.org/a/b")
    shown = public_message(text, {"/srv/indexes/acm": "acm"})
    assert "/srv" not in shown and "`explorer build acm-cr --out acm`" in shown
    assert "https://example.org/a/b" in shown


def test_only_plain_web_addresses_are_links():
    assert safe_url("https://arxiv.org/abs/1") and safe_url("HTTP://x.org/")
    for bad in ("javascript:alert(1)", "data:text/html,x", "//evil.org", "https:///x",
                "https://a.org/\nx", "ftp://a.org", None, "", "http://[::1"):
        assert safe_url(bad) is None, bad


def test_a_build_is_told_apart_by_its_id_or_manifest():
    assert build_key(_manifest(build_id="b1")) == "b1"
    assert build_key(_manifest(count=1)) != build_key(_manifest(count=2))


def _manifest(**fields) -> Manifest:
    """A manifest with just the fields a test gives (and placeholders for the required ones)."""
    required = {"format_version": 1, "count": 0, "index_type": "flat", "model": ModelInfo(1),
                "files": {}}
    return Manifest(**{**required, **fields})


def test_filters_picked_in_the_sidebar_set_the_location():
    facets = {"years": [2018, 2020, 2023]}
    picked = with_filters(Location(query="q"), facets, ["V"], ["a.jsonl"], (2018, 2021), 20)
    assert picked == Location(query="q", venues=("V",), sources=("a.jsonl",), year_max=2021, top_k=20)
    assert with_filters(Location(), facets, [], [], (2019, 2023), 10).year_min == 2019
    assert with_filters(Location(), {"years": []}, [], [], None, 10) == Location()
    assert year_range({"years": [2020]}) == (2020, 2021) and year_range({"years": []}) is None


def test_a_map_click_names_the_paper_under_it():
    papers = [Paper(f"p{n}", "t", False, "a") for n in range(5)]
    assert picked_ids({"indices": {"papers": [3]}, "objects": {"papers": [{"t": "t"}]}},
                      papers) == ["p3"]
    assert picked_ids({"objects": {"open": [{"i": "gnn"}]}, "indices": {"papers": [1]}},
                      papers) == ["gnn", "p1"]
    assert picked_ids({"objects": {"nodes": [{"i": "x"}, {"i": "x"}]}}, ()) == ["x"]
    assert picked_ids({"indices": {"papers": [9, "1"]}}, papers) == []
    assert picked_ids(None, papers) == [] and picked_ids({}, papers) == []


def test_a_memo_keeps_the_most_recently_used_results():
    memo, computed = Memo(2), []

    def value(key: str) -> str:
        return memo.get(key, lambda: computed.append(key) or key.upper())

    assert [value(key) for key in "abac"] == ["A", "B", "A", "C"]  # "b" is now the oldest
    assert [value(key) for key in "ab"] == ["A", "B"]
    assert computed == ["a", "b", "c", "b"]


def test_results_are_the_engines_and_computed_once(small_index, monkeypatch):  # noqa: F811
    explorer = Explorer.open(small_index)
    location = Location(query="graph neural networks", venues=("NeurIPS",), top_k=5)
    hits = ranked(explorer, location, "search", location.query)
    expected = explorer.search(location.query, 5, Filters(venues=frozenset({"NeurIPS"})))
    assert [hit.paper_id for hit in hits] == [hit.paper_id for hit in expected] and len(hits) == 3
    calls = []
    monkeypatch.setattr(Explorer, "similar", lambda *args, **kwargs: calls.append(args) or [])
    assert ranked(explorer, location, "search", location.query) == hits  # remembered
    assert ranked(explorer, location, "similar", "gnn") == [] and len(calls) == 1
    assert ranked(explorer, location, "similar", "gnn") == [] and len(calls) == 1
    assert ranked(explorer, location, "similar", "gnn", narrow=False) == [] and len(calls) == 2
    fresh = Explorer.open(small_index)  # a rebuilt index is a new Explorer: nothing is reused
    assert ranked(fresh, location, "similar", "gnn") == [] and len(calls) == 3


def test_an_index_without_a_map_for_its_papers_draws_none(small_index):  # noqa: F811
    explorer = Explorer.open(small_index)
    assert corpus_chart(explorer, Location(page="map", paper_id="gnn")) is not None
    stale = dict(corpus_map(explorer), x=corpus_map(explorer)["x"][:-1])  # one paper short
    for extras in ({}, {"map": stale}):
        other = Explorer(dataclasses.replace(explorer.artifacts, extras=extras))
        assert corpus_map(other) is None and corpus_chart(other, Location(page="map")) is None


def test_a_cards_caption_names_shared_terms_only():
    """The caption names the terms a hit shares (escaped) or says nothing: no caption about
    cosines that tells a reader nothing (issue 31)."""
    assert terms_note(["graph"]) == "shared terms: *graph*"
    assert terms_note([]) == ""
    assert terms_note(["*x*"]) == "shared terms: *\\*x\\**"  # corpus words stay text


def test_the_start_page_says_what_the_corpus_is_and_asks_questions_about_its_topics():
    corpus_map = {"topics": [
        {"id": 0, "label": "Generative adversarial networks", "terms": ["gan", "generator"],
         "size": 90, "area": 0},
        {"id": 1, "label": "Mode collapse", "terms": ["mode"], "size": 80, "area": 0},
        {"id": 2, "label": "topic 2", "terms": ["x"], "size": 70, "area": 1},
        {"id": 3, "label": "GANs for text", "terms": ["text"], "size": 60, "area": 2},
        {"id": 4, "label": "Graph neural networks", "terms": ["graph"], "size": 50, "area": 3}]}
    questions = example_questions(corpus_map, count=4)
    assert questions[:3] == ["What are the main approaches to generative adversarial networks?",
                             "What are recent advances in GANs for text?",
                             "Which open problems remain in graph neural networks?"]
    assert "mode collapse" in questions[3]  # one per area first, then the next largest
    assert all(q.endswith("?") and q[0].isupper() for q in questions)
    assert example_questions(None) == [] and example_questions({"topics": [
        {"id": 0, "label": "all papers", "terms": [], "size": 3}]}) == []
    facets = {"venues": ["ICLR 2017", "NeurIPS 2018", "<b>*x*</b>"], "years": [2017, 2018]}
    text = corpus_markdown(_manifest(count=3160, built_at="2026-11-29T23:22:33+0000",
                                     model=ModelInfo(384, "sentence-transformers/all-MiniLM-L6-v2"),
                                     index_type="flat", inputs=("v",)), facets)
    for part in ("**3,160 papers**", "3 venues (ICLR 2017, NeurIPS 2018", "2017–2018",
                 escape_markdown("all-MiniLM-L6-v2"), escape_markdown("built 2026-11-29 23:22 UTC")):
        assert part in text
    assert "*x*</b>" not in text and escape_markdown("<b>*x*</b>") in text


def test_the_trail_shows_its_last_steps_and_folds_the_rest():
    trail = tuple(("q", f"question {n}") for n in range(9))
    earlier, recent = trail_parts(trail, shown=4)
    assert earlier == trail[:5] and recent == trail[5:]
    assert trail_parts(trail[:2], shown=4) == ((), trail[:2])
