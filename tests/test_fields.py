"""Every field kept: what a record holds beyond a Paper's attributes travels with it, bounded,
into the papers file and back; paperlists-ml's status, track, primary area and TL;DR kept;
what is embedded (text, text_hash) unchanged for the corpora indexed before."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from explorer.artifacts.paper_list import PaperList
from explorer.artifacts.store import paper_lines
from explorer.corpus import fields
from explorer.corpus.entries import PLACEHOLDER_TITLES, normalise
from explorer.corpus.fields import FieldBag
from explorer.corpus.papers import Paper, read_corpus
from explorer.corpus.venues import REJECTED, WITHDRAWN
from explorer.errors import IndexInvalidError
from tests.conftest import SEEDS, SHARED_DATA
from tests.test_corpus import ABSTRACT_A, ABSTRACT_B

PAPERLISTS = SHARED_DATA / "paperlists-ml" / "corpus.jsonl.gz"
EVERY = 23  # every 23rd paperlists-ml record: a 4,000-record sample across all venues
# The papers file's keys of a paper without the new fields: as before, so an index of such a
# corpus (the seeds) keeps its corpus hash and is not rebuilt.
OLD_KEYS = ["paper_id", "title", "title_is_derived", "abstract", "authors", "year", "venue",
            "url", "keywords", "sources", "aliases"]


@pytest.fixture(scope="module")
def paperlists_sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], Path]:
    """Every EVERY-th paperlists-ml record and ICLR 2018's records (rejects, withdrawals and
    a "Withdrawn" title), as raw records and as a JSONL file."""
    if not PAPERLISTS.is_file():
        pytest.skip(f"{PAPERLISTS} (paperlists-ml) is absent: the fields tests need its sample")
    with gzip.open(PAPERLISTS, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for number, line in enumerate(handle)
                   if number % EVERY == 0 or line.startswith('{"doc_id": "iclr2018:')]
    path = tmp_path_factory.mktemp("paperlists") / "sample.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return records, path


def test_what_is_embedded_is_unchanged_for_the_seeds():
    """A seed's text is its abstract as read (no title), and its papers file record has the
    keys it had: the seeds index built before is current."""
    papers = read_corpus([SEEDS]).papers
    for paper in papers:
        assert paper.text == normalise(paper.abstract) and not paper.fields
        assert paper.text_hash == hashlib.sha256(paper.abstract.encode()).hexdigest()
        assert list(json.loads(paper_lines([paper])[0])) == OLD_KEYS


def test_what_is_embedded_is_unchanged_for_paperlists(paperlists_sample):
    """Title. abstract, as before; only a placeholder title ("Withdrawn") is not a title."""
    records, path = paperlists_sample
    papers = {p.paper_id: p for p in read_corpus([path]).papers}
    placeholders = 0
    for record in records:
        paper = papers[record["doc_id"]]
        title, abstract = normalise(record["title"]), normalise(record["abstract"])
        if title.lower() in PLACEHOLDER_TITLES:
            placeholders += 1
            assert paper.title_is_derived and paper.text == abstract
        else:
            assert paper.text == f"{title}. {abstract}"
    assert placeholders == 1  # iclr2018:HyxSG1Z3IX, titled "Withdrawn"
    withdrawn = papers["iclr2018:HyxSG1Z3IX"]
    assert withdrawn.status == WITHDRAWN and withdrawn.title != "Withdrawn"


def test_paperlists_fields_are_kept(paperlists_sample):
    records, path = paperlists_sample
    report = read_corpus([path])
    papers = {p.paper_id: p for p in report.papers}
    for record in records:
        paper = papers[record["doc_id"]]
        for name in ("track", "primary_area", "tldr"):
            assert paper.field(name) == (normalise(record[name]) or None), (record["doc_id"], name)
        assert paper.keywords == tuple(normalise(k) for k in record["keywords"] if k.strip())
    iclr = Counter(p.status for p in papers.values() if p.paper_id.startswith("iclr2018:"))
    assert iclr[REJECTED] == 496 and iclr[WITHDRAWN] == 63  # the source says Reject / Withdraw
    findings = next(p for p in papers.values() if p.field("status_given") == "Findings")
    assert findings.status == "Accepted" and findings.venue in ("ACL", "EMNLP", "NAACL")
    assert {p.venue for p in papers.values()} >= {"NeurIPS", "ICLR", "ICML", "CVPR", "IROS"}


def test_fields_survive_the_papers_file(tmp_path: Path):
    record = {"id": "p1", "title": "Sparse attention", "abstract": ABSTRACT_A, "venue": "nips",
              "year": "2017", "status": "Accept (Oral)", "doi": "https://doi.org/10.1000/ABC",
              "references": ["W1", "W2", "W1"], "track": "main", "score": 7.5,
              "accepted": True, "tags": ["a", 2, None, {"x": 1}],
              "open_access": {"is_oa": True, "oa_status": "gold", "deep": {"x": 1}},
              "nested": [{"a": 1}], "empty": "", "none": None}
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (paper,) = read_corpus([path]).papers
    assert (paper.venue, paper.status, paper.doi) == ("NeurIPS", "Oral", "10.1000/abc")
    assert paper.references == ("W1", "W2")
    assert dict(paper.fields) == {"status_given": "Accept (Oral)", "track": "main",
                                  "score": 7.5, "accepted": True, "tags": ("a", 2),
                                  "open_access.is_oa": True, "open_access.oa_status": "gold"}
    stored = tmp_path / "papers.jsonl"
    stored.write_text("".join(paper_lines([paper])), encoding="utf-8")
    with stored.open("rb") as handle:
        assert PaperList.read(stored, handle, "rebuild")[0] == paper
    again = tmp_path / "again.jsonl"  # a paper as this tool writes it, read as a corpus
    again.write_text(paper_lines([paper])[0], encoding="utf-8")
    (copy,) = read_corpus([again]).papers
    assert (copy.fields, copy.status, copy.external_ids) == (
        paper.fields, paper.status, paper.external_ids)


@pytest.mark.parametrize("bad", [{"x": {"nested": 1}}, ["not", "an", "object"],
                                 {"x": [[1]]}])
def test_a_papers_file_with_bad_fields_names_the_line(tmp_path: Path, bad):
    good = paper_lines([Paper("p1", "T", False, ABSTRACT_B)])[0]
    broken = json.dumps({**json.loads(good), "paper_id": "p2", "fields": bad}) + "\n"
    stored = tmp_path / "papers.jsonl"
    stored.write_text(good + broken, encoding="utf-8")
    with stored.open("rb") as handle:
        papers = PaperList.read(stored, handle, "explorer build x")
    assert papers[0].paper_id == "p1"
    with pytest.raises(IndexInvalidError, match=r"papers\.jsonl:2 is not a valid paper record"):
        papers[1]


def test_fields_are_bounded_and_what_is_cut_is_counted():
    notes: Counter = Counter()
    bag = FieldBag(notes)
    bag.add_all({f"f{n}": n for n in range(fields.MAX_FIELDS + 10)})
    bag.add("late", "x")
    assert len(bag.freeze()) == fields.MAX_FIELDS and notes[fields.DROPPED] == 11
    notes.clear()
    bag = FieldBag(notes)
    bag.add("long", "word " * fields.MAX_TEXT)
    bag.add("many", list(range(fields.MAX_ITEMS * 3)))
    kept = dict(bag.freeze())
    assert len(kept["long"]) == fields.MAX_TEXT and kept["long"].endswith(fields.CUT)
    assert len(kept["many"]) == fields.MAX_ITEMS and notes[fields.SHORTENED] == 2
    bag = FieldBag(Counter())
    for n in range(fields.MAX_FIELDS):
        bag.add(f"text{n}", "y" * fields.MAX_TEXT)
    assert sum(len(k) + len(v) for k, v in bag.freeze()) <= fields.MAX_CHARS


def test_field_names_are_cleaned_and_known_ones_named_alike():
    bag = FieldBag(Counter())
    bag.add("TL;DR", "short")
    bag.add("evil\x1b[2Jname\u202e", "v")
    bag.add("x" * 500, "long name")
    names = [name for name, _ in bag.freeze()]
    assert names == ["tldr", "evil[2Jname", "x" * fields.MAX_NAME]
