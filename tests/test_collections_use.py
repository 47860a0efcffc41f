"""Collections used where a list of papers is: the `explorer collection` verbs, `recommend
--collection`, BibTeX/CSV export, links, the app's Marked page (AppTest), and an index rebuilt
without some of a collection's papers. Real indexes and the real model throughout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.cli.main import main
from explorer.features.collections.records import file_name
from explorer.features.collections.store import Collections
from explorer.features.collections.ui import rename_key
from explorer.features.exports.ui_bibtex import to_bibtex
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from explorer.ui.export import to_csv
from explorer.ui.links import decode
from tests.app_fixtures import APP, write_small_corpus
from tests.markdown_check import live_markup

TIMEOUT = 120
HOSTILE = "[Session expired](https://example.org) <b>x</b> *not bold* `code` $x$"
ESCAPES = "\x1b[31mred\u202eevil"  # refused in a new name; a file from before may hold them


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Collections:
    monkeypatch.setenv("EXPLORER_DATA", str(tmp_path / "data"))
    return Collections.at(tmp_path / "data")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_collection_verbs(seeds_index, seeds_explorer, data, capsys):
    ids = [h.paper_id for h in seeds_explorer.search("state space models", 3)]
    index = ["--index", str(seeds_index)]
    assert run(capsys, "collection", "new", "Reading", *ids, *index)[1].startswith("created Reading")
    code, _, err = run(capsys, "collection", "add", "Reading", ids[0][:-1] + "x", *index)
    assert code == 1 and "No paper with id" in err and "Did you mean" in err
    assert err.count("\n") == 1  # one line, no traceback
    assert run(capsys, "collection", "add", "Reading", "ghost", "--no-check", *index)[0] == 0
    code, out, _ = run(capsys, "collection", "show", "Reading", *index, "--json",
                       "--base", "http://localhost:8501/")
    shown = json.loads(out)
    assert [r["paper_id"] for r in shown["papers"]] == [*ids, "ghost"]
    assert [r["in_index"] for r in shown["papers"]] == [True, True, True, False]
    assert shown["papers"][0]["title"] == seeds_explorer.paper(ids[0]).title
    location = decode(_query(shown["link"]))
    assert (location.page, location.like) == ("marked", (*ids, "ghost"))
    assert "(missing from this index)" in run(capsys, "collection", "show", "Reading", *index)[1]
    assert run(capsys, "collection", "rename", "Reading", "Chapter 2")[0] == 0
    code, _, err = run(capsys, "collection", "remove", "Chapter 2", ids[1], "never-there")
    assert code == 0 and "not in the collection: never-there" in err
    assert data.get("Chapter 2").paper_ids == (ids[0], ids[2], "ghost")
    listed = json.loads(run(capsys, "collection", "list", "--json")[1])
    assert [c["name"] for c in listed] == ["Chapter 2"]
    assert run(capsys, "collection", "delete", "Chapter 2")[0] == 0
    assert "No collections yet" in run(capsys, "collection", "list")[1]
    code, _, err = run(capsys, "collection", "show", "Chapter 2")
    assert code == 1 and "No collection named 'Chapter 2'" in err


def _query(url: str) -> dict[str, list[str]]:
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(url).query)


def test_recommend_and_export_take_a_collection(seeds_index, seeds_explorer, data, capsys,
                                                tmp_path):
    ids = [h.paper_id for h in seeds_explorer.search("video generation with diffusion", 2)]
    data.create("Video", [*ids, "gone-after-rebuild"])
    index = ["--index", str(seeds_index)]
    code, out, err = run(capsys, "recommend", "--collection", "Video", "--k", "5", "--json", *index)
    assert code == 0 and "gone-after-rebuild" in err and "1 of the 3 papers" in err
    expected = seeds_explorer.recommend(ids, top_k=5)
    assert [h["paper_id"] for h in json.loads(out)] == [h.paper_id for h in expected]
    code, out, _ = run(capsys, "collection", "export", "Video", *index)
    assert code == 0 and out == to_bibtex([seeds_explorer.paper(i) for i in ids])
    target = tmp_path / "video.csv"
    assert run(capsys, "collection", "export", "Video", "--format", "csv", "--out", str(target),
               *index)[0] == 0
    expected_csv = to_csv([seeds_explorer.paper(i) for i in ids])
    assert target.read_bytes().decode("utf-8") == expected_csv and "\r\n" in expected_csv
    data.create("Elsewhere", ["only-in-another-index"])
    code, _, err = run(capsys, "recommend", "--collection", "Elsewhere", *index)
    assert code == 1 and "None of the 1 papers" in err


def test_names_and_broken_files_reach_the_terminal_escaped(data, capsys):
    from explorer.features.collections.records import Collection, write_file

    data.create(HOSTILE, ["a"])
    data.folder.mkdir(parents=True, exist_ok=True)
    write_file(data.folder / "old.json", Collection(ESCAPES, ("b",), 1))  # an old file's name
    code, out, _ = run(capsys, "collection", "list")
    assert code == 0 and "\x1b" not in out and "\u202e" not in out and "\\x1b[31m" in out
    assert "Session expired" in out
    broken = data.folder / file_name("Broken")
    broken.write_text("{not json", encoding="utf-8")
    code, out, err = run(capsys, "collection", "list")
    assert code == 0 and str(broken) in err and "never overwrites" in err
    code, _, err = run(capsys, "collection", "new", "Broken")
    assert code == 1 and str(broken) in err and broken.read_text(encoding="utf-8") == "{not json"


# -- the app ------------------------------------------------------------------------------------
def run_app(index: Path, monkeypatch, params: dict | None = None) -> AppTest:
    monkeypatch.setenv("EXPLORER_INDEX", str(index))
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in (params or {}).items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def act(app: AppTest, key: str) -> AppTest:
    app.button(key=key).click().run()
    assert not app.exception, app.exception
    return app


def messages(app: AppTest) -> str:
    return "\n".join(e.value for e in [*app.success, *app.error, *app.warning])


def test_the_app_saves_opens_renames_and_deletes(small_index_for_collections, data, monkeypatch):
    index = small_index_for_collections
    app = run_app(index, monkeypatch, {"view": "marked", "like": ["gnn", "protein"]})
    app.text_input(key="collection_name").input(HOSTILE).run()
    app = act(app, "collection-save")
    assert data.get(HOSTILE).paper_ids == ("gnn", "protein")
    saved = next(s.value for s in app.success)
    assert live_markup(saved) == [] and "Session expired" in saved
    fresh = run_app(index, monkeypatch, {"view": "marked"})
    assert fresh.selectbox(key="collection_pick").options == [HOSTILE.strip()]
    fresh = act(fresh, "collection-open")
    assert fresh.session_state["location"].like == ("gnn", "protein")
    assert card_ids(fresh, "r") == [h.paper_id for h in Explorer.open(index).recommend(
        ["gnn", "protein"], top_k=10)]
    fresh = act(fresh, "m-gnn-drop")
    assert not fresh.button(key="collection-update").disabled
    fresh = act(fresh, "collection-update")
    assert data.get(HOSTILE).paper_ids == ("protein",)
    fresh.text_input(key=rename_key(fresh.session_state["collection"])).input("Proteins").run()
    fresh = act(fresh, "collection-rename")
    assert data.names() == ["Proteins"]
    data.add("Proteins", ["speech"])  # another session changes it meanwhile
    fresh = act(act(fresh, "m-protein-drop"), "collection-update")
    assert "changed elsewhere" in messages(fresh)
    assert data.get("Proteins").paper_ids == ("protein", "speech")  # nothing overwritten
    fresh = act(fresh, "collection-delete")  # a stale delete is refused too
    assert "changed elsewhere" in messages(fresh) and data.names() == ["Proteins"]
    fresh.selectbox(key="collection_pick").select("Proteins").run()
    fresh = act(act(fresh, "collection-open"), "collection-delete")
    assert data.names() == [] and "Deleted" in messages(fresh)


def card_ids(app: AppTest, prefix: str) -> list[str]:
    keys = [button.key for button in app.button if button.key]
    return [key[len(prefix) + 1:-len("-similar")] for key in keys
            if key.startswith(prefix + "-") and key.endswith("-similar")]


@pytest.fixture
def small_index_for_collections(small_index: Path, tmp_path: Path) -> Path:
    """A private copy of the small corpus's index, its corpus beside it (tests rebuild it)."""
    write_small_corpus(tmp_path / "corpus")
    out = tmp_path / "index"
    shutil.copytree(small_index, out)
    return out


def test_a_rebuilt_index_without_some_papers_keeps_them(small_index_for_collections, data,
                                                         monkeypatch, capsys, tmp_path):
    index = small_index_for_collections
    data.create("Mixed", ["gnn", "protein", "speech"])
    corpus = tmp_path / "corpus" / "small.jsonl"
    lines = corpus.read_text(encoding="utf-8").splitlines()
    corpus.write_text("\n".join(x for x in lines if '"id": "gnn"' not in x) + "\n", encoding="utf-8")
    build([corpus], index, "default")
    _, out, _ = run(capsys, "collection", "show", "Mixed", "--index", str(index), "--json")
    assert [(r["paper_id"], r["in_index"]) for r in json.loads(out)["papers"]] == [
        ("gnn", False), ("protein", True), ("speech", True)]
    app = run_app(index, monkeypatch, {"view": "marked"})
    app = act(app, "collection-open")
    assert app.session_state["location"].like == ("protein", "speech")
    assert any("Missing from this index: 1" in w.value and "gnn" in w.value for w in app.warning)
    app = act(act(app, "m-speech-drop"), "collection-update")
    assert data.get("Mixed").paper_ids == ("protein", "gnn")  # gnn kept, never dropped


def test_a_link_holds_a_collection_up_to_the_links_limit():
    from explorer.features.collections.ui import collection_link
    from explorer.ui.links import MAX_MARKED

    url, cut = collection_link("http://host/", ["a", "b", "a"])
    assert decode(_query(url)).like == ("a", "b") and cut == ""
    many = [f"id-{n}" for n in range(MAX_MARKED + 5)]
    url, cut = collection_link("http://host/", many)
    assert decode(_query(url)).like == tuple(many[:MAX_MARKED])
    assert f"first {MAX_MARKED} of its {MAX_MARKED + 5}" in cut


def test_missing_ids_are_named_as_text():
    from explorer.features.collections.ui import SHOWN_MISSING, missing_markdown

    hostile = ["[x](https://example.org)", "<img src=x>", *[f"m{n}" for n in range(30)]]
    note = missing_markdown(hostile)
    assert live_markup(note) == [] and f"{len(hostile)} of its papers" in note
    assert f"and {len(hostile) - SHOWN_MISSING} more" in note and missing_markdown([]) == ""
