"""Generated text through both exports: it parses back, decodes to the original, runs nothing."""

from __future__ import annotations

import csv
import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.corpus.papers import Paper
from explorer.ui.export import FORMULA_STARTS, to_csv
from tests.test_export import _tex_visible, assert_bibtex_is_inert_and_decodes

TEXT = st.text(max_size=60) | st.text(alphabet="\\{}$%&#_^~@=+-'\"\t\r\n ,;aZ", max_size=40)
PAPERS = st.builds(
    Paper, paper_id=TEXT, title=TEXT, title_is_derived=st.booleans(), abstract=TEXT,
    authors=st.lists(TEXT, max_size=3).map(tuple), year=st.none() | st.integers(1000, 2100),
    venue=st.none() | TEXT, url=st.none() | TEXT | TEXT.map(lambda t: "https://e.org/" + t),
    keywords=st.lists(TEXT, max_size=3).map(tuple), sources=st.lists(TEXT, max_size=2).map(tuple))
MANY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEXT_COLUMNS = ("paper_id", "title", "venue", "url", "abstract")


@MANY
@given(papers=st.lists(PAPERS, min_size=1, max_size=3))
def test_bibtex_of_any_text_parses_back_inert_and_equal(papers):
    assert_bibtex_is_inert_and_decodes(papers)


@MANY
@given(papers=st.lists(PAPERS, max_size=3))
def test_csv_of_any_text_parses_back_without_formulas(papers):
    rows = list(csv.DictReader(io.StringIO(to_csv(papers), newline="")))
    assert len(rows) == len(papers)
    for row, paper in zip(rows, papers):
        for column in (*TEXT_COLUMNS, "authors", "keywords", "sources"):
            cell = row[column]
            start = cell.lstrip(" ")[:1]
            assert start not in FORMULA_STARTS or cell.startswith("'"), (column, cell)
        for column in TEXT_COLUMNS:
            original = getattr(paper, column) or ""
            shown = row[column][1:] if row[column].startswith("'") else row[column]
            assert shown == original, column


def test_the_visible_text_helper_keeps_ordinary_characters():
    assert _tex_visible("a\x00b\u2028c é") == "a b c é"
