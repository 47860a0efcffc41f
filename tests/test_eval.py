"""`explorer eval` on a tiny generated BEIR folder, with the real model; query/qrels parsing."""

import json
from pathlib import Path

import pytest

from explorer.cli import main as cli
from explorer.eval.evaluate import load_qrels, load_queries, strip_citations
from explorer.query.engine import Explorer
from tests.paraphrases import PARAPHRASES


def test_strip_citations():
    text = "BM25 [3] and neural rankers [12, 14] beat TF-IDF [5-7] (see [2])."
    assert strip_citations(text) == "BM25 and neural rankers beat TF-IDF (see)."
    assert strip_citations("no markers here") == "no markers here"


def test_qrels_with_header_and_availability(tmp_path: Path):
    path = tmp_path / "qrels.tsv"
    path.write_text("query_id\tdoc_id\trelevance\tin_available_corpus\n"
                    "q1\td1\t1\t1\nq1\td2\t1\t0\nq2\td3\t2\t1\nq3\td4\t0\t1\n", encoding="utf-8")
    assert load_qrels(path) == {"q1": {"d1": 1.0}, "q2": {"d3": 2.0}}
    plain = tmp_path / "plain.tsv"
    plain.write_text("q1\td1\t1\nq1\td9\t1\n", encoding="utf-8")
    assert load_qrels(plain) == {"q1": {"d1": 1.0, "d9": 1.0}}


def test_queries_text_documents_and_repeated_ids(tmp_path: Path):
    path = tmp_path / "queries.jsonl"
    rows = [{"query_id": "a", "text": "graphs [1] matter"}, {"query_id": "a", "text": "again"},
            {"_id": "p", "title": "A paper", "abstract": "Its abstract."}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    queries, notes = load_queries(path)
    assert [(q.query_id, q.text, q.is_document) for q in queries] == [
        ("a", "graphs matter", False), ("p", "A paper. Its abstract.", True)]
    assert len(notes) == 1 and "first one kept" in notes[0]


@pytest.fixture(scope="module")
def beir_folder(seeds_explorer: Explorer, tmp_path_factory) -> Path:
    """Seed abstracts as a BEIR corpus; the paraphrases as queries; two documents as
    'papers' queries (an abstract retrieved among the others)."""
    folder = tmp_path_factory.mktemp("beir")
    papers = seeds_explorer.papers
    corpus = [{"doc_id": p.paper_id, "abstract": p.abstract} for p in papers]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    queries, qrels = [], ["query-id\tcorpus-id\tscore"]
    for number, (query, phrase) in enumerate(PARAPHRASES):
        target = next(p for p in papers if phrase in p.abstract)
        queries.append({"_id": f"q{number}", "text": f"{query} [{number + 1}]"})
        qrels.append(f"q{number}\t{target.paper_id}\t1")
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels.tsv").write_text("\n".join(qrels) + "\nq0\tnot-in-corpus\t1\n")
    documents = [{"query_id": f"d{i}", "title": "", "abstract": papers[i].abstract} for i in (3, 9)]
    (folder / "queries_papers.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents))
    (folder / "qrels_papers.tsv").write_text(
        "".join(f"d{i}\t{papers[i].paper_id}\t1\n" for i in (3, 9)))
    return folder


def test_eval_command_runs_the_pipeline_and_caches(beir_folder: Path, tmp_path: Path, capsys):
    cache, output = tmp_path / "cache", tmp_path / "result.json"
    args = ["eval", str(beir_folder), "--set", "paragraphs", "papers", "--cache", str(cache),
            "--output", str(output)]
    assert cli.main(args) == 0
    table = capsys.readouterr().out
    assert "ndcg@10" in table and "hybrid" in table and "lexical" in table
    report = json.loads(output.read_text())
    paragraphs, papers = report["results"]
    assert paragraphs["queries"] == len(PARAPHRASES)
    assert paragraphs["relevant_docs_missing_from_index"] == 1
    dense = paragraphs["modes"]["dense"]
    # the paraphrases find their paper at rank 1 with the real model (tests/test_core.py)
    assert dense["mrr@10"] >= 0.9 and dense["recall@100"] == 1.0
    assert all(0.0 <= m["ndcg@10"] <= 1.0 for m in paragraphs["modes"].values())
    # a document query finds its own abstract first in every mode
    assert all(m["ndcg@10"] == 1.0 for m in papers["modes"].values())
    assert report["model"] and report["papers"] == len(report_papers(cache))

    assert cli.main([*args[:-2], "--json", "--mode", "lexical"]) == 0
    captured = capsys.readouterr()
    assert "already up to date" in captured.err  # cached: nothing embedded again
    again = json.loads(captured.out)
    assert list(again["results"][0]["modes"]) == ["lexical"]
    lexical = again["results"][0]["modes"]["lexical"]
    assert lexical.pop("ms_per_query") > 0 and paragraphs["modes"]["lexical"].pop("ms_per_query") > 0
    assert lexical == paragraphs["modes"]["lexical"]


def report_papers(cache: Path) -> list:
    return Explorer.open(cache).papers


def test_eval_on_a_folder_without_corpus_says_so(tmp_path: Path, capsys):
    assert cli.main(["eval", str(tmp_path), "--cache", str(tmp_path / "c")]) == 1
    assert "corpus.jsonl" in capsys.readouterr().err
