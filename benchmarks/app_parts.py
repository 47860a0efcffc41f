"""Where the web app's cold start goes, before and after a change, in one run: `streamlit run`
started -> the first result card at a `?q=` link, in the same headless Chromium, on a small
index (the seeds: the import and start costs, not the corpus's).

- floor: a bare page (`st.write` of one card) started and shown the same way: Streamlit's server
  start, the browser's page load and one script run, which no app can go below.
- before / after: streamlit_app.py of BASE (default: the merge base with main) and of this
  checkout, alternating, each in a new server process.
Each side reports the wall seconds to the first card and the server process's CPU seconds by
then (user + system: the work done, which a loaded machine stretches less than the wall). A
second table splits the script's first run in one new Python process per side (CPU seconds):
the app's modules imported (Streamlit itself already loaded, as in a server), then the index
and model opened (Explorer.open, warm) and the first question answered.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np

from benchmarks.cold_scale import _checkout, _env, _git
from benchmarks.common import QUERIES, ROOT, save
from benchmarks.indexes import work_dir
from explorer.ingest.run import build
from tests.app_fixtures import CHROMIUM, CHROMIUM_ARGS, streamlit_server

CARD = "[class*='st-key-card-']"
BARE_APP = """
import streamlit as st
with st.container(key="card-0"):
    st.write(st.query_params.get("q", ""))
"""
CHAIN = """
import json, sys, time
import streamlit, streamlit.web.server
def cpu():
    return time.process_time()
started = cpu()
import explorer.app.shell
imported = cpu()
from explorer.query.engine import Explorer
index = Explorer.open(sys.argv[1], warm=True)
opened = cpu()
hits = index.search(sys.argv[2])
print(json.dumps({"code": explorer.__file__, "imports": imported - started,
                  "open": opened - imported, "first": cpu() - opened, "hits": len(hits)}))
"""


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run appparts")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", default="")
    args = parser.parse_args(argv)
    base = args.base or _git("merge-base", "HEAD", "main")
    folder = work_dir() / "index-seeds-appparts"
    build([ROOT / "seeds"], folder, "default", sentences=False)  # incremental: embeds once
    bare = work_dir() / "bare_app.py"
    bare.write_text(BARE_APP, encoding="utf-8")
    sides = {"floor": (bare, ROOT), "before": (_checkout(base) / "streamlit_app.py",
                                               _checkout(base)),
             "after": (ROOT / "streamlit_app.py", ROOT)}
    shown = _shown(sides, folder, args.runs)
    chain = {side: [_chain(code, folder, QUERIES[run % len(QUERIES)]) for run in range(args.runs)]
             for side, (_, code) in sides.items() if side != "floor"}
    rows = [_row(f"first card, wall s ({side})", shown[side], "wall") for side in sides]
    rows += [_row(f"first card, server CPU s ({side})", shown[side], "cpu") for side in sides]
    rows += [_row(f"{part}, CPU s ({side})", chain[side], part)
             for part in ("imports", "open", "first") for side in chain]
    save("appparts", "Web app cold start by parts (seeds), before and after", rows,
         ["measure", "median", "runs"],
         notes=f"Before: {base[:10]}; after: {_git('rev-parse', 'HEAD')[:10]}. The CPU was "
         "shared with other sessions (load average above): ratios within this run only.\n\n"
         + __doc__.strip())


def _shown(sides: dict, folder: Path, runs: int) -> dict[str, list[dict]]:
    from playwright.sync_api import sync_playwright

    found: dict[str, list[dict]] = {side: [] for side in sides}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for run_number in range(runs):
                query = QUERIES[run_number % len(QUERIES)]
                for side, (app, code) in sides.items():
                    found[side].append(_first_card(browser, app, code, folder, query))
        finally:
            browser.close()
    return found


def _first_card(browser, app: Path, code: Path, index: Path, query: str) -> dict:
    started = time.perf_counter()
    env = {key: value for key, value in _env(code).items() if key in ("PYTHONPATH",
                                                                        "PYTHONSAFEPATH")}
    with streamlit_server(index, timeout=300, app=app, env=env) as url:
        page = browser.new_page()
        page.goto(f"{url}/?q={quote(query)}")
        page.locator(CARD).first.wait_for(timeout=300_000)
        elapsed = time.perf_counter() - started
        cpu = _server_cpu(url.rsplit(":", 1)[1])
        page.close()
    return {"wall": elapsed, "cpu": cpu}


def _server_cpu(port: str) -> float:
    """User + system CPU seconds of this process's `streamlit run` child on `port`."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and port.encode() in command:
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    raise RuntimeError(f"no streamlit server of this process on port {port}")


def _chain(code: Path, folder: Path, query: str) -> dict:
    result = subprocess.run([sys.executable, "-c", CHAIN, str(folder), query],
                            capture_output=True, text=True, env=_env(code), check=True)
    return json.loads(result.stdout.splitlines()[-1])


def _row(measure: str, runs: list[dict], key: str) -> dict:
    values = [run[key] for run in runs]
    return {"measure": measure, "median": round(float(np.median(values)), 2),
            "runs": [round(value, 2) for value in values]}
