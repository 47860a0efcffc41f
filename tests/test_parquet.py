"""Parquet files with the same columns as the other formats (the corpus's own, an OpenAlex
table with structs and a map, Semantic Scholar's), read in row batches with pyarrow."""

from __future__ import annotations

import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from explorer.corpus import parquet
from explorer.corpus.papers import read_corpus
from explorer.errors import CorpusError
from tests.test_corpus import ABSTRACT_A, ABSTRACT_B
from tests.test_openalex import TEXT, inverted


def test_a_table_of_the_corpus_columns_keeps_every_column(tmp_path: Path):
    table = pa.table({
        "doc_id": ["iclr2018:a", "iclr2018:b"], "title": ["Sparse attention", "Withdrawn"],
        "abstract": [ABSTRACT_A, ABSTRACT_B], "venue": ["iclr", "iclr"], "year": [2018, 2018],
        "status": ["Poster", "Withdraw"], "track": ["main", "main"],
        "authors": [["Ada Lovelace"], ["Alan Turing", "Grace Hopper"]],
        "published": [datetime.date(2018, 5, 1), None], "score": [7.5, None]})
    path = tmp_path / "papers.parquet"
    pq.write_table(table, path)
    first, second = read_corpus([path]).papers
    assert (first.paper_id, first.venue, first.year, first.status) == (
        "iclr2018:a", "ICLR", 2018, "Poster")
    assert first.authors == ("Ada Lovelace",) and first.field("track") == "main"
    assert first.field("published") == "2018-05-01" and first.field("score") == 7.5
    assert first.sources == (f"{path}#1",)
    assert second.status == "Withdrawn" and second.title_is_derived  # "Withdrawn" is no title


def test_openalex_rows_with_structs_and_a_map(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(parquet, "BATCH", 2)  # rows come in several batches
    index_type = pa.map_(pa.string(), pa.list_(pa.int64()))
    rows = 5
    table = pa.table({
        "id": [f"https://openalex.org/W{n}" for n in range(rows)],
        "title": [f"Work {n}" for n in range(rows)],
        "publication_year": [2020 + n for n in range(rows)],
        "abstract_inverted_index": pa.array([list(inverted(TEXT).items())] * rows,
                                            type=index_type),
        "primary_location": [{"source": {"display_name": "PeerJ", "type": "journal"}}] * rows,
        "authorships": [[{"author": {"display_name": "Heather Piwowar"}}]] * rows,
        "referenced_works": [["https://openalex.org/W1"]] * rows})
    path = tmp_path / "works.parquet"
    pq.write_table(table, path, row_group_size=3)
    papers = read_corpus([path]).papers
    assert [p.paper_id for p in papers] == [f"W{n}" for n in range(rows)]
    assert all(p.abstract == TEXT and p.venue == "PeerJ" and p.references == ("W1",)
               for p in papers)
    assert papers[-1].sources == (f"{path}#{rows}",) and papers[-1].year == 2024


def test_a_file_that_is_not_parquet_or_too_big_is_refused(tmp_path: Path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1 this is not a parquet file")
    with pytest.raises(CorpusError, match=r"broken\.parquet: not a valid Parquet file"):
        read_corpus([path])
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"abstract": [ABSTRACT_A]}), good)
    with pytest.raises(CorpusError, match=r"good\.parquet: more than 100 bytes"):
        read_corpus([good], max_file_bytes=100)
