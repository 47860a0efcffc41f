"""Helpers for the app tests: a small hostile corpus, and a real `streamlit run` server."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.ingest.run import build
from tests.run_fixtures import made_once

ROOT = Path(__file__).resolve().parent.parent
# ../shared/data beside the clone (CI); EXPLORER_TEST_SHARED_DATA names it elsewhere (a worktree).
SHARED_DATA = Path(os.environ.get("EXPLORER_TEST_SHARED_DATA") or ROOT.parent / "shared" / "data")
APP = ROOT / "streamlit_app.py"
SCREENSHOTS = ROOT / "test-output"

# An abstract that would run script three ways if it were ever rendered as HTML or a link.
XSS_ID = "xss-probe"
XSS_ABSTRACT = (
    "We study sanitisation of abstracts. <script>window.__pwned = 1</script> "
    "An image tag follows: <img src=x onerror=\"window.__pwned = 2\"> and a link "
    "[click me](javascript:window.__pwned=3) and **not bold** text. "
    "Math still renders: $x^2 + y^2$ and $\\href{javascript:window.__pwned=4}{here}$."
)
PAPERS = [
    (XSS_ID, "Rendering untrusted <b>markup</b> & text", XSS_ABSTRACT, "J. Safe Rendering", 2021),
    ("gnn", "Message passing on molecular graphs",
     "Graph neural networks pass messages between atoms to predict molecular properties. "
     "We propose a message passing scheme that respects bond geometry.", "NeurIPS", 2019),
    ("protein", "Predicting protein structure from sequence",
     "We predict the three-dimensional fold of proteins from their amino acid sequence. "
     "Attention over residue pairs captures long-range contacts.", "ICML", 2021),
    ("speech", "Robust speech recognition in noisy rooms",
     "Automatic speech recognition degrades in reverberant rooms. "
     "We train acoustic models with simulated room impulse responses.", "ACL", 2020),
    ("segment", "Segmenting cells in microscopy images",
     "We segment individual cells in fluorescence microscopy images. "
     "A U-Net with boundary-aware loss separates touching cells.", "CVPR", 2022),
    ("robots", "Reinforcement learning for legged robots",
     "Legged robots learn to walk over rough terrain with reinforcement learning. "
     "Policies trained in simulation transfer to real hardware.", "NeurIPS", 2023),
    ("queries", "Learned query optimisation for databases",
     "Database query optimisers choose join orders with cost models. "
     "We learn a cost model from executed query plans.", "VLDB", 2018),
    ("federated", "Private federated learning on phones",
     "Federated learning trains models on phones without collecting user data. "
     "Differential privacy bounds what the server can learn about one user.", "ICML", 2022),
    ("climate", "Forecasting regional rainfall with deep networks",
     "We forecast regional rainfall from satellite observations. "
     "A convolutional recurrent network beats numerical weather prediction at short range.",
     "KDD", 2023),
    ("graphs2", "Graph transformers for citation networks",
     "Graph transformers classify papers in citation networks. "
     "Neighbourhood sampling lets attention scale to millions of nodes.", "NeurIPS", 2021),
]

# Two more papers the small app's server holds (tests/shared.py small_server): formulas that
# try to link, load an image or cover the page (test_browser), and LaTeX text markup by a
# named author (test_browser_markup).
HOSTILE_ID = "hostile-math"
HOSTILE_ABSTRACT = (
    "Users must verify their account now: $][Verify your account](https://example.org/phish)$ "
    "before the session expires. "
    "An outside image hides in a formula: $]![](https://example.org/pixel.png)$ and loads. "
    "A black box covers the page: $\\rule{2000px}{1500px}$ and $\\kern{500em}x$ and $\\Huge W$. "
    "Ordinary math still renders: $x^2 + y^2$.")
MARKED_ID = "latex-markup"
MARKED_TITLE = "Memorisation and generalization"
MARKED_ABSTRACT = (
    "Deep networks \\emph{memorise} random labels~\\citet{zhang2016understanding}, so "
    "generalization \\textbf{is} not explained by capacity alone~\\citep[see][]{arpit2017}. "
    "We bound the gap by $\\epsilon^2 / n$ for {\\em every} trained network.")
SERVED_PAPERS = [
    {"id": HOSTILE_ID, "title": "Verify your account $]x$", "abstract": HOSTILE_ABSTRACT},
    {"id": MARKED_ID, "title": MARKED_TITLE, "abstract": MARKED_ABSTRACT,
     "authors": ["Sergey Levine", "Chiyuan Zhang"]},
]


def write_small_corpus(folder: Path) -> Path:
    """A JSONL file of PAPERS (titles, venues, years) in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "small.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for paper_id, title, abstract, venue, year in PAPERS:
            record = {"id": paper_id, "title": title, "abstract": abstract, "venue": venue,
                      "year": year, "authors": ["Ada Lovelace", "Alan Turing"]}
            handle.write(json.dumps(record) + "\n")
    return path


def build_small_index(folder: Path) -> Path:
    """A real index (bundled model, FAISS) of the small corpus, in `folder`/index."""
    out = folder / "index"
    build([write_small_corpus(folder / "corpus")], out, "default")
    return out


def build_served_index(folder: Path) -> Path:
    """A real index of PAPERS plus SERVED_PAPERS, in `folder`/index: the small app's."""
    corpus = write_small_corpus(folder / "corpus")
    with corpus.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(record) + "\n" for record in SERVED_PAPERS)
    out = folder / "index"
    build([corpus], out, "default")
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(index: Path, timeout: float = 120.0, app: Path = APP,
                     env: dict[str, str] | None = None) -> Iterator[str]:
    """Run `streamlit run APP` on a free localhost port for `index` (extra environment `env`);
    yields its base URL once the server answers."""
    port = free_port()
    env = {**os.environ, "EXPLORER_INDEX": str(index), **(env or {})}
    command = [sys.executable, "-m", "streamlit", "run", str(app),
               "--server.address", "127.0.0.1", "--server.port", str(port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    log = open(index.parent / f"streamlit-{port}.log", "w+b")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process, log, timeout)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _wait_healthy(url: str, process: subprocess.Popen, log, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"streamlit exited early:\n{log.read().decode(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.05)  # short: benchmarks/appstart.py times the start through this
    raise RuntimeError(f"streamlit did not answer on {url} within {timeout} s")


# The page painted: its fonts loaded and two animation frames drawn after the last change
# (a frame is ~16 ms; at most PAINT_WAIT ms where a page draws no frames, as a hidden one).
# Only for screenshots: a test never reads the page after it without waiting for what it reads.
PAINT_WAIT = 10_000
PAINTED = f"""() => Promise.race([
    document.fonts.ready.then(() => new Promise(done =>
        requestAnimationFrame(() => requestAnimationFrame(() => done(true))))),
    new Promise(done => setTimeout(() => done(false), {PAINT_WAIT}))])"""


def painted(page) -> None:
    """Wait until `page` has painted what it shows now (before a screenshot), instead of a
    fixed pause."""
    page.evaluate(PAINTED)


# Streamlit is idle: connected, its script run over (the app's data-test-script-state, which
# Streamlit's own browser tests wait on), no "Running..." widget, no element left stale by the
# last run. A test waits first for what its action brings (a text, a URL), then for this: a
# rerun that has not started yet looks idle.
IDLE = """() => { const app = document.querySelector('[data-testid=stApp]');
    return !!app && app.dataset.testConnectionState === 'CONNECTED'
        && app.dataset.testScriptState === 'notRunning'
        && !document.querySelector('[data-testid=stStatusWidget]')
        && !document.querySelector('[data-stale=true]'); }"""


def idle(page) -> None:
    """Wait (the page's default timeout) until Streamlit has finished its run (IDLE)."""
    page.wait_for_function(IDLE)


def until_shown(act: Callable[[], object], target, timeout: float = 90.0,
                every: float = 5.0) -> None:
    """Do `act()` (a hover, a click) until the locator `target` is visible: an action the page
    could not answer yet (a chart still loading its layers, a popover closed by a rerun) is
    taken again every `every` seconds, for at most `timeout` seconds in all."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + timeout
    while True:
        act()
        try:
            target.wait_for(state="visible", timeout=every * 1000)
            return
        except PlaywrightTimeout:
            if time.monotonic() > deadline:
                raise


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def require_chromium() -> None:
    """Skip (fail under CI) when Debian's chromium is not installed."""
    if not Path(CHROMIUM).exists():
        message = f"{CHROMIUM} is missing: run `make browser` (installs Debian's chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)

_BUILT: dict[str, Path] = {}


@pytest.fixture(scope="session")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small corpus's index, built once per session even when several modules import this."""
    if "small" not in _BUILT:
        _BUILT["small"] = made_once(tmp_path_factory, "small-corpus", build_small_index)
    return _BUILT["small"]
