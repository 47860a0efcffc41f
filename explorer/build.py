"""The only code that embeds a corpus. Incremental: unchanged papers cost nothing."""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np

from explorer.corpus import CorpusReport, Paper, read_corpus
from explorer.embedder import Embedder, ModelSpec, resolve_model
from explorer.errors import CorpusError, ExplorerError
from explorer.index import EXACT, HNSW, VectorIndex
from explorer.maps import compute_map
from explorer.store import load_artifacts, read_manifest, write_artifacts

AUTO = "auto"
HNSW_THRESHOLD = 200_000  # exact search stays well under 15 ms per query below this size
PAIR_SAMPLES = 200_000


@dataclass
class BuildReport:
    """What a build did, for the summary line and for tests."""

    papers: int
    records: int
    duplicates_merged: int
    skipped: dict[str, int]
    embedded: int
    reused: int
    model_id: str
    index_type: str
    seconds: float
    up_to_date: bool = False
    folder: Path = field(default_factory=Path)

    def summary(self) -> str:
        skipped = sum(self.skipped.values())
        reasons = ", ".join(f"{n} {why}" for why, n in self.skipped.items())
        state = "already up to date" if self.up_to_date else f"written to {self.folder}/"
        return (
            f"{self.papers} papers from {self.records} records ({self.duplicates_merged} "
            f"duplicates merged, {skipped} skipped{': ' + reasons if reasons else ''}); "
            f"embedded {self.embedded}, reused {self.reused}; model {self.model_id}; "
            f"{self.index_type} index {state} in {self.seconds:.1f} s"
        )


def build(
    inputs: Sequence[str | Path],
    out: Path,
    model: str,
    *,
    index_type: str = AUTO,
    batch_size: int = 32,
    progress: Callable[[int, int], None] | None = None,
) -> BuildReport:
    """Read `inputs`, embed what is new, and write an index folder at `out`.

    Nothing is written when reading fails; the previous index stays loadable until the new
    manifest replaces it. `progress(done, total)` reports embedding progress.
    """
    started = time.perf_counter()
    corpus = read_corpus(inputs)
    if not corpus.papers:
        raise CorpusError(
            f"No papers with text in {', '.join(map(str, inputs))} "
            f"({corpus.records} records read). Point to files that contain abstracts."
        )
    spec = resolve_model(model)
    kind = _choose_index_type(index_type, len(corpus.papers))
    corpus_hash = _corpus_hash(corpus.papers)
    report = BuildReport(
        papers=len(corpus.papers), records=corpus.records,
        duplicates_merged=corpus.duplicates_merged, skipped=dict(corpus.skipped),
        embedded=0, reused=0, model_id=spec.model_id, index_type=kind, seconds=0.0,
        folder=out,
    )
    if _is_current(out, spec, kind, corpus_hash):
        report.up_to_date, report.reused = True, len(corpus.papers)
        report.seconds = time.perf_counter() - started
        return report
    cache, model_info = _cached_vectors(out, spec)
    missing = [p for p in corpus.papers if p.text_hash not in cache]
    if missing:
        embedder = Embedder(spec, batch_size=batch_size)
        model_info = embedder.info
        done = 0

        def step(count: int) -> None:
            nonlocal done
            done += count
            if progress:
                progress(done, len(missing))

        fresh = embedder.embed_documents([p.text for p in missing], progress=step)
        cache.update(zip((p.text_hash for p in missing), fresh))
    vectors = np.vstack([cache[p.text_hash] for p in corpus.papers]).astype(np.float32)
    index = VectorIndex.build(vectors, kind)
    extras = {"pair_quantiles": pair_quantiles(vectors),
              "map": compute_map(corpus.papers, vectors)}
    write_artifacts(out, corpus.papers, index, extras,
                    _manifest(inputs, corpus, model_info, kind, corpus_hash, spec))
    report.embedded, report.reused = len(missing), len(corpus.papers) - len(missing)
    report.seconds = time.perf_counter() - started
    return report


def _choose_index_type(requested: str, count: int) -> str:
    if requested == AUTO:
        return HNSW if count >= HNSW_THRESHOLD else EXACT
    if requested not in (EXACT, HNSW):
        raise ExplorerError(f"Unknown index type {requested!r}: use auto, {EXACT} or {HNSW}.")
    return requested


def _corpus_hash(papers: list[Paper]) -> str:
    digest = hashlib.sha256()
    for paper in papers:
        digest.update(json.dumps(paper.to_dict(), sort_keys=True).encode("utf-8"))
    return digest.hexdigest()


def _is_current(out: Path, spec: ModelSpec, kind: str, corpus_hash: str) -> bool:
    """True when the folder already holds exactly this corpus, model and index type."""
    try:
        manifest = read_manifest(out)
    except ExplorerError:
        return False
    return (manifest.get("corpus_hash") == corpus_hash
            and manifest.get("model", {}).get("fingerprint") == spec.fingerprint
            and manifest.get("index_type") == kind)


def _cached_vectors(out: Path, spec: ModelSpec) -> tuple[dict[str, np.ndarray], dict | None]:
    """Vectors of the previous build by text hash, when it used the same model."""
    try:
        previous = load_artifacts(out)
    except ExplorerError:
        return {}, None
    model_info = previous.manifest.get("model", {})
    if model_info.get("fingerprint") != spec.fingerprint:
        return {}, None
    vectors = previous.index.vectors()
    return {p.text_hash: vectors[row].copy() for row, p in enumerate(previous.papers)}, model_info


def pair_quantiles(vectors: np.ndarray, points: int = 101) -> list[float]:
    """Cosine of random distinct paper pairs at percentiles 0..100: how unusual a score is."""
    count = len(vectors)
    if count < 2:
        return []
    rng = np.random.default_rng(0)
    samples = min(PAIR_SAMPLES, count * (count - 1) // 2)
    left = rng.integers(0, count, samples)
    right = (left + rng.integers(1, count, samples)) % count
    scores = np.einsum("ij,ij->i", vectors[left], vectors[right])
    return [round(float(q), 5) for q in np.quantile(scores, np.linspace(0, 1, points))]


def _manifest(inputs, corpus: CorpusReport, model_info, kind, corpus_hash, spec) -> dict:
    versions = {}
    for name in ("faiss-cpu", "numpy", "sentence-transformers", "torch", "transformers"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "inputs": [str(path) for path in inputs],
        "model": {**model_info, "path": str(spec.path)},
        "metric": "inner_product",
        "index_type": kind,
        "corpus_hash": corpus_hash,
        "records": corpus.records,
        "duplicates_merged": corpus.duplicates_merged,
        "skipped": dict(corpus.skipped),
        "versions": {**versions, "python": sys.version.split()[0]},
        "machine": platform.machine(),
    }
