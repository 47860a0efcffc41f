"""Cold start of the web app: `streamlit run` started -> the first result card on screen.

Product: streamlit_app.py on the index, opened in headless Chromium at `?q=QUERY` (a shared
link). Baseline: a plain Streamlit page that imports sentence-transformers, loads the model,
the vectors (.npy) and the papers (JSON lines), embeds the query in fp32, ranks by brute force
and draws ten cards. The browser is running before either server starts (a user's is); each
run is a new server process. Part of `benchmarks.run coldstart`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

from benchmarks.common import ROOT
from benchmarks.indexes import WORK
from tests.app_fixtures import CHROMIUM, CHROMIUM_ARGS, free_port

CARD = "[class*='st-key-card-']"
BASELINE_APP = """
import json, os
import numpy as np
import streamlit as st
from sentence_transformers import SentenceTransformer
from explorer.embedder import resolve_model

@st.cache_resource
def load():
    model = SentenceTransformer(str(resolve_model("default").path), device="cpu")
    vectors = np.load(os.environ["BASELINE_VECTORS"])
    with open(os.environ["BASELINE_PAPERS"], encoding="utf-8") as handle:
        papers = [json.loads(line) for line in handle]
    return model, vectors, papers

model, vectors, papers = load()
query = st.text_input("Ask a question", st.query_params.get("q", ""))
if query:
    vector = model.encode(query)
    scores = vectors @ (vector / np.linalg.norm(vector))
    for rank, row in enumerate(np.argsort(-scores)[:10]):
        with st.container(key=f"card-{rank}"):
            st.markdown(f"**{papers[row]['title']}**")
            st.text(papers[row]["abstract"][:300])
"""


def app_rows(folder: Path, vectors_file: Path, papers_file: Path, queries: list[str],
             runs: int) -> dict:
    """Median seconds from server start to the first card, product and baseline."""
    from playwright.sync_api import sync_playwright

    baseline_app = WORK / "baseline_app.py"
    baseline_app.write_text(BASELINE_APP, encoding="utf-8")
    product_env = {"EXPLORER_INDEX": str(folder)}
    baseline_env = {"BASELINE_VECTORS": str(vectors_file), "BASELINE_PAPERS": str(papers_file)}
    ours, theirs = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for run_number in range(runs):
                query = queries[run_number % len(queries)]
                ours.append(_first_card(browser, ROOT / "streamlit_app.py", product_env, query))
                theirs.append(_first_card(browser, baseline_app, baseline_env, query))
        finally:
            browser.close()
    return {"ours": ours, "theirs": theirs}


def _first_card(browser, app: Path, env: dict[str, str], query: str) -> float:
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", str(app), "--server.address",
               "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, process)
        page = browser.new_page()
        page.goto(f"{url}/?q={quote(query)}")
        page.locator(CARD).first.wait_for(timeout=300_000)
        elapsed = time.perf_counter() - started
        page.close()
        return elapsed
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_healthy(url: str, process: subprocess.Popen) -> None:
    while process.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{url}: the server exited with {process.returncode}")
