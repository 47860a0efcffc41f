"""The shipped ranking on the seed question set (tests/paraphrases.py), with the real model and
the real seeds index: never below plain cosine on the corpus users start with."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.query.engine import Explorer
from tests.paraphrases import PARAPHRASES, RELATED_PAIRS


def target(ex: Explorer, marker: str) -> str:
    (paper_id,) = [p.paper_id for p in ex.papers if marker in p.abstract]
    return paper_id


@pytest.fixture(scope="module")
def question_ranks(seeds_explorer: Explorer) -> dict[str, list[int]]:
    """Rank of each question's target with the default ranking and with plain cosine."""
    ex = seeds_explorer
    ranks: dict[str, list[int]] = {"dense": [], "default": []}
    for query, marker in PARAPHRASES:
        for name, mode in (("dense", "dense"), ("default", None)):
            ids = [h.paper_id for h in ex.search(query, len(ex.papers), mode=mode)]
            ranks[name].append(ids.index(target(ex, marker)) + 1)
    return ranks


def test_the_default_finds_at_rank_1_every_target_that_cosine_finds_there(question_ranks):
    assert len(PARAPHRASES) >= 40
    pairs = zip(question_ranks["dense"], question_ranks["default"])
    lost = [PARAPHRASES[i][1] for i, (dense, default) in enumerate(pairs)
            if dense == 1 and default != 1]
    assert not lost


def test_the_default_has_every_target_in_the_top_5_and_mrr_of_at_least_0_99(question_ranks):
    assert max(question_ranks["default"]) <= 5
    mrr = float(np.mean([1 / r for r in question_ranks["default"]]))
    assert mrr >= 0.99
    assert mrr >= float(np.mean([1 / r for r in question_ranks["dense"]]))


def test_similar_finds_at_least_as_many_related_partners_as_cosine(seeds_explorer: Explorer):
    ex = seeds_explorer
    assert len(RELATED_PAIRS) >= 20
    found = {"dense": 0, None: 0}
    for first, second, _ in RELATED_PAIRS:
        a, b = target(ex, first), target(ex, second)
        for paper, partner in ((a, b), (b, a)):
            for mode in found:
                found[mode] += partner in {h.paper_id for h in ex.similar(paper, 5, mode=mode)}
    assert found[None] >= found["dense"]
