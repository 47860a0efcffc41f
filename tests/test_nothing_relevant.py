"""A page that admits it has nothing (issue 31): when no hit reaches "related", the app's Ask
page and the CLI say so plainly above the list; a question the corpus answers gets no such
line. Real seeds index and model."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import wording
from explorer.cli.main import main
from tests.paraphrases import PARAPHRASES
from tests.test_app import ask, run_app

OFF_TOPIC = "recipes for sourdough bread"
ANSWERED = PARAPHRASES[0][0]


def test_the_rule_reads_only_words_given():
    assert not wording.nothing_relevant([])
    assert not wording.nothing_relevant([None, None])  # lexical mode: no words, no claim
    assert wording.nothing_relevant([wording.WEAK, wording.WEAK])
    assert not wording.nothing_relevant([wording.WEAK, "related"])


@pytest.mark.parametrize(("question", "says"), [(OFF_TOPIC, True), (ANSWERED, False)])
def test_the_cli_says_so_above_the_list(seeds_index: Path, capsys, question: str, says: bool):
    assert main(["search", question, "--index", str(seeds_index)]) == 0
    out = capsys.readouterr().out
    assert (wording.NOTHING_RELEVANT in out) is says
    if says:
        assert out.index(wording.NOTHING_RELEVANT) < out.index(" 1. ")


def test_the_ask_page_says_so_above_the_list(seeds_index: Path, monkeypatch):
    app = ask(run_app(seeds_index, monkeypatch), OFF_TOPIC)
    assert [w.value for w in app.warning] == [wording.NOTHING_RELEVANT]
    ask(app, ANSWERED)
    assert [w.value for w in app.warning] == []
