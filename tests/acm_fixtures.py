"""A tiny ACM-CR-shaped folder made from the seeds (conftest.tiny_acm), for the studies and
`explorer eval`'s small corpora.

It has ACM-CR's three query sets and file layout: CITING citing papers, each with one sentence
query per paraphrase question (tests/paraphrases.py), paragraph queries of three questions and
one paper query of all of them; the relevant papers are the questions' targets. Its corpus is
those targets plus DISTRACTORS other seeds.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path

from explorer.corpus.papers import Paper
from tests.paraphrases import PARAPHRASES

CITING = 4
PER_CITING = 6  # questions per citing paper: 24 sentence, 8 paragraph and 4 paper queries
DISTRACTORS = 8
SETS = ("paragraphs", "sentences", "papers")


def write_tiny_acm(papers: Sequence[Paper], folder: Path) -> Path:
    """The folder, written from the seed `papers`."""
    queries: dict[str, list[dict]] = {name: [] for name in SETS}
    qrels: dict[str, list[tuple[str, str]]] = {name: [] for name in SETS}
    for k in range(CITING):
        key, title = str(3377000 + k), f"Citing paper number {k}"
        asked = PARAPHRASES[k * PER_CITING:(k + 1) * PER_CITING]
        targets = [next(p.paper_id for p in papers if marker in p.abstract) for _, marker in asked]
        for i, ((question, _), target) in enumerate(zip(asked, targets)):
            queries["sentences"].append({"query_id": f"{key}_01_{i}", "text": f"{question} [{i}]"})
            qrels["sentences"].append((f"{key}_01_{i}", target))
        for j in range(0, PER_CITING, 3):
            query_id = f"{key}{j}"
            queries["paragraphs"].append({"query_id": query_id, "citing_paper_title": title,
                                          "text": " ".join(q for q, _ in asked[j:j + 3])})
            qrels["paragraphs"] += [(query_id, t) for t in targets[j:j + 3]]
        doi = f"10.1145/3343413.{key}"
        queries["papers"].append({"query_id": doi, "title": title,
                                  "abstract": " ".join(q for q, _ in asked)})
        qrels["papers"] += [(doi, t) for t in targets]
    judged = {doc for _, doc in qrels["papers"]}
    others = [p.paper_id for p in papers if p.paper_id not in judged][:DISTRACTORS]
    with gzip.open(folder / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"doc_id": p.paper_id, "abstract": p.abstract}) + "\n"
                          for p in papers if p.paper_id in judged.union(others))
    _write(folder / "queries.jsonl", queries["paragraphs"])
    _write(folder / "queries_sentences.jsonl", queries["sentences"])
    _write(folder / "queries_papers.jsonl", queries["papers"])
    _qrels(folder / "qrels.tsv", "query_id\tdoc_id\trelevance\tcitation_marker\t"
           "in_available_corpus", qrels["paragraphs"])
    _qrels(folder / "qrels_sentences.tsv", "query_id\tdoc_id\trelevance\tin_available_corpus",
           qrels["sentences"])
    _qrels(folder / "qrels_papers.tsv", "query_id\tdoc_id\trelevance", qrels["papers"])
    return folder


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _qrels(path: Path, header: str, pairs: list[tuple[str, str]]) -> None:
    extra = "\t1" * (len(header.split("\t")) - 3)  # citation marker / in_available_corpus
    lines = [header] + [f"{query}\t{doc}\t1{extra}" for query, doc in pairs]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
