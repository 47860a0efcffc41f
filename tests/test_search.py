"""Asking: paraphrases find their paper, rankings equal brute force, similar excludes itself."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from explorer.errors import UnknownPaperError
from explorer.model.embedder import Embedder
from explorer.query import engine
from explorer.query.engine import Explorer, Filters
from explorer.query.suggest import IdTable, close_ids
from tests.paraphrases import PARAPHRASES


@pytest.mark.parametrize(("query", "marker"), PARAPHRASES, ids=[m for _, m in PARAPHRASES])
def test_a_paraphrase_finds_its_paper_among_the_first_five(seeds_explorer: Explorer, query: str,
                                                           marker: str):
    """Plain cosine on every hand-written question; the default's own bar (rank 1 wherever
    cosine is first, MRR >= 0.99) is in test_seed_quality.py."""
    targets = [p.paper_id for p in seeds_explorer.papers if marker in p.abstract]
    assert len(targets) == 1
    hits = seeds_explorer.search(query, top_k=5, mode="dense")
    assert targets[0] in [h.paper_id for h in hits]


@pytest.mark.parametrize(("query", "marker"), PARAPHRASES[:13], ids=[m for _, m in PARAPHRASES[:13]])
def test_a_paraphrase_finds_its_paper_first(seeds_explorer: Explorer, query: str, marker: str):
    """The first 13 questions, written in session 1: plain cosine puts each target first."""
    targets = [p.paper_id for p in seeds_explorer.papers if marker in p.abstract]
    assert seeds_explorer.search(query, top_k=3, mode="dense")[0].paper_id == targets[0]


def _brute_force(explorer: Explorer, vector: np.ndarray) -> list[tuple[str, float]]:
    scores = explorer.vectors.astype(np.float64) @ vector.astype(np.float64)
    order = np.argsort(-scores, kind="stable")
    return [(explorer.papers[i].paper_id, float(scores[i])) for i in order]


@pytest.mark.parametrize("query", ["diffusion models for video", "graph neural networks",
                                   "optimizers with less communication"])
def test_search_equals_a_brute_force_numpy_ranking(seeds_explorer: Explorer, query: str):
    expected = _brute_force(seeds_explorer, seeds_explorer.embed_query(query))
    hits = seeds_explorer.search(query, top_k=71, mode="dense")
    assert [h.rank for h in hits] == list(range(1, 72))
    np.testing.assert_allclose([h.score for h in hits], [s for _, s in expected], atol=1e-5)
    ids = [h.paper_id for h in hits]
    for (paper_id, score), hit in zip(expected, hits):  # order may differ only within ties
        assert paper_id == hit.paper_id or abs(score - hit.score) < 1e-5, (paper_id, ids)


def test_similar_excludes_the_paper_and_matches_brute_force(seeds_explorer: Explorer):
    duplicated = [p for p in seeds_explorer.papers if len(p.sources) == 2]
    assert duplicated
    for paper in duplicated + seeds_explorer.papers[:5]:
        hits = seeds_explorer.similar(paper.paper_id, top_k=70, mode="dense")
        assert paper.paper_id not in [h.paper_id for h in hits]
        assert len(hits) == 70
        row = seeds_explorer.row(paper.paper_id)
        expected = [pid for pid, _ in _brute_force(seeds_explorer, seeds_explorer.vectors[row])
                    if pid != paper.paper_id]
        assert [h.paper_id for h in hits][:10] == expected[:10]


def test_scores_are_cosines_with_corpus_percentiles(seeds_explorer: Explorer):
    hits = seeds_explorer.search("spoken dialogue models that think before answering", 5,
                                 mode="dense")
    assert all(-1.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    percentiles = [h.percentile for h in hits]
    assert percentiles == sorted(percentiles, reverse=True)
    assert percentiles[0] > 90


def test_empty_or_blank_query_gives_no_results(seeds_explorer: Explorer):
    assert seeds_explorer.search("") == []
    assert seeds_explorer.search("   \n\t") == []


def test_odd_queries_still_answer(seeds_explorer: Explorer):
    for query in ["???!!!", "扩散模型 视频生成", r"$\nabla_\theta \log p_\theta(x)$"]:
        assert len(seeds_explorer.search(query, 3)) == 3


def test_a_long_query_gets_a_truncation_note(seeds_explorer: Explorer):
    long_query = " ".join(["graph neural networks for molecules"] * 80)
    assert "first 256" in seeds_explorer.query_note(long_query)
    assert seeds_explorer.query_note("graph neural networks") is None
    assert len(seeds_explorer.search(long_query, 3)) == 3


def test_unknown_paper_id_suggests_close_ids(seeds_explorer: Explorer):
    with pytest.raises(UnknownPaperError, match="Did you mean 66489d54e9ae"):
        seeds_explorer.similar("66489d54e9a")


def test_recommend_never_returns_its_seeds(seeds_explorer: Explorer):
    like = [h.paper_id for h in seeds_explorer.search("reasoning in large language models", 3)]
    unlike = [seeds_explorer.search("video matting", 1)[0].paper_id]
    hits = seeds_explorer.recommend(like, unlike, top_k=10)
    assert len(hits) == 10
    assert not set(like + unlike) & {h.paper_id for h in hits}
    steered = seeds_explorer.recommend(like, query="chain of thought length", top_k=3)
    assert steered[0].paper_id not in like


def test_filters_apply_inside_the_search(venue_explorer: Explorer):
    filters = Filters(venues=frozenset({"ICML"}), year_min=2022)
    hits = venue_explorer.search("language models", top_k=10, filters=filters)
    assert len(hits) == 10
    assert all(h.paper.venue == "ICML" and h.paper.year >= 2022 for h in hits)
    available = [p for p in venue_explorer.papers if p.venue == "ICML" and p.year >= 2022]
    assert len(venue_explorer.search("x", top_k=50, filters=filters)) == len(available)
    facets = venue_explorer.facets()
    assert facets["venues"] == ["ICLR", "ICML", "NeurIPS"] and facets["years"][0] == 2020


def test_the_facets_are_stored_by_the_build_and_read_without_the_papers(venue_explorer: Explorer,
                                                                        monkeypatch):
    """The sidebar's filter values and the corpus's papers per year come from the index
    (extras FACETS), the same as from the papers, without parsing a record; an index built
    before them (or holding something else there) reads the papers."""
    from explorer.corpus.facets import facet_counts
    from explorer.corpus.papers import facet_values
    from explorer.ranking.filters import FacetTable

    stored = venue_explorer.artifacts.extras["facets"]
    papers = list(venue_explorer.papers)
    assert stored == {**facet_values(papers), "fields": facet_counts(papers)}
    assert stored["years"] == [2020, 2021, 2022, 2023, 2024] and stored["undated"] == 0
    assert stored["year_counts"] == [[year, 14 + (year < 2021)] for year in range(2020, 2025)]
    assert any(name.endswith("papers.jsonl") for name in stored["sources"])
    shown = {key: stored[key] for key in ("venues", "sources", "years")}
    counts = ({2020: 15, 2021: 14, 2022: 14, 2023: 14, 2024: 14}, 0)
    reopened = Explorer.open(venue_explorer.artifacts.folder)

    def refuse(*args):
        raise AssertionError("a paper record was parsed")

    monkeypatch.setattr("explorer.corpus.papers.Paper.from_dict", refuse)
    assert reopened.facets() == shown and reopened.year_counts() == counts
    monkeypatch.undo()
    for older in (None, {"venues": "x", "year_counts": {}, "undated": "0"}):
        table = FacetTable(reopened.papers, older)
        assert table.values() == shown and table.year_counts() == counts


class _Counted(Sequence):
    """A sorted id list that counts the ids handed out (what close_ids examines)."""

    def __init__(self, items: list[str]) -> None:
        self.items, self.handed = items, 0

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, key):
        found = self.items[key]
        self.handed += len(found) if isinstance(key, slice) else 1
        return found


def test_did_you_mean_examines_a_bounded_number_of_ids():
    ids = [f"{n:012x}" for n in range(0, 106_000 * 7919, 7919)]  # 106k hash-like ids
    table = IdTable.of(ids)
    forward, backward = _Counted(list(table.forward)), _Counted(list(table.backward))
    counted = IdTable(forward=forward, backward=backward)
    for wanted in ["000000c1a2b3", "zz-not-an-id", "x" * 10_000, ids[500][:-1] + "z"]:
        close_ids(wanted, counted, limit=2_000)
    assert forward.handed + backward.handed <= 4 * (2_000 + 40)  # 40: bisect's probes
    typo = ids[500][:-1] + ("0" if ids[500][-1] != "0" else "1")
    assert ids[500] in close_ids(typo, table)
    early = ("f" if ids[500][0] != "f" else "e") + ids[500][1:]
    assert ids[500] in close_ids(early, table)  # a typo in the first character too


def test_a_one_character_typo_of_each_seed_id_is_suggested(seeds_explorer: Explorer):
    for paper in seeds_explorer.papers:
        pid = paper.paper_id
        for typo in (pid[:-1] + ("x" if pid[-1] != "x" else "y"), "q" + pid[1:]):
            with pytest.raises(UnknownPaperError, match=f"Did you mean [^?]*{pid}"):
                seeds_explorer.row(typo)


def test_an_explorer_opened_warm_has_its_model_loaded_and_answers_alike(seeds_index: Path):
    """`warm=True` (the app) loads the model while the index loads: the Explorer comes back
    with its model (and the id table) ready, and answers as one opened cold."""
    cold = Explorer.open(seeds_index)
    warm = Explorer.open(seeds_index, warm=True)
    model = engine.load_model  # what Explorer.embedder loads on first use
    assert model not in cold._parts and model in warm._parts  # what warm is for
    question = "training robots with reinforcement learning"
    assert ([(h.paper_id, round(h.score, 5)) for h in warm.search(question, 5)]
            == [(h.paper_id, round(h.score, 5)) for h in cold.search(question, 5)])
    assert warm.row(warm.papers[3].paper_id) == 3
    # many texts at once (explanations embedded on demand), on the form compiled for them, as
    # a model loaded apart embeds them (the process's opens share one: explorer/model/cache.py)
    assert warm.embedder is cold.embedder
    apart = Embedder(warm.embedder.spec, backend=warm.embedder.backend)
    texts = [paper.abstract for paper in warm.papers[:40]]
    np.testing.assert_allclose(warm.embedder.embed_sentences(texts),
                               apart.embed_sentences(texts), atol=1e-5)
