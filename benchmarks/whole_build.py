"""Whole-process builds (issue 12): the `explorer build` console command against the plain
sentence-transformers process, on the same N paperlists-ml abstracts, and each stage's seconds.

- product: `explorer build FILE --out DIR --json` (the installed console script) as a child
  process, into a fresh folder: the default build, whose explanations embed the sentences of
  the papers a page shows when it shows them (features/explanations/vectors.py; their cost per hit:
  `benchmarks.run explain`), and `--sentences`, which embeds and stores every sentence's
  vector after the index is usable (the default before; instant explanations). The ONNX export is
  already in the cache (made before the timed runs); what the first-ever export costs is
  measured once, separately: a build of 100 abstracts in a fresh, empty EXPLORER_CACHE, its
  'model' stage against the same build's with the export cached.
- baseline: a child that loads sentence-transformers (fp32, CPU), encodes the same N texts
  (title. abstract) with `SentenceTransformer.encode`, and writes the vectors (.npy) and a
  FAISS flat index (`IndexFlatIP`).
- product and baseline runs alternate (product, baseline, product, baseline, ...) over
  `--rounds`; each side's best round counts (the machine is shared: the least disturbed round is
  the fairest) and every round's ratio is listed. Seconds are each child's whole run, from
  process start to exit (interpreter, imports and model load included); peak_mb its peak RSS.
- stages: the best product run's seconds per build stage (explorer/ingest/report.py STAGES),
  from `--json` ('start': the rest of the process: interpreter, imports, exit); papers_per_s
  is abstracts over the 'papers' stage; warning_lines counts the product's stderr lines that
  mention a Warning (none is the target: quiet output).
- with `--given N`: a build of N papers whose vectors were embedded before (resumed from a
  checkpoint staged untimed; real vectors from the full paperlists-ml build, stand-ins for the
  rest as in benchmarks/indexes.py), `--no-sentences`, beside adding the same vectors to
  IndexFlatIP and writing it and the papers: what a build costs besides embedding, by stage.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import paper_text, plain_model, save
from benchmarks.indexes import _with_stand_ins, papers_file, real_vectors, work_dir

EXPORT_SAMPLE = 100  # abstracts of the build that measures the first-ever export
# The product's builds measured at each size: the default (a paper's sentences embedded the
# first time it is explained) and with every sentence vector stored at build time.
VARIANTS = {"explanations on demand (default)": [],
            "sentence vectors stored (--sentences)": ["--sentences"]}


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run wholebuild")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000],
                        help="abstracts per build (default 1000 10000; e.g. 200 for a smoke run)")
    parser.add_argument("--rounds", type=int, default=2, help="product/baseline pairs per size")
    parser.add_argument("--given", type=int, default=0,
                        help="also a build of this many papers with vectors given (e.g. 91894)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _baseline_child(*args.child)
        return
    rows = [_export_row()]
    rows += [row for size in args.sizes for row in _size_rows(size, args.rounds)]
    if args.given:
        rows.append(_given_row(args.given))
    sizes = "-".join(map(str, args.sizes)) + (f"-given{args.given}" if args.given else "")
    save(f"wholebuild-{sizes}", "Whole-process build: `explorer build` against plain "
         "sentence-transformers", rows,
         ["task", "product_s", "baseline_s", "ratio", "rounds", "papers_per_s", "stages",
          "product_peak_mb", "baseline_peak_mb", "warning_lines"], notes=__doc__.strip())


def _size_rows(size: int, rounds: int) -> list[dict]:
    """The default build (explanations embed a page's sentences when shown) and the build
    with `--sentences` (stored at build time), each against the plain process."""
    source = papers_file(size)
    runs: dict[str, list[dict]] = {name: [] for name in (*VARIANTS, "baseline")}
    for _ in range(rounds):  # interleaved: a disturbance hits every side alike
        for name, extra in VARIANTS.items():
            runs[name].append(_product(source, work_dir() / f"whole-{size}", extra=extra))
        runs["baseline"].append(_child([
            sys.executable, "-m", "benchmarks.run", "wholebuild", "--child", str(source),
            str(work_dir() / f"whole-baseline-{size}")]))
    theirs = min(runs["baseline"], key=lambda run: run["seconds"])
    rows = []
    for name in VARIANTS:
        ours = min(runs[name], key=lambda run: run["seconds"])
        ratios = [round(b["seconds"] / p["seconds"], 2) for p, b in zip(runs[name], runs["baseline"])]
        rows.append({"task": f"build {size}, {name}, export cached",
                     "product_s": ours["seconds"], "baseline_s": theirs["seconds"],
                     "ratio": round(theirs["seconds"] / ours["seconds"], 2),
                     "rounds": " ".join(f"x{r}" for r in ratios), **_stage_cells(ours, size),
                     "product_peak_mb": ours["peak_mb"], "baseline_peak_mb": theirs["peak_mb"]})
    return rows


def _export_row() -> dict:
    """The first-ever export: a build of EXPORT_SAMPLE abstracts in an empty cache, beside the
    same build with the export cached (which also makes sure the timed builds find it)."""
    source = papers_file(EXPORT_SAMPLE)
    cached = _product(source, work_dir() / "whole-export-cached")  # exports if never done
    with tempfile.TemporaryDirectory(prefix="wholebuild-cache-") as cache:
        fresh = _product(source, Path(cache) / "out", {"EXPLORER_CACHE": cache})
    export = fresh["report"]["stages"].get("model", 0) - cached["report"]["stages"].get("model", 0)
    return {"task": f"first-ever export: build {EXPORT_SAMPLE} in an empty cache (baseline_s: "
                    f"the same build, export cached; the export: ~{export:.1f} s)",
            "product_s": fresh["seconds"], "baseline_s": cached["seconds"], "ratio": "",
            "rounds": "",
            **_stage_cells(fresh, EXPORT_SAMPLE), "product_peak_mb": fresh["peak_mb"],
            "baseline_peak_mb": cached["peak_mb"]}


def _given_row(size: int) -> dict:
    """A build of `size` papers whose vectors are resumed from a staged checkpoint."""
    from explorer.corpus.papers import read_corpus
    from explorer.ingest.checkpoint import Checkpoint
    from explorer.model.embedder import Embedder, resolve_model

    source = papers_file(size)
    hashes = [p.text_hash for p in read_corpus([source]).papers]
    vectors = _with_stand_ins(hashes, real_vectors())
    out = work_dir() / f"whole-given-{size}"
    shutil.rmtree(out, ignore_errors=True)
    spec = resolve_model("default")
    Checkpoint(out, spec.fingerprint).save(hashes, vectors, Embedder(spec).info)
    vectors_file = work_dir() / f"whole-given-{size}.npy"
    _save_array(vectors_file, vectors)
    ours = _product(source, out, fresh=False, extra=["--no-sentences"])
    theirs = _child([sys.executable, "-m", "benchmarks.run", "wholebuild", "--child",
                     str(source), str(work_dir() / f"whole-given-baseline-{size}"),
                     str(vectors_file)])
    return {"task": f"build {size}, vectors given (--no-sentences)",
            "product_s": ours["seconds"], "baseline_s": theirs["seconds"],
            "ratio": round(theirs["seconds"] / ours["seconds"], 2), "rounds": "",
            **_stage_cells(ours, 0), "product_peak_mb": ours["peak_mb"],
            "baseline_peak_mb": theirs["peak_mb"]}


def _product(source: Path, out: Path, env: dict[str, str] | None = None, fresh: bool = True,
             extra: list[str] | None = None) -> dict:
    """One `explorer build SOURCE --out OUT --json` child; its report rides along."""
    if fresh:
        shutil.rmtree(out, ignore_errors=True)
    command = [_console_script(), "build", str(source), "--out", str(out), "--json",
               *(extra or [])]
    result = _child(command, env)
    result["report"] = json.loads(result["stdout"])
    return result


def _console_script() -> str:
    beside = Path(sys.executable).parent / "explorer"
    found = str(beside) if beside.is_file() else shutil.which("explorer")
    if found is None:
        sys.exit("benchmark needs the `explorer` console script (pip install -e .)")
    return found


def _child(command: list[str], env: dict[str, str] | None = None) -> dict:
    """Run `command` to its end: wall seconds, peak RSS (MB), stdout, Warning lines of stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err,
                                   env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode(errors="replace")
    if process.returncode != 0:
        raise RuntimeError(f"{command} failed ({process.returncode}):\n{stderr[-3000:]}")
    lines = stderr.replace("\r", "\n").splitlines()
    return {"seconds": round(seconds, 2), "peak_mb": round(usage.ru_maxrss / 1024),
            "stdout": stdout, "warnings": sum("Warning" in line for line in lines)}


def _stage_cells(run: dict, embedded: int) -> dict:
    stages = run["report"]["stages"]
    papers = stages.get("papers", 0)
    rate = round(embedded / papers, 1) if embedded and papers else ""
    start = run["seconds"] - run["report"]["seconds"]  # interpreter, imports, exit
    return {"papers_per_s": rate, "warning_lines": run["warnings"],
            "stages": ", ".join([f"start {start:.1f}"] + [f"{name} {seconds:.1f}"
                                                         for name, seconds in stages.items()])}


def _baseline_child(source: str, out: str, vectors_file: str | None = None) -> None:
    """The plain process: sentence-transformers encodes the texts of `source` (or, with
    `vectors_file`, the vectors are given); the vectors and a FAISS flat index are written."""
    import faiss
    import numpy as np

    records = [json.loads(line) for line in Path(source).read_text(encoding="utf-8").splitlines()
               if line.strip()]
    if vectors_file is None:
        vectors = plain_model().encode([paper_text(r) for r in records], batch_size=32,
                                       normalize_embeddings=True, convert_to_numpy=True)
    else:
        vectors = np.load(vectors_file)
    folder = Path(out)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    _save_array(folder / "vectors.npy", np.ascontiguousarray(vectors, dtype=np.float32))
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    faiss.write_index(index, str(folder / "index.faiss"))
    if vectors_file is not None:  # a build from given vectors writes the papers too
        (folder / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _save_array(path: Path, array) -> None:
    import numpy as np

    with path.open("wb") as handle:
        np.save(handle, array, allow_pickle=False)
