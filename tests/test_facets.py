"""Facets (corpus/facets.py, ranking/facets.py): which fields are categories, the facet filter's
form and its refusals, on small hand-written corpora; the filter inside real rankings of the
venue corpus (ICLR + NeurIPS 2017-18, with statuses), through the API, the CLI and threads."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from explorer import Explorer, Filters
from explorer.cli.main import main
from explorer.corpus.facets import MAX_VALUES, facet_counts
from explorer.corpus.papers import Paper
from explorer.errors import UnknownFacetError
from explorer.ranking.facets import MAX_FACETS, FacetColumns, facet_spec
from tests.venue_fixtures import venue_index  # noqa: F401


def paper(number: int, status: str | None = None, **fields) -> Paper:
    return Paper(paper_id=f"p{number}", title=f"Paper number {number}", title_is_derived=False,
                 abstract="Some text.", venue="ICLR" if number % 2 else "NeurIPS",
                 year=2017 + number % 2, status=status, fields=tuple(fields.items()))


def test_categorical_fields_are_facets_and_long_or_many_valued_ones_are_not():
    papers = [paper(i, "Rejected" if i % 3 else "Poster", track="main" if i % 4 else "datasets",
                    tldr=f"A long summary {i}", keywords=(f"word{i}", "shared"),
                    score=i / 7, accepted=bool(i % 2))
              for i in range(MAX_VALUES + 5)]
    counts = facet_counts(papers)
    assert list(counts)[:3] == ["status", "venue", "year"]
    assert dict(map(tuple, counts["status"])) == {
        "Rejected": sum(1 for i in range(MAX_VALUES + 5) if i % 3),
        "Poster": sum(1 for i in range(MAX_VALUES + 5) if not i % 3)}
    assert {v for v, _ in counts["track"]} == {"main", "datasets"}
    assert {v for v, _ in counts["accepted"]} == {"true", "false"}
    for name in ("tldr", "keywords", "score"):  # a TL;DR, MAX_VALUES+ keywords, fractions
        assert name not in counts


def test_a_field_with_one_value_per_paper_is_no_facet_on_a_small_corpus_either():
    """OpenReview's `cdate` (a creation time per note) on five papers: no category; a field
    shared by two of them is one; four papers are too few to tell."""
    five = [paper(i, cdate=1_500_000_000 + i, track="main" if i < 2 else f"t{i}")
            for i in range(5)]
    assert "cdate" not in facet_counts(five)
    assert {v for v, _ in facet_counts(five)["track"]} == {"main", "t2", "t3", "t4"}
    assert "cdate" in facet_counts(five[:4])


def test_a_facet_filter_is_kept_in_one_form_and_bounded():
    assert facet_spec({"track": ["main"], "status": ["Rejected", "Withdrawn"]}) == \
        facet_spec([("status", ["Withdrawn"]), ("track", "main"), ("status", ["Rejected"])]) == \
        (("status", ("Rejected", "Withdrawn")), ("track", ("main",)))
    assert Filters(facets={"status": ["Rejected"]}) == Filters(facets=[("status", "Rejected")])
    assert Filters(facets={"status": ["Rejected"]}).active()
    with pytest.raises(ValueError, match="at most"):
        facet_spec({f"f{i}": ["x"] for i in range(MAX_FACETS + 1)})
    with pytest.raises(ValueError, match="as text"):
        facet_spec({"year": [2018]})


def test_unknown_fields_and_values_are_refused_naming_the_known_ones():
    columns = FacetColumns([paper(i, "Rejected" if i % 2 else "Poster", track="main")
                            for i in range(6)])
    with pytest.raises(UnknownFacetError, match="no field 'colour'.*status, venue, year, track"):
        columns.resolve("colour", ["red"])
    with pytest.raises(UnknownFacetError, match="no paper has status 'Oral'.*Poster, Rejected"):
        columns.resolve("status", ["Oral"])
    # case and blanks aside, and a status as venues.py reads it ("reject" is Rejected)
    assert columns.resolve("STATUS", ["reject", " poster "]) == ("status", {"Rejected", "Poster"})
    assert columns.mask("status", ["Rejected"]).tolist() == [False, True] * 3


def test_a_stored_count_is_used_and_a_malformed_one_ignored():
    papers = [paper(i, "Poster") for i in range(3)]
    assert FacetColumns(papers, {"status": [["Oral", 9]]}).counts == {"status": [["Oral", 9]]}
    assert FacetColumns(papers, {"status": "Oral"}).counts["status"] == [["Poster", 3]]


# -- the venue corpus: real rankings ---------------------------------------------------------------
@pytest.fixture(scope="module")
def venues(venue_index: Path) -> Explorer:  # noqa: F811
    return Explorer.open(venue_index)


def test_the_venue_corpus_has_its_statuses_tracks_venues_and_years_as_facets(venues: Explorer):
    counts = {name: dict(map(tuple, values)) for name, values in venues.facet_counts().items()}
    assert counts["status"]["Rejected"] >= 700 and counts["status"]["Withdrawn"] >= 50
    assert set(counts["venue"]) == {"ICLR", "NeurIPS"} and set(counts["year"]) == {"2017", "2018"}
    assert counts["track"] == {"main": len(venues.papers)}
    assert "tldr" not in counts and "keywords" not in counts


QUESTION = "few-shot learning with metric embeddings"


def test_a_status_filter_fills_the_list_from_inside_the_ranking(venues: Explorer):
    plain = venues.search(QUESTION, 10)
    rejected = venues.search(QUESTION, 10, Filters(facets={"status": ["Rejected"]}))
    assert sum(hit.paper.status == "Rejected" for hit in plain) < 10  # the filter matters
    assert len(rejected) == 10 and {hit.paper.status for hit in rejected} == {"Rejected"}
    either = venues.search(QUESTION, 20, Filters(facets={"status": ["Rejected", "Withdrawn"]}))
    assert {hit.paper.status for hit in either} <= {"Rejected", "Withdrawn"}
    both = venues.search(QUESTION, 10, Filters(facets={"status": ["rejected"], "year": ["2018"]}))
    assert {(hit.paper.status, hit.paper.year) for hit in both} == {("Rejected", 2018)}
    similar = venues.similar(rejected[0].paper_id, 10, Filters(facets={"venue": ["NeurIPS"]}))
    assert len(similar) == 10 and {hit.paper.venue for hit in similar} == {"NeurIPS"}


def test_filters_from_many_threads_at_once_agree(venues: Explorer):
    fresh = Explorer(venues.artifacts)  # no facet column made yet
    wanted = [{"status": ["Rejected"]}, {"status": ["Poster"], "venue": ["ICLR"]},
              {"status": ["Withdrawn"]}, {"track": ["main"], "year": ["2017"]}] * 4
    ask = [(QUESTION, Filters(facets=facets)) for facets in wanted]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda a: [h.paper_id for h in fresh.search(a[0], 10, a[1])], ask))
    alone = [[h.paper_id for h in venues.search(q, 10, f)] for q, f in ask]
    assert together == alone


def test_the_cli_filters_and_refuses_bad_filters_in_one_line(capsys, venue_index: Path):  # noqa: F811
    index = ["--index", str(venue_index), "--json"]
    assert main(["search", QUESTION, *index, "--filter", "status=Reject",
                 "--filter", "status=withdrawn", "--filter", "year=2018"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 10 and {(h["status"], h["year"]) for h in hits} <= {
        ("Rejected", 2018), ("Withdrawn", 2018)}
    assert main(["search", QUESTION, *index, "--filter", "colour=red"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no field 'colour'" in err and "status, venue, year" in err
    assert main(["similar", "iclr2018:B11bwYgfM", *index, "--filter", "status=Famous"]) == 1
    assert "Rejected" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["search", QUESTION, *index, "--filter", "status"])
    assert usage.value.code == 2 and "FIELD=VALUE" in capsys.readouterr().err
    assert main(["facets", "--index", str(venue_index)]) == 0
    assert "status: Poster (" in capsys.readouterr().out


def test_recommend_and_missed_take_the_filter(capsys, venue_index: Path, tmp_path: Path):  # noqa: F811
    index = ["--index", str(venue_index), "--json"]
    assert main(["recommend", "--like", "iclr2018:B11bwYgfM", *index,
                 "--filter", "venue=NeurIPS"]) == 0
    assert {h["venue"] for h in json.loads(capsys.readouterr().out)} == {"NeurIPS"}
    draft = tmp_path / "draft.txt"
    draft.write_text("We learn a metric space for few-shot classification.\n\n"
                     "Prototypes of each class are the mean of its embedded examples.\n")
    assert main(["missed", "--draft", str(draft), *index, "--filter", "status=Withdrawn"]) == 0
    found = json.loads(capsys.readouterr().out)["papers"]
    assert found and {p["status"] for p in found} == {"Withdrawn"}


# -- the app's parts, without a browser ---------------------------------------------------------
def test_a_link_carries_facet_filters_and_a_hostile_one_is_read_safely():
    from explorer.ui.links import Location, decode, encode

    location = decode({"filter": ["status:Rejected", "status:Withdrawn", "track:main", "bad",
                                  ":x", "y:", "a" * 400 + ":b"], "q": "gans"})
    assert location.facets == (("status", ("Rejected", "Withdrawn")), ("track", ("main",)))
    assert location.filters().facets == location.facets
    assert decode(encode(location)) == location
    assert decode({"filter": [f"f{i}:v" for i in range(MAX_FACETS + 1)]}).facets == ()
    assert Location().facets == () and "filter" not in encode(Location())


def test_a_link_keeps_only_the_facets_the_corpus_has():
    from explorer.features.facets.ui import known_facets, sidebar_facets

    counts = {"status": [["Poster", 5], ["Rejected", 2]], "venue": [["ICLR", 7]],
              "year": [["2017", 3], ["2018", 4]], "track": [["main", 7]]}
    spec = (("colour", ("red",)), ("status", ("Famous", "Rejected")), ("track", ("main",)))
    assert known_facets(spec, counts) == (("status", ("Rejected",)), ("track", ("main",)))
    assert sidebar_facets(counts) == [("status", ["Poster", "Rejected"])]  # 2+ values, not venue/year


def test_badges_and_fields_never_carry_the_corpus_s_markup():
    from explorer.features.facets.ui import status_badge
    from explorer.features.show.ui import field_lines

    assert status_badge("Rejected") == " :red-badge[Rejected]"
    assert status_badge("Withdrawn") == " :orange-badge[Withdrawn]"
    assert status_badge("x] [link](http://evil)") == "" and status_badge(None) == ""
    lines = field_lines({"status": "Rejected", "fields": {"tldr": "[click](javascript:x) *b*"}})
    assert lines[0] == "- **Status**: Rejected"
    assert "[click]" not in lines[1] and "\\[click\\]" in lines[1] and "\\*b\\*" in lines[1]
