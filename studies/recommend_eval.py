"""Multi-paper recommendations on ACM-CR: seed with a few of a paper's references, score how
well the rest come back. Compares the Rocchio centroid with a per-request linear SVM.

    .venv/bin/python -m studies.recommend_eval ../shared/data/acm-cr \
        --index CACHE_FOLDER_OF_EXPLORER_EVAL [--seeds 3]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from explorer.errors import UnknownPaperError
from explorer.eval.evaluate import load_set
from explorer.eval.metrics import mean_scores, score_run
from explorer.query.engine import RECOMMENDERS, Explorer


def cases(explorer: Explorer, dataset: Path, seeds: int, rng: random.Random):
    """(seed ids, {row of each held-out reference: 1}) per citing paper with enough references."""
    query_set = load_set(dataset, "papers")
    for query in query_set.queries:
        rows = {}
        for doc_id in query_set.qrels.get(query.query_id, {}):
            try:
                rows.setdefault(explorer.row(doc_id), doc_id)
            except UnknownPaperError:
                continue
        if len(rows) < seeds + 2:
            continue
        chosen = rng.sample(sorted(rows), seeds)
        yield [rows[r] for r in chosen], {r: 1.0 for r in rows if r not in chosen}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    explorer = Explorer.open(args.index)
    tasks = list(cases(explorer, args.dataset, args.seeds, random.Random(0)))
    print(f"{len(explorer.papers)} papers; {len(tasks)} citing papers with >= {args.seeds + 2} "
          f"references in the index; {args.seeds} seeds each")
    results = {}
    for method, mode in [(name, mode) for name in RECOMMENDERS for mode in ("dense", "hybrid")]:
        started = time.perf_counter()
        per_query = []
        for like, relevant in tasks:
            hits = explorer.recommend(like, top_k=100, method=method, mode=mode)
            per_query.append(score_run([explorer.row(h.paper_id) for h in hits], relevant))
        seconds = (time.perf_counter() - started) / max(1, len(tasks))
        scores = {k: round(v, 4) for k, v in mean_scores(per_query).items()}
        results[f"{method} ({mode})"] = {**scores, "ms_per_request": round(1000 * seconds, 1)}
        print(f"{method} ({mode})", json.dumps(results[f"{method} ({mode})"]))
    return results


if __name__ == "__main__":
    main()
