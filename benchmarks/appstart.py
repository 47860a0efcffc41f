"""Cold start of the web app: `streamlit run` started -> the first result card on screen.

Product: streamlit_app.py on the index, opened in headless Chromium at `?q=QUERY` (a shared
link). Baseline: a plain Streamlit page that imports sentence-transformers, loads the model,
the vectors (.npy) and the papers (JSON lines), embeds the query in fp32, ranks by brute force
and draws ten cards. The browser is running before either server starts (a user's is); each
run is a new server process. Part of `benchmarks.run coldstart`.
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import quote

from benchmarks.common import ROOT
from benchmarks.indexes import work_dir
from tests.app_fixtures import CHROMIUM, CHROMIUM_ARGS, streamlit_server

CARD = "[class*='st-key-card-']"
BASELINE_APP = """
import json, os
import numpy as np
import streamlit as st
from sentence_transformers import SentenceTransformer
from explorer.model.embedder import resolve_model

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

    baseline_app = work_dir() / "baseline_app.py"
    baseline_app.write_text(BASELINE_APP, encoding="utf-8")
    baseline_env = {"BASELINE_VECTORS": str(vectors_file), "BASELINE_PAPERS": str(papers_file)}
    ours, theirs = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for run_number in range(runs):
                query = queries[run_number % len(queries)]
                ours.append(_first_card(browser, ROOT / "streamlit_app.py", {}, folder, query))
                theirs.append(_first_card(browser, baseline_app, baseline_env, folder, query))
        finally:
            browser.close()
    return {"ours": ours, "theirs": theirs}


def _first_card(browser, app: Path, env: dict[str, str], index: Path, query: str) -> float:
    started = time.perf_counter()
    with streamlit_server(index, timeout=300, app=app, env=env) as url:
        page = browser.new_page()
        page.goto(f"{url}/?q={quote(query)}")
        page.locator(CARD).first.wait_for(timeout=300_000)
        elapsed = time.perf_counter() - started
        page.close()
    return elapsed
