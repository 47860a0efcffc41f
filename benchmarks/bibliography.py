"""Reading a large .bib (issue 15): a Zotero library of N entries made from real paperlists-ml
records, with non-ASCII names and symbols written as LaTeX, as Zotero's BibTeX export does.

Product: `read_corpus([file])`: parse (bibtexparser), decode LaTeX to Unicode piece by piece,
match entries among themselves (identity rules), make papers.
Baseline: bibtexparser's own way to Unicode fields, `parse_string` with its
`LatexDecodingMiddleware` (pylatexenc on every whole field), no matching. Runs alternate; the
median counts. Both read the same file; every 20th entry repeats an earlier one's DOI, and the
product's papers are checked to be at most N minus those (the table gives the count).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.common import load_abstracts, save
from benchmarks.indexes import work_dir
from explorer.corpus.papers import read_corpus

REPEAT_EVERY = 20


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run bib")
    parser.add_argument("--sizes", default="1000,10000", help="entries per library, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        path = work_dir() / f"library-{size}.bib"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(library(load_abstracts(size)), encoding="utf-8")
        rows.append(_measure(path, size, args.runs))
    save("bibliography", "Reading a .bib library: explorer's reader vs bibtexparser + LaTeX "
         "decoding", rows, ["entries", "papers", "megabytes", "product_s", "baseline_s", "ratio",
                            "product_runs", "baseline_runs"], notes=__doc__.strip())


def _measure(path: Path, size: int, runs: int) -> dict:
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    papers = 0
    for _ in range(runs):
        seconds, papers = _timed(lambda: _product(path, size))
        times["ours"].append(seconds)
        times["theirs"].append(_timed(lambda: _baseline(path))[0])
    product, baseline = float(np.median(times["ours"])), float(np.median(times["theirs"]))
    return {"entries": size, "papers": papers, "megabytes": round(path.stat().st_size / 2**20, 1),
            "product_s": round(product, 2), "baseline_s": round(baseline, 2),
            "ratio": round(baseline / product, 2),
            "product_runs": [round(x, 2) for x in times["ours"]],
            "baseline_runs": [round(x, 2) for x in times["theirs"]]}


def library(records: list[dict]) -> str:
    """The records as Zotero-style BibTeX entries; every REPEAT_EVERY-th repeats a DOI."""
    from pylatexenc.latexencode import unicode_to_latex

    def tex(text: str) -> str:
        return unicode_to_latex(text, non_ascii_only=False, unknown_char_policy="keep",
                                replacement_latex_protection="braces-all")

    entries = []
    for number, record in enumerate(records):
        doi = f"10.5555/bench.{number - 1 if number % REPEAT_EVERY == REPEAT_EVERY - 1 else number}"
        authors = " and ".join(tex(a) for a in record.get("authors") or [])
        entries.append(
            f"@inproceedings{{entry{number},\n\ttitle = {{{tex(record['title'])}}},\n"
            f"\tabstract = {{{tex(record['abstract'])}}},\n\tauthor = {{{authors}}},\n"
            f"\tbooktitle = {{{tex(record.get('venue') or '')}}},\n\tdoi = {{{doi}}},\n"
            f"\tyear = {{{record.get('year') or ''}}},\n}}\n")
    return "\n".join(entries)


def _product(path: Path, size: int) -> int:
    """The number of papers read: at most N minus the repeated DOIs (fewer if some real
    records are the same paper by title, e.g. a workshop and a conference version)."""
    papers = len(read_corpus([path]).papers)
    if papers > size - size // REPEAT_EVERY:
        raise RuntimeError(f"read {papers} papers from {path}: the repeated DOIs did not merge")
    return papers


def _baseline(path: Path) -> None:
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    library = bibtexparser.parse_string(path.read_text(encoding="utf-8"),
                                        append_middleware=[LatexDecodingMiddleware()])
    if library.failed_blocks:
        raise RuntimeError(f"bibtexparser failed on {len(library.failed_blocks)} blocks")


def _timed(function) -> tuple[float, object]:
    started = time.perf_counter()
    value = function()
    return time.perf_counter() - started, value
