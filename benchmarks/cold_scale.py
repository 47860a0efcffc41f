"""Cold start and resident memory at ~92k papers: the product before (BASE, the commit this
work left from) and after (this checkout), in one run, on one index.

Index: `--size` real paperlists-ml records (benchmarks.indexes.papers_file) built by this
checkout's `build`, with stand-in vectors (seeded random unit vectors: a real embedding of 92k
abstracts takes about 30 min here, and neither the opening of an index nor a flat scan depends
on the vectors' values). BASE's code (`git archive`) runs on the same index, the same
interpreter and packages (PYTHONPATH and PYTHONSAFEPATH pick which `explorer` is imported; each
process reports which one it ran); it reads the files it knows and loads this build's new arrays
(the author table, the offsets: a few MB) like any named array.

Rows (sides alternate; medians):
- cli: a new process runs `explorer search QUERY --index FOLDER --k 10 --json` to its answer.
- app: `streamlit run` started -> the first result card in headless Chromium (?q=QUERY).
- serving: a new process opens the index, answers a first question (its seconds), then 4
  threads ask 10 questions each; then its resident memory (VmRSS; RssAnon: the process's own;
  RssFile: mapped files, the page cache's pages, shared and given back under pressure).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np

from benchmarks.appstart import _first_card
from benchmarks.common import QUERIES, ROOT, save
from benchmarks.indexes import papers_file, work_dir
from explorer.artifacts.store import load_artifacts
from explorer.corpus.papers import read_corpus
from explorer.errors import ExplorerError
from explorer.ingest.checkpoint import Checkpoint
from explorer.ingest.run import build
from explorer.model.embedder import Embedder, resolve_model

CLI = "import sys; from explorer.cli.main import main; sys.exit(main(sys.argv[1:]))"
SERVING = """
import json, sys, threading, time
started = time.perf_counter()
import explorer
from explorer import Explorer
opened = Explorer.open(sys.argv[1])
opened.search(sys.argv[2], 10)
first = time.perf_counter() - started
questions = json.loads(sys.argv[3])
def ask(): [opened.search(q, 10) for q in questions]
threads = [threading.Thread(target=ask) for _ in range(4)]
[t.start() for t in threads]; [t.join() for t in threads]
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
mib = {k: int(status[k].split()[0]) / 1024 for k in ("VmRSS", "RssAnon", "RssFile", "VmHWM")}
print(json.dumps({"code": explorer.__file__, "first_s": first, **mib}))
"""


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run coldscale")
    parser.add_argument("--size", type=int, default=92_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", default="", help="the commit before (default: merge-base "
                        "of HEAD and main)")
    parser.add_argument("--no-app", action="store_true", help="only the CLI and serving rows")
    args = parser.parse_args(argv)
    base = args.base or _git("merge-base", "HEAD", "main")
    before, after = _checkout(base), ROOT
    folder = stand_in_index(args.size)
    papers = load_artifacts(folder).manifest.count
    times: dict[str, dict[str, list]] = {"cli": {"before": [], "after": []},
                                         "serving": {"before": [], "after": []}}
    for number in range(args.runs):
        query = QUERIES[number % len(QUERIES)]
        for side, code in (("before", before), ("after", after)):
            times["cli"][side].append(_wall([sys.executable, "-c", CLI, "search", query,
                                             "--index", str(folder), "--k", "10", "--json"],
                                            code))
            times["serving"][side].append(_serving(folder, query, code))
    if not args.no_app:
        times["app"] = _app(folder, before, after, args.runs)
    rows = [_row(path, sides, papers) for path, sides in times.items()]
    rows.append(_memory_row(times["serving"], papers))
    save(f"coldscale-{papers}", f"Cold start and memory at {papers:,} papers, before and after",
         rows, ["measure", "papers", "before", "after", "ratio", "before_runs", "after_runs"],
         notes=f"Before: {base[:10]}; after: {_git('rev-parse', 'HEAD')[:10]} (+ uncommitted: "
         f"{bool(_git('status', '--porcelain', '--untracked-files=no'))}). The CPU was shared "
         "with other sessions (see the load average): ratios within this run only.\n\n"
         + __doc__.strip())


def stand_in_index(size: int) -> Path:
    """An index of `size` real paperlists-ml records with stand-in vectors (module docstring),
    built once by this checkout (kept in the benchmarks' work folder)."""
    out = work_dir() / f"index-{size}-standins"
    try:
        load_artifacts(out)
        return out
    except ExplorerError:
        pass
    source = papers_file(size)
    hashes = [paper.text_hash for paper in read_corpus([source]).papers]
    spec = resolve_model("default")
    info = Embedder(spec).info
    vectors = np.random.default_rng(0).standard_normal((len(hashes), info["dimension"]))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    Checkpoint(out, spec.fingerprint).save(hashes, vectors.astype(np.float32), info)
    build([source], out, "default", sentences=False, progress=_refuse)
    return out


def _refuse(phase: str, done: int, total: int) -> None:
    """Progress of a build that must reuse the stand-in vectors, never embed papers."""
    raise RuntimeError(f"the stand-in vectors were not reused: the build embeds {total} {phase}")


def _checkout(commit: str) -> Path:
    """The product's code as of `commit` (explorer/ and streamlit_app.py), unpacked once."""
    out = work_dir() / f"code-{commit[:12]}"
    if not (out / "explorer" / "__init__.py").is_file():
        packed = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "explorer",
                                 "streamlit_app.py"], capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(packed)) as archive:
            archive.extractall(out, filter="data")
    return out


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def _env(code: Path) -> dict[str, str]:
    """The environment that makes a new Python import the product from `code`."""
    return {**os.environ, "PYTHONPATH": str(code), "PYTHONSAFEPATH": "1"}


def _wall(command: list[str], code: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=_env(code), check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0 or len(json.loads(result.stdout)) != 10:
        raise RuntimeError(f"the CLI of {code} failed: {result.stderr[-800:]}")
    return elapsed


def _serving(folder: Path, query: str, code: Path) -> dict:
    result = subprocess.run([sys.executable, "-c", SERVING, str(folder), query,
                             json.dumps(QUERIES[:10])], capture_output=True, text=True,
                            env=_env(code), check=False)
    if result.returncode != 0:
        raise RuntimeError(f"serving with {code} failed: {result.stderr[-800:]}")
    found = json.loads(result.stdout.splitlines()[-1])
    if not Path(found["code"]).resolve().is_relative_to(code.resolve()):
        raise RuntimeError(f"{found['code']} ran, not the code in {code}")
    return found


def _app(folder: Path, before: Path, after: Path, runs: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    from tests.app_fixtures import CHROMIUM, CHROMIUM_ARGS

    found: dict[str, list[float]] = {"before": [], "after": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for number in range(runs):
                for side, code in (("before", before), ("after", after)):
                    env = {"PYTHONPATH": str(code), "PYTHONSAFEPATH": "1"}
                    found[side].append(_first_card(browser, code / "streamlit_app.py", env,
                                                   folder, QUERIES[number % len(QUERIES)]))
        finally:
            browser.close()
    return found


def _row(path: str, sides: dict[str, list], papers: int) -> dict:
    """Seconds to the first answer, before and after (median), ratio before/after."""
    runs = {side: [x["first_s"] if isinstance(x, dict) else x for x in values]
            for side, values in sides.items()}
    before, after = (float(np.median(runs[side])) for side in ("before", "after"))
    name = {"cli": "CLI cold start, s", "app": "app cold start (first card), s",
            "serving": "open + first answer in-process, s"}[path]
    return {"measure": name, "papers": papers, "before": round(before, 2),
            "after": round(after, 2), "ratio": round(before / after, 2),
            "before_runs": [round(x, 2) for x in runs["before"]],
            "after_runs": [round(x, 2) for x in runs["after"]]}


def _memory_row(sides: dict[str, list[dict]], papers: int) -> dict:
    """Resident memory while serving (median MiB), and the process's own part (RssAnon)."""
    def median(side: str, key: str) -> float:
        return float(np.median([found[key] for found in sides[side]]))

    before, after = median("before", "VmRSS"), median("after", "VmRSS")
    return {"measure": "resident memory serving, MiB (RssAnon before / after: "
                       f"{median('before', 'RssAnon'):.0f} / {median('after', 'RssAnon'):.0f}; "
                       f"peak {median('before', 'VmHWM'):.0f} / {median('after', 'VmHWM'):.0f})",
            "papers": papers, "before": round(before), "after": round(after),
            "ratio": round(before / after, 2),
            "before_runs": [round(x["VmRSS"]) for x in sides["before"]],
            "after_runs": [round(x["VmRSS"]) for x in sides["after"]]}
