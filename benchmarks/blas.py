"""OpenBLAS's kernels: FAISS's matrix products under each kernel set, and whether they are right.

FAISS's wheel bundles OpenBLAS 0.3.15, which picks its kernels when it loads: from the CPU's
model number, or from OPENBLAS_CORETYPE when the environment names some (some machines here
name them, since older OpenBLAS builds compute wrong results or crash on their CPU). Its
products run the relatives' self-join of a build (`index/pairs.py`: every paper searched
against the index, 4,096 at a time) and the scan of several questions at once.

Each row is a new process (the kernels are chosen at load) that searches the first --rows
vectors of the ~92k index against all of them for their 21 nearest (one block of the
self-join) with FAISS, timed over --repeats runs (median), and checks the result against a
float64 NumPy product (on the first 512 rows): the largest score error and the share of
rows whose 21 neighbours differ beyond ties. Rows: the environment as it is (the product's
setting; nothing here changes it), then each named kernel set (OPENBLAS_L2_SIZE left as the
environment has it).
A kernel set that crashes or errs is reported, not fatal. Not a product path: what the
product runs is the first row; the others say what this CPU's OpenBLAS could do.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from benchmarks.common import ROOT, save
from benchmarks.indexes import existing

KERNELS = ("Haswell", "SkylakeX", "Zen", "Prescott")
CHILD = """
import json, statistics, sys, time
import faiss, numpy as np
from threadpoolctl import threadpool_info
from explorer.artifacts.store import load_artifacts
from pathlib import Path
vectors = np.array(load_artifacts(Path(sys.argv[1])).index.vectors())
rows, repeats = int(sys.argv[2]), int(sys.argv[3])
index = faiss.IndexFlatIP(vectors.shape[1])
index.add(vectors)
queries = vectors[:rows]
times = []
for _ in range(repeats):
    started = time.perf_counter()
    scores, found = index.search(queries, 21)
    times.append(time.perf_counter() - started)
checked = slice(0, 512)  # the kernels' correctness, on the first 512 rows' results
exact = queries[checked].astype(np.float64) @ vectors.T.astype(np.float64)
got = np.take_along_axis(exact, found[checked], axis=1)
error = float(np.abs(got - scores[checked]).max())
kth = -np.partition(-exact, 20, axis=1)[:, 20]
wrong = float(np.mean((got < kth[:, None] - 1e-5).any(axis=1)))
arch = [i.get("architecture") for i in threadpool_info()
        if "faiss" in i.get("filepath", "") and i.get("internal_api") == "openblas"]
print(json.dumps({"seconds": statistics.median(times), "error": error, "wrong_rows": wrong,
                  "faiss_kernels": arch[0] if arch else "?"}))
"""


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run blas")
    parser.add_argument("--size", type=int, default=91808)
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    folder, _ = existing(args.size)
    named = os.environ.get("OPENBLAS_CORETYPE")
    rows = [_measure(folder, args, None, f"as the environment has it ({named or 'unset'})")]
    for kernels in KERNELS:
        rows.append(_measure(folder, args, kernels, f"OPENBLAS_CORETYPE={kernels}"))
    product = rows[0].get("seconds")
    for row in rows:
        if product and row.get("seconds"):
            row["vs_product"] = f"{product / row['seconds']:.2f}x"
    save("blas", f"FAISS's search of {args.rows:,} vectors against {args.size:,} (21 nearest: one "
         "block of the relatives' self-join) under each OpenBLAS kernel set", rows,
         ["setting", "faiss_kernels", "seconds", "vs_product", "error", "wrong_rows", "outcome"],
         notes=__doc__.strip())


def _measure(folder, args, kernels: str | None, label: str) -> dict:
    env = dict(os.environ)
    if kernels is not None:
        env["OPENBLAS_CORETYPE"] = kernels
    command = [sys.executable, "-c", CHILD, str(folder), str(args.rows), str(args.repeats)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT,
                            check=False, timeout=1800)
    if result.returncode != 0:
        tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return {"setting": label, "outcome": f"failed (exit {result.returncode}): {tail}"}
    found = json.loads(result.stdout.strip().splitlines()[-1])
    outcome = "right" if found["wrong_rows"] == 0 and found["error"] < 1e-4 else "WRONG RESULTS"
    return {"setting": label, **found, "seconds": round(found["seconds"], 3),
            "error": f"{found['error']:.1e}", "outcome": outcome}
