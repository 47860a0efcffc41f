"""Cold start: a new process, from its start to the first answer, on a large index (CLI; the
app: see appstart.py).

Product: `explorer search QUERY --index FOLDER --k 10 --json` (the CLI as a user runs it).
Baseline: a plain script that imports sentence-transformers, loads the model, the vectors
(.npy) and the papers (JSON lines), embeds the query in fp32 and ranks by brute force. Runs
alternate; the median of the runs counts. The exported model is already in the cache (a build
puts it there), so neither side pays for an export.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from benchmarks.appstart import __doc__ as appstart_doc
from benchmarks.appstart import app_rows
from benchmarks.common import QUERIES, ROOT, save
from benchmarks.indexes import prepare, work_dir
from explorer.artifacts.layout import PAPERS
from explorer.artifacts.store import load_artifacts

BASELINE = """
import json, sys
import numpy as np
from sentence_transformers import SentenceTransformer
from explorer.model.embedder import resolve_model
model = SentenceTransformer(str(resolve_model("default").path), device="cpu")
vectors = np.load(sys.argv[1])
papers = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
query = model.encode(sys.argv[3]); query /= np.linalg.norm(query)
scores = vectors @ query
top = np.argsort(-scores)[:10]
print(json.dumps([{**papers[i], "score": float(scores[i])} for i in top]))
"""


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run coldstart")
    parser.add_argument("--size", type=int, default=91808)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-app", action="store_true", help="only the CLI rows")
    args = parser.parse_args(argv)
    folder, real = prepare(args.size)
    artifacts = load_artifacts(folder)
    vectors_file = work_dir() / f"vectors-{args.size}.npy"
    np.save(vectors_file, artifacts.index.vectors())
    papers_file = folder / artifacts.manifest.files[PAPERS].name
    explorer = str(ROOT / ".venv" / "bin" / "explorer")
    cli: dict[str, list[float]] = {"ours": [], "theirs": []}
    for run_number in range(args.runs):
        query = QUERIES[run_number % len(QUERIES)]
        cli["ours"].append(_wall([explorer, "search", query, "--index", str(folder), "--k",
                                  "10", "--json"]))
        cli["theirs"].append(_wall([sys.executable, "-c", BASELINE, str(vectors_file),
                                    str(papers_file), query]))
    app = None if args.no_app else app_rows(folder, vectors_file, papers_file, QUERIES,
                                            args.runs)
    rows = [_row(path, times, len(artifacts.papers), real)
            for path, times in (("cli", cli), ("app", app)) if times]
    save("coldstart", "Cold start to the first answer (CLI and app)", rows,
         ["path", "papers", "real_vectors", "product_s", "baseline_s", "ratio", "product_runs",
          "baseline_runs"], notes=__doc__.strip() + "\n\n" + appstart_doc.strip())


def _row(path: str, times: dict[str, list[float]], papers: int, real: int) -> dict:
    product, baseline = float(np.median(times["ours"])), float(np.median(times["theirs"]))
    return {"path": path, "papers": papers, "real_vectors": real,
            "product_s": round(product, 2), "baseline_s": round(baseline, 2),
            "ratio": round(baseline / product, 2),
            "product_runs": [round(x, 2) for x in times["ours"]],
            "baseline_runs": [round(x, 2) for x in times["theirs"]]}


def _wall(command: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0 or len(json.loads(result.stdout)) != 10:
        raise RuntimeError(f"{command[0]} failed: {result.stderr[-500:]}")
    return elapsed
