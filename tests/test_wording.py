"""One place for the words (explorer/wording.py): the app's badge, the CLI's line and the JSON
`strength` of the same hits, from the real seeds index and model, say the same thing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer import wording
from explorer.cli.main import main
from explorer.query.engine import Explorer
from explorer.ui.page import score_help, score_text
from tests.paraphrases import PARAPHRASES

QUESTIONS = [PARAPHRASES[0][0], PARAPHRASES[3][0], "recipes for sourdough bread"]


def _cli(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_badge_the_cli_line_and_the_json_strength_agree(
        seeds_explorer: Explorer, seeds_index: Path, capsys, question: str):
    hits = seeds_explorer.search(question, 5)
    records = json.loads(_cli(capsys, "search", question, "--index", str(seeds_index),
                              "--k", "5", "--json"))
    text = _cli(capsys, "search", question, "--index", str(seeds_index), "--k", "5")
    assert [r["paper_id"] for r in records] == [h.paper_id for h in hits]
    for hit, record in zip(hits, records):
        assert hit.strength in wording.WORDS and record["strength"] == hit.strength
        badge = score_text(hit)
        assert badge == wording.score_line(record["score"], record["strength"])
        assert f"id {hit.paper_id} · {badge} (" in text  # the CLI adds what it is compared with
        assert f"chance relevant {hit.relevance:.2f}" in score_help(hit)  # a question's hit
        assert f"{badge} (chance relevant {hit.relevance:.2f})" in text


def test_missed_and_relatives_use_the_same_lines(seeds_explorer: Explorer):
    hit = seeds_explorer.search(PARAPHRASES[0][0], 1)[0]
    assert score_text(hit) == f"score {hit.score:.3f} · {hit.strength}"
    assert wording.pair_line(0.91234) == "cos 0.912"
    assert wording.closeness_line(0.6234) == "cos 0.62"
