"""The app's callbacks run before its script, outside main()'s error handler: each one is
`reported` (explorer/app/kit.py), so a failure shows a plain message and logs its traceback on the
server instead of Streamlit's error page. And the Marked page as a visitor of a shared server
sees it (AppTest; test_browser_collections.py drives a real browser)."""

from __future__ import annotations

import ast
import errno
import logging
import secrets
from pathlib import Path

from streamlit.testing.v1 import AppTest

from explorer.features.collections import records
from explorer.features.collections import ui as saved
from explorer.features.collections.store import Collections
from explorer.features.collections.visitors import visitor_folder
from tests.app_fixtures import APP, small_index  # noqa: F401 (a fixture)

TIMEOUT = 120
CALLBACKS = ("on_click", "on_change", "on_select")
# The app's modules: the entry file, explorer/app/ and the features' page modules.
APP_FILES = [APP, *sorted((APP.parent / "explorer" / "app").glob("*.py")),
             *sorted((APP.parent / "explorer" / "features").glob("*/page*.py"))]


def unreported_callbacks(source: str) -> list[str]:
    """Every widget callback in `source` that is not `reported`: keywords on_click, on_change,
    on_select and on_<state>_change whose value is neither a function decorated @reported,
    nor reported(...), nor a string ("ignore", "rerun")."""
    tree = ast.parse(source)
    decorated = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                 and any(isinstance(d, ast.Name) and d.id == "reported" for d in node.decorator_list)}
    found = []
    for node in ast.walk(tree):
        for keyword in getattr(node, "keywords", []) if isinstance(node, ast.Call) else []:
            name = keyword.arg or ""
            if name not in CALLBACKS and not (name.startswith("on_") and name.endswith("_change")):
                continue
            value = keyword.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                continue
            if isinstance(value, ast.Name) and value.id in decorated:
                continue
            if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "reported":
                continue
            found.append(f"line {keyword.lineno}: {name}={ast.unparse(value)}")
    return found


def test_every_callback_of_the_app_is_reported():
    source = "\n".join(path.read_text(encoding="utf-8") for path in APP_FILES)
    assert "@reported" in source and unreported_callbacks(source) == []
    bad = ("def plain(): pass\n@reported\ndef fine(): pass\n"
           "st.button('a', on_click=plain)\nst.button('b', on_click=lambda: fine())\n"
           "st.text_input('c', on_change=fine)\nst.button('d', on_click=reported(lambda: 1))\n"
           "mount(on_key_change=plain)\nst.download_button('e', on_click='ignore')\n")
    assert unreported_callbacks(bad) == ["line 4: on_click=plain", "line 5: on_click=lambda: fine()",
                                        "line 8: on_key_change=plain"]


def run_app(index: Path, monkeypatch, data: Path, params: dict, **state) -> AppTest:
    monkeypatch.setenv("EXPLORER_INDEX", str(index))
    monkeypatch.setenv("EXPLORER_DATA", str(data))
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in params.items():
        app.query_params[key] = value
    for key, value in state.items():
        app.session_state[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def errors(app: AppTest) -> str:
    return "\n".join(e.value for e in app.error)


def test_a_full_disk_on_save_shows_a_plain_message(small_index, tmp_path, monkeypatch, caplog):  # noqa: F811
    real = records.atomic_write

    def full(path, write):
        def partly(tmp):
            tmp.write_bytes(b"{")
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, partly)

    app = run_app(small_index, monkeypatch, tmp_path / "data", {"view": "marked", "like": "gnn"})
    monkeypatch.setattr(records, "atomic_write", full)
    app.text_input(key="collection_name").input("Chapter 2").run()
    with caplog.at_level(logging.ERROR, logger="paper_explorer.app"):
        app.button(key="collection-save").click().run()
    assert not app.exception, app.exception
    shown = errors(app)
    assert "could not be saved" in shown and "No space left on device" in shown
    assert "Traceback" not in shown and str(tmp_path) not in shown
    assert any(r.exc_info and "No space left" in str(r.exc_info[1]) for r in caplog.records)
    folder = tmp_path / "data" / "collections"
    assert not [p for p in folder.iterdir() if p.suffix in (".json", ".tmp")
                and not p.name.startswith(".index")]
    app.run()  # shown once, then gone
    assert "could not be saved" not in errors(app)


def test_a_failing_navigation_callback_shows_a_plain_message(small_index, tmp_path, monkeypatch,  # noqa: F811
                                                             caplog):
    from explorer.ui import trail

    app = run_app(small_index, monkeypatch, tmp_path / "data", {"view": "marked"})

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(trail, "push", broken)
    app.run()  # the buttons' callbacks are now those of a script that imported the broken push
    with caplog.at_level(logging.ERROR, logger="paper_explorer.app"):
        app.button(key="nav-ask").click().run()
    assert not app.exception, app.exception
    assert "internal error" in errors(app) and "a bug" not in errors(app)
    assert any("callback go failed" in r.getMessage() for r in caplog.records)


def test_a_visitor_of_a_shared_server_saves_apart(small_index, tmp_path, monkeypatch):  # noqa: F811
    data = tmp_path / "data"
    Collections.at(data).create("Owner's list", ["speech"])
    monkeypatch.setenv("EXPLORER_VISITORS", "private")
    waiting = run_app(small_index, monkeypatch, data, {"view": "marked", "like": "gnn"})
    assert waiting.button(key="collection-save").disabled
    assert any(saved.WAITING in c.value for c in waiting.caption)
    mine = secrets.token_hex(32)
    app = run_app(small_index, monkeypatch, data, {"view": "marked", "like": "gnn"},
                  visitor_key=mine)
    assert app.selectbox(key="collection_pick").options == [
        "Owner's list" + saved.OWNERS_MARK]
    app.text_input(key="collection_name").input("Mine").run()
    app.button(key="collection-save").click().run()
    assert Collections(visitor_folder(data, mine)).get("Mine").paper_ids == ("gnn",)
    assert Collections.at(data).names() == ["Owner's list"]
    app.selectbox(key="collection_pick").select("Owner's list").run()
    app.button(key="collection-open").click().run()
    assert app.session_state["location"].like == ("speech",)
    keys = {button.key for button in app.button}
    assert not keys & {"collection-update", "collection-rename", "collection-delete"}
    assert any(saved.READ_ONLY_NOTE in c.value for c in app.caption)


def test_a_server_on_another_address_is_shared_mode(small_index, tmp_path, monkeypatch):  # noqa: F811
    from streamlit import config

    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    try:
        app = run_app(small_index, monkeypatch, tmp_path / "data", {"view": "marked"})
    finally:
        config.set_option("server.address", before)
    assert app.button(key="collection-save").disabled
    assert any(saved.WAITING in c.value for c in app.caption)
    assert config.get_option("server.address") == "127.0.0.1"  # the project's own setting
