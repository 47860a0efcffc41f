"""The vectors behind the small-corpora study: ACM-CR's judged papers plus random fill, each
embedded ONCE, with every query of the three sets, cached outside the repository.

The pool and its cache folder are the library's (explorer/eval/pool.py: the union of every
paper judged relevant by any query of the three sets, filled with random other papers, seed 0,
up to POOL papers); the 100 / 1,000 / 10,000-paper corpora of small_corpora.py and of
`explorer eval --sizes` are drawn from it, so no sub-corpus is ever embedded again. This
module embeds it again on demand (`explorer eval` embeds it only when it is missing).

    nice -n 10 .venv/bin/python -m studies.small_cache ../shared/data/acm-cr [--model mpnet]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from explorer.eval import pool
from explorer.settings import Settings

POOL = pool.POOL


def default_cache(model: str = "default") -> Path:
    """Where the pool's vectors are kept: EXPLORER_CACHE/quality-small for the default model,
    quality-small-NAME for another (a named model or a folder's name)."""
    return pool.pool_folder(Settings.from_env().cache_dir, model)


def load_pool(dataset: Path, cache: Path | None = None) -> pool.Pool:
    """The cached pool of `dataset` (default: the default model's folder)."""
    return pool.load_pool(dataset, cache or default_cache())


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--cache", type=Path, help="default: EXPLORER_CACHE/quality-small "
                        "(quality-small-NAME for another --model)")
    parser.add_argument("--model", default="default",
                        help="model name (mpnet) or local sentence-transformers folder")
    args = parser.parse_args(argv)
    args.cache = args.cache or default_cache(args.model)
    started = time.perf_counter()

    def report(phase: str, done: int, total: int) -> None:
        if done == total:
            print(phase, total, round(time.perf_counter() - started), "s", flush=True)

    made = pool.make_pool(args.dataset, args.cache, args.model, progress=report)
    print(len(made.papers), "papers embedded in", round(time.perf_counter() - started), "s")
    return args.cache


if __name__ == "__main__":
    main()
