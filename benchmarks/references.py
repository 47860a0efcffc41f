"""Resolving references at build time (the sources issue): is it linear in the references?

A corpus of N papers (OpenAlex-like: a W id and a DOI each) where every paper cites 30 works:
a third by the W id of a corpus paper, a third by the DOI URL of a corpus paper in another
case (`https://doi.org/10.5555/P12`), a third outside the corpus (ids shared across papers,
as real reference lists repeat the classics). No model, no text: only the id matching runs.

Product: `citations.resolve(papers)`: every key a paper carries (id, aliases, external ids,
DOI/arXiv normalised), each distinct reference text looked up once.
Baseline: what a notebook does: one dict of paper ids, each reference looked up as written
(finds the W ids only: the DOIs in another form are missed; `found` counts both).
Both run on the same papers, alternating; the median of the runs counts. `per_million` is the
product's seconds per million references: flat across sizes when resolution is linear.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from benchmarks.common import save
from explorer.corpus.citations import resolve
from explorer.corpus.papers import Paper

CITED = 30  # references per paper
OUTSIDE = 50_000  # distinct works outside the corpus that references name


def corpus(size: int, seed: int = 0) -> list[Paper]:
    """`size` papers, each citing CITED works (see the module's note)."""
    draw = random.Random(seed)
    papers = []
    for row in range(size):
        refs = []
        for k in range(CITED):
            cited = draw.randrange(size)
            if k % 3 == 0:
                refs.append(f"https://openalex.org/W{cited}")
            elif k % 3 == 1:
                refs.append(f"https://doi.org/10.5555/P{cited}")
            else:
                refs.append(f"https://openalex.org/W9{draw.randrange(OUTSIDE):07d}")
        papers.append(Paper(paper_id=f"W{row}", title="", title_is_derived=True, abstract="",
                            external_ids=(("doi", f"10.5555/p{row}"), ("openalex", f"W{row}")),
                            references=tuple(refs)))
    return papers


def plain(papers: list[Paper]) -> np.ndarray:
    """The baseline: one dict of ids, references looked up as written (W ids by their URL's end)."""
    rows = {paper.paper_id: row for row, paper in enumerate(papers)}
    pairs = {(row, cited) for row, paper in enumerate(papers) for ref in paper.references
             if (cited := rows.get(ref.rsplit("/", 1)[-1])) is not None and cited != row}
    return np.array(sorted(pairs), dtype=np.int32).reshape(-1, 2)


def _timed(function, papers: list[Paper]) -> tuple[float, int]:
    start = time.perf_counter()
    found = len(function(papers))
    return time.perf_counter() - start, found


def _measure(size: int, runs: int) -> dict:
    papers = corpus(size)
    product, baseline = [], []
    for _ in range(runs):
        seconds, found = _timed(resolve, papers)
        product.append(seconds)
        seconds, plain_found = _timed(plain, papers)
        baseline.append(seconds)
    references = size * CITED
    product_s, baseline_s = statistics.median(product), statistics.median(baseline)
    return {"papers": size, "references": references, "found": found, "plain_found": plain_found,
            "product_s": round(product_s, 3), "baseline_s": round(baseline_s, 3),
            "ratio": round(product_s / baseline_s, 2),
            "per_million": round(product_s / references * 1e6, 2)}


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run references")
    parser.add_argument("--sizes", default="10000,100000,300000", help="papers, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [_measure(int(size), args.runs) for size in args.sizes.split(",")]
    save("references", "Resolving references at build time: explorer's resolution vs one dict "
         "of ids", rows, ["papers", "references", "found", "plain_found", "product_s",
                          "baseline_s", "ratio", "per_million"], notes=__doc__.strip())
