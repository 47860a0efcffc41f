"""The app's text boxes in a real headless Chromium: typing stops at a box's limit (a paste
past it is refused whole: Streamlit's box), the box shows its count against the limit, and a
question longer than the model reads says where the model stopped reading."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from explorer.features.collections import ui as saved
from explorer.features.collections.records import MAX_NAME_CHARS
from explorer.features.drafts import ui as drafts
from explorer.features.drafts.passages import MAX_DRAFT_BYTES
from explorer.query.engine import MAX_QUESTION_CHARS
from explorer.ui import page
from tests.app_fixtures import SCREENSHOTS, idle

pytestmark = pytest.mark.browser
pytest.importorskip("playwright.sync_api")
PASTED = "graph neural networks pass messages between atoms " * 150  # 7,500 characters


@pytest.fixture(scope="module")
def small_app(small_server: tuple) -> str:
    return small_server[0]  # tests/shared.py: shared with test_browser and _collections


def test_text_past_a_box_limit_is_refused_and_the_note_says_what_the_model_read(browser,
                                                                                  small_app):
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    tab.set_default_timeout(90_000)
    tab.goto(small_app)
    box = tab.get_by_placeholder("Ask a question")
    box.fill(PASTED[:MAX_QUESTION_CHARS - 10])
    box.press_sequentially("x" * 30)  # typing past the limit: the box stops at it
    assert len(box.input_value()) == MAX_QUESTION_CHARS
    tab.keyboard.insert_text(PASTED)  # a paste past it: Streamlit keeps what the box had
    assert len(box.input_value()) == MAX_QUESTION_CHARS
    tab.get_by_text(f"{MAX_QUESTION_CHARS}/{MAX_QUESTION_CHARS}").wait_for()  # the box's count
    box.press("Enter")
    tab.get_by_text("The model reads its first 256 tokens, up to").wait_for()
    idle(tab)  # the link is written last in the run
    assert len(parse_qs(urlparse(tab.url).query)["q"][0]) == MAX_QUESTION_CHARS
    tab.screenshot(path=str(SCREENSHOTS / "limits-long-question.png"))
    tab.goto(f"{small_app}/?view=marked&like=gnn")
    for label, limit in ((page.STEER, MAX_QUESTION_CHARS), (saved.NAME_LABEL, MAX_NAME_CHARS)):
        other = tab.get_by_label(label)
        other.fill(PASTED[:limit - 5])
        other.press_sequentially("x" * 10)
        assert len(other.input_value()) == limit, label
    tab.goto(f"{small_app}/?view=draft")
    draft = tab.get_by_label(drafts.TEXT_LABEL)
    draft.fill("a draft")
    tab.get_by_text(f"7/{MAX_DRAFT_BYTES}").wait_for()  # the count against the draft's limit
    tab.close()
