"""Explanations without a second model run (issue 12): three sources of sentence vectors against
the one used until now, for quality, build cost and cost per hit.

- today: every sentence embedded on its own at build time (a second pass), stored in fp16;
- (a) pooled: each sentence's token states from the paper's own pass, mean-pooled (sentences
  past the 256-token window from a further window), stored: `build(sentences="pooled")`;
- (b) on demand: today's vectors, embedded for the hits a page shows (fp32);
- (c) second phase: today's vectors, embedded after the index is written and usable (the cost
  moved, not gone): what `build` does now (DECISIONS.md item 7).

(1) Quality, on checked cases: seeds (each paraphrased question of tests/paraphrases.py and its
target, the top 3 hits of explain_cost's questions, the related pairs, every seed's nearest
neighbour) and, given a corpus, the top 5 hits of the benchmark questions and the nearest
neighbours of 50 papers: is the best sentence the same as today's (search: also, is today's
among the 2 highlighted; similar: is the hit's sentence the same)? The differing cases are
written out for a reader to judge (results/explain-judged.md). (2) Build cost on the corpus:
papers alone, today's sentences pass, the pooled pass, wall and CPU, best of --rounds,
interleaved. (3) Per hit: stored vectors against embedding a hit's sentences on demand.

    .venv/bin/python -m studies.explain_options [--sample 1000] [--rounds 2] [--window-stats]
        [--out studies/results/explain-options]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from benchmarks.common import QUERIES, ROOT, cache_dir, load_abstracts, machine
from explorer.corpus.papers import Paper, read_corpus
from explorer.corpus.sentences import split_sentences, text_spans
from explorer.features.explanations.explain import explain_match, explain_pair
from explorer.ingest.run import build
from explorer.model.embedder import Embedder, resolve_model
from explorer.query.engine import Explorer
from studies.explain_cost import QUERIES as SEED_QUERIES
from studies.explain_tables import cases_markdown, report


class Vectors:
    """An Explainable that is `explorer` with other sentence vectors: `source(paper) -> (k, d)`."""

    def __init__(self, explorer: Explorer, source) -> None:
        self.explorer, self.source = explorer, source
        self.paper = explorer.paper
        self.embed_query = explorer.embed_query

    @property
    def lexical(self):
        return self.explorer.lexical

    def sentences(self, paper_id: str) -> tuple[list[tuple[int, int]], np.ndarray]:
        paper = self.explorer.paper(paper_id)
        return split_sentences(paper.abstract), self.source(paper)


class Alone:
    """A paper's sentence vectors, computed when asked and remembered (`memo`): each sentence
    embedded as a text of its own (today's, fp32), or with `pooled` from the paper's own pass
    (Embedder.embed_documents_with_spans, as a pooled build stores them: fp16)."""

    def __init__(self, embedder: Embedder, pooled: bool = False) -> None:
        self.embedder, self.pooled = embedder, pooled
        self.memo: dict[str, np.ndarray] = {}

    def __call__(self, paper: Paper) -> np.ndarray:
        if paper.paper_id not in self.memo:
            if self.pooled:
                _, (vectors,) = self.embedder.embed_documents_with_spans(
                    [paper.text], [text_spans(paper)])
                vectors = vectors.astype(np.float16).astype(np.float32)
            else:
                vectors = self.embedder.embed_documents(
                    [paper.abstract[s:e] for s, e in split_sentences(paper.abstract)])
            self.memo[paper.paper_id] = vectors
        return self.memo[paper.paper_id]


def cases(explorer: Explorer, seeds: bool) -> list[tuple[str, str, str]]:
    """("search", question, paper_id) and ("similar", paper_id, hit's paper_id) cases."""
    found: list[tuple[str, str, str]] = []
    if seeds:
        from tests.paraphrases import PARAPHRASES, RELATED_PAIRS

        def marked(phrase: str) -> str:
            return next(p.paper_id for p in explorer.papers if phrase in p.abstract)
        found += [("search", q, marked(phrase)) for q, phrase in PARAPHRASES]
        found += [("search", q, h.paper_id) for q in SEED_QUERIES for h in explorer.search(q, 3)]
        found += [("similar", marked(a), marked(b)) for a, b, _ in RELATED_PAIRS]
        picked = explorer.papers
    else:
        found += [("search", q, h.paper_id) for q in QUERIES for h in explorer.search(q, 5)]
        rng = np.random.default_rng(0)
        count = min(50, len(explorer.papers))
        picked = [explorer.papers[i] for i in rng.choice(len(explorer.papers), count,
                                                         replace=False)]
    found += [("similar", p.paper_id, explorer.similar(p.paper_id, 1)[0].paper_id)
              for p in picked]
    return found


def picks(view, case: tuple[str, str, str]) -> tuple[list[tuple[int, int]], ...]:
    """Search: the 2 highlighted spans, best first; similar: the best (paper, hit) span pair."""
    kind, subject, paper_id = case
    if kind == "search":
        match = explain_match(view, view.embed_query(subject), paper_id, top_k=2, query=subject)
        return tuple((s.start, s.end) for s in match.sentences)
    pair = explain_pair(view, subject, paper_id, top_k=1)
    return tuple(((a.start, a.end), (b.start, b.end)) for a, b, _ in pair.pairs)


def compare(explorer: Explorer, today, option, found, name: str) -> tuple[dict, list[dict]]:
    """Agreement of `option`'s picks with `today`'s over `found`, and the differing cases."""
    counts = {"search": [0, 0, 0], "similar": [0, 0, 0]}  # cases, same best, today's kept
    differing = []
    for case in found:
        ours, theirs = picks(today, case), picks(option, case)
        if not ours or not theirs:
            continue
        row = counts[case[0]]
        row[0] += 1
        row[1] += ours[0] == theirs[0]
        row[2] += ours[0] in theirs if case[0] == "search" else ours[0][1] == theirs[0][1]
        if ours[0] != theirs[0]:
            differing.append(_described(explorer, case, ours[0], theirs[0], name))
    return counts, differing


def _described(explorer: Explorer, case, ours, theirs, name: str) -> dict:
    kind, subject, paper_id = case
    hit = explorer.paper(paper_id)
    if kind == "search":
        return {"kind": kind, "question": subject, "paper": hit.title, "option": name,
                "today": hit.abstract[slice(*ours)], "other": hit.abstract[slice(*theirs)]}
    paper = explorer.paper(subject)
    return {"kind": kind, "paper": paper.title, "hit": hit.title, "option": name,
            "today": [paper.abstract[slice(*ours[0])], hit.abstract[slice(*ours[1])]],
            "other": [paper.abstract[slice(*theirs[0])], hit.abstract[slice(*theirs[1])]]}


def clocked(function) -> tuple[float, float]:
    """(wall s, CPU s of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def build_cost(embedder: Embedder, papers: list[Paper], rounds: int) -> dict[str, list[float]]:
    """Best (wall s, CPU s) of `rounds` interleaved runs of each pass over `papers`."""
    texts = [p.text for p in papers]
    spans = [text_spans(p) for p in papers]
    sentences = [p.abstract[s:e] for p in papers for s, e in split_sentences(p.abstract)]
    passes = {"papers alone": lambda: embedder.embed_documents(texts),
              "sentences alone (today's second pass)": lambda: embedder.embed_documents(
                  sentences),
              "papers + pooled sentences (a)": lambda: embedder.embed_documents_with_spans(
                  texts, spans)}
    embedder.embed_documents(texts[:8])  # warm up
    best: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, run in passes.items():
            measured = clocked(run)
            best[name] = [min(a, b) for a, b in zip(best.get(name, measured), measured)]
    return best


def per_hit(explorer: Explorer, embedder: Embedder, questions: list[str]) -> dict:
    """ms per hit (wall, CPU) of stored vectors and of embedding each hit's sentences then
    (nothing cached: a hit no page has shown yet)."""
    fresh = Alone(embedder)
    cold = Vectors(explorer, fresh)
    timings: dict[str, list[float]] = {}

    def timed(name: str, function, *args, **keywords) -> None:
        wall, cpu = clocked(lambda: function(*args, **keywords))
        old = timings.get(name, [0.0, 0.0, 0])
        timings[name] = [old[0] + wall, old[1] + cpu, old[2] + 1]

    for question in questions:
        vector = explorer.embed_query(question)
        timed("query embedding (baseline)", embedder.embed_query, question)
        hits = explorer.search_vector(vector, 10)
        for hit in hits:
            timed("search hit, stored vectors", explain_match, explorer, vector, hit.paper_id,
                  query=question)
            fresh.memo.clear()
            timed("search hit, on demand (b)", explain_match, cold, vector, hit.paper_id,
                  query=question)
        first = hits[0].paper_id
        for other in explorer.similar(first, 10):
            timed("similar hit, stored vectors", explain_pair, explorer, first, other.paper_id)
            fresh.memo.clear()
            fresh(explorer.paper(first))  # the open paper's, computed once per page
            timed("similar hit, on demand (b)", explain_pair, cold, first, other.paper_id)
    return {name: [round(1000 * w / n, 2), round(1000 * c / n, 2)]
            for name, (w, c, n) in timings.items()}


def window_stats(embedder: Embedder, papers: list[Paper]) -> dict[str, int]:
    """How many papers run past the model's window and how many sentences end past it (those
    a pooled build takes from a further window)."""
    limit = embedder.max_seq_length
    long = [p for p in papers if embedder.token_count(p.text) > limit]
    past = sum(embedder.token_count(p.text[:end]) > limit  # special tokens included
               for p in long for _, end in text_spans(p))
    return {"papers": len(papers), "papers past the window": len(long),
            "sentences": sum(len(split_sentences(p.abstract)) for p in papers),
            "sentences past the window": past}


def sample_corpus(count: int) -> Path:
    """`count` random paperlists-ml records as a JSONL corpus in the study cache."""
    path = cache_dir() / "study" / f"explain-sample-{count}.jsonl"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [{"id": r["doc_id"], "title": r["title"], "abstract": r["abstract"]}
                for r in load_abstracts(count, seed=12)]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def quality(explorer: Explorer, seeds: bool, label: str, results: dict) -> None:
    """Agreement of (a) and (b) with today's picks (the exact vectors the index stores) on
    this index's cases, into `results`."""
    embedder = explorer.embedder
    found = cases(explorer, seeds)
    options = {"(a) pooled": Vectors(explorer, Alone(embedder, pooled=True)),
               "(b) on demand, fp32": Vectors(explorer, Alone(embedder))}
    for option, view in options.items():
        counts, differing = compare(explorer, explorer, view, found, option)
        results["quality"][f"{label} | {option}"] = counts
        results["differing"] += [{"cases": label, **case} for case in differing]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds-index", type=Path, help="an index of seeds/ (built if absent)")
    parser.add_argument("--corpus", type=Path, help="a corpus file (default: a paperlists-ml "
                        "sample of --sample papers; --sample 0: none)")
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--questions", type=int, default=len(QUERIES),
                        help="questions for the cost per hit (10 hits each)")
    parser.add_argument("--cost-papers", type=int, default=0,
                        help="papers of the build-cost passes (default: all of the corpus)")
    parser.add_argument("--work", type=Path, help="where the indexes go (EXPLORER_CACHE/study)")
    parser.add_argument("--window-stats", action="store_true",
                        help="also count window overruns on the whole paperlists-ml corpus")
    parser.add_argument("--out", type=Path, help="write OUT.md, OUT.json, OUT-cases.md")
    args = parser.parse_args(argv)
    study = args.work or cache_dir() / "study"
    seeds_index = args.seeds_index or study / "explain-seeds"
    build([ROOT / "seeds"], seeds_index, "default", sentences=True)  # stored: the reference
    corpus = args.corpus or (sample_corpus(args.sample) if args.sample else None)
    results: dict = {"machine": machine(), "quality": {}, "differing": []}
    quality(Explorer.open(seeds_index), True, "seeds", results)
    explorer = Explorer.open(seeds_index)
    if corpus is not None:
        index = study / f"explain-{corpus.stem}"
        build([corpus], index, "default", sentences=True)
        explorer = Explorer.open(index)
        quality(explorer, False, corpus.stem, results)
    papers = explorer.papers[:args.cost_papers or None]
    results["build"] = build_cost(Embedder(resolve_model("default")), papers, args.rounds)
    results["build_corpus"] = f"{len(papers)} papers of {corpus.name if corpus else 'seeds'}"
    results["per_hit"] = per_hit(explorer, explorer.embedder, QUERIES[:args.questions])
    results["window"] = {f"{len(explorer.papers)} papers": window_stats(explorer.embedder,
                                                                        explorer.papers)}
    if args.window_stats:
        from benchmarks.common import PAPERLISTS

        every = read_corpus([PAPERLISTS]).papers
        results["window"][f"all {len(every)} papers of paperlists-ml"] = window_stats(
            explorer.embedder, every)
    results["load_average"] = [round(x, 2) for x in os.getloadavg()]
    text = report(results)
    print(text)
    if args.out:
        args.out.with_suffix(".md").write_text(text, encoding="utf-8")
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n",
                                                 encoding="utf-8")
        args.out.with_name(args.out.name + "-cases.md").write_text(
            cases_markdown(results["differing"]), encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
