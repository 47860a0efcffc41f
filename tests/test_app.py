"""The app's page logic through Streamlit's AppTest, on real indexes and the real model."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.ingest.run import build
from explorer.query.engine import Explorer, Filters
from explorer.ui.page import FAILED
from tests.app_fixtures import APP, XSS_ID, small_index, write_small_corpus  # noqa: F401
from tests.markdown_check import live_markup

QUESTION = "can diagonal state space layers follow non-commutative group operations"
EXPECTED = "74c6b0a05165"  # the DCD state-space expressivity paper of the seeds
TIMEOUT = 120  # the first run loads the model


def run_app(index: Path, monkeypatch: pytest.MonkeyPatch, params: dict | None = None) -> AppTest:
    monkeypatch.setenv("EXPLORER_INDEX", str(index))
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in (params or {}).items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def ask(app: AppTest, question: str) -> AppTest:
    app.text_input(key="query_box").input(question).run()
    assert not app.exception, app.exception
    return app


def card_ids(app: AppTest, prefix: str) -> list[str]:
    """Paper ids of the result cards in page order (from their 'Similar papers' buttons)."""
    keys = [button.key for button in app.button if button.key]
    return [key[len(prefix) + 1:-len("-similar")] for key in keys
            if key.startswith(prefix + "-") and key.endswith("-similar")]


def click(app: AppTest, key: str) -> AppTest:
    app.button(key=key).click().run()
    assert not app.exception, app.exception
    return app


def test_question_finds_its_paper_and_sets_the_link(seeds_index, seeds_explorer, monkeypatch):
    app = ask(run_app(seeds_index, monkeypatch), QUESTION)
    ids = card_ids(app, "q")
    assert ids[0] == EXPECTED
    assert ids == [hit.paper_id for hit in seeds_explorer.search(QUESTION, 10)]
    assert app.query_params["q"] == QUESTION
    badges = [m.value for m in app.markdown if m.value.startswith(":blue-badge[score ")]
    assert len(badges) == 10 and badges[0].endswith(("strong match]", "good match]"))
    assert any("derived title" in m.value for m in app.markdown)
    assert [d.label for d in app.get("download_button")][:4] == ["CSV", "BibTeX", "RIS", "CSL-JSON"]


def test_similar_opens_the_paper_with_its_neighbours(seeds_index, seeds_explorer, monkeypatch):
    app = click(ask(run_app(seeds_index, monkeypatch), QUESTION), f"q-{EXPECTED}-similar")
    state = app.session_state["location"]
    assert (state.page, state.paper_id) == ("paper", EXPECTED)
    neighbours = card_ids(app, "n")
    assert neighbours == [hit.paper_id for hit in seeds_explorer.similar(EXPECTED, 10)]
    assert EXPECTED not in neighbours
    assert app.query_params["paper"] == EXPECTED
    assert any("shared terms: *" in m.value for m in app.caption)


def test_trail_steps_back_to_any_earlier_question_or_paper(seeds_index, monkeypatch):
    app = click(ask(run_app(seeds_index, monkeypatch), QUESTION), f"q-{EXPECTED}-similar")
    second = card_ids(app, "n")[0]
    app = click(app, f"n-{second}-similar")
    assert app.session_state["location"].paper_id == second
    app = ask(app, "protein structure")
    trail = app.session_state["trail"]
    assert trail == (("q", QUESTION), ("paper", EXPECTED), ("paper", second), ("q", "protein structure"))
    app = click(app, "trail-0")
    assert app.session_state["location"].page == "ask"
    assert app.text_input(key="query_box").value == QUESTION
    assert card_ids(app, "q")[0] == EXPECTED
    app = click(app, "trail-1")
    assert app.session_state["location"].paper_id == EXPECTED
    assert app.session_state["trail"] == trail  # stepping back loses no place


def test_marked_set_survives_pages_and_drives_recommendations(seeds_index, seeds_explorer,
                                                               monkeypatch):
    app = ask(run_app(seeds_index, monkeypatch), QUESTION)
    first, second, third = card_ids(app, "q")[:3]
    app = click(click(app, f"q-{first}-like"), f"q-{second}-like")
    app = click(app, f"q-{third}-unlike")
    app = click(click(app, "nav-map"), "nav-marked")
    state = app.session_state["location"]
    assert (state.like, state.unlike) == ((first, second), (third,))
    assert app.query_params["like"] == [first, second] and app.query_params["unlike"] == third
    expected = seeds_explorer.recommend([first, second], [third], top_k=10)
    assert card_ids(app, "r") == [hit.paper_id for hit in expected]
    app.text_input(key="steer_box").input("video generation").run()
    steered = seeds_explorer.recommend([first, second], [third], "video generation", top_k=10)
    assert card_ids(app, "r") == [hit.paper_id for hit in steered]
    app = click(app, f"m-{first}-drop")
    assert app.session_state["location"].like == (second,)


def test_a_deep_link_reopens_the_same_view(seeds_index, seeds_explorer, monkeypatch):
    liked = seeds_explorer.search("video diffusion", 2)
    params = {"paper": EXPECTED, "q": QUESTION, "like": [h.paper_id for h in liked], "k": "5"}
    app = run_app(seeds_index, monkeypatch, params)
    state = app.session_state["location"]
    assert (state.page, state.paper_id, state.query) == ("paper", EXPECTED, QUESTION)
    assert state.like == tuple(h.paper_id for h in liked)
    assert card_ids(app, "n") == [h.paper_id for h in seeds_explorer.similar(EXPECTED, 5)]
    assert app.text_input(key="query_box").value == QUESTION
    assert app.button(key="open-like").label.startswith("More like this") is True


def test_a_map_link_and_a_marked_link_open_their_pages(seeds_index, monkeypatch):
    app = run_app(seeds_index, monkeypatch, {"view": "map", "paper": EXPECTED})
    assert app.session_state["location"].page == "map"
    assert app.get("deck_gl_json_chart"), "the map page draws a deck.gl chart"
    app = run_app(seeds_index, monkeypatch, {"view": "marked"})
    assert app.session_state["location"].page == "marked"
    assert any("Mark papers" in info.value for info in app.info)


def test_unknown_ids_in_a_link_are_reported_not_raised(seeds_index, monkeypatch):
    app = run_app(seeds_index, monkeypatch, {"paper": "nope", "like": ["nada", EXPECTED]})
    assert any("nope" in w.value and "nada" in w.value for w in app.warning)
    state = app.session_state["location"]
    assert (state.page, state.paper_id, state.like) == ("ask", None, (EXPECTED,))


def test_filters_are_applied_inside_the_search(small_index, monkeypatch):  # noqa: F811
    explorer = Explorer.open(small_index)
    app = run_app(small_index, monkeypatch)
    app.multiselect(key="venues").set_value(["NeurIPS"]).run()
    app = ask(app, "graph neural networks")
    ids = card_ids(app, "q")
    neurips = [p.paper_id for p in explorer.papers if p.venue == "NeurIPS"]
    assert sorted(ids) == sorted(neurips)  # all three, and only them
    assert app.query_params["venue"] == "NeurIPS"
    app.slider(key="years").set_range(2020, 2023).run()
    expected = explorer.search("graph neural networks", 10,
                               Filters(venues=frozenset({"NeurIPS"}), year_min=2020))
    assert card_ids(app, "q") == [h.paper_id for h in expected] and len(expected) == 2
    assert app.query_params["year"] == "2020-"


def test_a_filter_link_restores_the_filters(small_index, monkeypatch):  # noqa: F811
    app = run_app(small_index, monkeypatch, {"q": "learning", "venue": ["ICML", "KDD"],
                                             "year": "2022-2023"})
    assert app.multiselect(key="venues").value == ["ICML", "KDD"]
    explorer = Explorer.open(small_index)
    venues = {explorer.paper(pid).venue for pid in card_ids(app, "q")}
    years = {explorer.paper(pid).year for pid in card_ids(app, "q")}
    assert venues <= {"ICML", "KDD"} and years <= {2022, 2023} and card_ids(app, "q")


@pytest.mark.parametrize("question", [
    "?!?... ;;", "long state space question " * 150, "状态空间模型能否跟踪群运算",
    "$\\alpha$-stable $\\mathbb{R}^n$", "<script>alert(1)</script>",
])
def test_odd_questions_are_answered_gracefully(seeds_index, monkeypatch, question):
    app = ask(run_app(seeds_index, monkeypatch), question)
    assert len(card_ids(app, "q")) == 10
    if question.startswith("?!"):
        assert any("no letters or digits" in info.value for info in app.info)
    if question.startswith("long"):
        assert any("model reads its first 256 tokens" in info.value for info in app.info)


def test_an_empty_question_shows_the_start_page(seeds_index, monkeypatch):
    app = ask(run_app(seeds_index, monkeypatch), "   ")
    assert card_ids(app, "q") == []
    assert app.session_state["location"].query == ""
    assert "q" not in app.query_params
    example = app.button(key="example-0")
    app = click(app, "example-0")
    assert app.session_state["location"].query == example.label.replace("\\", "")
    assert len(card_ids(app, "q")) == 10


def test_the_loaded_index_is_described(seeds_index, monkeypatch):
    app = run_app(seeds_index, monkeypatch)
    panel = " ".join(c.value for c in app.sidebar.caption).replace("\\", "")
    assert "71 papers" in panel and "all-MiniLM-L6-v2" in panel and "built" in panel


def test_a_missing_index_says_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_INDEX", str(tmp_path / "nothing-here"))
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not app.exception
    assert "explorer build" in app.error[0].value
    assert app.code[0].value.startswith("explorer build")
    assert str(tmp_path) not in app.error[0].value + app.code[0].value  # no server paths


def test_without_sentence_vectors_every_card_is_highlighted_as_a_stored_build_would(
        tmp_path, monkeypatch):
    """The default build stores no sentence vectors: the page embeds its hits' sentences and
    highlights the same sentences as an index that stores them."""
    corpus = write_small_corpus(tmp_path / "corpus")
    pages = {}
    for stored in (False, True):
        out = tmp_path / f"index-{stored}"
        build([corpus], out, "default", sentences=stored)
        app = ask(run_app(out, monkeypatch), "machine learning")
        assert not any("no sentence vectors" in c.value for c in app.caption)
        abstracts = [box for box in app.get("popover") if box.proto.popover.label == "Abstract"]
        assert len(abstracts) == 10 and all(_lit(box.markdown) for box in abstracts)
        pages[stored] = [m.value for m in app.markdown if ":yellow-background[" in m.value]
    assert pages[False] == pages[True]


def _lit(elements) -> int:
    return sum(":yellow-background[" in m.value for m in elements)


def test_a_damaged_index_says_what_to_run(small_index, tmp_path, monkeypatch):  # noqa: F811
    damaged = tmp_path / "index"
    shutil.copytree(small_index, damaged)
    faiss_file = next(damaged.glob("index-*.faiss"))
    data = bytearray(faiss_file.read_bytes())
    data[-1] ^= 0xFF
    faiss_file.write_bytes(bytes(data))
    monkeypatch.setenv("EXPLORER_INDEX", str(damaged))
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not app.exception
    assert "checksum" in app.error[0].value
    assert app.code[0].value.startswith("explorer build")


def test_corpus_markup_reaches_streamlit_escaped(small_index, monkeypatch):  # noqa: F811
    app = run_app(small_index, monkeypatch, {"paper": XSS_ID})
    shown = "\n".join(m.value for m in app.markdown)
    assert "\\<script\\>" in shown and "<script>" not in shown
    assert "$x^2 + y^2$" in shown  # math kept for KaTeX
    assert all(not m.proto.allow_html for m in app.markdown)


PHISH_ID = "[Session expired](https://example.org/login)"


def test_an_unknown_id_in_a_link_is_shown_as_text(seeds_index, monkeypatch):
    app = run_app(seeds_index, monkeypatch, {"paper": PHISH_ID})
    warning = next(w.value for w in app.warning if "not in this index" in w.value)
    assert live_markup(warning) == [] and "Session expired" in warning


@pytest.mark.parametrize("params", [
    {"q": "learning", "year": "1000-2000"}, {"q": "learning", "year": "2030-"},
    {"view": "marked", "like": ["gnn", "protein"], "unlike": "gnn"}, {"q": "graphs", "k": "²"},
    {"q": "graphs", "year": "²-"}, {"q": "graphs", "k": "9" * 5000},
    {"q": "graphs", "venue": "Nowhere", "source": "/etc/passwd"},
])
def test_hostile_links_open_a_page(small_index, monkeypatch, params):  # noqa: F811
    app = run_app(small_index, monkeypatch, params)
    assert not app.error
    low, high = app.slider(key="years").value
    assert 2018 <= low <= high <= 2023
    if params.get("year") == "2030-":
        assert (low, app.session_state["location"].year_min) == (2023, 2023)
    if "q" in params:
        assert card_ids(app, "q")


def test_any_failure_shows_a_plain_message_without_paths(small_index, monkeypatch):  # noqa: F811
    def broken(*args, **kwargs):
        raise RuntimeError(f"Infer Request is busy in {small_index}/model.xml")

    monkeypatch.setattr(Explorer, "search", broken)  # the app asks as the CLI and the API do
    app = run_app(small_index, monkeypatch, {"q": "a fresh question nobody asked before"})
    assert [e.value for e in app.error] == [FAILED]
    shown = " ".join(str(element.value) for element in app.main if hasattr(element, "value"))
    assert str(small_index) not in shown and "Infer Request" not in shown


def test_web_users_see_source_files_relative_to_the_corpus(small_index, monkeypatch):  # noqa: F811
    app = run_app(small_index, monkeypatch)
    assert app.multiselect(key="sources").options == ["small.jsonl"]
    app.multiselect(key="sources").set_value(["small.jsonl"]).run()
    app = ask(app, "graph neural networks")
    assert len(card_ids(app, "q")) == 10 and app.query_params["source"] == "small.jsonl"


def test_a_rebuild_swaps_the_cached_explorer(tmp_path, monkeypatch):
    corpus = write_small_corpus(tmp_path / "corpus")
    out = tmp_path / "index"
    build([corpus], out, "default")
    app = run_app(out, monkeypatch)
    with corpus.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "new-one", "abstract": "Brand new paper about quantum error '
                     'correction codes on superconducting qubits."}\n')
    build([corpus], out, "default")
    app = ask(app, "quantum error correction")
    assert card_ids(app, "q")[0] == "new-one"
    gc.collect()
    alive = [obj for obj in gc.get_objects()
             if isinstance(obj, Explorer) and obj.artifacts.folder == out]
    assert len(alive) == 1, "the previous build's Explorer is still cached"
