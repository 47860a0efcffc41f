"""Fusion and feedback on small corpora and on the seeds, settings chosen by cross-validation.

Corpora: ACM-CR sub-corpora of about 100, 1,000 and 10,000 papers drawn from the cached pool
of small_cache.py (every judged paper + random fill, embedded once): for each citing paper, its
judged papers (all three query sets) plus random others, DRAWS seeded draws per size (the
10,000-paper corpus is the whole pool: one draw). BM25 is built per sub-corpus with the
product's LexicalIndex; the dense channel is the cached vectors. Every ranking goes through the
product's public functions (ranking.*, feedback.*) as Explorer.rank calls them.

The seeds: the 71 abstracts, the questions and related pairs of tests/paraphrases.py.

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
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.corpus.papers import Paper, read_corpus
from explorer.eval.metrics import mrr_at_k, score_run
from explorer.index.lexical import LexicalIndex, lexical_text
from explorer.model.embedder import Embedder, resolve_model
from explorer.query.engine import Explorer
from explorer.query.feedback import feedback_channel
from explorer.query.ranking import (
    CANDIDATES,
    absolute_fusion,
    blend_fusion,
    query_ceiling,
    reciprocal_rank_fusion,
    top_rows,
)
from studies.cases import citing_papers, folds
from studies.small_cache import load_pool

SIZES = (100, 1_000, 10_000)
DRAWS = 3
FUSIONS = (["blend", "rrf"] + [f"abs {w}" for w in (0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2)])
GATES = (0, 1_000, 10_000, 10**9)  # feedback runs on corpora of at least this many papers
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Corpus:
    vectors: np.ndarray  # (n, d)
    lexical: LexicalIndex
    texts: list[str]

    @classmethod
    def of(cls, papers: list[Paper], vectors: np.ndarray) -> Corpus:
        return cls(vectors, LexicalIndex.from_papers(papers), [lexical_text(p) for p in papers])


def channels(corpus: Corpus, text: str, vector: np.ndarray, exclude: int | None = None):
    """Both channels' top CANDIDATES as Explorer.rank gets them, and the query's ceiling."""
    blocked = np.zeros(len(corpus.vectors), dtype=bool)
    if exclude is not None:
        blocked[exclude] = True
    rows, scores = top_rows(corpus.vectors @ vector + 1.0, CANDIDATES, blocked)
    dense = (rows, scores - 1.0)
    lexical = corpus.lexical.top(text, CANDIDATES, blocked)
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
def acm_runs(dataset: Path, sizes=SIZES, draws=DRAWS,  # noqa: C901 - one loop per study axis
             cache: Path | None = None) -> list[dict]:
    """Per-query metrics of every configuration -> rows {set, size, draw, fold, config: {...}}."""
    pool = load_pool(dataset, cache)
    papers, vectors = pool["papers"], pool["vectors"]
    position = {}
    for i, paper in enumerate(papers):
        for key in (paper.paper_id, *paper.aliases):
            position.setdefault(key, i)
    fold_of, citing = folds(dataset), citing_papers(dataset)
    by_citing: dict[int, list] = {}
    for name, query_set in pool["sets"].items():
        for query in query_set.queries:
            relevant = {position[d]: g for d, g in query_set.qrels.get(query.query_id, {}).items()
                        if d in position}
            if relevant and query.text:
                key = citing[(name, query.query_id)]
                by_citing.setdefault(key, []).append(
                    (name, query, relevant, pool["query_vectors"][name][query.query_id]))
    out = []
    whole = None
    for size in sizes:
        for draw in range(1 if size >= len(papers) else draws):
            for key, queries in sorted(by_citing.items()):
                if size >= len(papers):
                    whole = whole or Corpus.of(papers, vectors)
                    corpus, local = whole, {i: i for i in range(len(papers))}
                else:
                    corpus, local = _sub_corpus(papers, vectors, queries, size, draw, key)
                for name, query, relevant, vector in queries:
                    judged = {local[r]: g for r, g in relevant.items()}
                    ranked = rankings(corpus, query.text, vector)
                    out.append({"set": name, "size": size, "draw": draw,
                                "fold": fold_of[(name, query.query_id)],
                                "scores": {c: score_run(rows, judged)["ndcg@10"]
                                           for c, rows in ranked.items()}})
            print(f"size {size} draw {draw}: {len(out)} query runs", flush=True)
    return out


def _sub_corpus(papers, vectors, queries, size, draw, key):
    judged = sorted({r for _, _, relevant, _ in queries for r in relevant})
    rng = np.random.default_rng([size, draw, int(key) % 2**32])
    others = np.setdiff1d(np.arange(len(papers)), judged)
    fill = rng.choice(others, max(0, size - len(judged)), replace=False)
    rows = np.array(sorted(set(judged) | set(fill.tolist())))
    local = {int(r): i for i, r in enumerate(rows)}
    return Corpus.of([papers[r] for r in rows], vectors[rows]), local


# -- the seeds -----------------------------------------------------------------
def seed_runs(index: Path | None = None) -> dict[str, list[dict]]:
    """Per-question reciprocal rank / top-5 hit and per-pair-direction partner hit. `index`:
    an index of seeds/ whose vectors and model are used (default: the seeds embedded here)."""
    from tests.paraphrases import PARAPHRASES, RELATED_PAIRS

    if index is None:
        papers = read_corpus([ROOT / "seeds"]).papers
        embedder = Embedder(resolve_model("default"))
        vectors = embedder.embed_documents([p.text for p in papers])
    else:
        explorer = Explorer.open(index)
        papers, vectors, embedder = explorer.papers, explorer.vectors, explorer.embedder
    corpus = Corpus.of(papers, vectors)

    def target(marker: str) -> int:
        (row,) = [i for i, p in enumerate(papers) if marker in p.abstract]
        return row

    questions = []
    for number, (query, marker) in enumerate(PARAPHRASES):
        ranked = rankings(corpus, query, embedder.embed_query(query))
        want = {target(marker): 1.0}
        questions.append({"fold": number % 2, "scores": {
            c: mrr_at_k(rows, want, 100) for c, rows in ranked.items()},
            "top5": {c: float(target(marker) in rows[:5]) for c, rows in ranked.items()}})
    pairs = []
    for number, (first, second, _) in enumerate(RELATED_PAIRS):
        for a, b in ((target(first), target(second)), (target(second), target(first))):
            ranked = rankings(corpus, corpus.texts[a], corpus.vectors[a], exclude=a)
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


def machine() -> str:
    model, flags = platform.processor() or "?", []
    try:
        info = Path("/proc/cpuinfo").read_text()
        model = next(line.split(":", 1)[1].strip() for line in info.splitlines()
                     if line.startswith("model name"))
        words = next(line for line in info.splitlines() if line.startswith("flags")).split()
        flags = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in words]
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores, flags {' '.join(flags) or 'none'}"


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
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=1))
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))
    print(json.dumps({"seed_all_questions": {c: round(float(np.mean(
        [q["scores"][c] for q in seeds["questions"]])), 4) for c in seeds["questions"][0]["scores"]}}))
    return result


if __name__ == "__main__":
    main()
