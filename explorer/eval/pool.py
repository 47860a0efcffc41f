"""The embedded pool of an ACM-CR-shaped dataset: every paper judged relevant by any query of
its three sets, filled with random other papers (seed 0) up to POOL, embedded ONCE with every
query, so the small corpora (small.py) are drawn from it without embedding anything again.

The cache folder (`pool_folder`: CACHE/quality-small for the default model,
quality-small-NAME for another) holds papers.npy (n, d), queries-SET.npy (one row per query of
SET, in file order; embedded as `explorer eval` embeds queries) and pool.json, written last:
{"paper_ids": [...], "model": the embedder's info, "seconds": the time it took}.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from explorer.corpus.papers import Paper, read_corpus
from explorer.errors import CorpusError, IndexInvalidError, IndexMissingError
from explorer.eval.evaluate import SETS, QuerySet, find_corpus, load_set, model_suffix
from explorer.files import FolderLock, atomic_write
from explorer.model.embedder import Embedder, resolve_model

POOL = 10_000
POOL_FILE, PAPERS_FILE, TITLES_FILE = "pool.json", "papers.npy", "titles.npy"
Progress = Callable[[str, int, int], None]  # (phase, done, total), as builder.build reports


def pool_folder(cache_dir: Path, model: str = "default", size: int = POOL) -> Path:
    """Where the pool of `model` is kept: CACHE/quality-small[-NAME][-SIZE] (Settings.cache_dir;
    -SIZE for a pool of another size than POOL)."""
    return cache_dir / f"quality-small{model_suffix(model)}{'' if size == POOL else f'-{size}'}"


@dataclass(frozen=True, eq=False)
class Pool:
    """The pool's papers, their vectors (n, d) float32, the dataset's query sets and each
    query's vector: query_vectors[set][query_id] (d,); `model`: the embedder's info."""

    papers: list[Paper]
    vectors: np.ndarray
    sets: dict[str, QuerySet]
    query_vectors: dict[str, dict[str, np.ndarray]]
    model: dict
    folder: Path
    titles: np.ndarray | None = None  # (n, d): the papers' titles embedded as questions

    def positions(self) -> dict[str, int]:
        """Paper id or alias -> its row in the pool (the first paper that names it)."""
        found: dict[str, int] = {}
        for row, paper in enumerate(self.papers):
            for key in (paper.paper_id, *paper.aliases):
                found.setdefault(key, row)
        return found


def pool_papers(dataset: Path, size: int = POOL) -> tuple[list[Paper], dict[str, QuerySet]]:
    """The judged papers of all three sets plus random others -> (papers, query sets)."""
    corpus = find_corpus(dataset)
    missing = [name for files in SETS.values() for name in files if not (dataset / name).is_file()]
    if missing:
        raise CorpusError(f"{dataset}/ has no {missing[0]}: a pool (small corpora) needs "
                          f"ACM-CR's three query sets and their qrels ({', '.join(SETS)}).")
    papers = read_corpus([corpus]).papers
    by_id: dict[str, int] = {}
    for position, paper in enumerate(papers):
        for key in (paper.paper_id, *paper.aliases):
            by_id.setdefault(key, position)
    sets = {name: load_set(dataset, name) for name in SETS}
    judged = sorted({by_id[doc] for qs in sets.values() for rel in qs.qrels.values()
                     for doc in rel if doc in by_id})
    rng = np.random.default_rng(0)
    others = np.setdiff1d(np.arange(len(papers)), judged)
    fill = rng.choice(others, min(len(others), max(0, size - len(judged))), replace=False)
    chosen = sorted(set(judged) | set(fill.tolist()))
    return [papers[i] for i in chosen], sets


def load_pool(dataset: Path, folder: Path, size: int = POOL) -> Pool:
    """The cached pool of `dataset` (`size` papers) in `folder`, checked against the dataset."""
    if not (folder / POOL_FILE).is_file():
        raise IndexMissingError(f"No embedded pool in {folder}: `explorer eval DATASET --sizes "
                                "...` builds it (or `python -m studies.small_cache DATASET`).")
    papers, sets = pool_papers(dataset, size)
    try:
        meta = json.loads((folder / POOL_FILE).read_text(encoding="utf-8"))
        vectors = np.load(folder / PAPERS_FILE)
        matrices = {name: np.load(folder / f"queries-{name}.npy") for name in sets}
    except (OSError, ValueError) as exc:
        raise IndexInvalidError(f"The pool in {folder} cannot be read ({exc}): delete the "
                                "folder and run the command again to rebuild it.") from exc
    ids = [p.paper_id for p in papers]
    if meta.get("paper_ids") != ids or len(vectors) != len(ids) or any(
            len(matrices[name]) != len(sets[name].queries) for name in sets):
        raise IndexInvalidError(f"{folder} holds the pool of another dataset or version of "
                                f"{dataset}: delete it (or give another pool folder) and run "
                                "the command again.")
    return _pool(papers, sets, vectors, matrices, meta.get("model", {}), folder)


def make_pool(dataset: Path, folder: Path, model: str = "default",
              progress: Progress | None = None, size: int = POOL) -> Pool:
    """Embed the pool of `dataset` with `model` into `folder` (queries set by set, then the
    papers; pool.json last) -> the Pool. Holds a lock on the folder while it writes."""
    busy = "another process is embedding the pool in {folder} (pid {pid}); wait for it."
    started = time.perf_counter()
    papers, sets = pool_papers(dataset, size)
    with FolderLock(folder, 0, name=".pool.lock", busy=busy):
        embedder = Embedder(resolve_model(model))
        matrices = {}
        for name, query_set in sets.items():
            texts = [q.text for q in query_set.queries]
            matrices[name] = _embed(embedder, texts, f"{name} queries", progress)
            _save(folder / f"queries-{name}.npy", matrices[name])
        vectors = _embed(embedder, [p.text for p in papers], "pool papers", progress)
        _save(folder / PAPERS_FILE, vectors)
        meta = {"paper_ids": [p.paper_id for p in papers], "model": embedder.info,
                "seconds": round(time.perf_counter() - started, 1)}
        atomic_write(folder / POOL_FILE,
                     lambda tmp: tmp.write_text(json.dumps(meta), encoding="utf-8"))
    return _pool(papers, sets, vectors, matrices, embedder.info, folder)


def open_pool(dataset: Path, folder: Path, model: str = "default",
              progress: Progress | None = None, size: int = POOL) -> Pool:
    """The pool of `size` papers in `folder`, embedded with `model` first when the folder has
    none; a pool that another model embedded is refused."""
    if not (folder / POOL_FILE).is_file():
        if any(folder.glob("*.npy")):
            raise IndexInvalidError(f"{folder} holds part of a pool but no {POOL_FILE}: another "
                                    "process is embedding it (wait for it to finish) or one was "
                                    "interrupted (delete the folder and run the command again).")
        return with_titles(make_pool(dataset, folder, model, progress, size), model, progress)
    pool = load_pool(dataset, folder, size)
    wanted = resolve_model(model)
    if pool.model.get("fingerprint") != wanted.fingerprint:
        raise IndexInvalidError(f"The pool in {folder} was embedded by "
                                f"{pool.model.get('id', 'another model')}, not {wanted.model_id}: "
                                "give the pool folder of that model, or delete this one.")
    return with_titles(pool, model, progress)


def with_titles(pool: Pool, model: str = "default", progress: Progress | None = None) -> Pool:
    """`pool` with its papers' titles embedded as questions (titles.npy; embedded with `model`
    and saved when the folder has none): what a build of any of its corpora places question
    scores among (ranking/calibration.question_quantiles)."""
    path = pool.folder / TITLES_FILE
    if path.is_file():
        titles = np.load(path)
        if len(titles) == len(pool.papers):
            return replace(pool, titles=titles)
    embedder = Embedder(resolve_model(model))
    if embedder.info.get("fingerprint") != pool.model.get("fingerprint"):
        raise IndexInvalidError(f"The pool in {pool.folder} was embedded by another model "
                                f"than {model}: give that model.")
    titles = embedder.embed_queries([paper.title for paper in pool.papers])
    if progress:
        progress("pool titles", len(titles), len(titles))
    _save(path, titles)
    return replace(pool, titles=titles)


def _pool(papers: list[Paper], sets: dict[str, QuerySet], vectors: np.ndarray,
          matrices: dict[str, np.ndarray], model: dict, folder: Path) -> Pool:
    """A Pool from its arrays: `matrices[set]` (m, d), one row per query in file order."""
    query_vectors = {name: {q.query_id: matrices[name][i] for i, q in enumerate(qs.queries)}
                     for name, qs in sets.items()}
    return Pool(papers, vectors, sets, query_vectors, model, folder)


def _embed(embedder: Embedder, texts: list[str], phase: str, progress: Progress | None
           ) -> np.ndarray:
    """`texts` embedded as documents -> (m, d), reporting (phase, done, total)."""
    done = [0]

    def step(count: int) -> None:
        done[0] += count
        if progress:
            progress(phase, done[0], len(texts))

    return embedder.embed_documents(texts, progress=step)


def _save(path: Path, array: np.ndarray) -> None:
    def write(tmp: Path) -> None:
        with tmp.open("wb") as handle:
            np.save(handle, array)

    atomic_write(path, write)
