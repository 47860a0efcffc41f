"""CSV and BibTeX export of results and of the marked set."""

from __future__ import annotations

import csv
import io
import re

import pytest

from explorer.corpus import Paper
from explorer.export import CSV_COLUMNS, to_bibtex, to_csv
from explorer.search import Hit

FULL = Paper(paper_id="p1", title="Graphs & {Braces}: 50% of #tags_here", title_is_derived=False,
             abstract="We bound $\\mathcal{O}(n^{2})$ cost, save $5 and 10%, and use a\\b path.",
             authors=("Ada Lovelace", "Turing, Alan", "Émile Borel"), year=2021,
             venue="Proc. A & B", url="https://example.org/p?a=1&b={2}",
             keywords=("graphs", "braces"), sources=("data/x.jsonl:3",))
BARE = Paper(paper_id="abc123", title="Lean Finder: a search engine", title_is_derived=True,
             abstract="Plain text, with a quote \" and a comma,\nand a newline.",
             sources=("seeds/a.txt:2", "seeds/b.txt:9"))


def test_csv_rows_round_trip_through_a_csv_reader():
    hits = [Hit(rank=1, score=0.81234567, percentile=99.5, paper=FULL),
            Hit(rank=2, score=0.5, percentile=None, paper=BARE)]
    rows = list(csv.DictReader(io.StringIO(to_csv(hits))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [row["paper_id"] for row in rows] == ["p1", "abc123"]
    assert rows[0]["score"] == "0.8123" and rows[0]["percentile"] == "99.5"
    assert rows[0]["authors"] == "Ada Lovelace; Turing, Alan; Émile Borel"
    assert rows[1]["abstract"] == BARE.abstract  # quotes, commas and newlines survive
    assert rows[1]["title_is_derived"] == "True" and rows[1]["percentile"] == ""
    assert rows[1]["sources"] == "seeds/a.txt:2; seeds/b.txt:9"


def test_csv_of_plain_papers_leaves_the_ranking_columns_empty():
    rows = list(csv.DictReader(io.StringIO(to_csv([FULL]))))
    assert (rows[0]["rank"], rows[0]["score"], rows[0]["year"]) == ("", "", "2021")
    assert to_csv([]).strip() == ",".join(CSV_COLUMNS)


def test_bibtex_entries_escape_text_and_keep_math():
    text = to_bibtex([FULL, BARE])
    assert text.count("@") == 2
    assert text.startswith("@article{lovelace2021graphs,")
    assert "@misc{lean," in text
    assert r"title = {Graphs \& \{Braces\}: 50\% of \#tags\_here}" in text
    assert "author = {Ada Lovelace and Turing, Alan and Émile Borel}" in text
    assert r"journal = {Proc. A \& B}" in text
    assert r"$\mathcal{O}(n^{2})$" in text  # math kept as written
    assert r"save \$5 and 10\%" in text and r"a\textbackslash{}b" in text
    assert "url = {https://example.org/p?a=1&b=%7B2%7D}" in text
    assert "note = {Paper Explorer id abc123; title derived from the abstract}" in text
    for entry in text.split("\n@"):
        body = re.sub(r"\\[{}]", "", entry)
        assert body.count("{") == body.count("}")


def test_bibtex_keys_stay_unique():
    keys = re.findall(r"@\w+\{([^,]+),", to_bibtex([FULL, FULL, FULL, BARE]))
    assert keys == ["lovelace2021graphs", "lovelace2021graphsa", "lovelace2021graphsb", "lean"]


def test_unbalanced_math_is_escaped_not_trusted():
    paper = Paper(paper_id="x", title="t", title_is_derived=False, abstract="cost $a}{b$ here")
    assert r"$a\}\{b$" not in to_bibtex([paper])
    assert r"\$a\}\{b\$" in to_bibtex([paper])


def test_anything_but_papers_and_hits_is_refused():
    with pytest.raises(ValueError, match="expected Hit or Paper"):
        to_csv(["p1"])
    with pytest.raises(ValueError, match="expected Hit or Paper"):
        to_bibtex([{"paper_id": "p1"}])
