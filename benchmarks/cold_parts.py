"""The two parts of a cold start this work changed, at ~92k real papers, before and after in
one run, each side in a new process (its own memory counted from its start):

- papers: the papers file (paperlists-ml records as a build writes them) checked and opened,
  then row 12,345 read. Before: artifacts/paper_list.py as of BASE (the file read whole, its
  newlines scanned); after: this checkout's (memory-mapped, the build's offset table).
- authors: the first question that names an author ('Sergey Levine') on that list. Before:
  BASE's FacetTable makes the author and title table from every record; after: the table the
  build stored (ranking/author_arrays.py), read from its arrays.
Both report seconds and the growth of the process's own memory (RssAnon). A lighter stand-in for
`coldscale` (a whole 92k index build) on a CPU shared with other sessions.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchmarks.cold_scale import _checkout, _env, _git
from benchmarks.common import ROOT, save
from benchmarks.indexes import papers_file, work_dir
from explorer.artifacts.paper_list import line_offsets
from explorer.artifacts.store import paper_lines
from explorer.corpus.papers import read_corpus
from explorer.ranking.author_arrays import to_arrays
from explorer.ranking.authors import AuthorTable

SIDE = """
import json, sys, time
from pathlib import Path
import numpy as np
def anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
import explorer
from explorer import files
from explorer.artifacts.paper_list import PaperList
from explorer.ranking.filters import FacetTable
path, after = Path(sys.argv[1]), sys.argv[2] == "after"
start_mib, started = anon(), time.perf_counter()
with path.open("rb") as handle:
    files.checksum_stream(handle, "crc32")
    if after:
        papers = PaperList.read(path, handle, "hint", np.load(sys.argv[3]))
    else:
        papers = PaperList.read(path, handle, "hint")
paper = papers[12345]
opened, opened_mib = time.perf_counter() - started, anon()
started = time.perf_counter()
arrays = dict(np.load(sys.argv[4])) if after else None
table = FacetTable(papers, None, arrays) if after else FacetTable(papers)
named = table.authors.named("Sergey Levine")
print(json.dumps({"code": explorer.__file__, "papers_s": opened,
                  "papers_mib": opened_mib - start_mib, "authors_s": time.perf_counter() - started,
                  "authors_mib": anon() - opened_mib, "named": len(named.rows)}))
"""


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run coldparts")
    parser.add_argument("--size", type=int, default=92_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", default="")
    args = parser.parse_args(argv)
    base = args.base or _git("merge-base", "HEAD", "main")
    folder, count = _prepared(args.size)
    found: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(args.runs):
        for side, code in (("before", _checkout(base)), ("after", ROOT)):
            result = subprocess.run(
                [sys.executable, "-c", SIDE, str(folder / "papers.jsonl"), side,
                 str(folder / "offsets.npy"), str(folder / "authors.npz")],
                capture_output=True, text=True, env=_env(code), check=True)
            found[side].append(json.loads(result.stdout.splitlines()[-1]))
    assert len({run["named"] for side in found.values() for run in side}) == 1  # same answer
    rows = [_row(name, key, found, count) for name, key in (
        ("papers opened + one read, s", "papers_s"), ("  its own memory (RssAnon), MiB", "papers_mib"),
        ("first author question, s", "authors_s"), ("  its own memory (RssAnon), MiB", "authors_mib"))]
    save(f"coldparts-{count}", f"Cold start parts at {count:,} papers, before and after", rows,
         ["measure", "papers", "before", "after", "ratio", "before_runs", "after_runs"],
         notes=f"Before: {base[:10]}; after: {_git('rev-parse', 'HEAD')[:10]}. The CPU was "
         "shared with other sessions (load average above): ratios within this run only.\n\n"
         + __doc__.strip())


def _prepared(size: int) -> tuple[Path, int]:
    """The papers file as a build writes it, its offsets and its stored author table."""
    folder = work_dir() / f"parts-{size}"
    if not (folder / "authors.npz").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        papers = read_corpus([papers_file(size)]).papers
        data = "".join(paper_lines(papers)).encode("utf-8")
        (folder / "papers.jsonl").write_bytes(data)
        np.save(folder / "offsets.npy", line_offsets(data))
        np.savez(folder / "authors.npz", **to_arrays(AuthorTable(papers)))
    return folder, len(np.load(folder / "offsets.npy")) - 1


def _row(name: str, key: str, found: dict[str, list[dict]], count: int) -> dict:
    runs = {side: [run[key] for run in found[side]] for side in found}
    before, after = (float(np.median(runs[side])) for side in ("before", "after"))
    return {"measure": name, "papers": count, "before": round(before, 2),
            "after": round(after, 2), "ratio": round(before / max(after, 0.01), 1),
            "before_runs": [round(x, 2) for x in runs["before"]],
            "after_runs": [round(x, 2) for x in runs["after"]]}
