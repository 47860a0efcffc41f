"""References and cited-by inside the corpus: resolved from OpenAlex `referenced_works`, Semantic
Scholar `references` and plain records' reference lists (by W id, paperId, DOI), stored at build
time, updated by an incremental build, read back, and `explorer show`'s section."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.layout import REFERENCE_ROWS
from explorer.corpus.citations import reference_keys, resolve
from explorer.corpus.papers import read_corpus
from explorer.errors import UnknownPaperError
from explorer.features.references.query import cited_by, links, references_of
from explorer.features.show.cli import text_lines
from explorer.features.show.record import paper_record
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.citation_fixtures import s2_paper, work, write_lines, write_page

S2_A, S2_B = "a" * 40, "b" * 40  # Semantic Scholar paperIds (40 hex digits)


def ids(papers) -> list[str]:
    return sorted(paper.paper_id for paper in papers)


def first_corpus(folder: Path) -> list[Path]:
    """Six OpenAlex works (W1..W6) citing each other and W7 (not in the corpus yet), and two
    Semantic Scholar papers: one citing the other by paperId."""
    works = [work(1, []), work(2, [1]), work(3, [1, 2, 99999]), work(4, [3, 7]),
             work(5, [5, 4]), work(6, [])]  # W5 cites itself: dropped
    return [write_page(folder / "works.json", works),
            write_lines(folder / "s2.jsonl", [s2_paper(S2_A, 10, []),
                                               s2_paper(S2_B, 11, [S2_A, "f" * 40])])]


def added_corpus(folder: Path) -> Path:
    """The update: W7 (cited by W4 already) and W8 citing W1 and W6; a plain record whose
    references are a DOI and an S2 paperId."""
    plain = {"id": "note-1", "title": "A plain record", "abstract": work(9, [])["title"] + ". "
             + "We revisit the questions of the earlier works and cite them by DOI and paperId.",
             "references": ["https://doi.org/10.5555/WORK.2", S2_B]}
    write_page(folder / "more-works.json", [work(7, [], seed=8), work(8, [1, 6], seed=9)])
    return write_lines(folder / "notes.jsonl", [plain])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the corpus folder, an index of the first corpus) built once; tests copy the index."""
    corpus = tmp_path_factory.mktemp("citing-corpus")
    first_corpus(corpus)
    out = tmp_path_factory.mktemp("citing-index") / "index"
    build([corpus], out, "default")
    return corpus, out


def test_reference_keys_normalise_each_kind():
    assert reference_keys("https://openalex.org/W12") == ["https://openalex.org/W12", "W12"]
    assert reference_keys("https://doi.org/10.5555/ABC")[-1] == "doi:10.5555/abc"
    assert reference_keys("arXiv:1706.03762v5")[-1] == "arxiv:1706.03762"
    assert reference_keys("hep-th/9901001")[-1] == "arxiv:hep-th/9901001"


def test_resolve_finds_references_by_every_id(tmp_path: Path):
    first_corpus(tmp_path)
    added_corpus(tmp_path)
    papers = read_corpus([tmp_path]).papers
    rows = {paper.paper_id: row for row, paper in enumerate(papers)}
    pairs = {(papers[a].paper_id, papers[b].paper_id) for a, b in resolve(papers)}
    assert pairs == {("W2", "W1"), ("W3", "W1"), ("W3", "W2"), ("W4", "W3"), ("W4", "W7"),
                     ("W5", "W4"), ("W8", "W1"), ("W8", "W6"), (S2_B, S2_A),
                     ("note-1", "W2"), ("note-1", S2_B)}
    stored = resolve(papers)
    assert stored.dtype == np.int32 and stored.shape == (11, 2)
    assert (stored[:-1].tolist() <= stored[1:].tolist())  # sorted
    assert rows["W5"] not in {int(b) for a, b in stored if a == rows["W5"]}  # no self-citation


BIB = r"""@inproceedings{vaswani2017,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam},
  year = {2017},
  doi = {10.5555/attention},
  abstract = {We propose a network architecture based solely on attention mechanisms.}
}
@article{devlin2019,
  title = {Pre-training of Deep Bidirectional Transformers},
  author = {Devlin, Jacob},
  year = {2019},
  cites = {vaswani2017; 10.9999/elsewhere},
  abstract = {We pre-train deep bidirectional representations from unlabeled text.}
}
@misc{later2020,
  title = {A Later Survey},
  author = {Smith, Jane},
  year = {2020},
  references = {https://doi.org/10.5555/ATTENTION, devlin2019 devlin2019},
  abstract = {We survey attention-based pre-training and its descendants.}
}
"""


def test_reference_lists_name_the_works_an_entry_cites(tmp_path: Path):
    """A .bib's `cites`/`references` field (ids by DOI or citation key, any separator) and a
    CSL-JSON item's `references` list resolve like a service's references; ids outside the
    corpus are left out and an id given twice counts once."""
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    csl = [{"id": "item-1", "type": "article-journal", "title": "Citing by CSL",
            "abstract": "A CSL-JSON item that cites two works of the reference list above.",
            "author": [{"family": "Doe", "given": "Ann"}],
            "references": ["10.5555/attention", "later2020", 7]}]
    (tmp_path / "items.json").write_text(json.dumps(csl), encoding="utf-8")
    papers = read_corpus([tmp_path]).papers
    by_key = {paper.title.split()[0]: paper.paper_id for paper in papers}
    pairs = {(papers[a].title.split()[0], papers[b].title.split()[0]) for a, b in resolve(papers)}
    assert pairs == {("Pre-training", "Attention"), ("A", "Attention"), ("A", "Pre-training"),
                     ("Citing", "Attention"), ("Citing", "A")}
    assert by_key["Attention"] == "10.5555/attention"


def test_references_and_cited_by_are_stored_and_read(built):
    _, out = built
    explorer = Explorer.open(out)
    assert links(explorer).count == len(explorer.artifacts.arrays[REFERENCE_ROWS]) > 0
    assert ids(references_of(explorer, "W3")) == ["W1", "W2"]  # W99999: not in the corpus
    assert ids(references_of(explorer, "W4")) == ["W3"]  # W7 comes with the update
    assert ids(cited_by(explorer, "W1")) == ["W2", "W3"]
    assert ids(cited_by(explorer, S2_A)) == [S2_B] and references_of(explorer, "W6") == []
    with pytest.raises(UnknownPaperError):
        cited_by(explorer, "W424242")


def test_an_update_resolves_new_references_and_old_papers_cited_by(built, tmp_path: Path):
    corpus, first = built
    out = tmp_path / "index"
    shutil.copytree(first, out)
    folder = tmp_path / "corpus"
    shutil.copytree(corpus, folder)
    added_corpus(folder)
    before = Explorer.open(out)
    report = build([folder], out, "default")
    assert report.embedded == 3 and report.reused == 8  # only the new papers embedded
    explorer = Explorer.open(out)
    assert ids(cited_by(explorer, "W1")) == ["W2", "W3", "W8"]  # an old paper's cited-by
    assert ids(cited_by(explorer, "W6")) == ["W8"]
    assert ids(references_of(explorer, "W4")) == ["W3", "W7"]  # an old reference now resolved
    assert ids(cited_by(explorer, "W2")) == ["W3", "note-1"]  # by DOI
    assert ids(cited_by(explorer, S2_B)) == ["note-1"]  # by paperId
    kept = [before.row(p) for p in ("W1", "W2", "W3", "W4", "W5", "W6", S2_A, S2_B)]
    for old_row, paper_id in zip(kept, ("W1", "W2", "W3", "W4", "W5", "W6", S2_A, S2_B)):
        assert np.array_equal(before.vectors[old_row], explorer.vectors[explorer.row(paper_id)])


def test_the_table_is_made_once_for_many_threads(built):
    from concurrent.futures import ThreadPoolExecutor

    explorer = Explorer.open(built[1])
    with ThreadPoolExecutor(8) as pool:
        tables = list(pool.map(lambda _: links(explorer), range(32)))
    assert all(table is tables[0] for table in tables)


def test_explorer_show_lists_references_and_cited_by(built):
    explorer = Explorer.open(built[1])
    record = paper_record(explorer, "W3")
    assert [p["paper_id"] for p in record["references"]] == ["W1", "W2"]
    assert [p["paper_id"] for p in record["cited_by"]] == ["W4"]
    lines = text_lines(record)
    assert sum(line.startswith("cites: W") for line in lines) == 2
    assert sum(line.startswith("cited by: W4") for line in lines) == 1
    assert all("\x1b" not in line for line in lines)
    json.dumps(record)  # JSON as it is
