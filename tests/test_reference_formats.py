"""Every entry of a reference list read or named as not read: RIS as Zotero reads it (one space
before the dash too), a reference without its TY line named, Web of Science's tagged export
read, CSL-JSON items with only an id, a type and a title read by the upload path as by the
build, entries with neither title nor abstract named in the summary a reader sees."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from explorer.corpus.papers import Paper, read_corpus
from explorer.corpus.references import read_references
from explorer.errors import CorpusError
from explorer.features.drafts.cited import cited_from_references

WOS = """FN Clarivate Analytics Web of Science
VR 1.0
PT J
AU Parkes-Loach, PS
   Loach, PA
AF Parkes-Loach, Pamela S.
   Loach, Paul A.
TI Interactions stabilizing the structure of the core light-harvesting
   complex of photosynthetic bacteria
SO BIOCHEMISTRY
DE light harvesting; bacteriochlorophyll
AB Reconstitution experiments with a chemically synthesized polypeptide.
PY 2005
VL 44
IS 22
BP 7961
DI 10.1021/bi0500240
UT WOS:000229577900002
ER

PT J
AU Law, CJ
TI A second record
PY 2003
ER

EF
"""


def _both(tmp_path: Path, name: str, text: str) -> tuple[list[Paper], list[Paper], object]:
    """(papers read_corpus gives, entries read_references gives, the ReferenceList)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    references = read_references(text.encode("utf-8"), name)
    return read_corpus([path]).papers, list(references.entries), references


def test_ris_with_one_space_before_the_dash_reads_as_zotero_reads_it(tmp_path: Path):
    text = ("TY - JOUR\nTI - Rapid identification of thousands of microsatellite loci\n"
            "AU - CASTOE, TODD A.\nAU - POOLE, ALEXANDER W.\nPY - 2009\nVL - 9\n"
            "DO - 10.1111/j.1755-0998.2009.02750.x\nER -\n")
    papers, entries, _ = _both(tmp_path, "one-space.ris", text)
    assert len(papers) == len(entries) == 1
    for paper in (*papers, *entries):
        assert paper.title == "Rapid identification of thousands of microsatellite loci"
        assert paper.authors == ("TODD A. CASTOE", "ALEXANDER W. POOLE") and paper.year == 2009
        assert paper.paper_id == "10.1111/j.1755-0998.2009.02750.x"


def test_a_ris_reference_without_its_ty_line_is_named_and_the_rest_read(tmp_path: Path):
    text = ("\ufeff\nJF  - Empirical Software Engineering\nT1  - Editorial: Open Source\n"
            "AU  - Harrison, Warren\nER  -\n\nTY  - JOUR\nTI  - A Complete Reference\nER  - \n")
    path = tmp_path / "no-ty.ris"
    path.write_text(text, encoding="utf-8")
    report = read_corpus([path])
    assert [p.title for p in report.papers] == ["A Complete Reference"]
    assert report.skipped == {f"entries that did not parse: {path}:2": 1}
    references = read_references(text, "no-ty.ris")
    assert references.unparsed == ("no-ty.ris:2",) and len(references.entries) == 1


@pytest.mark.parametrize("text", ["Just some notes, not references.\n", "@article{k,}\n"])
def test_a_ris_file_with_no_reference_at_all_says_so(tmp_path: Path, text: str):
    path = tmp_path / "notes.ris"
    path.write_text(text)
    assert read_corpus([path]).skipped == {f"entries that did not parse: {path}:1": 1}
    assert read_references(text, "notes.ris").unparsed == ("notes.ris:1",)
    with pytest.raises(CorpusError, match=r"empty\.ris:1: no references found"):
        read_references(" \n", "empty.ris")


@pytest.mark.parametrize("name", ["savedrecs.ris", "savedrecs.txt"])
def test_a_web_of_science_export_is_read(tmp_path: Path, name: str):
    papers, entries, _ = _both(tmp_path, name, WOS)
    for found in (papers, entries):
        first, second = found
        assert first.title == ("Interactions stabilizing the structure of the core "
                               "light-harvesting complex of photosynthetic bacteria")
        assert first.authors == ("Pamela S. Parkes-Loach", "Paul A. Loach")
        assert (first.year, first.venue, first.paper_id) == (2005, "BIOCHEMISTRY",
                                                             "10.1021/bi0500240")
        assert first.abstract.startswith("Reconstitution experiments")
        assert first.keywords == ("light harvesting", "bacteriochlorophyll")
        assert "WOS:000229577900002" in first.aliases and first.sources[0].endswith(":3")
        assert (second.title, second.authors, second.year) == ("A second record", ("CJ Law",),
                                                               2003)


def test_a_web_of_science_record_without_its_end_is_named(tmp_path: Path):
    cut = WOS.replace("PY 2003\nER\n", "PY 2003\n")
    _, entries, references = _both(tmp_path, "cut.ris", cut)
    assert len(entries) == 1 and references.unparsed == ("cut.ris:21",)


def test_a_txt_that_is_not_a_web_of_science_export_is_not_a_reference_list():
    with pytest.raises(CorpusError, match="not a reference list"):
        read_references(b"Some draft text.\n", "draft.txt")


ITEMS = [{"id": "ITEM-1", "type": "book", "title": "Hello Thing"},
         {"id": "ITEM-2", "page": "123", "title": "Book Two"},
         {"id": "ITEM-3", "type": "chapter", "title": "My <i>Amazing</i> Title",
          "volume": "3"},
         {"id": "ITEM-4", "type": "article-journal", "author": [{"family": "Doe"}]},
         "not an item",
         {"id": "ITEM-6", "type": "book", "title": "Read by Both Readers Alike"}]


def test_every_csl_item_is_read_or_named_on_both_paths(tmp_path: Path):
    references = read_references(json.dumps(ITEMS), "items.json")
    titles = ["Hello Thing", "Book Two", "My Amazing Title", "Read by Both Readers Alike"]
    assert [p.title for p in references.entries] == titles
    assert [p.paper_id for p in references.entries] == ["ITEM-1", "ITEM-2", "ITEM-3", "ITEM-6"]
    assert references.unparsed == ("items.json#5",)  # not an object
    assert references.untitled == ("items.json#4",)  # neither title nor abstract
    path = tmp_path / "items.json"  # the build refuses a record that is not an object
    path.write_text(json.dumps([item for item in ITEMS if isinstance(item, dict)]))
    report = read_corpus([path])
    assert [(p.paper_id, p.title) for p in report.papers] == [
        (p.paper_id, p.title) for p in references.entries]
    assert report.skipped == {"no abstract or title": 1}


class _Index:
    def __init__(self, papers: list[Paper]) -> None:
        self.papers = papers


def test_the_summary_a_reader_sees_names_every_entry_not_read():
    references = read_references(json.dumps(ITEMS), "items.json")
    index = _Index([Paper("p1", "Read by both readers alike", False, "")])
    summary = cited_from_references(index, references).summary()
    assert summary == ("1 of 4 entries are in this index; 3 are not; 1 did not parse "
                       "(items.json#5); 1 had no title or abstract (items.json#4).")


@pytest.mark.parametrize(("start", "continued", "end"), [
    ("TY  - JOUR\nTI  - A Long One\nAU  - Doe, Jane\nAB  - start\n", "word word\n",
     "KW  - one\ntwo\nER  - \n"),
    ("PT J\nTI A Long One\nAU Doe, J\nAB start\n", "   word word\n", "DE one; two\nER\n")])
def test_a_long_continued_field_reads_in_linear_time(start: str, continued: str, end: str):
    """rispy joins a continued value one line at a time (quadratic: 800 KB of one abstract
    took 8 s, 1.5 MB 20 s, so 3 MB about four times that); the lines are folded first: 2 s.
    (A title is given: deriving one from a 3 MB abstract is another matter, titles.py's.)"""
    text = start + continued * 300_000 + end
    started = time.perf_counter()
    [entry] = read_references(text, "long.ris").entries
    assert time.perf_counter() - started < 10
    assert entry.abstract == "start" + " word word" * 300_000
    assert entry.authors in (("Jane Doe",), ("J Doe",)) and entry.keywords == ("one", "two")
