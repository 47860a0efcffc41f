"""What explaining a page of hits costs when the build stored no sentence vectors (issue 12).

The same papers are built twice by the product's `build`: with `--sentences` (every abstract
sentence embedded at build time and stored) and without (the default: a page's hits have their
sentences embedded in one model run the first time they are shown, then kept). For each of the
16 benchmark questions, one search of `--top-k` hits, then `explain_hits` on each index, timed:
the stored index reads its vectors (the baseline), the default one embeds the page's sentences,
in a fresh Explorer (nothing kept yet: the first view of the page, the worst case) that has
explained a page of other papers first (the model's first runs are not timed: a served
Explorer lives long). `ms_per_hit` is the explanation's time over the hits it explains;
`again` is the same page explained a second time (kept vectors). `same_best` counts hits whose
best sentence is the same on both.
Both run in the same process on the default backend, alternating question by question.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.common import QUERIES, save
from benchmarks.indexes import papers_file, work_dir
from explorer.features.explanations.explain import explain_hits
from explorer.ingest.run import build
from explorer.query.engine import Explorer

WARM_UP = "a question to warm up the model"
WARM_UP_HITS = 10


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run explain")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000],
                        help="paperlists-ml papers per index (built twice, the first time)")
    parser.add_argument("--top-k", type=int, default=10, help="hits on a page")
    parser.add_argument("--passes", type=int, default=3, help="passes over the 16 questions")
    args = parser.parse_args(argv)
    rows = [_measure(size, args.top_k, args.passes) for size in args.sizes]
    save("explain", "Explanations of a page of hits: sentences embedded on demand vs stored",
         rows, ["papers", "top_k", "stored_ms_per_hit", "on_demand_ms_per_hit",
                "on_demand_p90_ms_per_hit", "again_ms_per_hit", "ratio", "search_p50_ms",
                "sentences_per_hit", "same_best", "backend"], notes=__doc__.strip())


def _folders(size: int) -> dict[bool, Path]:
    source = papers_file(size)
    folders = {}
    for stored in (True, False):
        folder = work_dir() / f"explain-{size}-{'stored' if stored else 'on-demand'}"
        build([source], folder, "default", sentences=stored)
        folders[stored] = folder
    return folders


def _measure(size: int, top_k: int, passes: int) -> dict:
    folders = _folders(size)
    stored = Explorer.open(folders[True])
    stored.embed_query("warm up")
    times: dict[str, list[float]] = {"stored": [], "on_demand": [], "again": [], "search": []}
    same = total = sentences = 0
    for number in range(passes + 1):
        for query in QUERIES:
            fresh = Explorer.open(folders[False])  # nothing kept from earlier questions
            hits = fresh.search(query, top_k)
            _warm_up(fresh, {hit.paper_id for hit in hits})
            started = time.perf_counter()
            hits = fresh.search(query, top_k)
            searched = time.perf_counter()
            on_demand = explain_hits(fresh, hits, query=query)
            explained = time.perf_counter()
            explain_hits(fresh, hits, query=query)
            again = time.perf_counter()
            kept = explain_hits(stored, hits, query=query)
            read = time.perf_counter()
            if not number:
                continue  # the first pass warms up
            times["search"].append(searched - started)
            times["on_demand"].append((explained - searched) / len(hits))
            times["again"].append((again - explained) / len(hits))
            times["stored"].append((read - again) / len(hits))
            for mine, theirs in zip(on_demand, kept):
                same += _best(mine) == _best(theirs)
            total += len(hits)
            sentences += sum(len(fresh.sentences(hit.paper_id)[0]) for hit in hits)
    ms = {name: float(np.percentile(values, 50)) * 1000 for name, values in times.items()}
    info = stored.embedder.info
    return {"papers": len(stored.papers), "top_k": top_k,
            "stored_ms_per_hit": round(ms["stored"], 2),
            "on_demand_ms_per_hit": round(ms["on_demand"], 2),
            "on_demand_p90_ms_per_hit": round(float(np.percentile(times["on_demand"], 90)) * 1000, 2),
            "again_ms_per_hit": round(ms["again"], 2),
            "ratio": f"x{ms['on_demand'] / ms['stored']:.1f}",
            "search_p50_ms": round(ms["search"], 2),
            "sentences_per_hit": round(sentences / total, 1),
            "same_best": f"{same}/{total}", "backend": f"{info['backend']}/{info['precision']}"}


def _warm_up(explorer: Explorer, timed: set[str]) -> None:
    """Explain a page of other papers first, so that the model's first runs (its compiled
    forms load on first use) are not timed: a served Explorer lives long, the page is new."""
    others = [hit for hit in explorer.search(WARM_UP, 3 * WARM_UP_HITS)
              if hit.paper_id not in timed][:WARM_UP_HITS]
    explain_hits(explorer, others, query=WARM_UP)


def _best(explanation: dict) -> int | None:
    """Where the hit's best sentence starts (None: no sentences)."""
    sentences = explanation["sentences"]
    return sentences[0]["start"] if sentences else None
