"""Scale, the lexical channel (`benchmarks.run scale --lexical`): the product's BM25 build
(`LexicalIndex.build`, the build's 'bm25' stage) over 100k / 1M / 2.7M simulated abstracts, each
size in a NEW process: build time, the process's peak resident memory during the build (VmHWM,
reset by /proc/self/clear_refs as the build starts) beside its memory before it, the stored
arrays' size, and one question's BM25 top-100 p50/p99 on the index opened from its arrays as the
query path opens it.

Abstracts. Real sentences: every paperlists-ml abstract split into sentences (about 600k); a
simulated abstract is SENTENCES of them drawn at random (fixed seed), the title one more. The
texts are made as the build reads them, one at a time (never all held at once), so the memory
is BM25's own, not the papers'. Vocabulary and document frequencies are those of real ML
abstracts, reshuffled; their growth with size is slower than a real corpus's (no new words
past the sentence pool's), so the score matrix is the part that grows, as it does in a real one.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from benchmarks.common import PAPERLISTS, QUERIES, ROOT, machine, require_paperlists, save

SENTENCES = 7  # a real paperlists-ml abstract's median, about
ASKED = 4  # rounds of the 16 questions
_SPLIT = re.compile(r"(?<=[.!?])\s+")


class Abstracts(Sequence[str]):
    """`count` simulated abstracts, each made when asked for (see the module's notes)."""

    def __init__(self, pool: list[str], count: int, seed: int = 34) -> None:
        self.pool = pool
        rng = np.random.default_rng(seed)
        self.picks = rng.integers(0, len(pool), (count, SENTENCES + 1), dtype=np.int32)

    def __len__(self) -> int:
        return len(self.picks)

    def __getitem__(self, row):
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        return " ".join(self.pool[i] for i in self.picks[row])

    def __iter__(self) -> Iterator[str]:
        return (self[row] for row in range(len(self)))


def sentence_pool() -> list[str]:
    """Every sentence of 20+ characters of the paperlists-ml abstracts, in file order."""
    require_paperlists()
    pool: list[str] = []
    with gzip.open(PAPERLISTS, "rt", encoding="utf-8") as handle:
        for line in handle:
            abstract = json.loads(line).get("abstract") or ""
            pool.extend(s for s in _SPLIT.split(abstract.strip()) if len(s) >= 20)
    return pool


def measure(count: int, block: int) -> dict:
    """One size, in this process (run as a child by `run`); `block`: the papers whose BM25
    weights are worked out at a time (0: the product's, lexical.BLOCK_ROWS)."""
    from explorer.index import lexical

    lexical.BLOCK_ROWS = block or lexical.BLOCK_ROWS
    texts = Abstracts(sentence_pool(), count)
    before = _memory_mb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) counts from here
    started = time.perf_counter()
    built = lexical.LexicalIndex.build(texts)
    seconds = time.perf_counter() - started
    peak = _memory_mb("VmHWM")
    arrays = built.to_arrays()
    stored = sum(array.nbytes for array in arrays.values())
    served = lexical.LexicalIndex.from_arrays(arrays, count)
    del built
    times = []
    for _ in range(ASKED):
        for question in QUERIES:
            started = time.perf_counter()
            served.top(question, 100)
            times.append(time.perf_counter() - started)
    p50, p99 = np.percentile(times, [50, 99]) * 1000
    return {"papers": count, "block": lexical.BLOCK_ROWS, "build_s": round(seconds, 1),
            "before_mb": round(before),
            "peak_mb": round(peak), "bm25_peak_mb": round(peak - before),
            "postings": len(arrays["lexical_data"]), "terms": len(served.vocab),
            "stored_mb": round(stored / 2**20), "top100_p50_ms": round(p50, 2),
            "top100_p99_ms": round(p99, 2)}


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run scale --lexical")
    parser.add_argument("--lexical", action="store_true")
    parser.add_argument("--sizes", default="100000,1000000,2700000")
    parser.add_argument("--name", default="", help="result file (default scale-bm25-<cpu>)")
    parser.add_argument("--blocks", default="0",
                        help="papers weighted at a time, per row (0: the product's; "
                             "10000000: the whole corpus at once, as before blocks)")
    args = parser.parse_args(argv)
    name = args.name or f"scale-bm25-{machine()['cpu_id']}"
    rows = []
    for size, block in ((int(s), int(b)) for s in args.sizes.split(",")
                        for b in args.blocks.split(",")):
        child = subprocess.run([sys.executable, "-c", "import json, sys; from benchmarks import "
                                "scale_lexical as s; print(json.dumps(s.measure("
                                "int(sys.argv[1]), int(sys.argv[2]))))", str(size), str(block)],
                               cwd=ROOT, capture_output=True, text=True, check=False)
        if child.returncode != 0:
            rows.append({"papers": size, "build_s": "failed: " + child.stderr.strip()[-200:]})
        else:
            rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
        save(name, "Scale: the BM25 build on simulated abstracts of real sentences", rows,
             COLUMNS, notes=__doc__.strip())


COLUMNS = ["papers", "block", "build_s", "before_mb", "peak_mb", "bm25_peak_mb", "postings", "terms",
           "stored_mb", "top100_p50_ms", "top100_p99_ms"]


def _memory_mb(field: str) -> float:
    """A /proc/self/status memory field (VmRSS, VmHWM: the peak since clear_refs) in MB."""
    with open("/proc/self/status", encoding="utf-8") as handle:
        return next(int(line.split()[1]) / 1024 for line in handle
                    if line.startswith(f"{field}:"))
