"""Smoke runs of every ranking study (studies/) on a tiny ACM-CR-shaped folder made from the
seeds (conftest.tiny_acm, tests/acm_fixtures.py), with the real model: a refactor that breaks a
study fails here, not months later. The studies that read the corpus embed it; those that take
an index use the seeds' index, which holds them all.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from explorer.features.topics.table import topic_table
from explorer.query.engine import Explorer
from studies import (
    badge_check,
    cases,
    explain_cost,
    explain_options,
    feedback_eval,
    fusion_full,
    fusion_study,
    lexical_full,
    make_slice,
    missed_eval,
    missed_pool,
    plausible_fusion,
    prf_study,
    recommend_eval,
    size_gate,
    small_cache,
    small_corpora,
    title_study,
    topic_study,
    twins_study,
)
from tests.acm_fixtures import CITING, DISTRACTORS, PER_CITING, SETS
from tests.paraphrases import PARAPHRASES


def study_args(tiny_acm: Path, seeds_index: Path, tmp_path: Path) -> list[str]:
    return [str(tiny_acm), "--index", str(seeds_index), "--cache", str(tmp_path / "vectors")]


def test_make_slice_keeps_every_judged_paper(tiny_acm: Path, tmp_path: Path):
    out = tmp_path / "slice"
    assert make_slice.main([str(tiny_acm), str(out), "5", "--seed", "0"]) == CITING * PER_CITING + 5
    with gzip.open(out / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        kept = {json.loads(line)["doc_id"] for line in handle}
    judged = {line.split("\t")[1] for line in (tiny_acm / "qrels_papers.tsv").open()} - {"doc_id"}
    assert judged <= kept and len(kept) == len(judged) + 5 < len(judged) + DISTRACTORS
    assert (out / "queries_sentences.jsonl").read_text() == (
        tiny_acm / "queries_sentences.jsonl").read_text()


def test_lexical_full(tiny_acm: Path):
    results = lexical_full.main([str(tiny_acm)])
    assert {name: r["queries"] for name, r in results.items()} == {
        "paragraphs": CITING * 2, "sentences": CITING * PER_CITING, "papers": CITING}
    assert all(0 < r["recall@100"] <= 1 and 0 <= r["ndcg@10"] <= 1 for r in results.values())


def test_fusion_study(tiny_acm: Path, seeds_index: Path, tmp_path: Path):
    output = tmp_path / "fusion.json"
    summary = fusion_study.main([*study_args(tiny_acm, seeds_index, tmp_path),
                                 "--output", str(output)])
    results = summary["results"]
    assert json.loads(output.read_text())["chosen"] == summary["chosen"]
    assert {"dense", "lexical", "blend w=0.5", "rrf k=60"} <= set(results)
    # each question finds its paper at the top with the real model (tests/test_search.py)
    assert results["dense"]["sentences"] >= 0.9
    assert results["blend w=0.5"]["sentences"] >= 0.9
    assert all(0 <= v <= 1 for row in results.values() for v in row.values())


def test_prf_study_runs_both_grids_and_the_gate_holds(tiny_acm: Path, seeds_index: Path,
                                                       tmp_path: Path):
    output = tmp_path / "prf.json"
    run = prf_study.main([*study_args(tiny_acm, seeds_index, tmp_path), "--output", str(output)])
    for grid in ("fusion", "shipped"):
        cv = run["summary"][grid]
        assert set(cv) == {"search", "papers", "one setting for all"}
        assert all(0 <= cv["one setting for all"][s] <= 1 for s in SETS)
    configs = json.loads(output.read_text())["configs"]
    with_feedback, without = (configs["w=0.5 depth=200 docs=3 beta=0.5"],
                              configs["w=0.5 depth=200 no feedback"])
    # 71 papers: under FEEDBACK_MIN_PAPERS, so the shipped feedback pass changes nothing
    assert {s: with_feedback[s] for s in SETS} == {s: without[s] for s in SETS}
    assert configs["dense"]["sentences"]["ndcg@10"] >= 0.9


def test_feedback_eval(tiny_acm: Path, seeds_index: Path, tmp_path: Path):
    output = tmp_path / "feedback.json"
    report = feedback_eval.main([str(tiny_acm), "--index", str(seeds_index), "--set",
                                 "sentences", "papers", "--output", str(output)])
    assert json.loads(output.read_text())["results"] == report["results"]
    sentences, papers = report["results"]
    assert sentences["queries"] == CITING * PER_CITING and papers["queries"] == CITING
    modes = sentences["modes"]
    assert set(modes) == {"lexical", "dense", "hybrid", "hybrid, no feedback"}
    assert modes["hybrid"]["ndcg@10"] == modes["hybrid, no feedback"]["ndcg@10"]  # the gate
    assert modes["dense"]["mrr@10"] >= 0.9


def test_fusion_full_rows_are_what_the_product_ranks(tiny_acm: Path, seeds_index: Path,
                                                    tmp_path: Path, monkeypatch):
    output = tmp_path / "fusion"
    report = fusion_full.main([str(tiny_acm), "--index", str(seeds_index), "--set", "sentences",
                               "--output", str(output)])
    assert json.loads(output.with_suffix(".json").read_text())["results"] == report["results"]
    modes = report["results"][0]["modes"]
    assert {"dense", "hybrid", "absolute 1.2, feedback", "absolute 0.5, no feedback"} <= set(modes)
    assert modes["dense"]["mrr@10"] >= 0.9 and "sentences" in output.with_suffix(".md").read_text()
    # The study's absolute ranker is the product's hybrid once policy.HYBRID_FUSION is switched.
    from explorer.ranking import policy
    from explorer.ranking.fusion import LEXICAL_WEIGHT

    explorer = Explorer.open(seeds_index)
    ranker = fusion_full.absolute_ranker(explorer, LEXICAL_WEIGHT, feedback=False)
    monkeypatch.setattr(policy, "HYBRID_FUSION", policy.ABSOLUTE_FUSION)
    for question, _ in PARAPHRASES[:8]:
        vector = explorer.embed_query(question)
        query = type("Query", (), {"text": question})()
        hits = explorer.rank(question, vector, fusion_full.TOP_K, mode="hybrid", feedback=False)
        assert ranker(query, vector) == [explorer.row(hit.paper_id) for hit in hits], question


def test_recommend_eval(tiny_acm: Path, seeds_index: Path):
    results = recommend_eval.main([str(tiny_acm), "--index", str(seeds_index), "--seeds", "3"])
    assert set(results) == {f"{m} ({c})" for m in ("centroid", "svm") for c in ("dense", "hybrid")}
    # three of a citing paper's six references bring back some of the other three
    assert all(0 < r["recall@100"] <= 1 for r in results.values())


def test_explain_cost_stored_vectors_beat_embedding(index_copy: Path):
    results = explain_cost.main(["--index", str(index_copy), "--queries", "1", "--top-k", "2"])
    (match_ms, pair_ms), (base_match, base_pair) = results.values()
    assert 0 < match_ms < base_match and 0 < pair_ms < base_pair


def test_explain_options(seeds_index: Path, tmp_path: Path):
    out = tmp_path / "options"
    results = explain_options.main([
        "--seeds-index", str(seeds_index), "--sample", "0", "--rounds", "1", "--questions", "1",
        "--cost-papers", "6", "--work", str(tmp_path), "--out", str(out)])
    (search, same, _), (pairs, same_pairs, _) = results["quality"][
        "seeds | (b) on demand, fp32"].values()
    assert search >= len(PARAPHRASES) and pairs >= 71
    assert same >= 0.95 * search and same_pairs >= 0.95 * pairs  # today's vectors, in fp32
    cost = results["per_hit"]
    assert cost["search hit, stored vectors"][0] < cost["search hit, on demand (b)"][0]
    assert set(results["build"]) == {"papers alone", "sentences alone (today's second pass)",
                                     "papers + pooled sentences (a)"}
    text = out.with_suffix(".md").read_text()
    assert "| seeds | (a) pooled |" in text and "## The 256-token window" in text
    assert out.with_name("options-cases.md").read_text().count("today:") == len(
        results["differing"])


def test_small_corpora(tiny_acm: Path, seeds_index: Path, tmp_path: Path):
    cache = small_cache.main([str(tiny_acm), "--cache", str(tmp_path / "pool")])
    out = tmp_path / "small"
    result = small_corpora.main([str(tiny_acm), "--cache", str(cache), "--sizes", "20", "1000",
                                 "--draws", "1", "--out", str(out),
                                 "--seeds-index", str(seeds_index)])
    assert json.loads(out.with_suffix(".json").read_text())["search"] == result["search"]
    held = result["search"]["held_out"]
    assert {"sentences 20", "paragraphs 1000", "seeds questions"} <= set(held)
    assert held["seeds questions"]["dense"] >= 0.9  # MRR of the 69 seed questions
    assert {"papers 20", "papers 1000", "seeds pairs"} <= set(result["similar"]["held_out"])
    assert "## `similar`" in out.with_suffix(".md").read_text()


def test_plausible_fusion_scores_every_group_and_holds_out_its_picks(
        tiny_acm: Path, seeds_index: Path, tmp_path: Path):
    cache = small_cache.main([str(tiny_acm), "--cache", str(tmp_path / "pool")])
    papers = Explorer.open(seeds_index).papers
    tldrs = {next(p.paper_id for p in papers if marker in p.abstract): question
             for question, marker in PARAPHRASES[:10]}
    paperlists = tmp_path / "paperlists"  # paperlists-shaped: the seeds, 10 with a TLDR
    paperlists.mkdir()
    with gzip.open(paperlists / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"doc_id": p.paper_id, "title": f"{p.title} ({i})",
                                      "abstract": p.abstract, "tldr": tldrs.get(p.paper_id)})
                          + "\n" for i, p in enumerate(papers))
    out = tmp_path / "plausible"
    result = plausible_fusion.main([str(tiny_acm), "--cache", str(cache), "--sizes", "20", "1000",
                                    "--draws", "1", "--out", str(out), "--seeds-index",
                                    str(seeds_index), "--index", str(seeds_index),
                                    "--paperlists", str(paperlists), "--paperlists-cache",
                                    str(tmp_path / "questions"), "--paperlists-sizes", "40",
                                    "10", "20"])
    assert json.loads(out.with_suffix(".json").read_text())["search"] == result["search"]
    search, similar = result["search"], result["similar"]
    pool = len(small_cache.load_pool(tiny_acm, cache).papers)
    assert set(search["held_out"]) == {f"{s} {n}" for s in ("sentences", "paragraphs")
                                       for n in ("20", str(pool), "full")} | {
        f"{s} {n}" for s in ("tldr", "title") for n in ("20", "40")} | {"seeds questions"}
    assert result["strangers"] == 10 and set(search["misplaced"]) == set(search["held_out"]) | {
        "seeds, paperlists titles (no target)"}
    assert all(row["lexical"] >= 0 for row in search["misplaced"].values())
    assert not similar["misplaced"]  # a paper's first result is not judged so
    assert set(similar["held_out"]) == {"papers 20", f"papers {pool}", "papers full", "seeds pairs"}
    # dense on the seeds is plain cosine: the MRR of the 69 questions, as small_corpora finds it
    assert search["held_out"]["seeds questions"]["dense"] >= 0.9
    ranks = search["all_rankings"]
    assert {"blend | fb", "abs 0.8 p^4 | fb off", "rrf | fb off"} <= set(ranks)
    for fold in (0, 1):
        assert search["picks"][f"chosen on fold {fold}"] in ranks
    assert "## `similar`" in out.with_suffix(".md").read_text()


def test_size_gate_chooses_by_the_never_lose_rule(tiny_acm: Path, seeds_index: Path,
                                                  tmp_path: Path):
    cache = small_cache.main([str(tiny_acm), "--cache", str(tmp_path / "pool")])
    out = tmp_path / "gate"
    result = size_gate.main([str(tiny_acm), "--cache", str(cache), "--sizes", "20", "--draws",
                             "1", "--out", str(out), "--seeds-index", str(seeds_index)])
    assert json.loads(out.with_suffix(".json").read_text())["similar"] == result["similar"]
    held = result["search"]["held_out"]
    assert {"sentences 20", "seeds questions"} <= set(held) and "## `similar`" in \
        out.with_suffix(".md").read_text()
    # The rule: a pick that loses more than TIE to a channel is taken only when all do.
    runs = [{"fold": 0, "scores": {"dense": 0.9, "lexical": 0.5, "a": 0.95, "b": 0.7,
                                   "blend | fb off": 0.8}}]
    scored = {"one group": (runs, 20)}
    assert size_gate.choose(scored, [("a", 100), ("b", 100)], 0) == ("a", 100)
    assert size_gate.choose(scored, [("b", 100), ("b", 10)], 0) == ("b", 10)  # 20 >= 10: today


def test_badge_check(seeds_index: Path, tmp_path: Path):
    out = tmp_path / "badges"
    measured = badge_check.main(["--index", str(seeds_index), "--out", str(out)])
    assert len(measured["paraphrase targets (search)"]) == len(PARAPHRASES)
    assert {h["strength"] for h in measured["off-topic: top hit"]} == {"weak"}
    assert "| paraphrase targets (search) | 69 |" in out.with_suffix(".md").read_text()
    assert json.loads(out.with_suffix(".json").read_text())["columns"][0] == "paper_id"


def test_title_study_scores_every_method_and_keeps_the_seed_judgements(seeds_explorer: Explorer,
                                                                      tmp_path: Path):
    """A paperlists-shaped file of seeds with real-looking titles (half introduce a name)."""
    import shutil

    from tests.conftest import ROOT, SEEDS

    rows = []
    for i, paper in enumerate(seeds_explorer.papers[:12]):
        name = paper.title.split(":")[0] if ":" in paper.title and i % 2 else None
        rows.append({"doc_id": f"d{i}", "abstract": paper.abstract,
                     "title": f"{name}: a study" if name else f"Real title number {i}"})
    dataset = tmp_path / "paperlists"
    dataset.mkdir()
    with gzip.open(dataset / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in rows)
    judged = tmp_path / "titles-seeds.md"
    shutil.copy(ROOT / "studies" / "results" / "titles-seeds.md", judged)
    report = title_study.main([str(dataset), "--sample", "8", "--seed", "0", "--out",
                               str(tmp_path / "titles"), "--seeds", str(SEEDS), "--judged",
                               str(judged)])
    assert report["papers"] == 8 and set(report["methods"]) == set(title_study.METHODS)
    for method in report["methods"].values():
        assert -1 <= method["similarity"] <= 1 and 0 <= method["names agree"] <= 1
        assert method["over 12 words"] == 0 or method is report["methods"]["top 3 keyphrases"]
    product = report["methods"]["derived (this branch)"]
    assert product["cut mid-phrase"] == 0 and product["product minus this, 95% CI"] == [0, 0]
    assert json.loads((tmp_path / "titles.json").read_text())["papers"] == 8
    assert "65 good" in judged.read_text(encoding="utf-8")  # the judgements survive a rerun


def test_missed_eval_scores_what_missed_returns(tiny_acm: Path, seeds_index: Path,
                                                seeds_explorer: Explorer, tmp_path: Path):
    from explorer.features.drafts.missed import MissedOptions, missed
    from explorer.features.drafts.passages import split_draft

    output = tmp_path / "missed.json"
    summary = missed_eval.main([*study_args(tiny_acm, seeds_index, tmp_path),
                                "--output", str(output)])
    assert summary["papers"] == CITING and summary["cited_returned"] == 0
    assert set(summary["table"]) == {*missed_eval.BASELINES,
                                     *(missed_eval.name(c) for c in missed_eval.configs())}
    assert json.loads(output.read_text())["chosen"] == summary["chosen"]
    assert "Cross-validated" in output.with_suffix(".md").read_text()
    scores = [v for row in summary["table"].values() for d in row.values() for v in d.values()]
    assert all(0 <= v <= 1 for v in scores) and max(scores) > 0
    # three of a citing paper's six references as the cited set bring back some of the others
    assert summary["table"]["paragraphs | text | rrf"]["abstract"]["recall@20"] > 0
    # the study's steps are what `missed` returns
    task = missed_eval.tasks(seeds_explorer, tiny_acm)[0]
    draft = task.drafts["contexts"]
    for split, ranker, weight, fusion in [("paragraphs", "svm", 0.0, "rank"),
                                          ("windows", "centroid", 0.5, "max")]:
        passages = split_draft(draft, split).passages
        vectors = seeds_explorer.embedder.embed_documents([p.query for p in passages])
        rows = missed_eval.config_rows(seeds_explorer, passages, vectors, task.given,
                                       (split, ranker, weight))[fusion]
        options = MissedOptions(top_k=missed_eval.TOP, split=split, ranker=ranker,
                                weight=weight, fusion=fusion, explain=False)
        found = missed(seeds_explorer, draft, task.given, options=options)
        assert [seeds_explorer.row(p.paper_id) for p in found.papers] == rows


def test_missed_pool_builds_from_the_cached_vectors(tiny_acm: Path, tmp_path: Path,
                                                    monkeypatch):
    from explorer.ingest.embedding import LazyEmbedder

    cache = small_cache.main([str(tiny_acm), "--cache", str(tmp_path / "pool")])
    embedded: list[tuple[str, int]] = []
    real = LazyEmbedder.embed

    def counted(self, phase, texts, *args, **kwargs):
        embedded.append((phase, len(texts)))
        return real(self, phase, texts, *args, **kwargs)

    monkeypatch.setattr(LazyEmbedder, "embed", counted)
    index = missed_pool.main([str(tiny_acm), "--folder", str(tmp_path / "missed"),
                              "--cache", str(cache)])
    assert not embedded  # every paper vector came from the cache
    pool = small_cache.load_pool(tiny_acm, cache)
    explorer = Explorer.open(index)
    assert [p.text_hash for p in explorer.papers] == [p.text_hash for p in pool.papers]
    assert (explorer.vectors == pool.vectors).all()


def test_topic_study_scores_every_method_against_area_and_venue(seeds_index: Path,
                                                                 seeds_explorer: Explorer,
                                                                 tmp_path: Path):
    """A paperlists-shaped file naming the seeds by their ids: half of them with a
    primary_area (the area of their topic, "I"/"II" sessions folded), all with a venue."""
    table = topic_table(seeds_explorer)
    rows = []
    for row, paper in enumerate(seeds_explorer.papers):
        topic = table.topic(table.paper_topic[row])
        area = f"Area {topic.parent} {'I' * (1 + (row % 4 == 3))}" if row % 2 else ""
        rows.append({"doc_id": paper.paper_id, "abstract": paper.abstract, "title": paper.title,
                     "venue": ["aaai", "ijcai"][row % 3 == 0], "primary_area": area})
    dataset = tmp_path / "paperlists"
    dataset.mkdir()
    with gzip.open(dataset / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in rows)
    report = topic_study.main([str(dataset), "--index", str(seeds_index), "--mixed", "50",
                               "--out", str(tmp_path / "topics")])
    written = {r["primary_area"] for r in rows if r["primary_area"]}
    assert report["labelled"] == 35 and report["mixed"] == 50 and report["venues"] == 2
    assert report["areas raw"] == len(written) > report["areas folded"] == len(table.topics("area"))
    for part, labels in (("primary_area", ("area", "area folded")), ("venue", ("venue",))):
        rows = report[part]
        assert {"today k-means (fine)", "k-means at the area count", "hdbscan"} <= set(rows)
        assert any(name.startswith("areas, Ward") for name in rows)
        for row in rows.values():
            assert row["cpu s"] >= 0 and 0 <= row["noise"] <= 1
            for label in labels:
                assert -1 <= row[label]["ami"] <= 1 and 0 < row[label]["purity"] <= 1
    assert report["names"] and all(area["topics"] for area in report["names"])
    assert "## primary_area" in (tmp_path / "topics.md").read_text(encoding="utf-8")


def test_twins_study(seeds_explorer: Explorer, tmp_path: Path):
    """Two versions of one seed under one title (another venue, a sentence cut) are the known
    twin; the study finds it with the product's join and writes its tables and verdicts."""
    from explorer.ingest.run import build

    papers = seeds_explorer.papers[:12]
    rows = [{"doc_id": f"s{n}", "title": f"Seed paper {n}", "abstract": p.abstract,
             "venue": "iclr", "year": 2020} for n, p in enumerate(papers)]
    rows.append({**rows[3], "doc_id": "s3b", "venue": "icml",
                 "abstract": papers[3].abstract.rsplit(".", 2)[0] + "."})
    folder = tmp_path / "paperlists"
    folder.mkdir()
    with gzip.open(folder / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in rows)
    build([folder / "corpus.jsonl.gz"], tmp_path / "index", "default", sentences=False)
    out = tmp_path / "results" / "twins"
    twins_study.main([str(folder), "--index", str(tmp_path / "index"), "--top", "5",
                      "--out", str(out), "--judged", str(tmp_path / "judged.md")])
    result = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert result["known_twins"] == 1 and result["twin_cosines"][0] > 0.9
    assert "| 1 | s3 | s3b |" in (tmp_path / "judged.md").read_text(encoding="utf-8")


def test_the_studies_reciprocal_rank_fusion_by_hand():
    """The baseline the fusion studies compare with (studies/cases.py)."""
    rows, scores = cases.reciprocal_rank_fusion([[1, 2, 3], [3, 1]], k=60)
    assert rows.tolist() == [1, 3, 2]
    assert scores[0] == pytest.approx(1 / 61 + 1 / 62)
    assert scores[1] == pytest.approx(1 / 63 + 1 / 61)
    assert scores[2] == pytest.approx(1 / 62)
