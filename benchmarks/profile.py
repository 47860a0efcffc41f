"""Where one query's time goes, stage by stage, end to end (issue 12: "find where the time goes
on each CPU").

Product: `Explorer.search(query, top_k=10)` in its default mode plus `Hit.to_dict` (what the
CLI prints), timed as a whole and, in the same calls, per stage by timers wrapped around the
functions the engine calls (the engine itself runs unchanged): tokenize (the tokenizer and the
input arrays: embedding minus the model run), the model run (ONNX Runtime / OpenVINO), the
dense channel (FAISS search), the lexical channel (BM25), fusion (both passes), the feedback
pass, the hits' cosines and the cut to top_k (what is left of pipeline.run), the badges (each
hit's score placed among the stored quantiles), the hit records (Hit objects, options, plan and
filters: what is left of `Explorer.rank`) and `to_dict`; "other" is the end-to-end time minus
every stage (the question batcher, Python calls between the stages).
Baseline: the plain script of `benchmarks.run query` (sentence-transformers fp32 encode, NumPy
`vectors @ q`, top 10 by argpartition, records as dicts), its three stages timed the same way.
Product and baseline alternate by pass over the 16 queries, with a pause before each pass
(common.settle); the first (warm-up) query of each is not counted. Stage times are medians
over the queries, so they need not add up to the end-to-end median exactly (and a stage's p99
is its own slowest query's). The CPU time row
counts every thread of the process (FAISS's parallel ranges, ONNX Runtime's threads): other
processes' load changes it less than wall time. The last row embeds the same questions through
`embed_queries` (the path of documents: an ONNX Runtime session with a thread per core), in a
pass of its own, to compare with the question path's one-thread run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from benchmarks.common import QUERIES, plain_model, save, settle, timed
from benchmarks.indexes import existing, real_note
from explorer.model.backends import BACKENDS
from explorer.query import engine
from explorer.query.engine import Explorer
from explorer.ranking import calibration, pipeline, policy
from explorer.ranking.channels import DenseChannel, LexicalChannel

TOP_K = 10
CPU = "end to end, CPU time of the process (all threads)"
BULK = "(not in the total) the question on the documents' session, a thread per core"
STAGES = ("tokenize", "model run", "dense search (FAISS)", "lexical (BM25)", "fusion",
          "feedback pass", "cosines and cut", "badges", "hit records", "records to_dict", "other")


class Stopwatch:
    """Seconds spent per stage during the current query (reset per query)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)

    def wrap(self, stage: str, function: Callable) -> Callable:
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[stage] += time.perf_counter() - started

        return timed

    @contextmanager
    def stage(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        self.spent[stage] += time.perf_counter() - started


@contextmanager
def instrumented(explorer: Explorer, watch: Stopwatch) -> Iterator[None]:
    """Timers around the functions one search calls, removed afterwards."""
    model = explorer.embedder._exported  # the exported model's question runs (not torch)
    if model is None:
        raise SystemExit("profile times an exported backend (onnx, onnx-int8, openvino)")
    fusion, weights = policy.HYBRID_FUSION
    saved = [(DenseChannel, "top", DenseChannel.top), (LexicalChannel, "top", LexicalChannel.top),
             (pipeline, "feedback_channel", pipeline.feedback_channel),
             (policy, "HYBRID_FUSION", policy.HYBRID_FUSION), (engine, "run", engine.run),
             (calibration.Scale, "place", calibration.Scale.place),
             (model, "_run_query", model._run_query)]
    DenseChannel.top = watch.wrap("dense", DenseChannel.top)
    LexicalChannel.top = watch.wrap("lexical", LexicalChannel.top)
    pipeline.feedback_channel = watch.wrap("feedback", pipeline.feedback_channel)
    policy.HYBRID_FUSION = (watch.wrap("fusion", fusion), weights)
    engine.run = watch.wrap("pipeline", engine.run)
    calibration.Scale.place = watch.wrap("badges", calibration.Scale.place)
    # Explorer.search embeds its questions through embed_asked_together (even one at a time)
    explorer.embedder.embed_asked_together = watch.wrap(
        "embed", explorer.embedder.embed_asked_together)
    model._run_query = watch.wrap("model", model._run_query)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
        del explorer.embedder.embed_asked_together  # back to the class's own


def product_stages(explorer: Explorer, query: str) -> dict[str, float]:
    """One query through the product, with its stages, in ms."""
    watch = Stopwatch()
    with instrumented(explorer, watch):
        cpu, started = time.process_time(), time.perf_counter()
        with watch.stage("rank+embed"):
            hits = explorer.search(query, top_k=TOP_K)
        with watch.stage("to_dict"):
            records = [hit.to_dict() for hit in hits]
        total, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert len(records) == TOP_K, query
    spent = watch.spent
    stages = {"tokenize": spent["embed"] - spent["model"], "model run": spent["model"],
              "dense search (FAISS)": spent["dense"], "lexical (BM25)": spent["lexical"],
              "fusion": spent["fusion"], "feedback pass": spent["feedback"],
              "badges": spent["badges"], "records to_dict": spent["to_dict"]}
    stages["cosines and cut"] = spent["pipeline"] - sum(
        spent[name] for name in ("dense", "lexical", "fusion", "feedback"))
    rank = spent["rank+embed"] - spent["embed"]
    stages["hit records"] = rank - spent["pipeline"] - spent["badges"]
    stages["other"] = total - sum(stages.values())
    return {name: 1000 * value for name, value in
            {**stages, "end to end": total, CPU: cpu}.items()}


def baseline_stages(model, vectors: np.ndarray, papers, query: str) -> dict[str, float]:
    """One query through the plain baseline of benchmarks.query, with its stages, in ms."""
    watch = Stopwatch()
    cpu, started = time.process_time(), time.perf_counter()
    with watch.stage("model run"):
        vector = model.encode(query)
        vector = vector / np.linalg.norm(vector)
    with watch.stage("dense search (FAISS)"):
        scores = vectors @ vector
        top = np.argpartition(-scores, TOP_K)[:TOP_K]
        top = top[np.argsort(-scores[top])]
    with watch.stage("records to_dict"):
        _ = [{**papers[i].to_dict(), "score": float(scores[i])} for i in top]
    total, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {**{k: 1000 * v for k, v in watch.spent.items()}, "end to end": 1000 * total,
            CPU: 1000 * cpu}


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run profile")
    parser.add_argument("--size", type=int, default=91808)
    parser.add_argument("--index", type=Path, help="a built index folder instead of --size")
    parser.add_argument("--backend", choices=BACKENDS, default="auto")
    parser.add_argument("--repeats", type=int, default=4, help="passes over the 16 queries")
    args = parser.parse_args(argv)
    folder, real = (args.index, None) if args.index else existing(args.size)
    explorer = Explorer.open(folder, backend=args.backend)
    model = plain_model()
    vectors, papers = np.array(explorer.vectors), explorer.papers
    product_stages(explorer, QUERIES[0]), baseline_stages(model, vectors, papers, QUERIES[0])
    ours, theirs = defaultdict(list), defaultdict(list)
    for _ in range(args.repeats):
        settle()
        for query in QUERIES:
            for name, ms in product_stages(explorer, query).items():
                ours[name].append(ms)
        for query in QUERIES:  # a pass of its own: the session's spinning threads stay out
            ours[BULK].append(1000 * timed(lambda q=query: explorer.embedder.embed_queries([q]))[0])
        settle()
        for query in QUERIES:
            for name, ms in baseline_stages(model, vectors, papers, query).items():
                theirs[name].append(ms)
    info = explorer.embedder.info
    rows = [_row(stage, ours, theirs) for stage in (*STAGES, "end to end", CPU, BULK)]
    save(f"profile-{info['backend']}", f"One query's time by stage, {len(papers):,} papers "
         f"({explorer.manifest.index_type} index, {real_note(real)}), {explorer.default_mode} mode, "
         f"backend {info['backend']}/{info['precision']}",
         rows, ["stage", "product_p50_ms", "product_p99_ms", "product_share",
                "baseline_p50_ms", "baseline_p99_ms"], notes=__doc__.strip())


def _row(stage: str, ours: dict[str, list[float]], theirs: dict[str, list[float]]) -> dict:
    total = statistics.median(ours["end to end"])
    row = {"stage": stage, "product_p50_ms": round(statistics.median(ours[stage]), 3),
           "product_p99_ms": round(float(np.percentile(ours[stage], 99)), 3)}
    if stage in (*STAGES, "end to end"):
        row["product_share"] = f"{100 * statistics.median(ours[stage]) / total:.0f}%"
    if stage in theirs:
        row.update(baseline_p50_ms=round(statistics.median(theirs[stage]), 3),
                   baseline_p99_ms=round(float(np.percentile(theirs[stage], 99)), 3))
    return row
