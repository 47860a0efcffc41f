"""Concurrent answers: N threads asking fresh questions of one shared Explorer at once (as the
app's Streamlit sessions share the cached engine), beside one session, in one run.

Product: `Explorer.search(question, top_k=10)` in its default mode plus `Hit.to_dict`, each
thread a session asking its own questions one after another, all released together. Rows:
the product as shipped (questions that arrive together are answered in batches of up to 4,
one batch per core, each batch's questions embedded in one model run on one thread and then
ranked in turn: Explorer.search, explorer/batching.py), the same with batching off
(`Explorer.open(batch=False)`: every question runs alone), the same again with each question's
model run on an intra-op thread per core (how every question ran before this change), and the
baseline of `benchmarks.run query` (plain
sentence-transformers fp32 encode, NumPy `vectors @ q`, top 10, records as dicts; its encode
behind a lock, since a transformers tokenizer shared by threads raises "Already borrowed").
Every Explorer is opened warm, as the app opens its engine (`warm=True`: the model and its
compiled forms loaded before the first question; without it the first questions asked at once
paid for compiling the form that runs them side by side, 95-165 ms answers in the first
round only). Every variant runs 1 session and N sessions in each round, variants interleaved
(each round starts one variant later, after a pause for the last one's threads to go idle:
common.settle); questions are
5-8 word windows of the index's abstracts, none asked twice in the run. p50/p99 are per
answer over all rounds; answers/s is answers over the phase's wall time; cpu_ms is this
process's CPU time per answer (user + system; all threads), which other processes' load
changes less than wall time.
"""

from __future__ import annotations

import argparse
import os
import resource
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.common import QUERIES, plain_model, plain_top, save, settle
from benchmarks.indexes import existing, real_note
from benchmarks.load import questions
from explorer.model.backends import BACKENDS
from explorer.query.engine import Explorer

TOP_K = 10


def sessions(ask: Callable[[str], object], asked: list[list[str]]) -> tuple[list[float], float,
                                                                            float]:
    """Each list of `asked` is one session's questions, asked in order by its own thread; all
    start together. -> (seconds per answer, wall seconds, CPU seconds of this process)."""
    barrier = threading.Barrier(len(asked) + 1)
    latencies: list[float] = []
    errors: list[BaseException] = []

    def session(mine: list[str]) -> None:
        barrier.wait()
        try:
            for question in mine:
                started = time.perf_counter()
                ask(question)
                latencies.append(time.perf_counter() - started)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    workers = [threading.Thread(target=session, args=(mine,)) for mine in asked]
    for worker in workers:
        worker.start()
    cpu = _cpu_seconds()
    barrier.wait()
    started = time.perf_counter()
    for worker in workers:
        worker.join()
    wall, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    if errors:
        raise errors[0]
    return latencies, wall, cpu


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run concurrent")
    parser.add_argument("--size", type=int, default=91808)
    parser.add_argument("--index", type=Path, help="a built index folder instead of --size")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--questions", type=int, default=16, help="per session and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backend", choices=BACKENDS, default="auto")
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args(argv)
    folder, real = (args.index, None) if args.index else existing(args.size)
    # opened as the app opens its engine: warm (the model and its compiled forms loaded now)
    shipped = Explorer.open(folder, backend=args.backend, warm=True)
    alone = Explorer.open(folder, backend=args.backend, batch=False, warm=True)
    before = Explorer.open(folder, backend=args.backend, batch=False, warm=True)
    _questions_on_every_core(before)
    asks = {"product (batching)": _product(shipped), "product, batching off": _product(alone),
            f"no batching, questions on {_cores()} threads": _product(before)}
    if not args.no_baseline:
        asks["baseline (plain script)"] = _baseline(shipped)
    per_round = args.questions * (args.sessions + 1)
    pool = iter(questions(folder, per_round * len(asks) * args.rounds))
    for ask in asks.values():
        ask(QUERIES[0])  # warm-up: model load, first-call costs
    found: dict[tuple[str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    variants = list(asks.items())
    for turn in range(args.rounds):  # interleaved, so the machine's load hits every variant alike
        for name, ask in variants[turn % len(variants):] + variants[:turn % len(variants)]:
            for count in (1, args.sessions):
                asked = [[next(pool) for _ in range(args.questions)] for _ in range(count)]
                settle()
                latencies, wall, cpu = sessions(ask, asked)
                record = found[(name, count)]
                record["latencies"] += latencies
                record["wall"].append(wall)
                record["cpu"].append(cpu)
                record["load"].append(os.getloadavg()[0])
    rows = _rows(found, args.sessions)
    info = shipped.embedder.info
    save(f"concurrent-{len(shipped.papers)}",
         f"{args.sessions} concurrent sessions vs 1 on one Explorer, {len(shipped.papers):,} "
         f"papers ({real_note(real)}), {shipped.default_mode} mode, backend "
         f"{info['backend']}/{info['precision']}", rows,
         ["variant", "sessions", "answers", "p50_ms", "p99_ms", "answers_per_s", "cpu_ms",
          "throughput_vs_1", "p50_vs_product", "load_1min"], notes=__doc__.strip())


def _product(explorer: Explorer) -> Callable[[str], object]:
    def ask(question: str) -> list[dict]:
        return [hit.to_dict() for hit in explorer.search(question, top_k=TOP_K)]

    return ask


def _questions_on_every_core(explorer: Explorer) -> None:
    """Run `explorer`'s questions on the documents' session (an intra-op thread per core), as
    every question ran before questions got a one-thread session of their own."""
    model = explorer.embedder._exported  # the runtime's private run functions: a benchmark only
    if model is not None:
        model._run_query = model._run


def _cores() -> int:
    return len(os.sched_getaffinity(0))


def _baseline(explorer: Explorer) -> Callable[[str], object]:
    model, vectors, papers = plain_model(), np.array(explorer.vectors), explorer.papers
    lock = threading.Lock()

    def ask(question: str) -> list[dict]:
        with lock:
            vector = model.encode(question)
        return plain_top(vector, vectors, papers, TOP_K)

    return ask


def _rows(found: dict, many: int) -> list[dict]:
    rows = []
    for (name, count), record in found.items():
        answers = len(record["latencies"])
        ms = np.percentile(record["latencies"], [50, 99]) * 1000
        rows.append({"variant": name, "sessions": count, "answers": answers,
                     "p50_ms": round(float(ms[0]), 1), "p99_ms": round(float(ms[1]), 1),
                     "answers_per_s": round(answers / sum(record["wall"]), 1),
                     "cpu_ms": round(1000 * sum(record["cpu"]) / answers, 1),
                     "load_1min": f"{min(record['load']):.1f}-{max(record['load']):.1f}"})
    by_key = {(row["variant"], row["sessions"]): row for row in rows}
    for row in rows:
        single = by_key[(row["variant"], 1)]
        row["throughput_vs_1"] = f"{row['answers_per_s'] / single['answers_per_s']:.2f}x"
        product = by_key[("product (batching)", row["sessions"])]
        row["p50_vs_product"] = f"{row['p50_ms'] / product['p50_ms']:.2f}x"
    return sorted(rows, key=lambda row: (row["sessions"], list(by_key).index(
        (row["variant"], row["sessions"]))))
