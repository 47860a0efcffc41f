"""What the years of a ranking add to a question's time (issue 14, Time).

Plain: `Explorer.search(query, top_k=10)` end to end (query embedding + ranking + hits), the
product's query path without years. Years: the same question through
`query.years.ranked_with_spread` (one ranking at SPREAD_DEPTH = 200, its first 10 shown, the
200 counted) plus `growth` against the corpus, as `search --by-year` and the app's chart do.
Twice (the design not taken): the plain search and then a second ranking of the top 200 to
count. All three answer the same 16 queries in the same run, alternating by passes; the
first (warm-up) pass is not counted. `years_ratio` = years p50 / plain p50 (1.00: no cost).
In hybrid mode the pool of 200 is ranked anyway (ranking.CANDIDATES); in dense mode the
search itself goes from 10 to 200 rows.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.common import QUERIES, save, timed
from benchmarks.indexes import prepare
from explorer.features.years.spread import (
    SPREAD_DEPTH,
    corpus_spread,
    growth,
    ranked_with_spread,
    spread,
)
from explorer.query.engine import Explorer

TOP_K = 10


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run years")
    parser.add_argument("--sizes", default="10000,91808",
                        help="paperlists-ml index sizes (benchmarks/indexes.py prepares them)")
    parser.add_argument("--folders", nargs="*", default=[], metavar="INDEX",
                        help="measure these built index folders instead of --sizes")
    parser.add_argument("--modes", default="hybrid,dense")
    parser.add_argument("--repeats", type=int, default=4, help="passes over the 16 queries")
    args = parser.parse_args(argv)
    folders = [Path(f) for f in args.folders] or [
        prepare(int(size))[0] for size in args.sizes.split(",") if size]
    rows = []
    for folder in folders:
        explorer = Explorer.open(folder)
        corpus_spread(explorer)  # once per Explorer, as the app and the CLI keep it
        for mode in args.modes.split(","):
            rows.append(_measure(explorer, mode, args.repeats))
    save("years", f"Years of a ranking: the added time, top {TOP_K} shown, {SPREAD_DEPTH} counted",
         rows, ["papers", "index", "mode", "plain_p50_ms", "years_p50_ms", "twice_p50_ms",
                "added_ms", "years_ratio", "twice_ratio", "backend"], notes=__doc__.strip())


def _measure(explorer: Explorer, mode: str, repeats: int) -> dict:
    def plain(query: str) -> object:
        return explorer.search(query, top_k=TOP_K, mode=mode)

    def years(query: str) -> object:
        shown, counted = ranked_with_spread(lambda k: explorer.search(query, k, mode=mode), TOP_K)
        return shown, growth(counted, corpus_spread(explorer))

    def twice(query: str) -> object:
        shown = explorer.search(query, top_k=TOP_K, mode=mode)
        counted = spread(explorer.search(query, top_k=SPREAD_DEPTH, mode=mode))
        return shown, growth(counted, corpus_spread(explorer))

    ways = {"plain": plain, "years": years, "twice": twice}
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    for number in range(repeats + 1):
        for name, way in ways.items():
            times = [timed(lambda q=query, w=way: w(q))[0] for query in QUERIES]
            if number:  # the first pass warms up (model load, first-call costs)
                seconds[name].extend(times)
    p50 = {name: float(np.percentile(values, 50)) * 1000 for name, values in seconds.items()}
    info = explorer.embedder.info
    return {"papers": len(explorer.papers), "index": explorer.manifest.index_type, "mode": mode,
            **{f"{name}_p50_ms": round(value, 2) for name, value in p50.items()},
            "added_ms": round(p50["years"] - p50["plain"], 2),
            "years_ratio": round(p50["years"] / p50["plain"], 3),
            "twice_ratio": round(p50["twice"] / p50["plain"], 3),
            "backend": f"{info['backend']}/{info['precision']}"}
