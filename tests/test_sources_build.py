"""The new readers and fields through a real build (the bundled model, a real FAISS index) and
`Explorer.open`: every paper comes back with its status, external ids, references and fields;
an old-style arXiv id works with `explorer similar`; a second build embeds nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.corpus.papers import read_corpus
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.test_arxiv import snapshot_record, write_lines
from tests.test_corpus import ABSTRACT_B
from tests.test_openalex import work
from tests.test_openreview import v1_note, v2_note
from tests.test_scholar import graph_paper

NEW_ATTRIBUTES = ("status", "external_ids", "references", "fields", "venue", "year", "url")


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder with a file of each service's form, and a corpus-format line."""
    folder = tmp_path_factory.mktemp("sources")
    (folder / "iclr2026.json").write_text(json.dumps([
        v2_note("abc123", "ICLR 2026 Poster", "ICLR.cc/2026/Conference"),
        v2_note("def456", "Submitted to ICLR 2026", "ICLR.cc/2026/Conference/Rejected_Submission",
                title="Robots fold towels", abstract=ABSTRACT_B)]), encoding="utf-8")
    (folder / "iclr2018.jsonl").write_text(json.dumps(v1_note(
        "old1", "ICLR.cc/2018/Conference/-/Withdrawn_Submission")) + "\n", encoding="utf-8")
    write_lines(folder / "arxiv-metadata-oai-snapshot.json", [snapshot_record(
        "hep-th/9901001", title="Strings on a lattice",
        abstract="We put strings on a lattice and watch how they vibrate at low energies.")])
    (folder / "works.json").write_text(json.dumps({"results": [work(4375)]}), encoding="utf-8")
    (folder / "s2.json").write_text(json.dumps({"data": [graph_paper("f" * 40)]}),
                                    encoding="utf-8")
    (folder / "mine.jsonl").write_text(json.dumps({
        "doc_id": "iclr2018:x", "title": "Withdrawn", "abstract": "Protein structure from "
        "sequence with attention over residue pairs.", "venue": "iclr", "year": "2018",
        "status": "Withdraw", "track": "main", "tldr": ""}) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def sources_index(sources: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sources-index") / "index"
    build([sources], out, "default", sentences=False)
    return out


def test_every_paper_comes_back_with_what_its_source_said(sources: Path, sources_index: Path):
    expected = read_corpus([sources]).papers
    explorer = Explorer.open(sources_index)
    assert len(explorer.papers) == len(expected) == 7
    for paper in expected:
        stored = explorer.paper(paper.paper_id)
        assert stored == paper  # every attribute, the new ones included
        for name in NEW_ATTRIBUTES:
            assert getattr(stored, name) == getattr(paper, name)
    assert explorer.paper("def456").status == "Rejected"
    assert explorer.paper("W4375").references == ("W1", "W2")
    assert explorer.paper("iclr2018:x").title_is_derived  # "Withdrawn" was no title
    hit = explorer.search("sparse attention memory", top_k=3)[0].to_dict()
    assert hit["paper_id"] == "abc123" and hit["status"] == "Poster"
    assert hit["fields"]["tldr"] == "Sparse attention saves memory."


def test_an_arxiv_id_with_a_slash_works_with_similar(sources_index: Path, capsys):
    explorer = Explorer.open(sources_index)
    hits = explorer.similar("hep-th/9901001", top_k=3)
    assert hits and "hep-th/9901001" not in {h.paper_id for h in hits}
    assert main(["similar", "hep-th/9901001", "--index", str(sources_index), "--json"]) == 0
    assert "hep-th/9901001" not in {h["paper_id"] for h in json.loads(capsys.readouterr().out)}


def test_a_second_build_embeds_nothing(sources: Path, sources_index: Path, tmp_path: Path):
    import shutil
    copy = tmp_path / "index"
    shutil.copytree(sources_index, copy)
    report = build([sources], copy, "default", sentences=False)
    assert report.embedded == 0 and report.up_to_date
