"""Build time, peak memory and index size; adding 100 papers to a built index.

Each measurement runs in a fresh child process that reports its own wall time and peak RSS.
- build N: `explorer.ingest.build` of N paperlists-ml abstracts (embedding included, no
  sentence vectors) beside the plain baseline: `SentenceTransformer.encode` fp32,
  `faiss.IndexFlatIP`, `faiss.write_index`, papers written as JSON lines.
- build N, vectors given: a whole build of the large corpus whose vectors were embedded before
  (the product resumes them from its checkpoint), beside adding them to IndexFlatIP and writing
  the index and the papers: what a 100k build costs besides embedding, and its peak memory.
  Both sides load the prepared index first (inside the timed child).
- add 100: the product's incremental build of a large prepared index (see indexes.py) plus
  100 new papers, beside the plain baseline: encode the 100, `index.add`, write the index.
  The index, its copy and the 100 records are staged before the timed children start; each
  child's time is its whole run (imports and model load included), from the same files.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import load_abstracts, peak_rss_mb, plain_model, save
from benchmarks.indexes import papers_file, prepare, work_dir


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run build")
    parser.add_argument("--n", type=int, nargs="+", default=[2000],
                        help="papers embedded by the build rows (e.g. 2000 10000)")
    parser.add_argument("--large", type=int, default=91808,
                        help="records in the index that gets 100 more (all but 100 of paperlists)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(*args.child)))
        return
    rows = [_pair(f"build {n}", ("product-build", str(n)), ("baseline-build", str(n)), n)
            for n in args.n]
    _stage_add(args.large)
    rows.append(_pair(f"build {args.large}, vectors given", ("product-vectors", str(args.large)),
                      ("baseline-vectors", str(args.large)), args.large))
    rows.append(_pair(f"add 100 to {args.large}", ("product-add", str(args.large)),
                      ("baseline-add", str(args.large)), args.large))
    save("build", "Build and incremental add", rows,
         ["task", "product_s", "baseline_s", "ratio", "product_peak_mb", "baseline_peak_mb",
          "index_bytes_per_paper", "vector_bytes_per_paper"], notes=__doc__.strip())


def _pair(task: str, product: tuple[str, ...], baseline: tuple[str, ...], count: int) -> dict:
    ours, theirs = _spawn(product), _spawn(baseline)
    return {"task": task, "product_s": ours["seconds"], "baseline_s": theirs["seconds"],
            "ratio": round(theirs["seconds"] / ours["seconds"], 2),
            "product_peak_mb": ours["peak_mb"], "baseline_peak_mb": theirs["peak_mb"],
            "index_bytes_per_paper": round(ours["index_bytes"] / count, 1),
            "vector_bytes_per_paper": 384 * 4}


def _spawn(args: tuple[str, ...]) -> dict:
    command = [sys.executable, "-m", "benchmarks.run", "build", "--child", *args]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def _child(task: str, target: str) -> dict:
    started = time.perf_counter()
    if task == "product-build":
        index_bytes = _product_build([papers_file(int(target))], work_dir() / f"build-{target}")
    elif task == "baseline-build":
        index_bytes = _baseline_build(int(target))
    elif task.endswith("-vectors"):
        index_bytes = _build_from_vectors(task, int(target))
    else:
        index_bytes = _add(task, int(target))
    return {"seconds": round(time.perf_counter() - started, 2), "peak_mb": round(peak_rss_mb()),
            "index_bytes": index_bytes}


def _product_build(inputs: list[Path], out: Path, fresh: bool = True) -> int:
    from explorer.artifacts.layout import INDEX
    from explorer.artifacts.store import read_manifest
    from explorer.ingest.run import build

    if fresh:
        shutil.rmtree(out, ignore_errors=True)
    build(inputs, out, "default", sentences=False)
    return read_manifest(out).files[INDEX].size


def _baseline_build(count: int) -> int:
    import faiss

    records = load_abstracts(10**6)[:count]
    model = plain_model()
    vectors = model.encode([f"{r['title']}. {r['abstract']}" for r in records])
    vectors /= ((vectors**2).sum(axis=1, keepdims=True)) ** 0.5
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    out = work_dir() / f"baseline-{count}"
    out.mkdir(parents=True, exist_ok=True)
    faiss.write_index(index, str(out / "index.faiss"))
    (out / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return (out / "index.faiss").stat().st_size


def _build_from_vectors(task: str, size: int) -> int:
    """A whole build of the `size`-paper corpus whose vectors are already embedded: the product
    resumes them from a checkpoint (everything but the embedding: reading, BM25, map, writes);
    the baseline adds them to `faiss.IndexFlatIP` and writes the index and the papers."""
    import faiss
    import numpy as np

    from explorer.artifacts.store import load_artifacts
    from explorer.ingest.checkpoint import Checkpoint
    from explorer.model.embedder import Embedder, resolve_model

    prepared = load_artifacts(work_dir() / f"index-{size}-auto")
    vectors = np.array(prepared.index.vectors())
    out = work_dir() / f"{task}-{size}"
    shutil.rmtree(out, ignore_errors=True)
    if task == "baseline-vectors":
        out.mkdir(parents=True)
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
        faiss.write_index(index, str(out / "index.faiss"))
        (out / "papers.jsonl").write_text("".join(json.dumps(p.to_dict()) + "\n"
                                                  for p in prepared.papers))
        return (out / "index.faiss").stat().st_size
    spec = resolve_model("default")
    Checkpoint(out, spec.fingerprint).save([p.text_hash for p in prepared.papers], vectors,
                                           Embedder(spec).info)
    return _product_build([papers_file(size)], out, fresh=False)


def _stage_add(size: int) -> None:
    """Outside the timed children: the prepared index of `size` papers, a copy of it for the
    product to update, and the 100 records that follow `size` (not in it)."""
    large, _ = prepare(size)
    records = load_abstracts(10**6)[size:size + 100]
    (work_dir() / "extra-100.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    shutil.rmtree(work_dir() / "add-100", ignore_errors=True)
    shutil.copytree(large, work_dir() / "add-100")


def _add(task: str, size: int) -> int:
    """Add the 100 staged records to the staged copy (product) or to the FAISS index (baseline)."""
    from explorer.artifacts.layout import INDEX
    from explorer.artifacts.store import read_manifest

    extra = work_dir() / "extra-100.jsonl"
    manifest = read_manifest(work_dir() / "add-100")
    if task == "product-add":
        inputs = [Path(p) for p in manifest.inputs or () if Path(p) != extra] + [extra]
        return _product_build(inputs, work_dir() / "add-100", fresh=False)
    import faiss

    records = [json.loads(line) for line in extra.read_text().splitlines()]
    index = faiss.read_index(str(work_dir() / "add-100" / manifest.files[INDEX].name))
    model = plain_model()
    vectors = model.encode([f"{r['title']}. {r['abstract']}" for r in records])
    index.add(vectors / ((vectors**2).sum(axis=1, keepdims=True)) ** 0.5)
    faiss.write_index(index, str(work_dir() / "baseline-add.faiss"))
    return (work_dir() / "baseline-add.faiss").stat().st_size
