"""Semantic Scholar: Graph API paper objects (a search page {"data": [...]}, a batch response
with nulls for ids it did not find) and the datasets' `papers` and `abstracts` records, joined
by corpus id whichever file comes first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.corpus.papers import read_corpus
from explorer.corpus.scholar import ORPHANS
from explorer.corpus.venues import PUBLISHED
from tests.test_corpus import ABSTRACT_A, ABSTRACT_B


def graph_paper(paper_id: str, **changes) -> dict:
    """A paper object with the fields the Graph API documents (fields=...)."""
    record = {
        "paperId": paper_id, "corpusId": 13756489,
        "externalIds": {"DOI": "10.48550/ARXIV.1706.03762", "ArXiv": "1706.03762",
                        "MAG": "2963403868", "DBLP": "conf/nips/VaswaniSPUJGKP17",
                        "CorpusId": 13756489},
        "url": f"https://www.semanticscholar.org/paper/{paper_id}",
        "title": "Attention is All you Need", "abstract": ABSTRACT_A,
        "venue": "Neural Information Processing Systems",
        "publicationVenue": {"id": "d9720b90", "name": "Neural Information Processing Systems",
                             "type": "conference", "alternate_names": ["NeurIPS", "NIPS"]},
        "year": 2017, "referenceCount": 41, "citationCount": 120000,
        "influentialCitationCount": 16000, "isOpenAccess": False, "openAccessPdf": None,
        "fieldsOfStudy": ["Computer Science"],
        "s2FieldsOfStudy": [{"category": "Computer Science", "source": "external"}],
        "publicationTypes": ["JournalArticle", "Conference"], "publicationDate": "2017-06-12",
        "journal": {"name": "ArXiv", "volume": "abs/1706.03762"},
        "authors": [{"authorId": "40348417", "name": "Ashish Vaswani"},
                    {"authorId": "1846258", "name": "Noam M. Shazeer"}],
        "references": [{"paperId": "0b44fcbeea9415d400c5f5789d6b892b6f98daff",
                        "title": "Seq2seq"}, {"paperId": None, "title": "Unresolved"}],
        "tldr": {"model": "tldr@v2.0.0", "text": "A new network architecture, the Transformer."},
        "embedding": {"model": "specter_v2", "vector": [0.1] * 768},
    }
    record.update(changes)
    return record


def dataset_paper(corpus_id: int, title: str) -> dict:
    """A record of the datasets' `papers` dataset (lower-case names, no abstract)."""
    return {"corpusid": corpus_id, "externalids": {"DOI": None, "ArXiv": None, "ACL": None,
                                                   "CorpusId": str(corpus_id)},
            "url": f"https://www.semanticscholar.org/paper/{corpus_id:040d}", "title": title,
            "authors": [{"authorId": "1", "name": "Ada Lovelace"}], "venue": "",
            "publicationvenueid": None, "year": 2021, "referencecount": 3, "citationcount": 0,
            "influentialcitationcount": 0, "isopenaccess": False,
            "s2fieldsofstudy": [{"category": "Biology", "source": "s2-fos-model"}],
            "publicationtypes": None, "publicationdate": "2021-03-01", "journal": None}


def abstract_record(corpus_id: int, text: str) -> dict:
    """A record of the `abstracts` dataset."""
    return {"corpusid": corpus_id, "abstract": text,
            "openaccessinfo": {"externalids": {}, "license": None, "url": None, "status": None}}


def write(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_graph_api_search_page_gives_every_field(tmp_path: Path):
    path = tmp_path / "search.json"
    path.write_text(json.dumps({"total": 1, "offset": 0, "next": 1,
                                "data": [graph_paper("204e3073870fae3d05bcbc2f6a8e263d9b72e776")]},
                               indent=2), encoding="utf-8")
    (paper,) = read_corpus([path]).papers
    assert paper.paper_id == "204e3073870fae3d05bcbc2f6a8e263d9b72e776"
    assert (paper.title, paper.abstract, paper.year) == (
        "Attention is All you Need", ABSTRACT_A, 2017)
    assert paper.authors == ("Ashish Vaswani", "Noam M. Shazeer")
    assert (paper.venue, paper.status) == ("NeurIPS", PUBLISHED)
    assert dict(paper.external_ids) == {
        "s2": "204e3073870fae3d05bcbc2f6a8e263d9b72e776", "doi": "10.48550/arxiv.1706.03762",
        "arxiv": "1706.03762", "mag": "2963403868", "dblp": "conf/nips/VaswaniSPUJGKP17",
        "corpus_id": "13756489"}
    assert paper.references == ("0b44fcbeea9415d400c5f5789d6b892b6f98daff",)
    assert paper.field("tldr") == "A new network architecture, the Transformer."
    assert paper.field("citationCount") == 120000
    assert paper.field("publicationVenue.alternate_names") == ("NeurIPS", "NIPS")
    assert paper.field("embedding.vector") is None  # a vector is not a field
    assert paper.sources == (f"{path}#1",)


def test_a_batch_response_with_nulls_names_them(tmp_path: Path):
    path = tmp_path / "batch.json"
    path.write_text(json.dumps([graph_paper("a" * 40), None]), encoding="utf-8")
    report = read_corpus([path])
    assert [p.paper_id for p in report.papers] == ["a" * 40]
    assert dict(report.skipped) == {f"records not read (null: no record): {path}#2": 1}


def test_an_arxiv_only_paper_is_not_published(tmp_path: Path):
    record = graph_paper("b" * 40, venue="arXiv.org", publicationVenue=None,
                         publicationTypes=["JournalArticle"])
    (paper,) = read_corpus([write(tmp_path / "p.jsonl", [record])]).papers
    assert paper.status is None and paper.venue == "arXiv"


@pytest.mark.parametrize("order", ["papers first", "abstracts first"])
def test_the_datasets_abstracts_join_their_papers(tmp_path: Path, order: str):
    papers = write(tmp_path / "papers.jsonl", [dataset_paper(11, "Folding towels"),
                                                dataset_paper(12, "No abstract anywhere")])
    abstracts = write(tmp_path / "abstracts.jsonl", [abstract_record(11, ABSTRACT_B),
                                                      abstract_record(99, "Orphan text.")])
    report = read_corpus([papers, abstracts] if order == "papers first" else [abstracts, papers])
    found = {p.paper_id: p for p in report.papers}
    assert set(found) == {"CorpusId:11", "CorpusId:12"}
    joined = found["CorpusId:11"]
    assert (joined.title, joined.abstract) == ("Folding towels", ABSTRACT_B)
    assert set(joined.sources) == {f"{papers}:1", f"{abstracts}:1"}
    assert joined.external_id("corpus_id") == "11" and joined.field("citationcount") == 0
    assert found["CorpusId:12"].abstract == ""  # searched by its title
    assert report.skipped[ORPHANS] == 1


def test_malformed_papers_are_named_and_the_others_read(tmp_path: Path):
    path = write(tmp_path / "p.jsonl", [graph_paper("c" * 40, title=17.5),
                                        graph_paper("d" * 40, authors={"name": "x"}),
                                        graph_paper("e" * 40)])
    report = read_corpus([path])
    assert [p.paper_id for p in report.papers] == ["c" * 40, "e" * 40]  # a number is text
    assert dict(report.skipped) == {f"records not read ('authors' is not a list): {path}:2": 1}
