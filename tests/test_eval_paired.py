"""explorer/eval/paired.py: per-question scores from `explorer eval --per-query` runs and the
paired comparison of two runs (bootstrap interval, randomisation test)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.cli import main as cli
from explorer.eval.columns import Corpus
from explorer.eval.paired import paired, per_question
from explorer.eval.seeds import read_judgments, score_seeds, target_row
from studies import model_gap
from tests.paraphrases import SEED_JUDGMENTS


def _run(set_name: str, size: int, draw: int, query: str, ndcg: float) -> dict:
    return {"set": set_name, "size": size, "draw": draw, "query_id": query, "papers": size,
            "scores": {"default": {"ndcg@10": ndcg}, "dense": {"ndcg@10": 0.0}}}


def test_per_question_averages_a_questions_draws_within_its_row():
    runs = [_run("papers", 100, 0, "q1", 0.2), _run("papers", 100, 1, "q1", 0.6),
            _run("papers", 1000, 0, "q1", 0.1), _run("sentences", 100, 0, "q2", 1.0)]
    got = per_question(runs)
    assert got == {("papers", 100): {"q1": pytest.approx(0.4)}, ("papers", 1000): {"q1": 0.1},
                   ("sentences", 100): {"q2": 1.0}}
    assert per_question(runs, column="dense")[("papers", 100)] == {"q1": 0.0}


def test_a_clear_gain_has_an_interval_above_zero_and_a_small_p():
    rng = np.random.default_rng(1)
    first = {f"q{i}": float(v) for i, v in enumerate(rng.uniform(0, 0.8, 200))}
    second = {q: v + 0.1 + float(rng.normal(0, 0.02)) for q, v in first.items()}
    result = paired(first, second)
    assert result["questions"] == 200 and result["ahead"] == 200 - result["behind"]
    assert 0.09 < result["low"] < result["difference"] < result["high"] < 0.11
    assert result["p"] < 0.001


def test_noise_alone_gives_an_interval_across_zero():
    rng = np.random.default_rng(2)
    first = {f"q{i}": float(v) for i, v in enumerate(rng.uniform(0, 1, 300))}
    second = {q: float(np.clip(v + rng.normal(0, 0.1), 0, 1)) for q, v in first.items()}
    second["only-here"] = 1.0  # a question one run lacks is not compared
    result = paired(first, second)
    assert result["questions"] == 300
    assert result["low"] < 0 < result["high"] and result["p"] > 0.05


def test_the_result_is_the_same_for_the_same_seed_and_the_sign_follows_the_order():
    first, second = {"a": 0.1, "b": 0.5, "c": 0.3}, {"a": 0.2, "b": 0.4, "c": 0.6}
    assert paired(first, second) == paired(first, second)
    flipped = paired(second, first)
    assert flipped["difference"] == pytest.approx(-paired(first, second)["difference"])
    assert (flipped["ahead"], flipped["behind"]) == (1, 2)


def test_runs_without_shared_questions_or_bad_settings_are_refused():
    with pytest.raises(ValueError, match="share no question"):
        paired({"a": 1.0}, {"b": 1.0})
    with pytest.raises(ValueError, match="resamples"):
        paired({"a": 1.0}, {"a": 1.0}, resamples=0)


def test_eval_per_query_keeps_the_scores_the_table_averages(tiny_acm, tmp_path, monkeypatch,
                                                            capsys):
    """`explorer eval --per-query`: the JSON keeps each query's scores (real model, real
    pool), and their mean per row is the table's number; without it, no runs are kept."""
    monkeypatch.setenv("EXPLORER_CACHE", str(tmp_path / "cache"))
    args = ["eval", str(tiny_acm), "--no-full", "--set", "all", "--sizes", "20", "--draws", "2",
            "--json"]
    assert cli.main([*args, "--per-query"]) == 0
    report = json.loads(capsys.readouterr().out)
    scores = per_question(report["small"]["runs"])
    for row in report["ranking"]:
        runs = [r for r in report["small"]["runs"]
                if (r["set"], r["size"]) == (row["set"], row["size"])]
        assert len(runs) == row["runs"] and scores[(row["set"], row["size"])]
        mean = np.mean([r["scores"]["default"]["ndcg@10"] for r in runs])
        assert round(float(mean), 4) == row["columns"]["default"]["ndcg@10"]
    assert cli.main(args) == 0
    assert "runs" not in json.loads(capsys.readouterr().out)["small"]


def test_the_seed_set_names_the_pair_directions_each_column_misses(seeds_explorer):
    """score_seeds' "partners_missed": the directions whose partner is not in the top 5, by a
    brute-force cosine ranking for the dense column (what model_gap pairs across models)."""
    judgments = read_judgments(SEED_JUDGMENTS)
    vectors = seeds_explorer.vectors
    corpus = Corpus.of(seeds_explorer.papers, vectors)
    scored = score_seeds(corpus, seeds_explorer.embedder.embed_queries(
        [q for q, _ in judgments.questions]), judgments)
    missed = []
    for first, second, _ in judgments.pairs:
        a, b = (target_row(seeds_explorer.papers, m) for m in (first, second))
        for one, other in ((a, b), (b, a)):
            order = [r for r in np.argsort(-(vectors @ vectors[one]), kind="stable") if r != one]
            missed.append(other not in order[:5])
    assert scored["columns"]["dense"]["partners_missed"] == [i for i, m in enumerate(missed) if m]
    for column in scored["columns"].values():
        share = 1 - len(column["partners_missed"]) / scored["pair_directions"]
        assert round(share, 4) == column["partners@5"]


def test_the_model_gap_study_writes_one_line_per_row_and_the_pooled_sizes(tmp_path):
    def report(shift: float) -> dict:
        runs = [_run(name, 100, draw, f"{name}{i}", min(1.0, 0.1 * (i % 7) + shift))
                for name in ("papers", "sentences") for i in range(30) for draw in (0, 1)]
        return {"date": "d", "machine": "m", "small": {"runs": runs}}

    paths = []
    for name, shift in (("minilm", 0.0), ("mpnet", 0.05)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(report(shift)))
    out = tmp_path / "gap.md"
    model_gap.main(["--pairs", *map(str, paths), "--row", "papers", "1000", "--out", str(out)])
    text = out.read_text()
    assert "| papers 100 | 30 |" in text and "| sentences 100 | 30 |" in text
    assert "| all three sets 100 | 60 |" in text and "by question length" not in text
