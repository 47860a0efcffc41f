"""Reading corpora: formats, ids, duplicates, skipped records, derived titles, clear errors."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from explorer.corpus.papers import read_corpus, stable_id
from explorer.corpus.titles import derive_title
from explorer.errors import CorpusError
from tests.conftest import SEEDS

ABSTRACT_A = "We study how sparse attention changes the memory cost of long-context transformers."
ABSTRACT_B = "A new benchmark measures whether robots can fold laundry from video demonstrations."


def test_seeds_give_71_unique_papers_and_remember_both_sources():
    report = read_corpus([SEEDS])
    assert report.records == 76
    assert len(report.papers) == 71
    assert report.duplicates_merged == 5
    twice = [p for p in report.papers if len({s.rsplit(":", 1)[0] for s in p.sources}) == 2]
    assert len(twice) == 5
    assert len({p.paper_id for p in report.papers}) == 71


def test_ids_are_stable_hashes_of_the_normalised_abstract():
    first = read_corpus([SEEDS]).papers
    second = read_corpus([SEEDS]).papers
    assert [p.paper_id for p in first] == [p.paper_id for p in second]
    assert first[0].paper_id == stable_id("  " + first[0].abstract.replace(" ", "\n ") + "\n")


def test_seed_format_with_bom_and_crlf_reads_like_plain(tmp_path: Path):
    plain = tmp_path / "plain.txt"
    plain.write_text(f"Header\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n", encoding="utf-8")
    windows = tmp_path / "windows.txt"
    windows.write_bytes(b"\xef\xbb\xbf" + f"Header\r\n\r\n{ABSTRACT_A}\r\n\r\n{ABSTRACT_B}\r\n"
                        .encode())
    ids_plain = [p.paper_id for p in read_corpus([plain]).papers]
    ids_windows = [p.paper_id for p in read_corpus([windows]).papers]
    assert ids_plain == ids_windows and len(ids_plain) == 2


def test_jsonl_json_csv_and_gzip_with_metadata(tmp_path: Path):
    record = {"id": "paper-1", "title": "Sparse Attention at Scale", "abstract": ABSTRACT_A,
              "authors": ["Ada Lovelace", "Alan Turing"], "year": "2024", "venue": "ICLR",
              "url": "https://example.org/1", "keywords": ["attention", "memory"]}
    (tmp_path / "a.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps([{"paper_id": "paper-2", "abstract": ABSTRACT_B}]))
    (tmp_path / "c.csv").write_text('doc_id,title,abstract,year\npaper-3,Folding,'
                                    '"Robots fold towels, shirts and socks from demos.",2023\n')
    with gzip.open(tmp_path / "d.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"abstract": "Gzipped abstracts about protein folding work."}))
    papers = {p.paper_id: p for p in read_corpus([tmp_path]).papers}
    assert set(papers) >= {"paper-1", "paper-2", "paper-3"} and len(papers) == 4
    first = papers["paper-1"]
    assert (first.title, first.title_is_derived, first.year, first.venue) == (
        "Sparse Attention at Scale", False, 2024, "ICLR")
    assert first.authors == ("Ada Lovelace", "Alan Turing")
    assert first.keywords == ("attention", "memory")
    assert papers["paper-2"].title_is_derived and papers["paper-3"].year == 2023


def test_records_without_text_are_skipped_and_counted(tmp_path: Path):
    lines = [{"abstract": ABSTRACT_A}, {"abstract": "   "}, {"title": "", "abstract": "!!"},
             {"id": "x"}]
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps(r) for r in lines))
    report = read_corpus([tmp_path / "c.jsonl"])
    assert len(report.papers) == 1
    assert sum(report.skipped.values()) == 3


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        ("bad.jsonl", '{"abstract": "fine text here"}\n{"abstract": oops}\n', "bad.jsonl:2"),
        ("bad.json", '[{"abstract": "x"},', "bad.json:1"),
        ("list.jsonl", '["not", "an", "object"]\n', "list.jsonl:1"),
        ("bad.csv", "name,summary_text\nA,B\n", "bad.csv:1"),
        ("notes.docx", "whatever", "notes.docx"),
    ],
)
def test_malformed_files_name_the_file_and_line(tmp_path: Path, name: str, content: str,
                                                 where: str):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusError, match=where.replace(".", r"\.")):
        read_corpus([path])


def test_invalid_utf8_and_missing_paths_are_clear(tmp_path: Path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("Header\n\nCaf\xe9 abstracts are here.\n".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"latin1\.txt:3: not valid UTF-8"):
        read_corpus([path])
    with pytest.raises(CorpusError, match="no such file"):
        read_corpus([tmp_path / "missing.jsonl"])


@pytest.mark.parametrize("name", ["Lean Finder", "BWCache", "HydraFake"])
def test_derived_titles_name_the_introduced_system(name: str):
    titles = [p.title for p in read_corpus([SEEDS]).papers]
    assert any(title.startswith(name) for title in titles), titles


def test_derived_title_falls_back_to_a_short_topic_phrase():
    title = derive_title("In this paper we study the implicit bias of incremental Adam for "
                         "logistic regression on linearly separable data, and much more.")
    assert title.startswith("Implicit bias of incremental Adam")
    assert len(title.split()) <= 12


def test_beir_style_records_keep_their_ids(tmp_path: Path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"_id": "d1", "title": "Sparse Attention", "text": ABSTRACT_A}))
    (paper,) = read_corpus([path]).papers
    assert (paper.paper_id, paper.title, paper.abstract) == ("d1", "Sparse Attention", ABSTRACT_A)


def _jsonl(path: Path, *abstracts: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"abstract": a}) + "\n" for a in abstracts), "utf-8")
    return path


def test_folder_walks_skip_dot_folders_dot_files_and_excluded_paths(tmp_path: Path):
    corpus = tmp_path / "c"
    _jsonl(corpus / "papers.jsonl", ABSTRACT_A)
    _jsonl(corpus / ".git" / "objects.jsonl", "Version control internals should never be read.")
    _jsonl(corpus / ".partial-abc" / "block.jsonl", "A checkpoint block from a partial build.")
    _jsonl(corpus / ".#papers.jsonl", "An editor lock file that looks like a corpus file.")
    _jsonl(corpus / "index" / "papers-0001.jsonl", "The build's own output folder, re-read.")
    report = read_corpus([corpus], exclude=[corpus / "index"])
    assert [p.abstract for p in report.papers] == [ABSTRACT_A]
    assert len(read_corpus([corpus]).papers) == 2  # without exclude, index/ is an ordinary folder


def test_an_explicit_hidden_file_is_read_but_an_excluded_one_never(tmp_path: Path):
    hidden = _jsonl(tmp_path / ".hidden" / ".papers.jsonl", ABSTRACT_B)
    assert [p.abstract for p in read_corpus([hidden]).papers] == [ABSTRACT_B]
    with pytest.raises(CorpusError, match="no corpus files"):
        read_corpus([tmp_path], exclude=())  # the only file sits in a dot-folder
    _jsonl(tmp_path / "a.jsonl", ABSTRACT_A)
    report = read_corpus([tmp_path / "a.jsonl", hidden], exclude=[str(hidden)])
    assert [p.abstract for p in report.papers] == [ABSTRACT_A]


def test_a_walk_from_inside_a_dot_folder_still_reads_it(tmp_path: Path):
    _jsonl(tmp_path / ".data" / "corpus" / "a.jsonl", ABSTRACT_A)
    assert len(read_corpus([tmp_path / ".data" / "corpus"]).papers) == 1


@pytest.mark.parametrize(("year", "expected"), [
    (2024, 2024), ("2024", 2024), ("May 2024", 2024), ("2024-05-01", 2024), (1500, 1500),
    ("999", None), (2101, None), ("\uff12\uff10\uff12\uff14", None), ("\u0662\u0660\u0662\u0664", None),
    ("9" * 5000, None), (True, None), ([2024], None),
])
def test_years_outside_1000_to_2100_or_not_ascii_digits_are_dropped(tmp_path: Path, year,
                                                                     expected):
    path = tmp_path / "y.jsonl"
    path.write_text(json.dumps({"abstract": ABSTRACT_A, "year": year}) + "\n", "utf-8")
    report = read_corpus([path])
    assert report.papers[0].year == expected
    assert sum(report.notes.values()) == (expected is None)


def test_a_json_year_with_5000_digits_keeps_the_record_and_drops_the_year(tmp_path: Path):
    path = tmp_path / "y.jsonl"
    digits, id_digits = "1" * 5000, "7" * 5000
    path.write_text(f'{{"abstract": "{ABSTRACT_A}", "year": {digits}, "id": {id_digits}}}\n')
    (paper,) = read_corpus([path]).papers
    assert paper.year is None and paper.paper_id == "7" * 5000


@pytest.mark.parametrize("name", ["deep.jsonl", "deep.json"])
def test_deeply_nested_json_is_a_corpus_error_naming_the_file(tmp_path: Path, name: str):
    path = tmp_path / name
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(CorpusError, match=rf"{name.replace('.', '[.]')}:1: .*nested"):
        read_corpus([path])


def test_non_text_field_values_do_not_become_text(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    record = {"abstract": ABSTRACT_A, "title": {"en": "x"}, "venue": [1, 2], "url": None,
              "authors": [{"name": "Ada Lovelace"}, ["nested"], 7, None, "Alan Turing"]}
    path.write_text(json.dumps(record) + "\n")
    (paper,) = read_corpus([path]).papers
    assert paper.title_is_derived and paper.venue is None
    assert paper.authors == ("Ada Lovelace", "7", "Alan Turing")


def test_a_gzip_bomb_stops_at_the_size_limit_without_reading_it_whole(tmp_path: Path):
    import tracemalloc

    path = tmp_path / "bomb.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=9) as handle:
        for _ in range(64):
            handle.write(b" " * (1 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(CorpusError, match=r"bomb\.jsonl\.gz: .*more than 8388608 bytes.*"
                                              r"EXPLORER_MAX_FILE_BYTES"):
            read_corpus([path], max_file_bytes=8 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 24 << 20, f"peak {peak / 2**20:.0f} MiB for an 8 MiB limit"


def test_the_size_limit_comes_from_the_environment_by_default(tmp_path: Path, monkeypatch):
    path = _jsonl(tmp_path / "a.jsonl", ABSTRACT_A, ABSTRACT_B)
    monkeypatch.setenv("EXPLORER_MAX_FILE_BYTES", "100")
    with pytest.raises(CorpusError, match="more than 100 bytes"):
        read_corpus([path])
    monkeypatch.setenv("EXPLORER_MAX_FILE_BYTES", "1M")
    assert len(read_corpus([path]).papers) == 2


def test_utf8_errors_in_a_stream_still_name_the_line(tmp_path: Path):
    path = tmp_path / "bad.jsonl.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b'{"abstract": "fine text here"}\n' * 3 + b'{"abstract": "caf\xe9"}\n')
    with pytest.raises(CorpusError, match=r"bad\.jsonl\.gz:4: not valid UTF-8"):
        read_corpus([path])


def test_truncated_gzip_is_a_clear_corpus_error(tmp_path: Path):
    path = tmp_path / "cut.jsonl.gz"
    data = gzip.compress(b'{"abstract": "fine text here"}\n' * 1000)
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorpusError, match=r"cut\.jsonl\.gz: not a valid gzip file"):
        read_corpus([path])


def test_ids_and_aliases_share_one_namespace(tmp_path: Path):
    path = tmp_path / "a.jsonl"
    records = [{"id": "a", "abstract": ABSTRACT_A}, {"id": "b", "abstract": ABSTRACT_A},
               {"id": "b", "abstract": ABSTRACT_B},  # reuses the merged duplicate's id
               {"id": "c", "abstract": "Third paper on graph neural networks for molecules."},
               {"id": "c", "abstract": ABSTRACT_A}]  # a duplicate of a whose id names c
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = read_corpus([path])
    names = [n for p in report.papers for n in (p.paper_id, *p.aliases)]
    assert len(names) == len(set(names)), names
    by_id = {p.paper_id: p for p in report.papers}
    assert set(by_id) == {"a", "c"} and by_id["a"].aliases == ("b",)
    assert report.skipped["id already used by a different paper"] == 1
    assert sum(report.notes.values()) == 1  # c's alias on a was dropped, with a note
