"""Pseudo-relevance feedback, long-query pruning and fusion settings on the full ACM-CR corpus.

Every variant re-ranks the same judged queries (benchmarks/quality/study_cases.py); settings
are chosen by 2-fold cross-validation over the 50 citing papers (each fold chooses on its own
queries, the other fold reports), so no number below is tuned on the queries it reports.

    nice -n 10 .venv/bin/python benchmarks/quality/prf_study.py ../shared/data/acm-cr \
        --index /root/.cache/paper-explorer/acm-cr-progressive [--only fusion rocchio rm3 ...]
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks.quality.study_cases import Case, RawBM25, load_cases
from explorer.eval.metrics import score_run
from explorer.index.lexical import lexical_text
from explorer.query.engine import Explorer
from explorer.query.feedback import feedback_channel
from explorer.query.ranking import blend_fusion, reciprocal_rank_fusion, top_rows

SEARCH_SETS = ("sentences", "paragraphs")


class Study:
    def __init__(self, explorer: Explorer, cases: dict[str, list[Case]]) -> None:
        self.ex = explorer
        self.cases = cases
        self.vectors = explorer.vectors
        self.raw = RawBM25(explorer)
        self.indptr = self.raw.indptr
        self.results: dict[str, dict[str, list[dict]]] = {}  # config -> set -> per-query
        self.seconds: dict[str, float] = {}

    # -- channels -------------------------------------------------------------
    def term_counts(self, text: str) -> Counter:
        return self.raw.term_counts(text)

    def bm25(self, weights: dict[int, float]) -> np.ndarray:
        return self.raw.scores(weights)

    def dense(self, vector: np.ndarray, depth: int):
        rows, scores = top_rows(self.vectors @ vector + 1.0, depth)
        return rows, scores - 1.0

    # -- scoring --------------------------------------------------------------
    def run(self, name: str, fn, sets=None) -> None:
        """fn(case) -> ranked rows; per-query metrics kept under `name`."""
        started, count = time.perf_counter(), 0
        out = self.results.setdefault(name, {})
        for set_name in sets or self.cases:
            out[set_name] = [score_run(list(fn(c))[:100], c.relevant)
                             for c in self.cases[set_name]]
            count += len(self.cases[set_name])
        self.seconds[name] = 1000 * (time.perf_counter() - started) / max(1, count)

    def mean(self, name: str, set_name: str, fold: int | None = None,
             metric: str = "ndcg@10") -> float:
        values = [q[metric] for q, c in zip(self.results[name][set_name], self.cases[set_name])
                  if fold is None or c.fold == fold]
        return float(np.mean(values)) if values else 0.0

    def cross_validate(self, names: list[str], sets: tuple[str, ...]) -> dict:
        """Each fold picks the config with the best mean nDCG@10 over `sets` on its own
        queries; per-query scores of the other fold are pooled -> {set: cv nDCG@10, picks}."""
        picks = {}
        for fold in (0, 1):
            picks[fold] = max(names, key=lambda n: np.mean([self.mean(n, s, fold)
                                                             for s in sets]))
        out = {"picks": {f"chosen on fold {f}": picks[f] for f in (0, 1)}}
        for set_name in sets:
            pooled = [self.results[picks[1 - c.fold]][set_name][i]["ndcg@10"]
                      for i, c in enumerate(self.cases[set_name])]
            out[set_name] = round(float(np.mean(pooled)), 4)
        return out


def hybrid(dense, lexical, weight=0.5, depth=100):
    rows, _ = blend_fusion([(dense[0][:depth], dense[1][:depth]),
                            (lexical[0][:depth], lexical[1][:depth])], [weight, 1 - weight])
    return rows


def rocchio(study: Study, case: Case, first: np.ndarray, k: int, beta: float) -> np.ndarray:
    """The query vector plus beta * the mean of the first pass's top k vectors, unit length."""
    target = case.vector + beta * study.vectors[first[:k]].mean(axis=0)
    return target / np.linalg.norm(target)


def rm3_weights(study: Study, case: Case, first: np.ndarray, k: int, terms: int, alpha: float,
                idf_pick: bool = False) -> dict[int, float]:
    """RM3: alpha * P(t|query) + (1 - alpha) * P(t|top k docs), the relevance model cut to
    its `terms` best terms (uniform document weights)."""
    query = study.term_counts(case.text)
    total = sum(query.values()) or 1
    model: Counter = Counter()
    for row in first[:k]:
        counts = study.term_counts(lexical_text(study.ex.papers[row]))
        length = sum(counts.values()) or 1
        for term, count in counts.items():
            model[term] += count / length / k
    if idf_pick:
        df = np.diff(study.indptr)
        n = len(study.vectors)
        rank = {t: p * np.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t, p in model.items()}
        best = sorted(rank, key=rank.get, reverse=True)[:terms]
    else:
        best = [t for t, _ in model.most_common(terms)]
    mass = sum(model[t] for t in best) or 1
    weights = {t: alpha * c / total for t, c in query.items()}
    for term in best:
        weights[term] = weights.get(term, 0.0) + (1 - alpha) * model[term] / mass
    return weights


def pruned_weights(study: Study, text: str, keep: int) -> dict[int, float]:
    """The query's `keep` distinct terms with the highest tf * idf, with their counts."""
    counts = study.term_counts(text)
    df = np.diff(study.indptr)
    n = len(study.vectors)
    value = {t: c * np.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t, c in counts.items()}
    return {t: float(counts[t]) for t in sorted(value, key=value.get, reverse=True)[:keep]}


def lexical_rows(study: Study, weights: dict[int, float], depth: int = 1000):
    return top_rows(study.bm25(weights), depth)


# -- the studies ---------------------------------------------------------------
def study_fusion(study: Study) -> list[str]:
    names = []
    for weight, depth in itertools.product((0.3, 0.4, 0.5, 0.6, 0.7), (50, 100, 200, 1000)):
        name = f"blend w={weight} depth={depth}"
        study.run(name, lambda c, w=weight, d=depth: hybrid(c.dense, c.lexical, w, d))
        names.append(name)
    for k in (10, 60):
        name = f"rrf k={k} depth=100"
        study.run(name, lambda c, k=k: reciprocal_rank_fusion(
            [c.dense[0][:100], c.lexical[0][:100]], k)[0])
        names.append(name)
    return names


def study_rocchio(study: Study) -> list[str]:
    names = []
    for k, beta in itertools.product((3, 5, 10), (0.5, 1.0, 2.0)):
        name = f"rocchio k={k} beta={beta}"

        def fn(c, k=k, beta=beta):
            first = hybrid(c.dense, c.lexical)
            return hybrid(study.dense(rocchio(study, c, first, k, beta), 100), c.lexical)
        study.run(name, fn)
        names.append(name)
    return names


def study_rm3(study: Study) -> list[str]:
    names = []
    for k, terms, alpha, idf in itertools.product((5, 10), (10, 30), (0.3, 0.5, 0.7),
                                                  (False, True)):
        name = f"rm3 k={k} terms={terms} alpha={alpha}{' idf' if idf else ''}"

        def fn(c, k=k, terms=terms, alpha=alpha, idf=idf):
            first = hybrid(c.dense, c.lexical)
            weights = rm3_weights(study, c, first, k, terms, alpha, idf)
            return hybrid(c.dense, lexical_rows(study, weights, 100))
        study.run(name, fn)
        names.append(name)
    return names


def study_prune(study: Study) -> list[str]:
    names = []
    for keep in (10, 20, 30, 50):
        name = f"prune keep={keep}"
        study.run(name, lambda c, keep=keep: hybrid(
            c.dense, lexical_rows(study, pruned_weights(study, c.text, keep), 100)))
        names.append(name)
    return names


def pooled_rocchio(study: Study, c: Case, weight: float, depth: int, k: int, beta: float,
                   lexical=None) -> np.ndarray:
    """What a cheap feedback stage can do: first-pass hybrid, then the Rocchio vector
    re-scores only the first pass's candidates (both channels' top `depth`), fused again."""
    lexical = lexical or c.lexical
    first = hybrid(c.dense, lexical, weight, depth)
    target = rocchio(study, c, first, k, beta)
    pool = np.union1d(c.dense[0][:depth], lexical[0][:depth])
    cosines = study.vectors[pool] @ target
    order = np.argsort(-cosines, kind="stable")[:depth]
    return hybrid((pool[order], cosines[order]), lexical, weight, depth)


def study_combo(study: Study) -> list[str]:
    names = []
    for depth, weight in itertools.product((100, 1000), (0.4, 0.5, 0.6)):
        name = f"blend w={weight} depth={depth}"
        study.run(name, lambda c, w=weight, d=depth: hybrid(c.dense, c.lexical, w, d))
        names.append(name)
        for k, beta in itertools.product((3, 5), (0.5, 1.0)):
            name = f"pooled rocchio w={weight} depth={depth} k={k} beta={beta}"
            study.run(name, lambda c, w=weight, d=depth, k=k, b=beta:
                      pooled_rocchio(study, c, w, d, k, b))
            names.append(name)
    return names


def study_papers(study: Study) -> list[str]:
    """RM3 on top of (pooled) Rocchio, for `similar` (paper queries only)."""
    names = []
    for depth, weight, (k, terms, alpha) in itertools.product(
            (100, 1000), (0.5, 0.6), ((10, 10, 0.7), (5, 30, 0.7), (10, 30, 0.5))):
        name = f"rm3 k={k} terms={terms} alpha={alpha} idf + rocchio w={weight} depth={depth}"

        def fn(c, w=weight, d=depth, k=k, terms=terms, alpha=alpha):
            first = hybrid(c.dense, c.lexical, w, d)
            weights = rm3_weights(study, c, first, k, terms, alpha, True)
            return pooled_rocchio(study, c, w, d, 3, 1.0, lexical_rows(study, weights, d))
        study.run(name, fn, sets=["papers"])
        names.append(name)
    return names


def field_index(texts: list[str], tokenize):
    """A BM25 index (bm25s, same settings as the lexical channel) of one field per paper."""
    import bm25s

    retriever = bm25s.BM25(k1=0.9, b=0.4, method="lucene")
    retriever.index([tokenize(t) for t in texts], show_progress=False)
    return retriever


def field_scores(retriever, tokens: list[str]) -> np.ndarray:
    ids = [retriever.vocab_dict[t] for t in tokens if t in retriever.vocab_dict]
    if not ids:
        return np.zeros(retriever.scores["num_docs"], dtype=np.float32)
    return np.asarray(retriever.get_scores_from_ids(ids), dtype=np.float32)


def study_fields(study: Study) -> list[str]:
    """Title (and keyword) boosting: BM25(all) + boost * BM25(title field) as the lexical
    channel, then the shipped hybrid (200 candidates, feedback). Measures what lexical.py
    could do; the first row is the shipped ranking without boosting."""
    papers = study.ex.papers
    tokenize = study.raw.tokenize
    titles = field_index([p.title if not p.title_is_derived else "" for p in papers], tokenize)
    keywords = field_index([" ".join(p.keywords) for p in papers], tokenize)
    names = ["w=0.5 depth=200 docs=3 beta=0.5"]
    study.run(names[0], lambda c: shipped(study, c, 0.5, 200, 3, 0.5))
    extra = {}
    for set_name, cases in study.cases.items():
        for c in cases:
            tokens = tokenize(c.text)
            extra[(set_name, c.query_id)] = (field_scores(titles, tokens),
                                             field_scores(keywords, tokens))
    for boost_title, boost_keywords in ((0.25, 0), (0.5, 0), (1.0, 0), (0, 0.25), (0, 0.5),
                                        (0.5, 0.25)):
        name = f"fields title={boost_title} keywords={boost_keywords}"

        def fn(c, bt=boost_title, bk=boost_keywords):
            title, keyword = extra[(c.set_name, c.query_id)]
            weights = dict(study.term_counts(c.text))
            scores = study.bm25(weights) + bt * title + bk * keyword
            lexical = top_rows(scores, 200)
            first = hybrid(c.dense, lexical, 0.5, 200)
            moved = feedback_channel(study.vectors, c.vector, first,
                                     [c.dense[0][:200], lexical[0]], 200)
            return hybrid(moved, lexical, 0.5, 200)
        study.run(name, fn)
        names.append(name)
    return names


def shipped(study: Study, c: Case, weight: float, depth: int, docs: int, beta: float):
    """The shipped stage (explorer.feedback.feedback_channel) on this query's channels."""
    if docs == 0:
        return hybrid(c.dense, c.lexical, weight, depth)
    return hybrid(moved_dense(study.vectors, c, weight, depth, docs, beta), c.lexical, weight,
                  depth)


def moved_dense(vectors: np.ndarray, c: Case, weight: float = 0.5, depth: int = 200,
                docs: int = 3, beta: float = 0.5, extra: tuple = ()):
    """The dense channel after the shipped feedback pass (rows, cosines), at most `depth` rows;
    the pool it re-scores is both channels' top `depth` plus the row arrays in `extra`."""
    first = hybrid(c.dense, c.lexical, weight, depth)
    return feedback_channel(vectors, c.vector, first,
                            [c.dense[0][:depth], c.lexical[0][:depth], *extra], depth, docs, beta)


def study_shipped(study: Study) -> list[str]:
    """The grid the default was chosen from, run through the shipped feedback code."""
    names = []
    grid = [(0, 0.0)] + list(itertools.product((1, 2, 3, 5, 10), (0.25, 0.5, 1.0, 2.0)))
    for weight, depth, (docs, beta) in itertools.product((0.4, 0.5, 0.6), (100, 200), grid):
        name = f"w={weight} depth={depth} " + (f"docs={docs} beta={beta}" if docs else
                                                 "no feedback")
        study.run(name, lambda c, w=weight, d=depth, k=docs, b=beta: shipped(study, c, w, d, k, b))
        names.append(name)
    return names


STUDIES = {"fusion": study_fusion, "rocchio": study_rocchio, "rm3": study_rm3,
           "prune": study_prune, "combo": study_combo, "papers": study_papers,
           "shipped": study_shipped,
           "fields": study_fields}


def report(study: Study, names: list[str], title: str) -> dict:
    sets = [s for s in study.cases if all(s in study.results[n] for n in names)]
    print(f"\n## {title}\nconfig | " + " | ".join(f"{s} (f0/f1/all)" for s in sets) + " | ms/q")
    for name in names:
        cells = [f"{study.mean(name, s, 0):.4f}/{study.mean(name, s, 1):.4f}/"
                 f"{study.mean(name, s):.4f}" for s in sets]
        print(f"{name} | " + " | ".join(cells) + f" | {study.seconds[name]:.1f}")
    cv = {"papers": study.cross_validate(names, ("papers",))}
    if all(s in sets for s in SEARCH_SETS):
        cv["search"] = study.cross_validate(names, SEARCH_SETS)
        cv["one setting for all"] = study.cross_validate(names, (*SEARCH_SETS, "papers"))
    for key, group in (("search", SEARCH_SETS), ("papers", ("papers",)),
                       ("one setting for all", (*SEARCH_SETS, "papers"))):
        if key in cv:
            cv[key]["best on all queries (not a result)"] = max(
                names, key=lambda n: np.mean([study.mean(n, s) for s in group]))
    print("2-fold CV:", json.dumps(cv))
    return cv


def study_parser(doc: str) -> argparse.ArgumentParser:
    """The arguments every study takes: the dataset, the index, an optional JSON output."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--output", type=Path)
    return parser


def write_configs(path: Path, study: Study, names: list[str], cv: dict) -> None:
    """Each config's mean metrics per set (and ms per query), with the CV summary, as JSON."""
    table = {n: {s: {m: round(study.mean(n, s, metric=m), 4)
                     for m in ("ndcg@10", "recall@10", "recall@100", "mrr@10")}
                 for s in study.results[n]} | {"ms_per_query": study.seconds[n]}
             for n in names}
    path.write_text(json.dumps({"configs": table, "cv": cv}, indent=1))


def main() -> None:
    parser = study_parser(__doc__)
    parser.add_argument("--only", nargs="+", default=list(STUDIES), choices=list(STUDIES))
    args = parser.parse_args()
    started = time.perf_counter()
    explorer = Explorer.open(args.index)
    study = Study(explorer, load_cases(explorer, args.dataset))
    print(f"{len(explorer.papers)} papers, cases ready in {time.perf_counter() - started:.0f} s")
    study.run("baseline hybrid", lambda c: hybrid(c.dense, c.lexical))
    study.run("lexical", lambda c: c.lexical[0])
    study.run("dense", lambda c: c.dense[0])
    report(study, ["lexical", "dense", "baseline hybrid"], "reference")
    summary = {}
    for name in args.only:
        names = STUDIES[name](study)
        summary[name] = report(study, ["baseline hybrid", *names], name)
    if args.output:
        write_configs(args.output, study, list(study.results), summary)


if __name__ == "__main__":
    main()
