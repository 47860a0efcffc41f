"""Embedding with Ray Data (`--engine ray`) by number of workers, beside the local engine.

The same real paperlists-ml abstracts are embedded by the local `Embedder` (every core, the
default backend) and by `RayEmbedder` on a local Ray instance with 1, 2, ... actors (one CPU
each, one model each). The time of a Ray row includes what a build pays per block: starting
the actors and loading their models; Ray itself is started before timing (a cluster is already
running). The ratio is abstracts/s against one Ray worker: how throughput scales with workers.
On this 2-core machine the local engine already uses both cores, so Ray cannot beat it here;
the rows say what one more worker (a core of a cluster) adds.

`--cluster`: the same on a multi-node cluster simulated here (benchmarks/ray_cluster.py): a head
without CPUs and worker nodes of one CPU each, separate `ray start` processes; this process is
the driver, connected by address. First one worker node, then a second joins: the rows are
1 and 2 nodes, one actor each.
"""

from __future__ import annotations

import argparse
import os
import time

from benchmarks.common import load_abstracts, machine, paper_text, save
from explorer.model.distributed import RayEmbedder
from explorer.model.embedder import Embedder, resolve_model


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run ray")
    parser.add_argument("--n", type=int, default=1000, help="abstracts (default 1000)")
    parser.add_argument("--workers", default="1,2", help="actor counts to measure")
    parser.add_argument("--cluster", action="store_true",
                        help="on a simulated multi-node cluster: 1, then 2 worker nodes")
    args = parser.parse_args(argv)
    import ray

    texts = [paper_text(r) for r in load_abstracts(args.n)]
    spec = resolve_model("default")
    if args.cluster:
        return _on_cluster(ray, spec, texts)
    ray.init(num_cpus=max(int(w) for w in args.workers.split(",")), include_dashboard=False,
             log_to_driver=False)
    try:
        rows = [_row("local engine (all cores)", Embedder(spec), texts)]
        for workers in (int(w) for w in args.workers.split(",")):
            rows.append(_row(f"ray, {workers} worker(s)", RayEmbedder(spec, workers=workers),
                             texts))
    finally:
        ray.shutdown()
    one = next(r["abstracts_per_s"] for r in rows if r["engine"].startswith("ray, 1 "))
    for row in rows:
        row["vs_one_ray_worker"] = round(row["abstracts_per_s"] / one, 2)
    save("ray", f"Embedding with Ray Data by workers, {args.n} paperlists-ml abstracts", rows,
         ["engine", "seconds", "abstracts_per_s", "vs_one_ray_worker", "backend"],
         notes=__doc__.strip())


def _on_cluster(ray, spec, texts: list[str]) -> None:
    from benchmarks.ray_cluster import LocalCluster

    rows = [_row("local engine (all cores, no Ray)", Embedder(spec), texts)]
    with LocalCluster(workers=1) as cluster:
        os.environ.update(cluster.driver_env)
        ray.init(address=cluster.address, log_to_driver=False)
        try:
            rows.append(_row("cluster, 1 worker node", RayEmbedder(spec, workers=1), texts))
            cluster.add_worker()
            rows.append(_row("cluster, 2 worker nodes", RayEmbedder(spec, workers=2), texts))
        finally:
            ray.shutdown()
    for row in rows:
        row["vs_one_worker_node"] = round(row["abstracts_per_s"] / rows[1]["abstracts_per_s"], 2)
    save(f"ray-cluster-{machine()['cpu_id']}", "Embedding with Ray Data on a simulated "
         f"3-node cluster, {len(texts)} paperlists-ml abstracts", rows,
         ["engine", "seconds", "abstracts_per_s", "vs_one_worker_node", "backend"],
         notes=__doc__.strip())


def _row(engine: str, embedder, texts: list[str]) -> dict:
    started = time.perf_counter()
    embedder.embed_documents(texts)
    seconds = time.perf_counter() - started
    return {"engine": engine, "seconds": round(seconds, 1),
            "abstracts_per_s": round(len(texts) / seconds, 1),
            "backend": str(embedder.info.get("backend"))}
