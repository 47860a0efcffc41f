"""Index folders of paperlists-ml at benchmark sizes, built by the product's own `build`.

Embedding 92k abstracts takes hours on a shared 2-core machine, so the vectors come from the
full paperlists-ml build (`/root/.cache/paper-explorer/paperlists-ml`: its finished index, or
the checkpoint blocks of a build still running). Papers it has not embedded yet get a stand-in:
the vector of a random embedded paper plus noise, renormalised. Exact search costs the same for
any values; the result files say how many vectors were real.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from benchmarks.common import cache_dir, load_abstracts
from explorer.artifacts.store import load_artifacts
from explorer.corpus.papers import read_corpus
from explorer.errors import ExplorerError
from explorer.ingest.checkpoint import Checkpoint
from explorer.ingest.run import build
from explorer.model.embedder import Embedder, resolve_model


def full_build() -> Path:
    """The full paperlists-ml build the benchmark vectors come from (finished or running)."""
    return cache_dir() / "paperlists-ml"


def work_dir() -> Path:
    """Where the benchmarks keep the index folders and files they prepare."""
    return cache_dir() / "bench"


def papers_file(size: int) -> Path:
    """A JSONL file of `size` paperlists-ml records (fixed random order; prefix of the next)."""
    path = work_dir() / f"papers-{size}.jsonl"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        records = load_abstracts(10**6)[:size]
        keep = ("doc_id", "title", "abstract", "venue", "year", "authors", "url")
        lines = [json.dumps({k: r.get(k) for k in keep}, ensure_ascii=False) for r in records]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def real_vectors() -> dict[str, np.ndarray]:
    """Vectors by text hash from the full paperlists-ml build, finished or in progress."""
    found: dict[str, np.ndarray] = {}
    try:
        artifacts = load_artifacts(full_build())
        vectors = artifacts.index.vectors()
        found = {p.text_hash: vectors[row] for row, p in enumerate(artifacts.papers)}
    except ExplorerError:
        pass
    for names in sorted(full_build().glob(".partial-*/block-*.json")):
        hashes = json.loads(names.read_text(encoding="utf-8"))
        found.update(zip(hashes, np.load(names.with_suffix(".npy"))))
    return found


def prepare(size: int, kind: str = "auto") -> tuple[Path, int]:
    """An index folder of `size` papers (index `kind`); returns (folder, real vectors used)."""
    out = work_dir() / f"index-{size}-{kind}"
    source = papers_file(size)
    papers = read_corpus([source]).papers
    real = real_vectors()
    try:
        load_artifacts(out)
    except ExplorerError:
        spec = resolve_model("default")
        vectors = _with_stand_ins([p.text_hash for p in papers], real)
        Checkpoint(out, spec.fingerprint).save([p.text_hash for p in papers], vectors,
                                               Embedder(spec).info)
    # Brings an index of an older format up to date, reusing its vectors (never embedding).
    build([source], out, "default", index_type=kind, sentences=False, progress=_refuse)
    return out, _real_count(load_artifacts(out), real)


def existing(size: int, kind: str = "auto") -> tuple[Path, int]:
    """`prepare`'s folder as it is when it loads (read only: no build brings it up to date,
    so benchmarks that only query never write to a folder others may be reading), else
    `prepare`'s. Returns (folder, real vectors used)."""
    out = work_dir() / f"index-{size}-{kind}"
    try:
        built = load_artifacts(out)
    except ExplorerError:
        return prepare(size, kind)
    return out, _real_count(built, real_vectors())


def real_note(real: int | None) -> str:
    """A table's note on how many vectors are the model's (the others are stand-ins, as fast
    to search as real ones: a speed table only)."""
    if real is None:
        return "vectors as built"
    return f"{real:,} real vectors, the others synthetic stand-ins: speed only"


def _real_count(built, real: dict[str, np.ndarray]) -> int:
    """Rows of `built` whose vector is the real one (the others are stand-ins)."""
    stored = built.index.vectors()
    return int(sum(p.text_hash in real and np.allclose(real[p.text_hash], stored[row], atol=1e-6)
                   for row, p in enumerate(built.papers)))


def _refuse(phase: str, done: int, total: int) -> None:
    """Progress callback of a build that must resume its vectors, never embed them."""
    raise RuntimeError(f"the prepared vectors were not reused: the build started embedding "
                       f"{total} {phase}")


def _with_stand_ins(hashes: list[str], real: dict[str, np.ndarray]) -> np.ndarray:
    """(n, d) vectors: the real one where known, else a noisy copy of a random real one."""
    rng = np.random.default_rng(0)
    pool = np.array(list(real.values()), dtype=np.float32)
    if len(pool) == 0:
        raise RuntimeError(f"no real vectors in {full_build()}: start its build first "
                           "(see benchmarks/README.md)")
    out = np.empty((len(hashes), pool.shape[1]), dtype=np.float32)
    for row, text_hash in enumerate(hashes):
        if text_hash in real:
            out[row] = real[text_hash]
        else:
            vector = pool[rng.integers(len(pool))] + 0.04 * rng.normal(size=pool.shape[1])
            out[row] = vector / np.linalg.norm(vector)
    return out
