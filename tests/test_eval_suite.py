"""`explorer eval`'s three parts with the real model and real FAISS: the embedded pool and its
small corpora, the seed set, and the one command that runs them all (explorer/eval/pool.py,
small.py, seeds.py, columns.py, cli/evaluation.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from explorer.cli import main as cli
from explorer.errors import IndexInvalidError
from explorer.eval.columns import COLUMNS, DEFAULT, Corpus, ranked
from explorer.eval.evaluate import machine
from explorer.eval.pool import Pool, load_pool, make_pool, open_pool, pool_folder, with_titles
from explorer.eval.seeds import read_judgments, score_seeds, target_row
from explorer.eval.small import queries_by_citing, small_runs, sub_corpora, summarise
from explorer.ingest.checkpoint import Checkpoint
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from explorer.ranking.fusion import DENSE, LEXICAL
from tests.acm_fixtures import CITING, DISTRACTORS, PER_CITING
from tests.model_fixtures import shared_exports
from tests.paraphrases import PARAPHRASES, RELATED_PAIRS, SEED_JUDGMENTS

ROOT = Path(__file__).resolve().parent.parent
SIZE = 20  # papers in a drawn corpus: below the tiny pool's CITING * PER_CITING + DISTRACTORS


@pytest.fixture(scope="module")
def pool(tiny_acm: Path, tmp_path_factory) -> Pool:
    return with_titles(make_pool(tiny_acm, tmp_path_factory.mktemp("cache") / "quality-small"))


def test_the_pool_folder_keeps_the_study_cache_names(tmp_path: Path):
    assert pool_folder(tmp_path) == tmp_path / "quality-small"
    assert pool_folder(tmp_path, "all-MiniLM-L6-v2") == tmp_path / "quality-small"
    assert pool_folder(tmp_path, "mpnet") == tmp_path / "quality-small-mpnet"
    assert pool_folder(tmp_path, "/models/my-model") == tmp_path / "quality-small-my-model"


def test_a_pool_written_as_the_study_wrote_it_loads(pool: Pool, tiny_acm: Path, tmp_path: Path):
    """studies/small_cache.py before the library: np.save and json.dumps, pool.json last."""
    folder = tmp_path / "quality-small-mpnet"
    folder.mkdir()
    for name, query_set in pool.sets.items():
        np.save(folder / f"queries-{name}.npy",
                np.stack([pool.query_vectors[name][q.query_id] for q in query_set.queries]))
    np.save(folder / "papers.npy", pool.vectors)
    (folder / "pool.json").write_text(json.dumps(
        {"paper_ids": [p.paper_id for p in pool.papers], "model": pool.model, "seconds": 1.0}))
    loaded = load_pool(tiny_acm, folder)
    assert (loaded.vectors == pool.vectors).all() and loaded.model == pool.model
    assert len(pool.papers) == CITING * PER_CITING + DISTRACTORS  # all of it: below POOL
    assert open_pool(tiny_acm, folder, "default").papers == pool.papers  # no embedding
    (folder / "pool.json").write_text(json.dumps(
        {"paper_ids": [p.paper_id for p in pool.papers], "model": {"fingerprint": "other"}}))
    with pytest.raises(IndexInvalidError, match="embedded by"):
        open_pool(tiny_acm, folder, "default")
    (folder / "pool.json").write_text(json.dumps({"paper_ids": ["x"], "model": pool.model}))
    with pytest.raises(IndexInvalidError, match="another dataset"):
        load_pool(tiny_acm, folder)
    (folder / "pool.json").unlink()  # a pool being embedded (or interrupted): never embedded over
    with pytest.raises(IndexInvalidError, match="part of a pool"):
        open_pool(tiny_acm, folder, "default")


def test_each_corpus_holds_its_citing_papers_judged_papers_at_the_asked_size(pool: Pool,
                                                                           tiny_acm: Path):
    groups = queries_by_citing(pool, tiny_acm)
    assert len(groups) == CITING
    drawn = list(sub_corpora(pool, groups, [SIZE, 10_000], draws=2))
    small = [sub for sub in drawn if sub.size == SIZE]
    assert len(small) == 2 * CITING and len(drawn) == 3 * CITING  # the whole pool: one draw
    for sub in small:
        ids = [p.paper_id for p in sub.corpus.papers]
        judged = {pool.papers[row].paper_id for q in groups[sub.key] for row in q.relevant}
        assert len(ids) == SIZE and judged <= set(ids)
        for before, after in zip(groups[sub.key], sub.queries):  # rows follow their papers
            assert {pool.papers[r].paper_id for r in before.relevant} == {
                ids[r] for r in after.relevant}
    first = {(s.key, s.draw): [p.paper_id for p in s.corpus.papers] for s in small}
    again = {(s.key, s.draw): [p.paper_id for p in s.corpus.papers]
             for s in sub_corpora(pool, groups, [SIZE], draws=2)}
    assert first == again  # seeded: the same corpora every run
    assert any(first[(key, 0)] != first[(key, 1)] for key in groups)
    assert all(len(s.corpus) == len(pool.papers) for s in drawn if s.size == 10_000)


def test_the_columns_rank_as_an_index_of_the_same_papers(pool: Pool, tiny_acm: Path,
                                                          tmp_path: Path):
    """A real build of one drawn corpus (its vectors the pool's, handed over as a checkpoint):
    Explorer.rank returns what each column ranks, questions and papers alike."""
    groups = queries_by_citing(pool, tiny_acm)
    sub = next(sub_corpora(pool, groups, [SIZE], draws=1))
    corpus_file, index = tmp_path / "corpus.jsonl", tmp_path / "index"
    corpus_file.write_text("".join(json.dumps({"doc_id": p.paper_id, "abstract": p.abstract})
                                   + "\n" for p in sub.corpus.papers))
    Checkpoint(index, pool.model["fingerprint"]).save(
        [p.text_hash for p in sub.corpus.papers], sub.corpus.vectors, pool.model)
    build([corpus_file], index, "default", sentences=False)
    explorer = Explorer.open(index)
    assert [p.paper_id for p in explorer.papers] == [p.paper_id for p in sub.corpus.papers]
    assert (explorer.vectors == sub.corpus.vectors).all()  # nothing embedded again
    kinds = {q.query.is_document for q in sub.queries}
    assert kinds == {True, False}
    for item in sub.queries:
        text, vector, paper = item.query.text, item.vector, item.query.is_document
        for column, mode in ((DEFAULT, None), (LEXICAL, LEXICAL), (DENSE, DENSE)):
            hits = explorer.rank(text, vector, 100, mode=mode, paper_query=paper)
            assert ranked(sub.corpus, column, text, vector, paper_query=paper).tolist() == [
                explorer.row(hit.paper_id) for hit in hits], (column, item.query.query_id)


def test_small_runs_score_every_column_and_summarise_per_set_and_size(pool: Pool,
                                                                      tiny_acm: Path):
    runs = small_runs(pool, tiny_acm, ["sentences", "papers"], [SIZE], draws=2)
    assert len(runs) == 2 * (CITING * PER_CITING + CITING)
    only = small_runs(pool, tiny_acm, ["papers"], [SIZE], draws=2)
    assert only == [run for run in runs if run["set"] == "papers"]  # the same draws
    rows = summarise(runs)
    assert [(r["set"], r["size"], r["runs"], r["draws"]) for r in rows] == [
        ("sentences", SIZE, 2 * CITING * PER_CITING, 2), ("papers", SIZE, 2 * CITING, 2)]
    for row in rows:
        mine = [r for r in runs if r["set"] == row["set"]]
        assert list(row["columns"]) == list(COLUMNS)
        assert row["columns"][DENSE]["ndcg@10"] == round(float(np.mean(
            [r["scores"][DENSE]["ndcg@10"] for r in mine])), 4)


def brute_force_seed_scores(explorer: Explorer, question_vectors: np.ndarray) -> dict:
    """Dense on the seed set by NumPy cosine alone."""
    vectors = explorer.vectors
    reciprocal, top5, partners = [], [], []
    for (_, marker), vector in zip(PARAPHRASES, question_vectors):
        order = list(np.argsort(-(vectors @ vector), kind="stable"))
        rank = order.index(target_row(explorer.papers, marker)) + 1
        reciprocal.append(1 / rank if rank <= 100 else 0.0)
        top5.append(rank <= 5)
    for first, second, _ in RELATED_PAIRS:
        a, b = target_row(explorer.papers, first), target_row(explorer.papers, second)
        for one, other in ((a, b), (b, a)):
            order = [r for r in np.argsort(-(vectors @ vectors[one]), kind="stable") if r != one]
            partners.append(other in order[:5])
    return {"mrr@100": round(float(np.mean(reciprocal)), 4),
            "top5": round(float(np.mean(top5)), 4), "partners@5": round(float(np.mean(partners)), 4)}


def test_seed_dense_scores_equal_a_brute_force_cosine_ranking(seeds_explorer: Explorer):
    judgments = read_judgments(SEED_JUDGMENTS)
    vectors = seeds_explorer.embedder.embed_queries([q for q, _ in judgments.questions])
    corpus = Corpus.of(seeds_explorer.papers, seeds_explorer.vectors)
    scored = score_seeds(corpus, vectors, judgments)
    assert (scored["questions"], scored["pair_directions"]) == (len(PARAPHRASES),
                                                                  2 * len(RELATED_PAIRS))
    dense = scored["columns"][DENSE]
    assert {k: dense[k] for k in ("mrr@100", "top5", "partners@5")} == brute_force_seed_scores(
        seeds_explorer, vectors)
    assert list(scored["columns"]) == list(COLUMNS)


def test_one_command_runs_all_three_parts(tiny_acm: Path, seeds_explorer: Explorer,
                                          tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("EXPLORER_CACHE", str(shared_exports(tmp_path / "cache")))
    output = tmp_path / "eval.json"
    args = ["eval", str(tiny_acm), "--set", "all", "--sizes", str(SIZE), "1000", "--draws", "2",
            "--seeds", str(ROOT / "seeds"), "--seed-judgments", str(SEED_JUDGMENTS),
            "--output", str(output)]
    assert cli.main(args) == 0
    printed = capsys.readouterr().out
    for name in ("sentences", "paragraphs", "papers"):
        assert f"ndcg@10, {name}: " in printed
        assert f"{name} {SIZE}" in printed and f"{name} 1,000" in printed
        assert f"{name} full" in printed
    assert "seed set, 71 papers" in printed
    assert printed.count(machine()) >= 5 and "all-MiniLM-L6-v2" in printed
    report = json.loads(output.read_text())
    assert (tmp_path / "cache" / "quality-small" / "pool.json").is_file()
    assert [(r["set"], r["size"]) for r in report["ranking"] if r["set"] == "papers"] == [
        ("papers", SIZE), ("papers", 1000), ("papers", "full")]
    full = next(r for r in report["ranking"] if r["size"] == "full" and r["set"] == "papers")
    evaluated = next(r for r in report["results"] if r["set"] == "papers")["modes"]
    assert full["columns"][DEFAULT] == {k: evaluated["hybrid"][k] for k in full["columns"][DEFAULT]}
    dense = report["seeds"]["columns"][DENSE]
    assert {k: dense[k] for k in ("mrr@100", "top5", "partners@5")} == brute_force_seed_scores(
        seeds_explorer, seeds_explorer.embedder.embed_queries([q for q, _ in PARAPHRASES]))

    stamp = (tmp_path / "cache" / "quality-small" / "pool.json").stat().st_mtime_ns
    assert cli.main(["eval", str(tiny_acm), "--no-full", "--sizes", str(SIZE), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (tmp_path / "cache" / "quality-small" / "pool.json").stat().st_mtime_ns == stamp
    assert "results" not in again and [r["set"] for r in again["ranking"]] == ["paragraphs"]


def test_a_missing_dataset_or_judgments_file_is_one_line(tmp_path: Path, capsys):
    assert cli.main(["eval", str(tmp_path / "nowhere"), "--sizes", "100"]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "is not a folder" in error and "Traceback" not in error
    shutil.copytree(ROOT / "seeds", tmp_path / "seeds")
    assert cli.main(["eval", str(tmp_path), "--no-full", "--seeds", str(tmp_path / "seeds"),
                     "--seed-judgments", str(tmp_path / "none.json")]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "none.json" in error
    assert cli.main(["eval", str(tmp_path), "--no-full", "--sizes", "100",
                     "--pool", str(tmp_path / "pool")]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "corpus.jsonl" in error
