"""Shared helpers for the speed benchmarks: real abstracts, timing, tables, result files."""

from __future__ import annotations

import gzip
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from explorer.model.backends import cpu_flags
from explorer.model.embedder import resolve_model
from explorer.settings import default_cache_dir

ROOT = Path(__file__).resolve().parent.parent
PAPERLISTS = ROOT.parent / "shared" / "data" / "paperlists-ml" / "corpus.jsonl.gz"
RESULTS = Path(__file__).resolve().parent / "results"
QUERIES = [
    "graph neural networks for molecular property prediction",
    "which sequence models can track non-abelian groups?",
    "reinforcement learning for legged robot locomotion",
    "diffusion models for video generation",
    "how to reduce communication in distributed training",
    "uncertainty estimation in deep neural networks",
    "visual place recognition under changing lighting",
    "contrastive learning of sentence embeddings",
    "sample complexity of policy gradient methods",
    "simultaneous localization and mapping with lidar",
    "adversarial examples against image classifiers",
    "machine translation for low-resource languages",
    "grasp planning for robotic manipulation",
    "variational inference with normalizing flows",
    "fairness constraints in classification",
    "3D object detection from point clouds",
]


def plain_model(path: Path | None = None):
    """The baselines' model: plain sentence-transformers on the CPU, fp32, from the local folder
    `path` (default: the product's default model), with the Hugging Face hub switched off before
    the import, as the product runs it: no network at run time."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    folder = path or resolve_model("default").path
    return SentenceTransformer(str(folder), device="cpu", local_files_only=True)


def plain_top(vector: np.ndarray, vectors: np.ndarray, papers: list, top_k: int) -> list[dict]:
    """The plain script's search: `vector` (d,) normalised, `vectors @ vector` over all (n, d),
    the top_k by argpartition, records as dicts with their score."""
    vector = vector / np.linalg.norm(vector)
    scores = vectors @ vector
    top = np.argpartition(-scores, top_k)[:top_k]
    top = top[np.argsort(-scores[top])]
    return [{**papers[i].to_dict(), "score": float(scores[i])} for i in top]


def cache_dir() -> Path:
    """Where benchmarks keep their index folders and slices: the product's cache folder
    (EXPLORER_CACHE, else $XDG_CACHE_HOME/paper-explorer, else ~/.cache/paper-explorer), read
    when a benchmark runs, never at import."""
    return default_cache_dir()


def require_paperlists() -> None:
    if not PAPERLISTS.is_file():
        sys.exit(f"benchmark needs {PAPERLISTS} (paperlists-ml); it is not there.")


def load_abstracts(count: int, seed: int = 0) -> list[dict[str, Any]]:
    """`count` random paperlists-ml records (fixed seed), as dicts with doc_id/title/abstract."""
    require_paperlists()
    with gzip.open(PAPERLISTS, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    rng = np.random.default_rng(seed)
    picked = rng.choice(len(records), size=min(count, len(records)), replace=False)
    return [records[i] for i in picked]


def paper_text(record: dict[str, Any]) -> str:
    """What the product embeds for a record with a real title (explorer.corpus.Paper.text)."""
    return f"{record['title']}. {record['abstract']}"


SETTLE_SECONDS = 0.5


def settle() -> None:
    """A pause between one side's pass and the other's. After a pass, its runtime's worker
    threads keep spinning a while (torch's OpenMP after an encode, OpenVINO's after a run): the
    next side's first queries then shared the cores with them, and a product pass right after
    a baseline pass measured p50 7.9-8.2 / p99 18-34 ms against 6.5-6.7 / 11.5-12.5 ms with
    this pause (~92k papers, session 16)."""
    time.sleep(SETTLE_SECONDS)


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = function()
    return time.perf_counter() - started, value


def percentiles(seconds: list[float]) -> dict[str, float]:
    values = np.array(seconds) * 1000
    return {"p50_ms": round(float(np.percentile(values, 50)), 2),
            "p99_ms": round(float(np.percentile(values, 99)), 2)}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine() -> dict[str, Any]:
    flags = ""
    try:
        flags = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        pass
    fields = {name.strip(): value.strip() for name, _, value in
              (line.partition(":") for line in flags.splitlines())}
    model = fields.get("Model name") or platform.processor()
    wanted = ("avx2", "avx512f", "avx_vnni", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8")
    present = [flag for flag in wanted if flag in cpu_flags()]
    absent = [flag for flag in wanted if flag not in present]
    named = " ".join(present) or "none"
    return {"cpu": model, "flags": named + (f"; not {' '.join(absent)}" if absent else ""),
            "blas": blas_kernels(), "cpu_id": _cpu_id(fields),
            "cores": len(os.sched_getaffinity(0)), "python": platform.python_version(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def _cpu_id(lscpu: dict[str, str]) -> str:
    """A short name of the CPU for file names: vendor, family and model (amd-f26-m2)."""
    vendor = {"AuthenticAMD": "amd", "GenuineIntel": "intel"}.get(lscpu.get("Vendor ID", ""),
                                                                   "cpu")
    return f"{vendor}-f{lscpu.get('CPU family', '?')}-m{lscpu.get('Model', '?')}"


def blas_kernels() -> str:
    """The kernels each loaded OpenBLAS runs (FAISS's and numpy's own copies), whose copy
    multiplies the product's exact searches of many queries (explorer/index/blas.py), and the
    environment's OPENBLAS_CORETYPE that may have named them: one block of the relatives'
    self-join ran 1.9x faster with AVX-512 kernels than AVX2 ones and 3.2x slower with SSE3
    ones on one CPU (benchmarks/README.md, "OpenBLAS's kernels"), so a table from another
    machine may differ for this alone."""
    from explorer.index import blas

    found = [f"{owner} {name}" for owner, name in blas.kernels().items()]
    products = "numpy's" if blas.numpy_multiplies() else "FAISS's"
    named = os.environ.get("OPENBLAS_CORETYPE")
    return (", ".join(found or ["none loaded"]) + f"; many-query searches multiply with {products}"
            + (f" (OPENBLAS_CORETYPE={named})" if named else ""))


def table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """A markdown table of `rows` restricted to `columns`."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(_cell(row.get(c, "")) for c in columns) + " |")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def save(name: str, title: str, rows: list[dict[str, Any]], columns: list[str],
         notes: str = "") -> str:
    """Print the table and write results/<name>.md and .json (overwriting the last run)."""
    RESULTS.mkdir(exist_ok=True)
    info = machine()
    text = (f"# {title}\n\n{info['date']} · {info['cpu']} (flags: {info['flags']}) · "
            f"OpenBLAS kernels: {info['blas']} · {info['cores']} cores · "
            f"load average at the end {info['load_average']} (shared machine: only ratios "
            f"within one run are meaningful)\n\n{table(rows, columns)}\n\n{notes}\n")
    print(text)
    (RESULTS / f"{name}.md").write_text(text, encoding="utf-8")
    payload = {"benchmark": name, "machine": info, "rows": rows, "notes": notes}
    (RESULTS / f"{name}.json").write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return text
