"""Fusion and feedback on small corpora and on the seeds, settings chosen by cross-validation.

Corpora: ACM-CR sub-corpora of about 100, 1,000 and 10,000 papers drawn from the cached pool
of small_cache.py (every judged paper + random fill, embedded once): for each citing paper, its
judged papers (all three query sets) plus random others, DRAWS seeded draws per size (the
10,000-paper corpus is the whole pool: one draw); the draws are the library's
(explorer/eval/small.py), the ones `explorer eval --sizes` scores. Each corpus has the
product's channels (eval/columns.Corpus: BM25 and a FAISS index of the cached vectors). Every
ranking goes through the product's public functions (channels, ranking.*, feedback.*) as
Explorer.rank calls them.

The seeds: the 71 abstracts, the questions and related pairs of tests/data/seed_judgments.json.

Cross-validation: ACM-CR queries split by citing paper (cases.folds); seed questions and
pairs by position (even / odd). Each fold picks the configuration with the best mean of its
own scores; the other fold reports. `search` is chosen on sentences + paragraphs + seed
questions, `similar` on papers -> references + seed pairs.

    nice -n 10 .venv/bin/python -m studies.small_corpora ../shared/data/acm-cr \
        --out studies/results/quality-small-corpora
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np

from explorer.eval.columns import Corpus
from explorer.eval.evaluate import machine
from explorer.eval.metrics import mrr_at_k, score_run
from explorer.eval.seeds import read_judgments, seed_index, target_row
from explorer.eval.small import DRAWS, SIZES, queries_by_citing, sub_corpora
from explorer.index.lexical import lexical_text
from explorer.query.engine import Explorer
from explorer.ranking.channels import Request
from explorer.ranking.feedback import feedback_channel
from explorer.ranking.filters import Blocked
from explorer.ranking.fusion import (
    CANDIDATES,
    DENSE,
    LEXICAL,
    absolute_fusion,
    blend_fusion,
    query_ceiling,
)
from explorer.settings import Settings
from studies.cases import folds, reciprocal_rank_fusion
from studies.small_cache import load_pool

FUSIONS = (["blend", "rrf"] + [f"abs {w}" for w in (0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2)])
GATES = (0, 1_000, 10_000, 10**9)  # feedback runs on corpora of at least this many papers
ROOT = Path(__file__).resolve().parents[1]


def channels(corpus: Corpus, text: str, vector: np.ndarray, exclude: int | None = None):
    """Both channels' top CANDIDATES as Explorer.rank gets them, and the query's ceiling."""
    blocked = Blocked(len(corpus), excluded=frozenset(() if exclude is None else (exclude,)))
    request = Request(text, vector)
    dense = corpus.channels[DENSE].top(request, CANDIDATES, blocked)
    lexical = corpus.channels[LEXICAL].top(request, CANDIDATES, blocked)
    return dense, lexical, query_ceiling(corpus.lexical, text)


def fuse(name: str, dense, lexical, ceiling: float):
    if name == "blend":
        return blend_fusion([dense, lexical], [0.5, 0.5])[0]
    if name == "rrf":
        return reciprocal_rank_fusion([dense[0], lexical[0]])[0]
    return absolute_fusion(dense, lexical, ceiling, float(name.split()[1]))[0]


def rankings(corpus: Corpus, text: str, vector: np.ndarray, exclude: int | None = None
             ) -> dict[str, list[int]]:
    """Top-100 rows of every configuration: lexical, dense, each fusion without / with feedback."""
    dense, lexical, ceiling = channels(corpus, text, vector, exclude)
    out = {"lexical": lexical[0][:100].tolist(), "dense": dense[0][:100].tolist()}
    for name in FUSIONS:
        first = fuse(name, dense, lexical, ceiling)
        out[f"{name} | fb off"] = first[:100].tolist()
        moved = feedback_channel(corpus.vectors, vector, first, [dense[0], lexical[0]],
                                 CANDIDATES, min_papers=0)
        out[f"{name} | fb on"] = fuse(name, moved, lexical, ceiling)[:100].tolist()
    return out


# -- ACM-CR small corpora ------------------------------------------------------
def acm_runs(dataset: Path, sizes=SIZES, draws=DRAWS, cache: Path | None = None) -> list[dict]:
    """Per-query metrics of every configuration -> rows {set, size, draw, fold, config: {...}},
    on the library's small corpora (explorer/eval/small.py: the same draws as `explorer eval`)."""
    pool = load_pool(dataset, cache)
    fold_of, out = folds(dataset), []
    groups = queries_by_citing(pool, dataset)
    for sub in sub_corpora(pool, groups, sizes, draws):
        for item in sub.queries:
            ranked = rankings(sub.corpus, item.query.text, item.vector)
            out.append({"set": item.set_name, "size": sub.size, "draw": sub.draw,
                        "fold": fold_of[(item.set_name, item.query.query_id)],
                        "scores": {c: score_run(rows, item.relevant)["ndcg@10"]
                                   for c, rows in ranked.items()}})
        if sub.key == max(groups):
            print(f"size {sub.size} draw {sub.draw}: {len(out)} query runs", flush=True)
    return out


# -- the seeds -----------------------------------------------------------------
def seed_runs(index: Path | None = None) -> dict[str, list[dict]]:
    """Per-question reciprocal rank / top-5 hit and per-pair-direction partner hit. `index`:
    an index of seeds/ whose vectors and model are used (default: the library's cached index
    of seeds/, explorer/eval/seeds.py)."""
    judgments = read_judgments(ROOT / "tests/data/seed_judgments.json")
    if index is None:
        explorer, _ = seed_index(ROOT / "seeds", Settings.from_env().cache_dir, "default")
    else:
        explorer = Explorer.open(index)
    corpus = Corpus.of(explorer.papers, explorer.vectors)
    questions = []
    for number, (query, marker) in enumerate(judgments.questions):
        ranked = rankings(corpus, query, explorer.embed_query(query))
        want = target_row(corpus.papers, marker)
        questions.append({"fold": number % 2, "scores": {
            c: mrr_at_k(rows, {want: 1.0}, 100) for c, rows in ranked.items()},
            "top5": {c: float(want in rows[:5]) for c, rows in ranked.items()}})
    pairs = []
    for number, (first, second, _) in enumerate(judgments.pairs):
        one, other = target_row(corpus.papers, first), target_row(corpus.papers, second)
        for a, b in ((one, other), (other, one)):
            ranked = rankings(corpus, lexical_text(corpus.papers[a]), corpus.vectors[a], exclude=a)
            pairs.append({"fold": number % 2, "scores": {
                c: float(b in rows[:5]) for c, rows in ranked.items()}})
    return {"questions": questions, "pairs": pairs}


# -- cross-validation ----------------------------------------------------------
def configs() -> list[tuple[str, int]]:
    """(fusion, feedback gate): feedback runs when the corpus has >= gate papers."""
    return list(itertools.product(FUSIONS, GATES))


def value(run: dict, config, size: int) -> float:
    if isinstance(config, str):
        return run["scores"][config]
    fusion, gate = config
    return run["scores"][f"{fusion} | fb {'on' if size >= gate else 'off'}"]


def groups(acm: list[dict], seeds: dict, verb: str) -> dict[str, tuple[list[dict], int]]:
    """The scored groups a verb is chosen on: name -> (runs, corpus size)."""
    sets = ("sentences", "paragraphs") if verb == "search" else ("papers",)
    out = {f"{s} {n}": ([r for r in acm if r["set"] == s and r["size"] == n], n)
           for s in sets for n in sorted({r["size"] for r in acm})}
    out["seeds " + ("questions" if verb == "search" else "pairs")] = (
        seeds["questions" if verb == "search" else "pairs"], 71)
    return out


def cross_validate(scored: dict[str, tuple[list[dict], int]]) -> dict:
    """Each fold picks the config with the best mean over groups of its runs; held-out means."""
    picks = {}
    for fold in (0, 1):
        def mean_on(config, fold=fold):
            return np.mean([np.mean([value(r, config, n) for r in runs if r["fold"] == fold])
                            for runs, n in scored.values()])
        picks[fold] = max(configs(), key=mean_on)
    held = {}
    for name, (runs, size) in scored.items():
        rows = {"lexical": [], "dense": [], "current (blend + feedback)": [],
                "hybrid, no feedback": [], "new default (cv)": []}
        for run in runs:
            rows["lexical"].append(value(run, "lexical", size))
            rows["dense"].append(value(run, "dense", size))
            rows["current (blend + feedback)"].append(value(run, "blend | fb on", size))
            rows["hybrid, no feedback"].append(value(run, "blend | fb off", size))
            rows["new default (cv)"].append(value(run, picks[1 - run["fold"]], size))
        held[name] = {k: round(float(np.mean(v)), 4) for k, v in rows.items()}
    everything = max(configs(), key=lambda c: np.mean(
        [np.mean([value(r, c, n) for r in runs]) for runs, n in scored.values()]))
    return {"picks": {f"chosen on fold {f}": list(picks[f]) for f in (0, 1)},
            "chosen on all": list(everything), "held_out": held}


def markdown(result: dict) -> str:
    lines = [f"# Fusion and feedback on small corpora and the seeds ({result['date']})", "",
             f"Machine: {result['machine']}. Model: {result['model']}. "
             f"Command: `{result['command']}`.", "", result["note"], ""]
    for verb in ("search", "similar"):
        cv = result[verb]
        lines += [f"## `{verb}`", "",
                  f"Picks: {cv['picks']}; chosen on all data: {cv['chosen on all']}.", ""]
        metric = "nDCG@10 (ACM-CR), MRR (seed questions), partner in top 5 (seed pairs)"
        names = list(next(iter(cv["held_out"].values())))
        lines += [f"Held-out {metric}:", "", "| set, size | " + " | ".join(names) + " |",
                  "|---" * (len(names) + 1) + "|"]
        for group, row in cv["held_out"].items():
            lines.append(f"| {group} | " + " | ".join(f"{row[n]:.4f}" for n in names) + " |")
        lines.append("")
    return "\n".join(lines)


def _model_label(seeds_index: Path | None, seeds_only: bool) -> str:
    """Which model made the vectors: the seeds index's own, and the pool's (small_cache)."""
    pool = "all-MiniLM-L6-v2 (bundled), ONNX Runtime fp32"
    if seeds_index is None:
        return pool
    model = Explorer.open(seeds_index).manifest.model
    seeds = " ".join(str(v) for v in (model.model_id, model.backend, model.precision) if v)
    return f"seeds: {seeds}" + ("" if seeds_only else f"; ACM-CR pool: {pool}")


def write_result(out: Path, result: dict, text: str) -> dict:
    """A study's result as OUT.json and its tables `text` as OUT.md, printed too -> result."""
    out.with_suffix(".json").write_text(json.dumps(result, indent=1))
    out.with_suffix(".md").write_text(text)
    print(text)
    return result


def study_parser(doc: str, out: str) -> argparse.ArgumentParser:
    """The arguments of the studies over the small corpora and the seeds (this one and
    size_gate.py); `out` is the default result path under studies/results/."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "studies/results" / out)
    parser.add_argument("--cache", type=Path, help="small_cache's folder (its default)")
    parser.add_argument("--seeds-index", type=Path, help="reuse this index of seeds/")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--draws", type=int, default=DRAWS)
    return parser


def main(argv: list[str] | None = None) -> dict:
    parser = study_parser(__doc__, "quality-small")
    parser.add_argument("--seeds-only", action="store_true",
                        help="only the seed set (no ACM-CR pool needed)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    seeds = seed_runs(args.seeds_index)
    acm = [] if args.seeds_only else acm_runs(args.dataset, args.sizes, args.draws, args.cache)
    seed_top5 = {c: round(float(np.mean([q["top5"][c] for q in seeds["questions"]])), 4)
                 for c in ("dense", "lexical", "blend | fb on", "blend | fb off")}
    result = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "machine": machine(),
              "model": _model_label(args.seeds_index, args.seeds_only),
              "command": "python -m studies.small_corpora ACM-CR",
              "note": f"ACM-CR sub-corpora: each citing paper's judged papers plus random fill "
                      f"from a 10,000-paper pool (all judged papers + random), {args.draws} "
                      f"draws at sizes below the pool. Seeds: 71 abstracts, "
                      f"{len(seeds['questions'])} questions, {len(seeds['pairs'])} pair "
                      f"directions. Seed top-5 (all questions, no CV): {seed_top5}.",
              "search": cross_validate(groups(acm, seeds, "search")),
              "similar": cross_validate(groups(acm, seeds, "similar")),
              "seconds": round(time.perf_counter() - started)}
    write_result(args.out, result, markdown(result))
    print(json.dumps({"seed_all_questions": {c: round(float(np.mean(
        [q["scores"][c] for q in seeds["questions"]])), 4) for c in seeds["questions"][0]["scores"]}}))
    return result


if __name__ == "__main__":
    main()
