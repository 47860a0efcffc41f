"""OpenBLAS's kernels: one block of the relatives' self-join under each kernel set, by FAISS's
search and by the product's, and whether they are right.

FAISS's wheel bundles OpenBLAS 0.3.15, which picks its kernels when it loads: from the CPU's
model number (a CPU newer than that release gets old SSE kernels), or from OPENBLAS_CORETYPE
when the environment names some (some machines here name them, since older OpenBLAS builds
compute wrong results or crash on their CPU). Its products ran the relatives' self-join of a
build (`index/pairs.py`: every paper searched against the index, 4,096 at a time). The
product now multiplies such searches with numpy's newer OpenBLAS where that one's kernels are
wider (`explorer/index/blas.py`), and keeps FAISS's search elsewhere.

Each row is a new process (the kernels are chosen at load) that searches the first --rows
vectors of the ~92k index against all of them for their 21 nearest, timed over --repeats
runs (median; the three alternate): FAISS's own search (faiss_s), the product's
(`VectorIndex.search`, product_s: FAISS's or numpy's products, as `index/blas.py` chooses
here) and the numpy path whatever the choice (`blas.knn`, numpy_s: what the choice weighs),
each checked against a float64 NumPy product on the first 512 rows (the largest score error
of the three; WRONG when a row's 21 neighbours differ beyond ties). Rows: the environment as
it is; each named kernel set for both OpenBLAS copies (OPENBLAS_L2_SIZE as the environment
has it); where the environment names kernels, a child without OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE (a machine that sets neither: each OpenBLAS places the CPU itself); and
FAISS's copy alone on Prescott (set after numpy has loaded its own), as on a CPU that FAISS's
OpenBLAS cannot place and numpy's can. With --join, those three rows also time the whole
self-join of the index (`index/pairs.near_pairs` at the build's floor: join_faiss_s with FAISS's
products, join_product_s with the product's choice) and compare the pairs found. A kernel set
that crashes or errs is reported, not fatal.
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
UNNAMED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")  # unset together, as the env README says
CHILD = """
import json, os, statistics, sys, time
import numpy as np  # numpy's OpenBLAS picks its kernels now
if sys.argv[4] != "-":  # FAISS's alone: a CPU that its older OpenBLAS cannot place
    os.environ["OPENBLAS_CORETYPE"] = sys.argv[4]
import faiss
from pathlib import Path
from explorer.artifacts.store import load_artifacts
from explorer.index import blas
product = load_artifacts(Path(sys.argv[1])).index
vectors = np.array(product.vectors())
rows, repeats = int(sys.argv[2]), int(sys.argv[3])
index = faiss.IndexFlatIP(vectors.shape[1])
index.add(vectors)
queries = vectors[:rows]

def timed(*searches):  # alternating, so that neither pays alone for a warmer or busier turn
    times, found = [[] for _ in searches], [None for _ in searches]
    for _ in range(repeats):
        for number, search in enumerate(searches):
            started = time.perf_counter()
            found[number] = search(queries, 21)
            times[number].append(time.perf_counter() - started)
    return [statistics.median(t) for t in times], found

def numpy_search(queries, top_k):  # the product's numpy path, whichever path it chooses here
    return blas.knn(vectors, queries, top_k)

(faiss_s, product_s, numpy_s), found = timed(index.search, product.search, numpy_search)
exact = queries[:512].astype(np.float64) @ vectors.T.astype(np.float64)  # on the first 512 rows
kth = -np.partition(-exact, 20, axis=1)[:, 20]

def checked(answer):  # the largest score error, the share of rows with a wrong neighbour
    got = np.take_along_axis(exact, answer[1][:512], axis=1)
    wrong = (got < kth[:, None] - 1e-5).any(axis=1)
    return float(np.abs(got - answer[0][:512]).max()), float(np.mean(wrong))

kernels = blas.kernels()
joins = {}
if sys.argv[5] == "join":  # the whole self-join of a build's relatives step, both ways
    from explorer.features.relatives.stage import FLOOR
    from explorer.index.pairs import NEIGHBOURS, near_pairs
    chosen = blas.numpy_multiplies()
    for name, numpy_products in (("join_faiss_s", False), ("join_product_s", chosen)):
        blas.numpy_multiplies = lambda numpy_products=numpy_products: numpy_products
        started = time.perf_counter()
        joins[name[:-2]] = near_pairs(product, FLOOR, NEIGHBOURS)
        joins[name] = time.perf_counter() - started
    faiss_pairs, product_pairs = joins.pop("join_faiss"), joins.pop("join_product")
    kept = [set(map(tuple, pairs.rows.tolist())) for pairs in (faiss_pairs, product_pairs)]
    same = np.array_equal(faiss_pairs.rows, product_pairs.rows)  # also in the same order
    joins["join_pairs"] = f"{len(product_pairs):,}" + (
        "" if same else f" ({len(kept[0] ^ kept[1])} differ)")
print(json.dumps({**joins, "faiss_s": faiss_s, "product_s": product_s, "numpy_s": numpy_s,
                  "faiss_kernels": kernels.get("faiss", "?"),
                  "numpy_kernels": kernels.get("numpy", "?"),
                  "products": "numpy's" if blas.numpy_multiplies() else "FAISS's",
                  "checks": [checked(answer) for answer in found]}))
"""


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run blas")
    parser.add_argument("--size", type=int, default=91808)
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--join", action="store_true",
                        help="also time the whole self-join (every row) both ways, in the "
                        "rows where the product multiplies with numpy's BLAS and the first")
    args = parser.parse_args(argv)
    folder, _ = existing(args.size)
    named = os.environ.get("OPENBLAS_CORETYPE")
    env = dict(os.environ)
    unnamed = {key: value for key, value in env.items() if key not in UNNAMED}
    rows = [_measure(folder, args, env, "-", f"as the environment has it ({named or 'unset'})",
                     join=True)]
    for kernels in KERNELS:
        rows.append(_measure(folder, args, {**env, "OPENBLAS_CORETYPE": kernels}, "-",
                             f"OPENBLAS_CORETYPE={kernels}"))
    if named:
        rows.append(_measure(folder, args, unnamed, "-", "none named (as on a machine that "
                             "sets neither OPENBLAS_CORETYPE nor OPENBLAS_L2_SIZE)", join=True))
    rows.append(_measure(folder, args, env, "Prescott", "FAISS's alone on Prescott, numpy's as "
                         "the environment has it (a CPU newer than FAISS's OpenBLAS)", join=True))
    environment = rows[0].get("faiss_s")
    for row in rows:
        if environment and row.get("faiss_s"):
            row["faiss_vs_environment"] = f"{environment / row['faiss_s']:.2f}x"
        for side in ("product", "numpy"):
            if row.get(f"{side}_s") and row.get("faiss_s"):
                row[f"{side}_vs_faiss"] = f"{row['faiss_s'] / row[f'{side}_s']:.2f}x"
    save("blas", f"One block of the relatives' self-join ({args.rows:,} vectors against "
         f"{args.size:,}, 21 nearest): FAISS's search and the product's under each OpenBLAS "
         "kernel set", rows,
         ["setting", "faiss_kernels", "numpy_kernels", "products", "faiss_s", "product_s",
          "product_vs_faiss", "numpy_s", "numpy_vs_faiss", "faiss_vs_environment", "error",
          "outcome"]
         + (["join_faiss_s", "join_product_s", "join_pairs"] if args.join else []),
         notes=__doc__.strip())


def _measure(folder, args, env: dict[str, str], faiss_alone: str, label: str,
             join: bool = False) -> dict:
    command = [sys.executable, "-c", CHILD, str(folder), str(args.rows), str(args.repeats),
               faiss_alone, "join" if join and args.join else "-"]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT,
                            check=False, timeout=1800)
    if result.returncode != 0:
        tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return {"setting": label, "outcome": f"failed (exit {result.returncode}): {tail}"}
    found = json.loads(result.stdout.strip().splitlines()[-1])
    error = max(check[0] for check in found["checks"])
    wrong = sum(check[1] for check in found["checks"])
    outcome = "right" if wrong == 0 and error < 1e-4 else "WRONG RESULTS"
    seconds = {key: round(found[key], 3) for key in ("faiss_s", "product_s", "numpy_s")}
    joins = {key: round(found[key], 1) for key in ("join_faiss_s", "join_product_s") if key in found}
    return {"setting": label, **found, **seconds, **joins, "error": f"{error:.1e}",
            "outcome": outcome}
