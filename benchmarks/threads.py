"""Queries per second from 1 thread and from N threads on one shared Explorer (as the app's
sessions share it), with fresh questions, measured in one run.

    python -m benchmarks.threads --index embeddings [--threads 8] [--backend auto]
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from pathlib import Path

from explorer.model.embedder import BACKENDS
from explorer.query.engine import Explorer

_TOPICS = ["graph networks", "protein folding", "video matting", "chain of thought", "speech",
           "federated learning", "diffusion", "robot grasping", "sparse attention", "segmentation"]
_ASKS = ["how does {} work {}", "recent progress in {} {}", "{} with few labels {}",
         "benchmarks for {} {}", "limits of {} {}"]


def questions(count: int, salt: str) -> list[str]:
    """`count` distinct questions no earlier run asked (`salt` makes them fresh)."""
    base = [ask.format(topic, "") for topic in _TOPICS for ask in _ASKS]
    return [f"{base[i % len(base)]}{salt}{i}" for i in range(count)]


def run(explorer: Explorer, threads: int, per_thread: int, salt: str) -> dict[str, float]:
    """Each of `threads` threads asks `per_thread` fresh questions; all start together."""
    asked = questions(threads * per_thread, salt)
    barrier = threading.Barrier(threads + 1)
    latencies: list[float] = []

    def session(i: int) -> None:
        barrier.wait()
        for question in asked[i::threads]:
            start = time.perf_counter()
            explorer.search(question, top_k=10)
            latencies.append(time.perf_counter() - start)

    workers = [threading.Thread(target=session, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    barrier.wait()
    start = time.perf_counter()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - start
    ordered = sorted(latencies)
    return {"threads": threads, "queries": len(asked), "qps": len(asked) / elapsed,
            "p50_ms": 1000 * statistics.median(ordered),
            "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--per-thread", type=int, default=20)
    parser.add_argument("--backend", choices=BACKENDS, default="auto")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    explorer = Explorer.open(args.index, backend=args.backend)
    explorer.search("warm up the model and the lexical channel")
    print(f"backend {explorer.embedder.backend}/{explorer.embedder.precision}")
    for round_ in range(args.rounds):  # alternate, so machine load hits both alike
        for threads in (1, args.threads):
            per_thread = args.per_thread * args.threads // threads  # same total both ways
            result = run(explorer, threads, per_thread, f" r{round_}t{threads} ")
            print("  ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                            for k, v in result.items()))


if __name__ == "__main__":
    main()
