"""An index of small_cache.py's 10,000-paper ACM-CR pool, built without embedding its papers
again (they took 46 minutes on the shared 2 cores).

The pool's original records are written as a corpus (every record whose id names a pool paper,
so duplicates merge as they did); the cached vectors are handed to `explorer build` as the
checkpoint of an interrupted build (explorer/ingest/checkpoint.py), after a sample of them is
checked to equal what the model gives today; the build reuses them and does the rest (BM25,
map, score quantiles; sentence vectors off: the study asks for no explanations).

    nice -n 10 .venv/bin/python -m studies.missed_pool ../shared/data/acm-cr
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np

from benchmarks.common import cache_dir
from explorer.corpus.papers import read_corpus
from explorer.eval.evaluate import find_corpus
from explorer.ingest.checkpoint import Checkpoint
from explorer.ingest.run import build
from explorer.model.embedder import Embedder, resolve_model
from studies.small_cache import load_pool

SAMPLE = 8  # cached vectors compared with fresh ones before they are reused
MODEL = "default"


def default_folder() -> Path:
    """Where the pool's corpus and index are kept (EXPLORER_CACHE/missed-pool)."""
    return cache_dir() / "missed-pool"


def pool_index(dataset: Path, folder: Path | None = None, cache: Path | None = None) -> Path:
    """The index folder of the pool (built on the first call, then up to date)."""
    folder = folder or default_folder()
    pool = load_pool(dataset, cache)
    papers, vectors = pool.papers, pool.vectors
    corpus = folder / "corpus.jsonl.gz"
    if not corpus.is_file():
        _write_records(dataset, {key for p in papers for key in (p.paper_id, *p.aliases)}, corpus)
    read = read_corpus([corpus]).papers
    if [p.text_hash for p in read] != [p.text_hash for p in papers]:
        raise SystemExit(f"{corpus} does not read back as the pool: delete {folder} and rerun")
    index = folder / "index"
    spec = resolve_model(MODEL)
    embedder = Embedder(spec)
    rows = np.random.default_rng(0).choice(len(papers), SAMPLE, replace=False)
    fresh = embedder.embed_documents([papers[i].text for i in rows])
    if float(np.min(np.sum(fresh * vectors[rows], axis=1))) < 0.999:
        raise SystemExit("the cached pool vectors differ from today's model: rerun small_cache")
    if not (index / "manifest.json").is_file():
        Checkpoint(index, spec.fingerprint).save([p.text_hash for p in papers], vectors,
                                                 embedder.info)
    report = build([corpus], index, MODEL, sentences=False)
    print(report.summary(), flush=True)
    return index


def _write_records(dataset: Path, ids: set[str], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(find_corpus(dataset), "rt", encoding="utf-8") as source, \
            gzip.open(out, "wt", encoding="utf-8") as target:
        for line in source:
            if line.strip() and json.loads(line).get("doc_id") in ids:
                target.write(line)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--folder", type=Path, help="default: EXPLORER_CACHE/missed-pool")
    parser.add_argument("--cache", type=Path, help="small_cache's folder (its default)")
    args = parser.parse_args(argv)
    return pool_index(args.dataset, args.folder, args.cache)


if __name__ == "__main__":
    main()
