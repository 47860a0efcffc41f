"""The app during and after an upgrade (Streamlit's AppTest, real index and model): the sidebar
says which model answers and how far the upgrade is; once the index is swapped, the open app
answers its next question with the new model."""

from __future__ import annotations

import os
import time

from explorer.features.upgrade.stage_run import run_upgrade
from explorer.features.upgrade.stage_status import EMBEDDING, Status, write_status
from tests.conftest import SEEDS
from tests.test_app import ask, run_app
from tests.test_upgrade import strong_model  # noqa: F401 - the fixture


def sidebar_text(app) -> str:
    return " ".join(str(caption.value) for caption in app.sidebar.caption)


def test_the_sidebar_follows_the_upgrade_and_the_app_takes_the_new_index(
        index_copy, strong_model, monkeypatch):  # noqa: F811
    write_status(index_copy, Status(EMBEDDING, "strong-model", done=32, total=71, rate=4.0,
                                    pid=os.getpid(), updated=time.time()))
    app = ask(run_app(index_copy, monkeypatch), "graph neural networks")
    shown = sidebar_text(app)
    assert "upgrading to **strong\\-model**" in shown and "32 of 71 papers" in shown
    assert "all\\-MiniLM\\-L6\\-v2" in shown
    run_upgrade(index_copy, [str(SEEDS)], str(strong_model), batch_size=8)
    app = ask(app, "protein structure prediction")  # the same session's next question
    shown = sidebar_text(app)
    assert "strong\\-model" in shown and "MiniLM" not in shown
    assert "upgrading" not in shown
