"""Shareable links: every view survives encode -> URL -> decode, and bad links never raise."""

from __future__ import annotations

import urllib.parse

import pytest

from explorer.query.engine import Filters
from explorer.ui.links import (
    DEFAULT_TOP_K,
    MAX_QUESTION_CHARS,
    MAX_TOP_K,
    RELATIVES,
    Location,
    decode,
    encode,
    link,
)

STATES = [
    Location(),
    Location(query="which models track group operations?"),
    Location(page="paper", paper_id="74c6b0a05165", query="state tracking"),
    Location(page="map", paper_id="abc"),
    Location(page="map"),
    Location(page="marked", like=("a,b", "c&d=e"), unlike=("f g",), steer="video models"),
    Location(query="learning", venues=("NeurIPS", "Proc. A, B & C"), sources=("x.jsonl",),
              year_min=2019, year_max=2023, top_k=50),
    Location(query="only a lower bound", year_min=2020),
    Location(query="only an upper bound", year_max=2001),
    Location(query="$\\alpha$-stable ∑ 状态空间 <script>&amp;"),
]


def through_url(params: dict[str, list[str]]) -> dict[str, list[str]]:
    """What a browser gives back after the parameters went through a real query string."""
    return urllib.parse.parse_qs(urllib.parse.urlencode(params, doseq=True), keep_blank_values=True)


@pytest.mark.parametrize("state", STATES)
def test_every_view_survives_a_round_trip_through_a_url(state):
    assert decode(through_url(encode(state))) == state


def test_the_default_view_has_an_empty_link_and_short_links_stay_short():
    assert encode(Location()) == {}
    assert encode(Location(query="q")) == {"q": ["q"]}
    assert encode(Location(page="paper", paper_id="p")) == {"paper": ["p"]}


def test_single_values_and_lists_are_both_read():
    state = decode({"q": "hello", "like": "a", "unlike": ["b", "c"], "view": "marked"})
    assert (state.page, state.query, state.like, state.unlike) == ("marked", "hello", ("a",), ("b", "c"))


@pytest.mark.parametrize("params, expected", [
    ({"k": "abc"}, Location()),
    ({"k": "0"}, Location(top_k=1)),
    ({"k": "100000"}, Location(top_k=MAX_TOP_K)),
    ({"year": "x-y"}, Location()),
    ({"year": "2023-2019"}, Location(year_min=2019, year_max=2023)),
    ({"view": "admin"}, Location()),
    ({"paper": "   "}, Location()),
    ({"view": "paper"}, Location()),  # a paper page without a paper is the start page
    ({"like": ["a", "a", " ", "b"]}, Location(like=("a", "b"))),
    ({"q": ["first", "  last  "]}, Location(query="last")),
    ({"k": "²"}, Location()),  # '²'.isdigit() is True, int('²') raises
    ({"k": "7" * 5000}, Location(top_k=MAX_TOP_K)),  # int() refuses 4,300+ digits
    ({"year": "²-"}, Location()),
    ({"year": "2030-"}, Location(year_min=2030)),  # the app fits it to the corpus's years
    ({"year": "0-0"}, Location()),
    ({"view": "marked", "like": "X", "unlike": "X"}, Location(page="marked")),
    ({"view": "marked", "like": ["X", "Y"], "unlike": ["X"]}, Location(page="marked", like=("Y",))),
    ({"view": "marked", "paper": "p"}, Location(page="marked")),
    ({"like": [str(n) for n in range(5000)]}, Location(like=tuple(map(str, range(200))))),
    ({"paper": "x" * 301}, Location()),
    ({"q": None, "k": 5, 3: ["a"], "like": [None, "a"]}, Location(like=("a",))),
])
def test_odd_links_fall_back_to_sensible_views(params, expected):
    assert decode(params) == expected


def test_an_older_link_to_the_twins_view_opens_the_relatives_page():
    """`?view=twins` (the page's name before issue 30) opens the relatives page, whose own link
    says `?view=relatives`."""
    assert decode({"view": "twins", "k": "20"}) == Location(page=RELATIVES, top_k=20)
    assert encode(Location(page=RELATIVES)) == {"view": ["relatives"]}


def test_very_long_text_in_a_link_is_cut():
    state = decode({"q": "x" * (MAX_QUESTION_CHARS * 2)})
    assert len(state.query) == MAX_QUESTION_CHARS
    assert len(encode(Location(query="y" * (MAX_QUESTION_CHARS + 7)))["q"][0]) == MAX_QUESTION_CHARS


def test_misuse_raises_value_error():
    with pytest.raises(ValueError, match="page must be one of"):
        Location(page="settings")
    with pytest.raises(ValueError, match="needs a paper_id"):
        Location(page="paper")


def test_marking_moves_a_paper_between_sets_and_keeps_order():
    state = Location().mark("a", True).mark("b", True).mark("c", False)
    assert (state.like, state.unlike) == (("a", "b"), ("c",))
    state = state.mark("a", False)
    assert (state.like, state.unlike) == (("b",), ("c", "a"))
    state = state.mark("c", None).mark("zzz", None)
    assert (state.like, state.unlike) == (("b",), ("a",))


def test_filters_come_from_the_view():
    state = Location(venues=("V",), sources=("s.txt",), year_min=2000, year_max=2010)
    assert state.filters() == Filters(frozenset({"V"}), frozenset({"s.txt"}), 2000, 2010)
    assert not Location().filters().active()
    assert Location().top_k == DEFAULT_TOP_K


def test_a_full_link_opens_the_same_view():
    state = Location(page="paper", paper_id="p 1", like=("a", "b"), query="what & why?")
    url = link("http://127.0.0.1:8501/", state)
    assert url.startswith("http://127.0.0.1:8501/?")
    assert decode(urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)) == state
    assert link("http://host/", Location()) == "http://host/"
