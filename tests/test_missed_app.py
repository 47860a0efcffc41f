"""The app's "Check my draft" page (AppTest, the real seeds index and model): paste a draft,
upload a .bib (in memory) or pick a saved collection, see the missed papers by passage, mark
them and export them; bad input is a message on the page. (Headless Chromium:
test_browser_draft.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.features.collections.store import Collections
from explorer.features.drafts.ui import SAVED, UPLOAD
from tests.app_fixtures import APP
from tests.markdown_check import live_markup
from tests.test_missed_cli import DRAFT, SEED_GED, SEED_SSM, ZOTERO

TIMEOUT = 180
# two sentences in the first paragraph: a card names the one it ties to
TWO_SENTENCES = DRAFT.replace("\n\n", " Our layers are faster to train.\n\n", 1)


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Collections:
    monkeypatch.setenv("EXPLORER_DATA", str(tmp_path / "data"))
    return Collections.at(tmp_path / "data")


def draft_page(index: Path, monkeypatch) -> AppTest:
    monkeypatch.setenv("EXPLORER_INDEX", str(index))
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    app.query_params["view"] = "draft"
    app.run()
    assert not app.exception, app.exception
    return app


def check(app: AppTest) -> AppTest:
    app.button(key="draft-check").click().run()
    assert not app.exception, app.exception
    return app


def card_ids(app: AppTest) -> list[str]:
    keys = [b.key for b in app.button if b.key and b.key.startswith("d-") and b.key.endswith("-like")]
    return [key[2:-5] for key in keys]


def texts(app: AppTest) -> str:
    return "\n".join(m.value for m in app.markdown) + "\n".join(c.value for c in app.caption)


def test_paste_upload_check_mark_export(seeds_index, data, monkeypatch):
    app = draft_page(seeds_index, monkeypatch)
    assert app.button(key="draft-check") and "Check my draft" in texts(app)
    app.text_area(key="draft_text").input(TWO_SENTENCES)
    app.radio(key="draft_cited").set_value(UPLOAD).run()
    app.get("file_uploader")[1].upload("mine.bib", ZOTERO.read_bytes(), "application/x-bibtex")
    check(app)
    shown = card_ids(app)
    assert shown and SEED_SSM not in shown and SEED_GED not in shown
    page = texts(app)
    assert "**Passage 1**" in page and "**Passage 2**" in page
    assert "2 of 5 entries are in this index" in page and "Not in this index: SparseKV" in page
    assert "closest to your cited" in page and "ties to your" in page
    export = app.get("download_button")[-1]
    assert export.proto.disabled  # nothing marked yet
    app.button(key=f"d-{shown[0]}-like").click().run()
    assert not app.exception
    export = app.get("download_button")[-1]
    assert not export.proto.disabled and "1 marked" in export.proto.label
    assert shown[0] in app.session_state["location"].like
    assert card_ids(app) == shown  # the answer stays while marking
    assert not live_markup(page)


def test_a_saved_collection_is_the_cited_set(seeds_index, data, monkeypatch):
    app = draft_page(seeds_index, monkeypatch)
    app.text_area(key="draft_text").input(DRAFT)
    check(app)
    first = card_ids(app)[0]
    data.create("My references", [first])
    app.radio(key="draft_cited").set_value(SAVED).run()
    app.selectbox(key="draft_collection").set_value("My references")
    check(app)
    assert first not in card_ids(app) and "1 of 1 entry is in this index" in texts(app)


@pytest.mark.parametrize(("text", "upload", "bib", "says"), [
    ("", None, None, "Paste a draft"),
    ("", ("draft.txt", b"\x89PNG\r\n\x1a\n\x00\x00"), None, "not UTF-8 text"),
    ("", ("draft.tex", b"%PDF-1.4\n"), None, "is a PDF file"),
    (DRAFT, None, ("refs.bib", b"@article{x,\x00 title={a}}"), "binary file"),
])
def test_bad_input_is_a_message(seeds_index, data, monkeypatch, text, upload, bib, says):
    app = draft_page(seeds_index, monkeypatch)
    app.text_area(key="draft_text").input(text)
    if upload:
        app.get("file_uploader")[0].upload(*upload, "application/octet-stream")
    if bib:
        app.radio(key="draft_cited").set_value(UPLOAD).run()
        app.get("file_uploader")[1].upload(*bib, "application/octet-stream")
    check(app)
    assert [e.value for e in app.error] and says in app.error[0].value.replace("\\", "")
    assert not card_ids(app)
