"""Generated records through every reader: papers or a CorpusError, never another exception."""

from __future__ import annotations

import csv
import gzip
import io
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.corpus.papers import CorpusReport, Paper, read_corpus
from explorer.errors import CorpusError

FIELDS = ["abstract", "title", "id", "paper_id", "doc_id", "_id", "summary", "text", "authors",
          "author", "year", "venue", "url", "keywords"]
ODD = ["2024", "May 1999", "0999", "\uff12\uff10\uff12\uff14", "9" * 5000, "We study attention."]
SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
           | st.text(max_size=40) | st.sampled_from(ODD))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=6)
RECORDS = st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=6)
JSON_ITEMS = st.lists(RECORDS | VALUES, max_size=4)
FAST = settings(max_examples=1000, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_FOLDER = Path(tempfile.mkdtemp(prefix="corpus-fuzz-"))


def _read(name: str, data: bytes, gzipped: bool = False) -> CorpusReport | None:
    path = _FOLDER / (name + (".gz" if gzipped else ""))
    path.write_bytes(gzip.compress(data, compresslevel=1) if gzipped else data)
    try:
        report = read_corpus([path], max_file_bytes=1 << 20)
    except CorpusError as exc:
        assert str(exc).startswith(str(path)), exc  # every error names the file
        return None
    _check(report)
    return report


def _check(report: CorpusReport) -> None:
    names = [n for p in report.papers for n in (p.paper_id, *p.aliases)]
    assert len(names) == len(set(names))
    for paper in report.papers:
        assert isinstance(paper, Paper) and paper.paper_id and paper.sources
        assert paper.year is None or 1000 <= paper.year <= 2100
        for text in (paper.paper_id, paper.title, paper.abstract, paper.venue or "",
                     paper.url or "", *paper.authors, *paper.keywords):
            assert isinstance(text, str)
    assert report.records >= len(report.papers)


@settings(FAST, max_examples=400)
@given(records=st.lists(RECORDS | VALUES, max_size=4), gzipped=st.booleans())
def test_jsonl_records(records, gzipped):
    _read("a.jsonl", "".join(json.dumps(r) + "\n" for r in records).encode(), gzipped)


@settings(FAST, max_examples=400)
@given(items=JSON_ITEMS | VALUES, gzipped=st.booleans())
def test_json_arrays_and_other_values(items, gzipped):
    _read("a.json", json.dumps(items).encode(), gzipped)


@FAST
@given(header=st.lists(st.sampled_from(FIELDS) | st.text(max_size=8), min_size=1, max_size=5),
       rows=st.lists(st.lists(st.text(max_size=30), max_size=6), max_size=5),
       delimiter=st.sampled_from([",", "\t"]), gzipped=st.booleans())
def test_csv_and_tsv_tables(header, rows, delimiter, gzipped):
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(header)
    writer.writerows(rows)
    _read("a.csv" if delimiter == "," else "a.tsv", buffer.getvalue().encode(), gzipped)


@FAST
@given(text=st.text(max_size=400), gzipped=st.booleans())
def test_seed_files(text, gzipped):
    _read("a.txt", text.encode("utf-8", "surrogatepass"), gzipped)


@FAST
@given(data=st.binary(max_size=300),
       name=st.sampled_from(["a.txt", "a.jsonl", "a.json", "a.csv", "a.tsv"]),
       gzipped=st.booleans())
def test_arbitrary_bytes_in_every_format(data, name, gzipped):
    _read(name, data, gzipped)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(min_size=1, max_size=200))
def test_damaged_gzip(data):
    good = gzip.compress(b'{"abstract": "We study sparse attention."}\n' * 5)
    _read("a.jsonl", good[: len(good) // 2] + data)
    path = _FOLDER / "raw.jsonl.gz"
    path.write_bytes(data)
    try:
        _check(read_corpus([path]))
    except CorpusError:
        pass


@settings(max_examples=200, deadline=None)
@given(depth=st.integers(min_value=1, max_value=5000), opener=st.sampled_from(["[", '{"a":']))
def test_nesting_at_any_depth(depth, opener):
    closer = "]" if opener == "[" else "}"
    line = '{"abstract": "We study sparse attention.", "x": ' + opener * depth + "1" + \
        closer * depth + "}"
    _read("a.jsonl", (line + "\n").encode())


SMALL = st.fixed_dictionaries({"id": st.sampled_from(["a", "b", "c"]),
                               "abstract": st.sampled_from(["We study sparse attention.",
                                                            "Robots fold laundry from video.",
                                                            "Proteins fold with diffusion."])},
                              optional={"title": st.sampled_from(["T", "U"])})


@settings(FAST, max_examples=400)
@given(records=st.lists(SMALL, max_size=8))
def test_reused_ids_and_duplicates_never_make_a_name_ambiguous(records):
    _read("a.jsonl", "".join(json.dumps(r) + "\n" for r in records).encode())


@FAST
@given(digits=st.integers(min_value=1, max_value=6000), field=st.sampled_from(FIELDS),
       sign=st.sampled_from(["", "-"]), fraction=st.sampled_from(["", ".5", "e5", "e999"]))
def test_numbers_of_any_length_in_any_field(digits, field, sign, fraction):
    number = sign + "9" * digits + fraction
    line = f'{{"abstract": "We study sparse attention.", "{field}": {number}}}'
    report = _read("a.jsonl", (line + "\n").encode())
    assert report is not None or field in ("abstract", "title", "summary", "text")
