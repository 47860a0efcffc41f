"""Why a paper matched: stored sentence vectors, idf-ranked shared terms, and `--explain`."""

import json
from pathlib import Path

import numpy as np
import pytest

from explorer.cli import main as cli
from explorer.features.explanations.explain import explain_match, explain_pair, shared_terms
from explorer.query.engine import Explorer

QUERY = "spotting manipulated or synthesized faces produced by unseen forgery generators"


def test_shared_terms_match_by_stem_and_rank_by_idf():
    idf = {"ranking": 1.0, "graphs": 3.0, "retrieval": 2.0}.get
    terms = shared_terms("ranked retrieval over graph data", "Ranking graphs for retrieval.",
                         idf=lambda word: idf(word, 0.0))
    assert terms == ["graphs", "retrieval", "ranking"]
    assert shared_terms("graph", "graphs") == []  # without idf: exact words only


def test_explain_match_uses_the_stored_sentence_vectors(seeds_explorer: Explorer):
    ex = seeds_explorer
    hit = ex.search(QUERY, 1)[0]
    vector = ex.embed_query(QUERY)
    result = explain_match(ex, vector, hit.paper_id, top_k=2, query=QUERY)
    assert len(result.sentences) == 2
    assert result.sentences[0].score >= result.sentences[1].score
    abstract = hit.paper.abstract
    table = ex.artifacts.arrays["sentence_table"]
    stored = ex.artifacts.arrays["sentence_vectors"][table[:, 0] == ex.row(hit.paper_id)]
    best = float((stored.astype(np.float32) @ vector).max())
    assert result.sentences[0].score == pytest.approx(best, abs=1e-5)
    for sentence in result.sentences:
        assert abstract[sentence.start:sentence.end] == sentence.text
    assert result.shared_terms, "the query shares words with the abstract"
    idfs = [ex.lexical.idf(term) for term in result.shared_terms]
    assert idfs == sorted(idfs, reverse=True)


def test_explain_pair_uses_each_sentence_once(seeds_explorer: Explorer):
    ex = seeds_explorer
    paper = ex.papers[5]
    other = ex.similar(paper.paper_id, 1)[0]
    result = explain_pair(ex, paper.paper_id, other.paper_id, top_k=3)
    assert 1 <= len(result.pairs) <= 3
    firsts = [a.start for a, _, _ in result.pairs]
    seconds = [b.start for _, b, _ in result.pairs]
    assert len(set(firsts)) == len(firsts) and len(set(seconds)) == len(seconds)
    assert [s for _, _, s in result.pairs] == sorted((s for _, _, s in result.pairs), reverse=True)


def test_cli_explain_in_json_and_text(seeds_index: Path, seeds_explorer: Explorer, capsys):
    assert cli.main(["search", QUERY, "--index", str(seeds_index), "--k", "3", "--explain",
                     "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 3 and all(h["explanation"]["sentences"] for h in hits)
    first = hits[0]["explanation"]["sentences"][0]
    assert first["text"] in hits[0]["abstract"]
    paper_id = seeds_explorer.papers[5].paper_id
    assert cli.main(["similar", paper_id, "--index", str(seeds_index), "--k", "2",
                     "--explain"]) == 0
    text = capsys.readouterr().out
    assert "> pair" in text and "~" in text
    assert cli.main(["search", QUERY, "--index", str(seeds_index), "--k", "2"]) == 0
    assert "> match" not in capsys.readouterr().out
