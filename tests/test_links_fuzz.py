"""Generated links: `decode` of any query parameters never raises and yields a valid view."""

from __future__ import annotations

import urllib.parse

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.ui.links import (
    MAX_MARKED,
    MAX_QUESTION_CHARS,
    MAX_TOP_K,
    MAX_YEAR,
    PAGE_NAMES,
    decode,
    encode,
)

KEYS = ["q", "paper", "view", "like", "unlike", "steer", "venue", "source", "year", "k"]
VALUE = st.one_of(
    st.text(max_size=30),
    st.text(alphabet="0123456789-²³¹٣۵߂ ", max_size=12),
    st.sampled_from(["", "-", "map", "marked", "paper", "ask", "1000-2000", "2030-", "²-",
                     "0-0", "9" * 5000, "-5", "2019-2023", " 7 ", "0", "100", "101"]),
)
PARAMS = st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)),
                         st.one_of(VALUE, st.lists(VALUE, max_size=5)), max_size=8)


def assert_valid(state) -> None:
    assert state.page in PAGE_NAMES
    assert state.page != "paper" or state.paper_id
    assert isinstance(state.top_k, int) and 1 <= state.top_k <= MAX_TOP_K
    for year in (state.year_min, state.year_max):
        assert year is None or (isinstance(year, int) and 1 <= year <= MAX_YEAR)
    if state.year_min is not None and state.year_max is not None:
        assert state.year_min <= state.year_max
    assert not set(state.like) & set(state.unlike)
    assert len(state.like) <= MAX_MARKED and len(state.unlike) <= MAX_MARKED
    assert len(state.query) <= MAX_QUESTION_CHARS and len(state.steer) <= MAX_QUESTION_CHARS


@settings(max_examples=1500, deadline=None)
@given(PARAMS)
def test_any_parameters_decode_to_a_valid_view_that_survives_a_round_trip(params):
    state = decode(params)
    assert_valid(state)
    query = urllib.parse.urlencode(encode(state), doseq=True)
    assert decode(urllib.parse.parse_qs(query, keep_blank_values=True)) == state


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.none(), st.integers(), st.lists(st.integers()),
                 st.dictionaries(st.sampled_from(KEYS),
                                 st.one_of(st.none(), st.integers(), st.lists(st.none())))))
def test_even_parameters_of_the_wrong_types_decode(params):
    assert_valid(decode(params))
