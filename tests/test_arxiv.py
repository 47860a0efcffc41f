"""The arXiv metadata snapshot (Kaggle's arxiv-metadata-oai-snapshot.json: JSON lines in a
.json file), and .json files of JSON lines in general; old-style ids with a slash kept as
paper ids and usable everywhere (the papers file, links, `similar`)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from explorer.artifacts.paper_list import PaperList
from explorer.artifacts.store import paper_lines
from explorer.corpus.papers import read_corpus
from explorer.ui.links import PAPER, Location, decode, link
from tests.test_corpus import ABSTRACT_A, ABSTRACT_B


def snapshot_record(arxiv_id: str, **changes) -> dict:
    """One line of the snapshot, as Kaggle's dataset documents it."""
    record = {
        "id": arxiv_id, "submitter": "Ada Lovelace",
        "authors": "Ada Lovelace, Alan M. Turing and Grace Hopper",
        "title": "Sparse attention\n  at scale", "comments": "12 pages, 3 figures",
        "journal-ref": None, "doi": None, "report-no": None, "categories": "cs.LG stat.ML",
        "license": "http://creativecommons.org/licenses/by/4.0/",
        "abstract": f"  {ABSTRACT_A}\nIt is\nwrapped.\n",
        "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"},
                     {"version": "v2", "created": "Tue, 3 Jun 2008 10:00:00 GMT"}],
        "update_date": "2008-11-13",
        "authors_parsed": [["Lovelace", "Ada", ""], ["Turing", "Alan M.", ""],
                           ["Hopper", "Grace", "Jr"]],
    }
    record.update(changes)
    return record


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_snapshot_json_is_read_as_json_lines(tmp_path: Path):
    path = write_lines(tmp_path / "arxiv-metadata-oai-snapshot.json", [
        snapshot_record("0704.0001"),
        snapshot_record("hep-th/9901001", title="Strings", abstract=ABSTRACT_B, versions=[],
                        doi="10.1000/ABC.1", **{"journal-ref": "Phys. Rev. D 60 (1999)"})])
    papers = {p.paper_id: p for p in read_corpus([path]).papers}
    first = papers["0704.0001"]
    assert first.title == "Sparse attention at scale"  # line breaks folded
    assert first.abstract == f"{ABSTRACT_A} It is wrapped."
    assert first.authors == ("Ada Lovelace", "Alan M. Turing", "Grace Hopper Jr")
    assert (first.year, first.venue, first.status) == (2007, "arXiv", None)  # v1's year
    assert first.url == "https://arxiv.org/abs/0704.0001" and first.arxiv_id == "0704.0001"
    assert first.field("categories") == ("cs.LG", "stat.ML")
    assert first.field("comments") == "12 pages, 3 figures" and first.field("version") == "v2"
    assert first.sources == (f"{path}:1",)
    old = papers["hep-th/9901001"]
    assert old.year == 1999  # no versions: the year the id encodes
    assert old.url == "https://arxiv.org/abs/hep-th/9901001"
    assert (old.doi, old.arxiv_id) == ("10.1000/abc.1", "hep-th/9901001")
    assert old.field("journal-ref") == "Phys. Rev. D 60 (1999)"


def test_authors_as_one_text_when_not_parsed(tmp_path: Path):
    record = snapshot_record("2501.01234", authors_parsed=None,
                             authors="C. Bal\u00e1zs, E. L. Berger,  P. M. Nadolsky and C.-P. Yuan")
    path = write_lines(tmp_path / "a.json", [record])
    (paper,) = read_corpus([path]).papers
    assert paper.authors == ("C. Bal\u00e1zs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan")


def test_a_gzipped_snapshot_and_a_plain_json_array_still_read(tmp_path: Path):
    with gzip.open(tmp_path / "snap.json.gz", "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(snapshot_record("1706.03762")) + "\n")
    (tmp_path / "array.json").write_text(json.dumps(
        [{"id": "x1", "abstract": ABSTRACT_B}]), encoding="utf-8")
    (tmp_path / "pretty.json").write_text(json.dumps(
        {"results": [{"id": "x2", "abstract": ABSTRACT_B + " Again."}]}, indent=2))
    ids = {p.paper_id for p in read_corpus([tmp_path]).papers}
    assert ids == {"1706.03762", "x1", "x2"}


def test_a_bad_line_in_a_json_lines_file_names_its_line(tmp_path: Path):
    from explorer.errors import CorpusError
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(snapshot_record("0704.0001")) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"snap\.json:2: not valid JSON"):
        read_corpus([path])


def test_malformed_snapshot_records_are_named_and_the_others_read(tmp_path: Path):
    path = write_lines(tmp_path / "snap.json", [
        snapshot_record("0704.0001", authors_parsed="Lovelace, Ada"),
        snapshot_record("0704.0002"),
        snapshot_record("0704.0003", title=["a", "list"])])
    report = read_corpus([path])
    assert [p.paper_id for p in report.papers] == ["0704.0002"]
    assert dict(report.skipped) == {
        f"records not read ('authors_parsed' is not a list): {path}:1": 1,
        f"records not read ('title' is not text): {path}:3": 1}


def test_an_id_with_a_slash_survives_the_papers_file_and_links(tmp_path: Path):
    path = write_lines(tmp_path / "snap.json", [snapshot_record("hep-th/9901001")])
    (paper,) = read_corpus([path]).papers
    papers_file = tmp_path / "papers.jsonl"
    papers_file.write_text("".join(paper_lines([paper])), encoding="utf-8")
    with papers_file.open("rb") as handle:
        stored = PaperList.read(papers_file, handle, "rebuild")
    assert stored.ids() == ["hep-th/9901001"] and stored[0] == paper
    url = link("http://localhost:8501/", Location(page=PAPER, paper_id=paper.paper_id))
    assert "paper=hep-th%2F9901001" in url
    assert decode(parse_qs(urlsplit(url).query)).paper_id == "hep-th/9901001"
