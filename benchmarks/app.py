"""The app's answer time for a new question, whole page, beside the bare library call.

Product: streamlit_app.py run by Streamlit's AppTest for a new question (query embedding,
search, highlights, rendering of ten result cards). Baseline: `Explorer.search(query, 10)` on
the same index in the same run: the difference is what the page itself costs. The first run
(model and index loading) is reported separately; every question is new to the page.
"""

from __future__ import annotations

import argparse
import os
import time

from benchmarks.common import QUERIES, ROOT, percentiles, save, timed


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run app")
    parser.add_argument("index", help="an index folder built by `explorer build`")
    args = parser.parse_args(argv)
    os.environ["EXPLORER_INDEX"] = args.index
    from streamlit.testing.v1 import AppTest

    from explorer.query.engine import Explorer

    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=600)
    first, _ = timed(app.run)
    explorer = Explorer.open(args.index)
    explorer.search("warm-up", 10)
    page, library = [], []
    for query in QUERIES:
        started = time.perf_counter()
        app.text_input(key="query_box").input(query).run()
        page.append(time.perf_counter() - started)
        if app.exception:
            raise SystemExit(f"the app failed on {query!r}: {app.exception}")
        library.append(timed(lambda q=query: explorer.search(q, 10))[0])
    rows = [{"path": "app page (AppTest)", **percentiles(page)},
            {"path": "library search (baseline)", **percentiles(library)}]
    rows[0]["ratio_p50"] = round(rows[0]["p50_ms"] / rows[1]["p50_ms"], 2)
    count = len(explorer.papers)
    save(f"app-{count}", f"App answer time, {count:,} papers ({args.index})", rows,
         ["path", "p50_ms", "p99_ms", "ratio_p50"],
         f"First run (model + index load, page drawn): {first:.1f} s. "
         f"{len(QUERIES)} new questions; {explorer.manifest.index_type} index.")
