"""One number, in the order (issue 31): the score a card and `--json` show is the one the list
is ordered by, so shown scores never rise down a list, on every page kind (search, similar,
recommend) for many seed questions, in the library, the CLI's JSON and the app; the cosine
stays beside it as its own field."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest

from explorer.cli.main import main
from explorer.query.engine import Explorer
from explorer.query.hits import Hit
from tests.absent_topics import ABSENT_TOPICS
from tests.paraphrases import PARAPHRASES
from tests.test_app import ask, run_app

QUESTIONS = [query for query, _ in PARAPHRASES] + ABSENT_TOPICS


def _falls(scores: list[float]) -> bool:
    return all(later <= earlier for earlier, later in itertools.pairwise(scores))


def _pages(ex: Explorer) -> dict[str, list[list[Hit]]]:
    """Result lists of every page kind: a search per question, similar per paper, recommend
    from a question's top two and from a question alone."""
    searches = [ex.search(question, 10) for question in QUESTIONS]
    return {"search": searches,
            "similar": [ex.similar(paper.paper_id, 10) for paper in ex.papers],
            "recommend": [ex.recommend([h.paper_id for h in hits[:2]], top_k=10)
                          for hits in searches[:20]]
            + [ex.recommend([], query=question, top_k=10) for question in QUESTIONS[:10]]}


def test_shown_scores_never_rise_down_a_list_on_any_page_kind(seeds_explorer: Explorer):
    pages = _pages(seeds_explorer)
    for kind, lists in pages.items():
        assert len(lists) >= 20
        risen = [[h.score for h in hits] for hits in lists if not _falls([h.score for h in hits])]
        assert risen == [], kind


def test_the_cosine_stays_beside_the_score(seeds_explorer: Explorer):
    ex = seeds_explorer
    question = PARAPHRASES[0][0]
    vector = ex.embed_query(question)
    hits = ex.search(question, 10)
    cosines = [float(ex.vectors[ex.row(h.paper_id)] @ vector) for h in hits]
    np.testing.assert_allclose([h.cosine for h in hits], cosines, atol=1e-5)
    assert not _falls(cosines) or any(h.score != h.cosine for h in hits)  # fused, not cosine
    record = hits[0].to_dict()
    assert record["score"] == round(hits[0].score, 6)
    assert record["cosine"] == round(hits[0].cosine, 6)
    assert all(h.cosine is None for h in ex.search(question, 5, mode="lexical"))


@pytest.mark.parametrize("verb", ["search", "similar"])
def test_the_json_scores_never_rise(seeds_index: Path, seeds_explorer: Explorer, capsys, verb):
    targets = QUESTIONS[:8] if verb == "search" else [p.paper_id for p in seeds_explorer.papers[:8]]
    for target in targets:
        assert main([verb, target, "--index", str(seeds_index), "--json"]) == 0
        records = json.loads(capsys.readouterr().out)
        assert _falls([r["score"] for r in records]), target
        assert all("cosine" in r for r in records)


def test_the_apps_badges_never_rise_down_the_page(seeds_index: Path, monkeypatch):
    app = run_app(seeds_index, monkeypatch)
    for question in QUESTIONS[:6]:
        ask(app, question)
        shown = [float(m) for m in re.findall(r":blue-badge\[score (-?\d+\.\d+)",
                                              " ".join(m.value for m in app.markdown))]
        assert len(shown) == 10 and _falls(shown), (question, shown)


def test_the_caption_above_the_results_does_not_call_the_score_a_cosine(seeds_index: Path,
                                                                        monkeypatch):
    """The badges show the fused score (it passes 1 where a paper shares many of the question's
    words); the caption once said the list was "by meaning (cos)", a number it does not show."""
    app = run_app(seeds_index, monkeypatch)
    ask(app, PARAPHRASES[0][0])
    captions = " ".join(c.value for c in app.caption)
    assert "papers, in the order of the score on their badges" in captions
    assert "(cos)" not in captions
