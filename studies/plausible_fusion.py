"""Absolute fusion with shared words weighed by how plausible a paper's meaning already is,
against the blend, plain absolute fusion, RRF and both channels: every set and size, held out.

A ranking is a fusion F and a feedback setting. F is one of: the min-max blend (today's for
questions), RRF, absolute fusion `cosine + W * BM25 / ceiling` (ranking.absolute_fusion) and
"plausible" absolute fusion, where each paper's lexical share is scaled by p ** K, p being the
paper's cosine placed among the corpus's random cosines of the query's kind (question-paper
for questions, paper-paper for papers: ranking.plausible_by, the percentile the badges show).
Feedback is off, or on from FEEDBACK_MIN_PAPERS papers as the product gates it.

Groups: ACM-CR sub-corpora of 100 and 1,000 papers (each citing paper's judged papers plus
random fill, DRAWS draws, from small_cache's 10,000-paper pool), the whole pool (10,000), the
full ACM-CR corpus when `--index` names an index of it, and the seeds (questions: MRR; pairs:
partner among the 5 most similar). `search` is scored on sentence and paragraph queries and
the seed questions, `similar` on papers -> references and the seed pairs.

Choice (declared before looking, the issue's target as the rule): each fold of citing papers
(seeds: even / odd) keeps the rankings never more than TIE below the better of dense and
lexical on any group of its own queries and picks the best mean over groups; the other fold
reports. Everything ranks through the product's public functions (ranking.*, feedback.*,
Explorer.candidates on the full index).

    nice -n 10 .venv/bin/python -m studies.plausible_fusion ../shared/data/acm-cr \
        --seeds-index embeddings --index ~/.cache/paper-explorer/eval/acm-cr-HASH \
        --out studies/results/quality-plausible-fusion
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.eval import small
from explorer.eval.columns import Corpus
from explorer.eval.evaluate import SETS, judged, load_set, machine
from explorer.eval.metrics import mrr_at_k, score_run
from explorer.eval.pool import Pool
from explorer.eval.seeds import SeedJudgments, read_judgments, target_row
from explorer.index.lexical import lexical_text
from explorer.model.embedder import Embedder, resolve_model
from explorer.query.engine import Explorer
from explorer.ranking.calibration import PAPERS, QUESTIONS, pair_quantiles, question_quantiles
from explorer.ranking.channels import Request
from explorer.ranking.feedback import feedback_channel, feedback_safe
from explorer.ranking.filters import Blocked
from explorer.ranking.fusion import (
    CANDIDATES,
    DENSE,
    LEXICAL,
    absolute_fusion,
    blend_fusion,
    plausible_by,
    query_ceiling,
)
from explorer.ranking.policy import PAPER_POLICY_BELOW
from studies import paperlists_questions, small_corpora
from studies.cases import cached_vectors, folds, reciprocal_rank_fusion
from studies.small_cache import default_cache, load_pool

WEIGHTS = (0.1, 0.2, 0.3, 0.5, 0.8, 1.2)
PLAUSIBLE = [(w, k) for w in (0.3, 0.5, 0.8, 1.2, 2.0) for k in (1, 4, 16)]
TIE = 0.005
STRANGERS = 200  # paperlists-ml titles asked of the seeds
WORD, RANDOM = 0.85, 0.5  # "related" and the median of random cosines (wording.STRENGTHS)
FAMILY = " p^4 "  # plausibility's power, fixed for the page to read right (DECISIONS item 15)
JUDGMENTS = "tests/data/seed_judgments.json"


@dataclass
class Scales:
    """Reference cosines of a corpus (quantiles 0..100): question-paper and paper-paper."""

    questions: list[float]
    papers: list[float]


def fusions(ceiling: float, quantiles: list[float]) -> dict[str, Callable]:
    """Every fusion by name: (dense, lexical) -> rows, best first."""
    out: dict[str, Callable] = {
        "blend": lambda d, lex: blend_fusion([d, lex], [0.5, 0.5])[0],
        "rrf": lambda d, lex: reciprocal_rank_fusion([d[0], lex[0]])[0]}
    for weight in WEIGHTS:
        out[f"abs {weight}"] = (lambda d, lex, w=weight: absolute_fusion(d, lex, ceiling, w)[0])
    for weight, power in PLAUSIBLE:
        factor = plausible_by(quantiles, power)
        out[f"abs {weight} p^{power}"] = (
            lambda d, lex, w=weight, f=factor: absolute_fusion(d, lex, ceiling, w, f)[0])
    return out


def rankings(vectors: np.ndarray, dense, lexical, ceiling: float, vector: np.ndarray,
             quantiles: list[float]) -> dict[str, list[int]]:
    """Top-100 rows of every ranking: lexical, dense, each fusion with feedback off / gated."""
    out = {"lexical": lexical[0][:100].tolist(), "dense": dense[0][:100].tolist()}
    gate = feedback_safe(len(vectors))
    for name, fuse in fusions(ceiling, quantiles).items():
        rows = fuse(dense, lexical)
        out[f"{name} | fb off"] = rows[:100].tolist()
        if gate:
            moved = feedback_channel(vectors, vector, rows, [dense[0], lexical[0]],
                                     CANDIDATES, min_papers=0)
            rows = fuse(moved, lexical)
        out[f"{name} | fb"] = rows[:100].tolist()
    return out


def misplaced(ranked: dict[str, list[int]], vectors: np.ndarray, vector: np.ndarray,
              quantiles: list[float]) -> dict[str, float]:
    """Per ranking, 1.0 when its first paper's cosine sits below the median of the corpus's
    random cosines of its kind (reads "weak", at random-level meaning) while plain cosine's
    first reads at least "related" (>= 85th percentile): the page looks wrong. Else 0.0."""
    place = plausible_by(quantiles, 1)

    def percentile(rows: list[int]) -> float:
        return float(place(np.array([vectors[rows[0]] @ vector]))[0]) if rows else 0.0

    best = percentile(ranked["dense"])
    return {c: float(best >= WORD and percentile(rows) < RANDOM) for c, rows in ranked.items()}


def channels(corpus: Corpus, text: str, vector: np.ndarray, exclude: Sequence[int] = ()):
    """Both channels' CANDIDATES as the product asks them, and the query's BM25 ceiling."""
    request = Request(text, vector)
    blocked = Blocked(len(corpus), excluded=frozenset(int(row) for row in exclude))
    return (corpus.channels[DENSE].top(request, CANDIDATES, blocked),
            corpus.channels[LEXICAL].top(request, CANDIDATES, blocked),
            query_ceiling(corpus.lexical, text))


def pool_scales(pool: Pool, model: str) -> Scales:
    """The pool's reference cosines, as a build of it would store them; cached in its folder."""
    path = pool.folder / "scales.json"
    if path.is_file():
        return Scales(**json.loads(path.read_text()))
    embedder = Embedder(resolve_model(model))
    if embedder.info["fingerprint"] != pool.model["fingerprint"]:
        raise SystemExit(f"--model {model} did not make the pool in {pool.folder}")
    scales = Scales(question_quantiles(pool.papers, pool.vectors, embedder.embed_queries),
                    pair_quantiles(pool.vectors))
    path.write_text(json.dumps(scales.__dict__))
    return scales


def acm_small(dataset: Path, pool: Pool, model: str, sizes: list[int], draws: int) -> list[dict]:
    """Runs on the sub-corpora and the whole pool: {set, size, fold, scores {ranking: ndcg}}."""
    scales = pool_scales(pool, model)
    fold_of, out = folds(dataset), []
    groups = small.queries_by_citing(pool, dataset)
    for sub in small.sub_corpora(pool, groups, sizes, draws):
        for item in sub.queries:
            dense, lexical, ceiling = channels(sub.corpus, item.query.text, item.vector)
            quantiles = scales.papers if item.query.is_document else scales.questions
            ranked = rankings(sub.corpus.vectors, dense, lexical, ceiling, item.vector, quantiles)
            out.append({"set": item.set_name, "size": str(min(sub.size, len(pool.papers))),
                        "fold": fold_of[(item.set_name, item.query.query_id)],
                        "scores": {c: score_run(rows, item.relevant)["ndcg@10"]
                                   for c, rows in ranked.items()}})
            if not item.query.is_document:  # a question: does its page read right?
                out[-1]["misplaced"] = misplaced(ranked, sub.corpus.vectors, item.vector,
                                                 quantiles)
    return out


def acm_full(dataset: Path, index: Path) -> list[dict]:
    """Runs on a whole-corpus index, through Explorer.candidates as the product asks them."""
    explorer = Explorer.open(index)
    fold_of, out = folds(dataset), []
    for name in SETS:
        scored, _ = judged(explorer, load_set(dataset, name))
        vectors = cached_vectors(explorer, [q.text for q, _ in scored])
        kind = PAPERS if name == "papers" else QUESTIONS
        quantiles = list(explorer.scale(kind).quantiles)
        for (query, relevant), vector in zip(scored, vectors):
            request = Request(query.text, vector)
            dense = explorer.ranker.candidates(DENSE, request, CANDIDATES)
            lexical = explorer.ranker.candidates(LEXICAL, request, CANDIDATES)
            ceiling = query_ceiling(explorer.lexical, query.text)
            ranked = rankings(explorer.vectors, dense, lexical, ceiling, vector, quantiles)
            out.append({"set": name, "size": "full", "fold": fold_of[(name, query.query_id)],
                        "scores": {c: score_run(rows, relevant)["ndcg@10"]
                                   for c, rows in ranked.items()}})
            if kind == QUESTIONS:
                out[-1]["misplaced"] = misplaced(ranked, explorer.vectors, vector, quantiles)
        print(f"full {name}: {len(out)} runs", flush=True)
    return out


def paperlists_runs(pool: paperlists_questions.QuestionPool, small: int) -> list[dict]:
    """Runs of TLDR and title questions (paperlists_questions.py) on its `small`-paper draws
    and its whole pool: {set: "tldr" | "title", size, fold, scores {ranking: ndcg}}."""
    out = []
    for size, corpus, local in paperlists_questions.corpora(pool, small=small):
        for kind, questions in pool.questions.items():
            for number, (text, row) in enumerate(questions):
                if row not in local:
                    continue
                vector = pool.question_vectors[kind][number]
                ranked = rankings(corpus.vectors, *channels(corpus, text, vector), vector,
                                  pool.scales["questions"])
                out.append({"set": kind, "size": size, "fold": number % 2,
                            "scores": {c: score_run(rows, {local[row]: 1.0})["ndcg@10"]
                                       for c, rows in ranked.items()},
                            "misplaced": misplaced(ranked, corpus.vectors, vector,
                                                   pool.scales["questions"])})
        print(f"paperlists {size}: {len(out)} runs", flush=True)
    return out


def seed_runs(index: Path, judgments: SeedJudgments, strangers: list[str] = ()
              ) -> dict[str, list[dict]]:
    """The seed questions (reciprocal rank, top-5 hit), pair directions (partner in top 5) and
    `strangers`: questions from outside the corpus (paperlists-ml titles), scored only by
    `misplaced`: what a reader sees asking a small corpus what it covers loosely."""
    explorer = Explorer.open(index)
    corpus = Corpus.of_index(explorer)
    questions, pairs = list(corpus.references[QUESTIONS]), list(corpus.references[PAPERS])
    asked = []
    for number, (text, marker) in enumerate(judgments.questions):
        vector = explorer.embed_query(text)
        ranked = rankings(corpus.vectors, *channels(corpus, text, vector), vector, questions)
        want = target_row(corpus.papers, marker)
        asked.append({"fold": number % 2,
                      "scores": {c: mrr_at_k(rows, {want: 1.0}, 100) for c, rows in ranked.items()},
                      "top5": {c: float(want in rows[:5]) for c, rows in ranked.items()},
                      "misplaced": misplaced(ranked, corpus.vectors, vector, questions)})
    loose = []
    for text, vector in zip(strangers, explorer.embedder.embed_queries(list(strangers))):
        ranked = rankings(corpus.vectors, *channels(corpus, text, vector), vector, questions)
        loose.append({"misplaced": misplaced(ranked, corpus.vectors, vector, questions)})
    walked = []
    for number, (first, second, _) in enumerate(judgments.pairs):
        a, b = target_row(corpus.papers, first), target_row(corpus.papers, second)
        for one, other in ((a, b), (b, a)):
            vector = corpus.vectors[one]
            found = channels(corpus, lexical_text(corpus.papers[one]), vector, [one])
            ranked = rankings(corpus.vectors, *found, vector, pairs)
            walked.append({"fold": number % 2,
                           "scores": {c: float(other in rows[:5]) for c, rows in ranked.items()}})
    return {"questions": asked, "pairs": walked, "strangers": loose}


def groups(runs: list[dict], seeds: dict, verb: str) -> dict[str, list[dict]]:
    sets = ("sentences", "paragraphs", "tldr", "title") if verb == "search" else ("papers",)
    sizes = sorted({r["size"] for r in runs}, key=lambda n: (n == "full", int(n) if n != "full" else 0))
    out = {f"{s} {n}": [r for r in runs if r["set"] == s and r["size"] == n]
           for s in sets for n in sizes}
    out = {name: rows for name, rows in out.items() if rows}
    out["seeds " + ("questions" if verb == "search" else "pairs")] = (
        seeds["questions" if verb == "search" else "pairs"])
    return out


def today(verb: str, group: str) -> str:
    """The ranking the product ships today for a group (policy.py before this study)."""
    size = group.rsplit(" ", 1)[-1]
    small = group.startswith("seeds") or (size.isdigit() and int(size) < PAPER_POLICY_BELOW)
    return "abs 0.3 | fb off" if verb == "similar" and small else "blend | fb"


def _mean(runs: list[dict], ranking: str, fold: int | None) -> float:
    return float(np.mean([r["scores"][ranking] for r in runs if fold is None or r["fold"] == fold]))


def choose(scored: dict[str, list[dict]], fold: int | None) -> str:
    """Among rankings never more than TIE below the better channel on any group, the best
    mean over groups (none qualifying: the smallest worst shortfall)."""
    names = [n for n in next(iter(scored.values()))[0]["scores"] if n not in ("lexical", "dense")]

    def shortfall(name: str) -> float:
        return max(max(_mean(r, "dense", fold), _mean(r, "lexical", fold)) - _mean(r, name, fold)
                   for r in scored.values())

    safe = [n for n in names if shortfall(n) <= TIE]
    if not safe:
        return min(names, key=shortfall)
    return max(safe, key=lambda n: np.mean([_mean(r, n, fold) for r in scored.values()]))


def cross_validate(scored: dict[str, list[dict]], verb: str) -> dict:
    """Held-out scores of each fold's pick, among all rankings and within FAMILY, with the
    share of misplaced first results (questions only) and every ranking's mean by fold."""
    names = list(next(iter(scored.values()))[0]["scores"])
    family = [n for n in names if FAMILY in f" {n} " or n in ("lexical", "dense")]
    picks = {fold: choose(scored, fold) for fold in (0, 1)}
    kept = {fold: choose(_only(scored, family), fold) for fold in (0, 1)}
    everything, held, wrong = choose(_only(scored, family), None), {}, {}
    for group, runs in scored.items():
        row = {"lexical": _mean(runs, "lexical", None), "dense": _mean(runs, "dense", None),
               "today": _mean(runs, today(verb, group), None),
               "chosen (cv)": float(np.mean([r["scores"][picks[1 - r["fold"]]] for r in runs])),
               f"chosen,{FAMILY}(cv)": float(np.mean([r["scores"][kept[1 - r["fold"]]]
                                                      for r in runs])),
               f"{everything} (all data)": _mean(runs, everything, None)}
        held[group] = {k: round(v, 4) for k, v in row.items()}
        if "misplaced" in runs[0]:
            wrong[group] = {n: round(float(np.mean([r["misplaced"][n] for r in runs])), 4)
                            for n in ("lexical", today(verb, group), picks[0], picks[1],
                                      everything)}
    return {"picks": {f"chosen on fold {f}": picks[f] for f in (0, 1)},
            "picks within family": {f"chosen on fold {f}": kept[f] for f in (0, 1)},
            "chosen on all": everything, "held_out": held, "misplaced": wrong,
            "by_fold": {n: {g: [round(_mean(r, n, f), 4) for f in (0, 1)]
                            for g, r in scored.items()} for n in names},
            "all_rankings": {n: {g: round(_mean(r, n, None), 4) for g, r in scored.items()}
                             for n in names}}


def _only(scored: dict[str, list[dict]], names: list[str]) -> dict[str, list[dict]]:
    """`scored` with each run's scores limited to `names`."""
    return {g: [{**r, "scores": {n: r["scores"][n] for n in names}} for r in runs]
            for g, runs in scored.items()}


def markdown(result: dict) -> str:
    lines = [f"# Plausible absolute fusion, cross-validated ({result['date']})", "",
             f"Machine: {result['machine']}. Model: {result['model']}. "
             f"Command: `{result['command']}`.", "", __doc__.split("\n\n")[3].replace("\n", " "), ""]
    for verb in ("search", "similar"):
        part = result[verb]
        names = list(next(iter(part["held_out"].values())))
        lines += [f"## `{verb}`", "", f"Picks: {part['picks']}; chosen on all data: "
                  f"`{part['chosen on all']}`.", "",
                  "nDCG@10 (ACM-CR), MRR (seed questions), partner in top 5 (seed pairs); "
                  "`chosen (cv)` is held out:", "",
                  "| set, size | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
        lines += [f"| {group} | " + " | ".join(f"{v:.4f}" for v in row.values()) + " |"
                  for group, row in part["held_out"].items()]
        lines += ["", f"Picks within the{FAMILY}family: {part['picks within family']}.", ""]
        if part["misplaced"]:
            names = list(dict.fromkeys(n for row in part["misplaced"].values() for n in row))
            lines += ["Share of questions whose first result reads at random-level meaning "
                      "(cosine below the median of random question-paper cosines) while plain "
                      "cosine's first reads related or better (all data; `today` is blend | fb):",
                      "", "| set, size | " + " | ".join(f"`{n}`" for n in names) + " |",
                      "|---" * (len(names) + 1) + "|"]
            lines += [f"| {group} | " + " | ".join(f"{row.get(n, float('nan')):.4f}"
                                                   for n in names) + " |"
                      for group, row in part["misplaced"].items()]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = small_corpora.study_parser(__doc__, "quality-plausible-fusion")
    parser.add_argument("--index", type=Path, help="an index of the dataset's whole corpus")
    parser.add_argument("--model", default="default", help="the model of the pool (small_cache)")
    parser.add_argument("--paperlists", type=Path, help="paperlists-ml: its TLDR and title "
                        "questions too (studies/paperlists_questions.py)")
    parser.add_argument("--paperlists-cache", type=Path, help="its vectors' folder")
    parser.add_argument("--paperlists-sizes", type=int, nargs=3, metavar=("POOL", "TITLES", "SMALL"),
                        default=[paperlists_questions.POOL, paperlists_questions.TITLES,
                                 paperlists_questions.SMALL])
    parser.add_argument("--judgments", type=Path, default=small_corpora.ROOT / JUDGMENTS,
                        help="the seed judgments file")
    args = parser.parse_args(argv)
    if args.seeds_index is None:
        parser.error("give --seeds-index (an index of seeds/ built with the same model)")
    started = time.perf_counter()
    pool = load_pool(args.dataset, args.cache or default_cache(args.model))
    strangers, asked = [], None
    if args.paperlists:
        asked = paperlists_questions.load(
            args.paperlists, args.paperlists_cache or paperlists_questions.default_cache(args.model),
            args.model, *args.paperlists_sizes[:2])
        strangers = [text for text, _ in asked.questions["title"][:STRANGERS]]
    seeds = seed_runs(args.seeds_index, read_judgments(args.judgments), strangers)
    runs = acm_small(args.dataset, pool, args.model, args.sizes, args.draws)
    runs += acm_full(args.dataset, args.index) if args.index else []
    runs += paperlists_runs(asked, args.paperlists_sizes[2]) if asked else []
    model = Explorer.open(args.seeds_index).manifest.model
    result = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "machine": machine(),
              "model": " ".join(str(v) for v in (model.model_id, model.backend, model.precision) if v),
              "command": "python -m studies.plausible_fusion ACM-CR"
                         + (" --index FULL" if args.index else ""),
              "seed_top5": {n: round(float(np.mean([q["top5"][n] for q in seeds["questions"]])), 4)
                            for n in seeds["questions"][0]["top5"]},
              "search": cross_validate(groups(runs, seeds, "search"), "search"),
              "strangers": len(strangers),
              "similar": cross_validate(groups(runs, seeds, "similar"), "similar"),
              "seconds": round(time.perf_counter() - started)}
    if strangers:
        names = list(next(iter(result["search"]["misplaced"].values())))
        result["search"]["misplaced"]["seeds, paperlists titles (no target)"] = {
            n: round(float(np.mean([r["misplaced"][n] for r in seeds["strangers"]])), 4)
            for n in names}
    return small_corpora.write_result(args.out, result, markdown(result))


if __name__ == "__main__":
    main()
