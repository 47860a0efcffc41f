"""OpenAlex works as the API gives them (a `results` page: pyalex's `Works().get()` saved with
json.dump) and as the snapshot does (gzipped JSON lines in bare `part_000.gz` files): the
abstract rebuilt from its inverted index, authors, venue, year, ids, references kept."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from explorer.corpus.openalex import MAX_POSITIONS, abstract
from explorer.corpus.papers import read_corpus
from explorer.corpus.venues import PUBLISHED
from explorer.errors import CorpusError

TEXT = "Despite growing interest in Open Access , the extent of it is unknown in the data ."


def inverted(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split()):
        index.setdefault(word, []).append(position)
    return index


def work(number: int, **changes) -> dict:
    """A work object as the API documents it (docs.openalex.org, Work object)."""
    record = {
        "id": f"https://openalex.org/W{number}", "doi": f"https://doi.org/10.7717/PEERJ.{number}",
        "title": f"The state of OA {number}", "display_name": f"The state of OA {number}",
        "publication_year": 2018, "publication_date": "2018-02-13", "language": "en",
        "type": "article", "type_crossref": "journal-article",
        "ids": {"openalex": f"https://openalex.org/W{number}",
                "doi": f"https://doi.org/10.7717/PEERJ.{number}", "mag": 2741809807,
                "pmid": "https://pubmed.ncbi.nlm.nih.gov/29456894"},
        "primary_location": {"is_oa": True, "landing_page_url": "https://peerj.com/articles/4375",
                             "pdf_url": None, "version": "publishedVersion",
                             "source": {"id": "https://openalex.org/S1983995261",
                                        "display_name": "PeerJ", "type": "journal"}},
        "locations": [{"landing_page_url": "https://arxiv.org/abs/1705.10433v2"}],
        "authorships": [
            {"author_position": "first", "raw_author_name": "H. Piwowar",
             "author": {"id": "https://openalex.org/A1", "display_name": "Heather Piwowar"},
             "institutions": []},
            {"author_position": "last", "raw_author_name": "Stefanie Haustein",
             "author": {"id": "https://openalex.org/A2", "display_name": None},
             "institutions": []}],
        "abstract_inverted_index": inverted(f"{TEXT} Work {number}."),
        "referenced_works": ["https://openalex.org/W1", "https://openalex.org/W2"],
        "related_works": ["https://openalex.org/W3"], "cited_by_count": 864,
        "open_access": {"is_oa": True, "oa_status": "gold"}, "is_retracted": False,
        "keywords": [{"id": "https://openalex.org/keywords/oa", "display_name": "open access",
                      "score": 0.6}],
        "concepts": [{"id": "C1", "display_name": "Citation", "score": 0.5}],
        "counts_by_year": [{"year": 2024, "cited_by_count": 10}],
    }
    record.update(changes)
    return record


def test_an_api_page_gives_every_field(tmp_path: Path):
    path = tmp_path / "works.json"
    path.write_text(json.dumps({"meta": {"count": 1, "page": 1}, "results": [work(4375)],
                                "group_by": []}), encoding="utf-8")
    (paper,) = read_corpus([path]).papers
    assert paper.paper_id == "W4375" and paper.title == "The state of OA 4375"
    assert paper.abstract == f"{TEXT} Work 4375."
    assert paper.authors == ("Heather Piwowar", "Stefanie Haustein")  # else the raw name
    assert (paper.year, paper.venue, paper.status) == (2018, "PeerJ", PUBLISHED)
    assert paper.url == "https://doi.org/10.7717/peerj.4375" and paper.doi == "10.7717/peerj.4375"
    assert dict(paper.external_ids) == {"openalex": "W4375", "doi": "10.7717/peerj.4375",
                                        "mag": "2741809807", "pmid": "29456894",
                                        "arxiv": "1705.10433"}
    assert paper.references == ("W1", "W2") and paper.keywords == ("open access",)
    assert paper.field("cited_by_count") == 864 and paper.field("type") == "article"
    assert paper.field("open_access.oa_status") == "gold"
    assert paper.field("is_retracted") is False
    assert paper.sources == (f"{path}:1#1",)  # line 1 (a page on one line), its record 1


def test_the_snapshot_parts_are_found_in_a_folder_and_read(tmp_path: Path):
    folder = tmp_path / "works" / "updated_date=2024-01-01"
    folder.mkdir(parents=True)
    with gzip.open(folder / "part_000.gz", "wt", encoding="utf-8") as handle:
        for number in (1, 2):
            handle.write(json.dumps(work(number)) + "\n")
    with gzip.open(folder / "archive.gz", "wb") as handle:  # not JSON: not read by a walk
        handle.write(b"\x00\x01binary")
    (tmp_path / "works" / "manifest").write_text("{}")
    report = read_corpus([tmp_path])
    assert [p.paper_id for p in report.papers] == ["W1", "W2"]
    assert report.papers[0].sources == (f"{folder / 'part_000.gz'}:1",)
    with pytest.raises(CorpusError, match=r"archive\.gz: unsupported file type"):
        read_corpus([folder / "archive.gz"])  # named, not JSON: refused as before


def test_a_preprint_is_not_published():
    from explorer.corpus.openalex import read
    preprint = read(work(9, type="preprint"))
    repository = read(work(8, primary_location={"source": {"display_name": "arXiv",
                                                            "type": "repository"}}))
    assert preprint["status"] is None and repository["status"] is None


@pytest.mark.parametrize("form", ["object", "json text", "pairs", "old snapshot"])
def test_the_inverted_index_in_each_form(form: str):
    index = inverted(TEXT)
    given = {"object": index, "json text": json.dumps(index), "pairs": list(index.items()),
             "old snapshot": {"IndexLength": 17, "InvertedIndex": index}}[form]
    assert abstract(given, Counter()) == TEXT


def test_rebuilding_is_bounded_and_says_so():
    notes: Counter = Counter()
    huge = {"word": list(range(MAX_POSITIONS * 10)), "far": [10 ** 12]}
    text = abstract(huge, notes)
    assert len(text.split()) == MAX_POSITIONS and sum(notes.values()) == 1


def test_malformed_works_are_named_and_the_others_read(tmp_path: Path):
    path = tmp_path / "works.jsonl"
    records = [work(1, abstract_inverted_index=["not", "pairs"]), work(2),
               work(3, abstract_inverted_index={"word": ["zero"]}), work(4, authorships="x")]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    report = read_corpus([path])
    assert [p.paper_id for p in report.papers] == ["W2"]
    reason = "'abstract_inverted_index' is not a map of words to positions"
    assert dict(report.skipped) == {
        f"records not read ({reason}): {path}:1": 1,
        f"records not read ('abstract_inverted_index' has a position that is not a number): "
        f"{path}:3": 1,
        f"records not read ('authorships' is not a list): {path}:4": 1}


def test_a_json_file_of_one_unknown_object_is_still_refused(tmp_path: Path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"theme": "dark"}, indent=2), encoding="utf-8")
    with pytest.raises(CorpusError, match=r"expected a JSON array of paper objects"):
        read_corpus([path])
