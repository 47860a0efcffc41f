"""`explorer eval`: the product's own pipeline (build, cached; then rank) scored on a BEIR-style
folder: corpus.jsonl[.gz], a queries file and a qrels file.

Queries with a `text` field are searches ("[n]" citation markers stripped); queries with
`title`/`abstract` instead are documents, ranked as `similar_to_text` ranks them (the query
paper is not in the corpus): by the paper-to-paper policy (policy.PAPER_FUSION).
"""

from __future__ import annotations

import csv
import hashlib
import os
import platform
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer.errors import CorpusError, ExplorerError, UnknownPaperError
from explorer.eval.metrics import METRICS, mean_scores, score_run
from explorer.files import ReadErrors, read_jsonl
from explorer.ingest.run import build
from explorer.model.backends import cpu_flags, cpu_name
from explorer.model.embedder import BUNDLED_NAMES
from explorer.query.engine import Explorer
from explorer.ranking.calibration import PAPERS, QUESTIONS
from explorer.ranking.fusion import LEXICAL, MODES

# ACM-CR's three query sets; any BEIR folder has at least the first.
SETS = {
    "paragraphs": ("queries.jsonl", "qrels.tsv"),
    "sentences": ("queries_sentences.jsonl", "qrels_sentences.tsv"),
    "papers": ("queries_papers.jsonl", "qrels_papers.tsv"),
}
TOP_K = 100  # ranks scored (Recall@100 needs 100)
_CITATION = re.compile(r"\s*\[\s*\d+(?:\s*[-–,;]\s*\d+)*\s*\]")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)])")


@dataclass(frozen=True)
class Query:
    query_id: str
    text: str
    is_document: bool  # a paper's title + abstract: ranked like `similar`


@dataclass
class QuerySet:
    name: str
    queries: list[Query]
    qrels: dict[str, dict[str, float]]
    notes: list[str] = field(default_factory=list)


def strip_citations(text: str) -> str:
    """Remove numeric citation markers like "[3]", "[3, 5]", "[12-14]"; tidy the spaces."""
    text = _CITATION.sub("", text)
    return _SPACE_BEFORE_PUNCT.sub(r"\1", re.sub(r"\s+", " ", text)).strip()


def find_corpus(folder: Path) -> Path:
    for name in ("corpus.jsonl.gz", "corpus.jsonl"):
        if (folder / name).is_file():
            return folder / name
    raise CorpusError(f"No corpus.jsonl or corpus.jsonl.gz in {folder}/: point `explorer eval` "
                      "at a BEIR-style folder (corpus, queries.jsonl, qrels.tsv).")


def load_queries(path: Path) -> tuple[list[Query], list[str]]:
    """Queries in file order -> (queries, notes). A repeated id keeps its first query."""
    queries: dict[str, Query] = {}
    notes = []
    for number, record in read_jsonl(path, None, ReadErrors(CorpusError)):
        if not isinstance(record, dict):
            raise CorpusError(f"{path}:{number}: expected a JSON object (a query). Fix or remove it.")
        query_id = str(record.get("query_id", record.get("_id", record.get("id", ""))))
        if not query_id:
            raise CorpusError(f"{path}:{number}: a query without query_id / _id.")
        if query_id in queries:
            notes.append(f"query id {query_id} appears again at line {number}; first one kept")
            continue
        if record.get("text"):
            queries[query_id] = Query(query_id, strip_citations(str(record["text"])), False)
        else:
            parts = [str(record.get(key) or "").strip() for key in ("title", "abstract")]
            queries[query_id] = Query(query_id, ". ".join(p for p in parts if p), True)
    return list(queries.values()), notes


def load_qrels(path: Path) -> dict[str, dict[str, float]]:
    """query id -> {doc id: grade > 0}. A header row is optional; rows marked
    in_available_corpus=0 are dropped (their documents are not in the corpus)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CorpusError(f"Cannot read qrels {path}: {exc.strerror}.") from exc
    rows = list(csv.reader(lines, delimiter="\t" if "\t" in (lines[:1] or [""])[0] else " "))
    header = [c.strip().lower() for c in rows[0]] if rows else []
    has_header = bool(header) and not _is_number(header[-1] if len(header) < 3 else header[2])
    available = header.index("in_available_corpus") if "in_available_corpus" in header else None
    qrels: dict[str, dict[str, float]] = {}
    for number, row in enumerate(rows[1:] if has_header else rows, start=2 if has_header else 1):
        if not row:
            continue
        if len(row) < 3 or not _is_number(row[2]):
            raise CorpusError(f"{path}:{number}: expected query_id, doc_id, relevance.")
        if available is not None and row[available].strip() == "0":
            continue
        if float(row[2]) > 0:
            qrels.setdefault(row[0].strip(), {})[row[1].strip()] = float(row[2])
    return qrels


def load_set(folder: Path, name: str = "paragraphs", queries_file: str | None = None,
             qrels_file: str | None = None) -> QuerySet:
    """One query set of a dataset folder, by ACM-CR set name or by file names."""
    if name not in SETS and not (queries_file and qrels_file):
        raise ExplorerError(f"Unknown query set {name!r}: use one of {', '.join(SETS)} or give "
                            "--queries FILE --qrels FILE.")
    default_queries, default_qrels = SETS.get(name, ("", ""))
    queries_path = folder / (queries_file or default_queries)
    qrels_path = folder / (qrels_file or default_qrels)
    for path in (queries_path, qrels_path):
        if not path.is_file():
            raise CorpusError(f"{path} does not exist: give the query and qrels files of "
                              f"{folder}/ with --queries / --qrels or --set.")
    queries, notes = load_queries(queries_path)
    return QuerySet(name if not queries_file else queries_path.stem, queries,
                    load_qrels(qrels_path), notes)


def model_suffix(model: str) -> str:
    """"" for the default model, else "-NAME" (a named model, or a model folder's name)."""
    return "" if model.strip().lower() in BUNDLED_NAMES else "-" + Path(model).name


def default_cache(dataset: Path, cache_dir: Path, model: str = "default") -> Path:
    """Where `explorer eval` keeps the index of a dataset between runs, in the settings'
    `cache_dir`: CACHE/eval/NAME-HASH, or NAME-HASH-MODEL for a model but the default."""
    digest = hashlib.sha256(str(dataset.resolve()).encode()).hexdigest()[:8]
    return cache_dir / "eval" / f"{dataset.resolve().name}-{digest}{model_suffix(model)}"


def prepare_index(dataset: Path, cache: Path, model: str, progress=None) -> tuple[Explorer, str]:
    """Build (or reuse) the dataset's index in `cache` -> (explorer, build summary)."""
    report = build([find_corpus(dataset)], cache, model, sentences=False, progress=progress)
    return Explorer.open(cache), report.summary()


def evaluate(explorer: Explorer, query_set: QuerySet, modes: Sequence[str] = MODES,
             limit: int | None = None, rankers: dict[str, Callable] | None = None,
             diverse: bool = False) -> dict:
    """Score each mode on `query_set` -> {"modes": {mode: metrics + seconds}, "queries": n, ...}.

    Relevant doc ids are resolved through Explorer.row (merged duplicates count as their paper);
    queries with no relevant paper in the index are left out and counted. `rankers` adds named
    extra rankings: fn(query, query vector) -> rows, best first. `diverse` adds each mode with
    MMR re-ranking ("MODE+mmr"). "redundancy@10" is the mean cosine between the top-10 papers."""
    scored, missing_docs = judged(explorer, query_set, limit)
    vectors = _query_vectors(explorer, scored, modes, rankers)
    result: dict = {"set": query_set.name, "queries": len(scored),
                    "queries_without_relevant_in_index": len(query_set.queries) - len(scored),
                    "relevant_docs_missing_from_index": missing_docs,
                    "notes": query_set.notes, "modes": {}}
    runs = {mode: (lambda q, v, m=mode: _ranked(explorer, q, v, m)) for mode in modes}
    if diverse:
        runs.update({f"{mode}+mmr": (lambda q, v, m=mode: _ranked(explorer, q, v, m, True))
                     for mode in modes})
    runs.update(rankers or {})
    for name, run in runs.items():
        started = time.perf_counter()
        rankings = [run(query, vectors.get(query.query_id)) for query, _ in scored]
        seconds = time.perf_counter() - started
        per_query = [score_run(rows, relevant) for rows, (_, relevant) in zip(rankings, scored)]
        result["modes"][name] = {**{k: round(v, 4) for k, v in mean_scores(per_query).items()},
                                 "redundancy@10": _redundancy(explorer, rankings),
                                 "ms_per_query": round(1000 * seconds / max(1, len(scored)), 2)}
    return result


def _ranked(explorer: Explorer, query: Query, vector, mode: str, diverse: bool = False
            ) -> list[int]:
    hits = explorer.rank(query.text, vector, TOP_K, mode=mode, diverse=diverse,
                         kind=PAPERS if query.is_document else QUESTIONS,
                         paper_query=query.is_document)
    return [explorer.row(hit.paper_id) for hit in hits]


def _redundancy(explorer: Explorer, rankings: list[list[int]]) -> float:
    """Mean cosine between distinct pairs of each ranking's top 10, averaged over queries."""
    values = []
    for rows in rankings:
        top = explorer.vectors[rows[:10]]
        if len(top) > 1:
            sims = top @ top.T
            values.append((sims.sum() - np.trace(sims)) / (len(top) * (len(top) - 1)))
    return round(float(np.mean(values)), 4) if values else 0.0


def judged(explorer: Explorer, query_set: QuerySet, limit: int | None = None
           ) -> tuple[list[tuple[Query, dict[int, float]]], int]:
    """The queries `evaluate` scores -> ([(query, {row: grade})], relevant docs not in the index).

    Relevant doc ids are resolved through Explorer.row (merged duplicates count as their
    paper, with the highest grade); a query with no text or no relevant paper in the index is
    left out. `limit` keeps the first `limit` of them."""
    found, missing = [], 0
    for query in query_set.queries:
        relevant: dict[int, float] = {}
        for doc_id, grade in query_set.qrels.get(query.query_id, {}).items():
            try:
                row = explorer.row(doc_id)
            except UnknownPaperError:
                missing += 1
                continue
            relevant[row] = max(grade, relevant.get(row, 0.0))
        if relevant and query.text:
            found.append((query, relevant))
    return found[:limit] if limit else found, missing


def _query_vectors(explorer: Explorer, scored, modes, rankers) -> dict:
    if list(modes) == [LEXICAL] and not rankers:
        return {}
    texts = [query.text for query, _ in scored]
    vectors = explorer.embedder.embed_documents(texts) if texts else []
    return {query.query_id: vector for (query, _), vector in zip(scored, vectors)}


def describe_run(explorer: Explorer, dataset: Path, command: str) -> dict:
    """What a result table must say about how it was made."""
    model = explorer.manifest.model
    return {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "dataset": str(dataset),
            "papers": len(explorer.papers), "model": model.model_id,
            "max_seq_length": model.max_seq_length,
            "backend": " ".join(str(v) for v in (model.backend, model.precision) if v)
            or "sentence-transformers (torch)",
            "index_type": explorer.manifest.index_type,
            "machine": machine(), "command": command}


def machine() -> str:
    """The CPU model, its cores and the vector flags that change embedding speed and results
    (avx2, avx512f, avx512_bf16, amx_bf16)."""
    model = cpu_name() or platform.processor() or platform.machine() or "?"
    flags = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in cpu_flags()]
    return f"{model}, {os.cpu_count()} cores, flags {' '.join(flags) or 'none'}"


def format_table(results: Sequence[dict]) -> str:
    """A plain-text table: one row per (query set, mode)."""
    header = ["set", "queries", "mode", *METRICS, "redundancy@10", "ms/query"]
    rows = [[r["set"], str(r["queries"]), mode, *(f"{m[k]:.4f}" for k in METRICS),
             f"{m.get('redundancy@10', 0.0):.4f}", f"{m['ms_per_query']:.1f}"]
            for r in results for mode, m in r["modes"].items()]
    return grid(header, rows)


def grid(header: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    """A plain-text table: the header, a rule, the lines; columns padded to their widest."""
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
    text = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
            for line in [header, *lines]]
    return "\n".join([text[0], "  ".join("-" * w for w in widths), *text[1:]])


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
