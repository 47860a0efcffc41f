"""The index's papers are parsed when first read (artifacts/paper_list.py): the same papers as
a full parse, a search parses only what it shows, a bad record is refused when it is read with
its line and the command to run, blank lines and a BOM are skipped, threads share one parse."""

from __future__ import annotations

import dataclasses
import io
import json
import threading
from pathlib import Path

import pytest

from explorer import files
from explorer.artifacts.paper_list import PaperList
from explorer.corpus.papers import Paper
from explorer.errors import IndexInvalidError
from explorer.query.engine import Explorer
from tests.shared import PAPERS_HINT, full_parse, papers_file


def test_the_papers_are_those_of_a_full_parse_and_a_search_parses_few(index_copy: Path,
                                                                      monkeypatch):
    parsed: list[str] = []
    from_dict = Paper.from_dict.__func__

    def counted(cls, data):
        parsed.append(data["paper_id"])
        return from_dict(cls, data)

    monkeypatch.setattr(Paper, "from_dict", classmethod(counted))
    explorer = Explorer.open(index_copy)
    hits = explorer.search("graph neural networks", 3, feedback=False)
    assert len(hits) == 3 and len(parsed) < len(explorer.papers) // 2, len(parsed)
    assert list(explorer.papers) == full_parse(papers_file(index_copy))
    assert explorer.papers[-1] == explorer.papers[len(explorer.papers) - 1]
    assert explorer.papers[2:5] == list(explorer.papers)[2:5]
    with pytest.raises(IndexError):
        explorer.papers[len(explorer.papers)]


def test_a_bad_record_is_refused_when_read_naming_its_line(index_copy: Path):
    """A record the build wrote wrong (its checksum matches): the index opens, the other papers
    read, and that one says where it is and what to run."""
    path = papers_file(index_copy)
    lines = path.read_bytes().split(b"\n")
    lines[4] = b'{"paper_id": "x", "no_such_field": 1}'
    lines[6] = b'{"paper_id": '
    path.write_bytes(b"\n".join(lines))
    manifest = json.loads((index_copy / "manifest.json").read_text())
    entry = manifest["files"]["papers"]
    entry["bytes"], entry["crc32"] = path.stat().st_size, files.file_checksum(path, "crc32")
    (index_copy / "manifest.json").write_text(json.dumps(manifest))
    explorer = Explorer.open(index_copy)
    assert explorer.papers[3].paper_id
    with pytest.raises(IndexInvalidError, match=rf"{path.name}:5 is not a valid paper.*explorer build"):
        explorer.papers[4]
    with pytest.raises(IndexInvalidError, match=rf"{path.name}:7: not valid JSON.*explorer build"):
        explorer.papers[6]


def test_blank_lines_a_bom_and_crlf_are_skipped_and_lines_keep_their_numbers():
    records = [Paper(f"p{i}", f"T{i}", False, f"A{i}").to_dict() for i in range(3)]
    text = ("\ufeff" + json.dumps(records[0]) + "\r\n\r\n" + json.dumps(records[1]) + "\n  \n"
            + '{"paper_id": 1\n' + json.dumps(records[2]))
    papers = PaperList.read(Path("papers.jsonl"), io.BytesIO(text.encode()), PAPERS_HINT)
    assert len(papers) == 4
    assert [papers[i].paper_id for i in (0, 1, 3)] == ["p0", "p1", "p2"]
    with pytest.raises(IndexInvalidError, match="papers.jsonl:5: not valid JSON"):
        papers[2]
    assert len(PaperList.read(Path("empty.jsonl"), io.BytesIO(b""), PAPERS_HINT)) == 0


def test_threads_reading_at_once_share_one_paper_per_row(index_copy: Path):
    explorer = Explorer.open(index_copy)
    seen: list[list[Paper]] = [[] for _ in range(8)]
    barrier = threading.Barrier(8)

    def read(i: int) -> None:
        barrier.wait()
        seen[i] = [explorer.papers[row] for row in range(len(explorer.papers))]

    threads = [threading.Thread(target=read, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for papers in seen[1:]:
        assert all(a is b for a, b in zip(papers, seen[0], strict=True))


def test_ids_are_read_without_parsing_the_records(monkeypatch):
    """The id table (Explorer.row) reads each line's id, as the writer puts it first; ids
    with quotes, backslashes and non-ASCII letters come back exactly; a line that does not
    start as the writer writes it is parsed."""
    from explorer.artifacts.store import paper_lines

    ids = ['plain', 'with "quotes"', "back\\slash", "Müller-2024", "tab\there", "😀"]
    papers = [Paper(paper_id, f"T{i}", False, f"A{i}") for i, paper_id in enumerate(ids)]
    text = "".join(paper_lines(papers)) + json.dumps({"title": "T", "title_is_derived": False,
                                                      "abstract": "A", "paper_id": "last"})
    listed = PaperList.read(Path("papers.jsonl"), io.BytesIO(text.encode()), PAPERS_HINT)
    parsed: list[int] = []
    from_dict = Paper.from_dict.__func__
    monkeypatch.setattr(Paper, "from_dict",
                        classmethod(lambda cls, data: parsed.append(1) or from_dict(cls, data)))
    assert listed.ids() == [*ids, "last"]
    assert len(parsed) == 1  # only the line that does not start with its id


def test_an_alias_still_finds_its_paper_and_an_unknown_id_is_refused(tmp_path: Path):
    from explorer.errors import UnknownPaperError
    from explorer.ingest.run import build

    text = {"title": "Sand locomotion", "abstract": "Legged robots walking on loose sand."}
    rows = [{"paper_id": "first", **text}, {"paper_id": "second", **text},
            {"paper_id": "other", "title": "Proteins", "abstract": "Folding proteins fast."}]
    corpus = tmp_path / "papers.jsonl"
    corpus.write_text("\n".join(json.dumps(row) for row in rows))
    build([corpus], tmp_path / "index", "default")
    explorer = Explorer.open(tmp_path / "index")
    merged = [paper for paper in explorer.papers if paper.aliases]
    assert len(explorer.papers) == 2 and len(merged) == 1, explorer.papers
    reopened = Explorer.open(tmp_path / "index")  # nothing parsed yet
    alias, own = merged[0].aliases[0], merged[0].paper_id
    assert reopened.row(alias) == reopened.row(own) == explorer.row(own)
    with pytest.raises(UnknownPaperError, match="No paper with id"):
        reopened.row("no-such-paper")


def test_the_author_table_reads_what_the_papers_say_without_parsing_them(index_copy: Path,
                                                                         monkeypatch):
    """PaperList.authored (the author and title table's reading) gives each record's authors,
    title and derived flag as its Paper does, and makes no Paper while it reads."""
    full = full_parse(papers_file(index_copy))
    full[3] = dataclasses.replace(full[3], authors=("Jörg Müller", "S. Levine"))
    lines = [json.dumps(paper.to_dict()) for paper in full]
    papers_file(index_copy).write_text("\n".join(lines) + "\n", encoding="utf-8")
    papers = PaperList.read(papers_file(index_copy), io.BytesIO(
        papers_file(index_copy).read_bytes()), PAPERS_HINT)
    made: list[str] = []
    from_dict = Paper.from_dict.__func__
    monkeypatch.setattr(Paper, "from_dict",
                        classmethod(lambda cls, data: made.append(data) or from_dict(cls, data)))
    read = list(papers.authored())
    assert made == []
    assert read == [(paper.authors, paper.title, paper.title_is_derived) for paper in full]
