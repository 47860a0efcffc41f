"""Years of a ranking (issue 14, Time): the library, the CLI's --by-year, the app's chart and
its click, on a real index of a paperlists-ml sample (real model, real FAISS) and the seeds."""

from __future__ import annotations

import json
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from explorer.cli.main import main
from explorer.features.topics.table import topic_table
from explorer.features.years import ui as ui_years
from explorer.features.years.spread import (
    LIKE_CORPUS,
    MORE_RECENT,
    OLDER,
    SPREAD_DEPTH,
    YearSpread,
    corpus_spread,
    growth,
    ranked_with_spread,
    shares_in_words,
    spread,
    year_of,
    year_shares,
)
from explorer.query.engine import Explorer, Filters
from explorer.ui.links import Location
from explorer.ui.page import NO_MATCH
from explorer.ui.public import public_facets
from explorer.ui.results import pool, ranked
from tests.years_fixtures import ODD_YEARS, years_index  # noqa: F401 (a fixture)

QUESTIONS = ["diffusion models for image generation", "robot grasping with tactile sensors",
             "graph neural networks", "convex optimization with stochastic gradients",
             "machine translation for low-resource languages"]


@pytest.fixture(scope="module")
def sample(years_index: Path) -> Explorer:  # noqa: F811
    return Explorer.open(years_index)


def brute_counts(hits) -> tuple[dict[int, int], int]:
    counts = Counter(hit.paper.year for hit in hits)
    undated = counts.pop(None, 0)
    return dict(counts), undated


# -- the library ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_counts_are_those_of_the_ranked_top_200(sample, mode):
    for question in QUESTIONS:
        shown, years = ranked_with_spread(
            lambda top_k, q=question: sample.search(q, top_k, mode=mode), 10)
        deep = sample.search(question, SPREAD_DEPTH, mode=mode)
        assert [h.paper_id for h in shown] == [h.paper_id for h in sample.search(question, 10,
                                                                                  mode=mode)]
        assert [h.paper_id for h in shown] == [h.paper_id for h in deep[:10]]
        counts, undated = brute_counts(deep)
        assert dict(years.counts) == counts and years.undated == undated
        assert years.total == len(deep) and list(years.years) == sorted(counts)


def test_dense_counts_equal_a_numpy_ranking(sample):
    vectors = np.asarray(sample.vectors)
    for question in QUESTIONS:
        order = np.argsort(-(vectors @ sample.embed_query(question)), kind="stable")[:SPREAD_DEPTH]
        counts = Counter(sample.papers[row].year for row in order)
        undated = counts.pop(None, 0)
        _, years = ranked_with_spread(lambda top_k, q=question: sample.search(q, top_k,
                                                                             mode="dense"), 5)
        assert dict(years.counts) == dict(counts) and years.undated == undated
        assert years.basis == f"top {SPREAD_DEPTH} papers of this ranking"


def test_neighbourhood_and_recommend_spreads(sample):
    paper_id = sample.search(QUESTIONS[0], 1)[0].paper_id
    for rank in (lambda top_k: sample.similar(paper_id, top_k),
                 lambda top_k: sample.recommend([paper_id], top_k=top_k)):
        shown, years = ranked_with_spread(rank, 10)
        deep = rank(SPREAD_DEPTH)
        assert [h.paper_id for h in shown] == [h.paper_id for h in rank(10)]
        assert (dict(years.counts), years.undated) == brute_counts(deep)
        assert paper_id not in {h.paper_id for h in deep}


def test_the_odd_years_are_counted_as_without_a_year(sample):
    odd = {paper_id for paper_id, _ in ODD_YEARS}
    assert all(sample.paper(paper_id).year is None for paper_id in odd)
    whole = corpus_spread(sample)
    assert whole.total == len(sample.papers) and whole.undated == len(odd)
    hits = sample.search("diffusion models for image generation with a learned noise schedule",
                         SPREAD_DEPTH)
    found = spread(hits)
    assert found.undated == sum(h.paper_id in odd for h in hits) == len(odd)


def test_hostile_years_are_undated_and_whole_numbers_count():
    values = [None, "2019", 2019.0, True, False, -5, 12, 99999, 3000, object(), [2019],
              np.int64(2020), 2020, 1000, 2100]
    items = [SimpleNamespace(year=value) for value in values] + [SimpleNamespace()]
    years = spread(items, "odd things")
    assert years.counts == ((1000, 1), (2020, 2), (2100, 1))
    assert years.undated == len(items) - 4 and years.total == len(items)
    assert year_of(SimpleNamespace(paper=SimpleNamespace(year=2001))) == 2001  # a Hit's shape
    assert spread([]) == YearSpread() and growth(YearSpread()) is None


def test_growth_against_the_corpus():
    corpus = YearSpread(((2010, 50), (2015, 50), (2021, 50), (2024, 50)))  # half recent
    assert growth(corpus, corpus).verdict == LIKE_CORPUS
    recent = growth(YearSpread(((2010, 5), (2024, 45))), corpus)
    assert (recent.first, recent.last, recent.recent, recent.dated) == (2020, 2024, 45, 50)
    assert recent.verdict == MORE_RECENT and recent.reference_share == 0.5
    assert "45 of 50 dated papers (90%) are from 2020–2024, against 50%" in recent.sentence()
    assert growth(YearSpread(((2010, 40), (2024, 10))), corpus).verdict == OLDER
    assert growth(YearSpread(((2024, 3),)), corpus).verdict is None  # too few to say
    assert growth(YearSpread(((2024, 3),))) is None  # one year: nothing before the window
    own = growth(YearSpread(((2001, 3), (2024, 3))))
    assert own.verdict is None and own.reference_share is None and own.recent == 3
    with pytest.raises(ValueError, match="at least 1"):
        growth(corpus, corpus, recent=0)


def test_the_axis_labels_whole_years_once_each():
    """Plotly's own ticks on two years fall at 2017, 2017.5, 2018, 2018.5: "2017 2017 2018 2018"
    with the old tickformat "d". Now the ticks are the years, every n-th beyond MAX_TICKS."""
    for years in ([2017, 2018], [2017, 2018, 2019], list(range(1987, 2026))):
        figure = ui_years.chart(YearSpread(tuple((y, 3) for y in years)))
        axis = figure.layout.xaxis
        assert axis.tickvals is not None and all(float(v).is_integer() for v in axis.tickvals)
        assert list(axis.ticktext) == [str(int(v)) for v in axis.tickvals]
        assert len(set(axis.ticktext)) == len(axis.ticktext) <= ui_years.MAX_TICKS
        assert axis.tickvals[0] == years[0] and axis.tickvals[-1] <= years[-1]


def test_each_year_is_a_share_against_the_corpus_s_share():
    """ICLR 2018 had twice ICLR 2017's papers: a topic with twice as many 2018 papers follows
    the corpus, no growth; one with three times as many leans to 2018."""
    corpus = YearSpread(((2016, 100), (2017, 100), (2018, 200)))
    same = YearSpread(((2016, 10), (2017, 10), (2018, 20)))
    assert [round(s.share / s.reference, 6) for s in year_shares(same, corpus)] == [1.0] * 3
    leaning = year_shares(YearSpread(((2016, 5), (2017, 5), (2018, 30))), corpus)
    assert leaning[2].share == 0.75 and leaning[2].reference == 0.5
    figure = ui_years.chart(same, reference=corpus)
    assert [round(v, 6) for v in figure.data[0].y] == [25.0, 25.0, 50.0]
    assert [round(v, 6) for v in figure.data[1].y] == [25.0, 25.0, 50.0]  # the corpus's marks
    assert list(figure.data[0].customdata) == [2016, 2017, 2018]  # a click still names a year
    assert shares_in_words(YearSpread(((2017, 10), (2018, 20))), YearSpread(
        ((2017, 100), (2018, 200)))) == ("2017: 10 papers (33% of these; the corpus 33%) · "
                                         "2018: 20 papers (67% of these; the corpus 67%).")
    assert shares_in_words(YearSpread(), corpus) == "None of these papers has a year."


def test_two_years_or_fewer_are_said_in_words_not_drawn():
    two = ui_years.YearView(YearSpread(((2017, 4), (2018, 6)), 1, "top 11 papers"), None,
                            reference=YearSpread(((2017, 50), (2018, 50))))
    assert not two.charted
    said = ui_years.caption(two)
    assert "2017: 4 papers (40% of these; the corpus 50%)" in said
    assert ui_years.HINT not in said and ui_years.BARS not in said
    three = replace(two, years=YearSpread(((2016, 1), (2017, 4), (2018, 6))))
    assert three.charted and ui_years.BARS in ui_years.caption(three)


def test_many_threads_get_the_same_spreads(sample):
    location = Location(top_k=10)

    def answer(question: str):
        shown, years = ranked_with_spread(lambda top_k: sample.search(question, top_k), 10)
        view = ui_years.year_view(sample, replace(location, query=question), "search", question)
        return [h.paper_id for h in shown], years, view.years, corpus_spread(sample)

    expected = {q: answer(q) for q in QUESTIONS}
    with ThreadPoolExecutor(max_workers=8) as pool_:
        answers = list(pool_.map(answer, QUESTIONS * 6))
    assert answers == [expected[q] for q in QUESTIONS * 6]


# -- the app's logic --------------------------------------------------------------------------
def test_a_click_narrows_to_that_year_and_a_second_click_restores(sample):
    facets, question = public_facets(sample), QUESTIONS[0]
    location = Location(query=question, top_k=20)
    view = ui_years.year_view(sample, location, "search", question)
    before = [h.paper_id for h in ranked(sample, location, "search", question)]
    corpus = corpus_spread(sample)
    for year in (view.years.years[0], max(view.years.counts, key=lambda c: c[1])[0]):
        value = ui_years.picked([{"x": year, "customdata": year}], view, facets)
        assert value == (year, year)
        narrowed = ui_years.located(location, facets, value)
        hits = ranked(sample, narrowed, "search", question)
        assert {h.paper.year for h in hits} == {year}
        assert len(hits) == min(20, corpus.count(year))
        api = sample.search(question, 20, Filters(year_min=year, year_max=year))
        assert [h.paper_id for h in hits] == [h.paper_id for h in api]
        # the chart keeps every year, the filter's in colour; a second click shows them all
        again = ui_years.year_view(sample, narrowed, "search", question)
        assert again.years == view.years and again.filtered
        assert ui_years.shown_years(again) in ui_years.caption(again)
        assert str(year) in ui_years.shown_years(again)
        colours = ui_years.chart(again.years, again.year_min, again.year_max).data[0].marker.color
        assert [c == ui_years.SHOWN for c in colours] == [y == year for y in view.years.years]
        cleared = ui_years.located(narrowed, facets, ui_years.picked([{"x": year}], again, facets))
        assert (cleared.year_min, cleared.year_max) == (None, None)
        assert [h.paper_id for h in ranked(sample, cleared, "search", question)] == before


def test_forged_clicks_do_nothing(sample):
    question = QUESTIONS[1]
    view = ui_years.year_view(sample, Location(query=question), "search", question)
    facets = public_facets(sample)
    missing = next(y for y in range(1990, 2030) if not view.years.count(y))
    for points in ([], [{}], [{"x": "2019"}], [{"x": missing}], [{"customdata": [True]}],
                   [{"x": 10**9}], [{"customdata": None, "x": None}]):
        assert ui_years.picked(points, view, facets) is None
    year = view.years.years[-1]
    assert ui_years.picked([{"customdata": [year]}], view, facets) == (year, year)


def test_the_pool_is_one_ranking_for_results_and_chart(sample):
    question = QUESTIONS[2]
    location = Location(query=question, top_k=10)
    deep = pool(sample, location, "search", question)
    assert len(deep) == SPREAD_DEPTH
    assert ranked(sample, location, "search", question) == deep[:10]
    view = ui_years.year_view(sample, location, "search", question)
    assert (dict(view.years.counts), view.years.undated) == brute_counts(deep)


def test_no_chart_on_the_seeds(seeds_explorer):
    question = "which sequence models can track non-abelian groups?"
    assert ui_years.year_view(seeds_explorer, Location(query=question), "search", question) is None
    paper_id = seeds_explorer.papers[0].paper_id
    assert ui_years.year_view(seeds_explorer, Location(page="paper", paper_id=paper_id),
                              "similar", paper_id) is None
    assert corpus_spread(seeds_explorer).undated == len(seeds_explorer.papers)
    location = Location(query=question, top_k=10)  # no years: no deeper ranking to pay for
    assert len(pool(seeds_explorer, location, "search", question)) == 10


def test_the_app_draws_the_chart_and_hides_it_without_years(years_index, seeds_index,  # noqa: F811
                                                            monkeypatch):
    from tests.test_app import ask, run_app

    app = ask(run_app(years_index, monkeypatch), QUESTIONS[0])
    assert len(app.get("plotly_chart")) == 1
    assert any(c.value.startswith("Years of the top 200 papers") for c in app.caption)
    paper_id = Explorer.open(years_index).search(QUESTIONS[0], 1)[0].paper_id
    for params in ({"paper": paper_id}, {"view": "marked", "like": paper_id}):
        other = run_app(years_index, monkeypatch, params)
        assert len(other.get("plotly_chart")) == 1, params  # the neighbourhood's, the marked's
    # a venue with no paper in a year it lacks: no card, but the chart (year filter lifted)
    # shows the years that venue has
    explorer = Explorer.open(years_index)
    years_of: dict[str, set[int]] = {}
    for paper in explorer.papers:
        if paper.year is not None:
            years_of.setdefault(paper.venue, set()).add(paper.year)
    venue, years = max(years_of.items(), key=lambda item: len(item[1]))
    empty = next(y for y in range(min(years), max(years) + 1) if y not in years)
    nothing = run_app(years_index, monkeypatch, {"q": QUESTIONS[0], "venue": venue,
                                                 "year": f"{empty}-{empty}"})
    assert any(w.value == NO_MATCH for w in nothing.warning)
    assert len(nothing.get("plotly_chart")) == 1
    seeds = ask(run_app(seeds_index, monkeypatch), "which sequence models track groups?")
    assert not seeds.get("plotly_chart") and not seeds.exception
    assert not any(c.value.startswith("Years of the") for c in seeds.caption)


def test_a_topic_page_shows_its_papers_years_and_whether_it_is_recent(years_index, sample,  # noqa: F811
                                                                      monkeypatch):
    """Issue 14: a topic page shows how its papers spread over the years and whether the topic
    is more recent than the corpus: the counts are its papers' years, the trend is theirs."""
    from explorer.features.topics.ui import topic_years
    from tests.test_app import run_app

    table = topic_table(sample)
    topic = max(table.topics("topic"), key=lambda t: len(table.papers(t.topic_id)))
    papers = table.papers(topic.topic_id)
    found = topic_years(sample, topic.topic_id)
    assert found is not None
    counts, _ = brute_counts(SimpleNamespace(paper=p) for p in papers if p.year in range(1000, 2101))
    assert dict(found.years.counts) == counts
    trend = found.trend
    assert trend is not None and trend.dated == sum(counts.values())
    recent = sum(n for year, n in counts.items() if trend.first <= year <= trend.last)
    assert trend.recent == recent
    app = run_app(years_index, monkeypatch, {"view": "topic", "topic": topic.topic_id})
    assert not app.exception and len(app.get("plotly_chart")) == 1
    assert any(trend.sentence() in c.value and ui_years.BARS in c.value for c in app.caption)


# -- the CLI ----------------------------------------------------------------------------------
def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_cli_by_year_json(capsys, sample, years_index):  # noqa: F811
    question = QUESTIONS[3]
    code, out = run(capsys, "search", question, "--index", str(years_index), "--k", "7",
                    "--by-year", "--json")
    assert code == 0
    data = json.loads(out)
    deep = sample.search(question, SPREAD_DEPTH)
    assert [r["paper_id"] for r in data["results"]] == [h.paper_id for h in deep[:7]]
    counts, undated = brute_counts(deep)
    years = data["years"]
    assert {c["year"]: c["count"] for c in years["counts"]} == counts
    assert years["undated"] == undated and years["counted"] == SPREAD_DEPTH
    trend = growth(spread(deep), corpus_spread(sample))
    assert years["growth"]["recent"] == trend.recent and years["growth"]["sentence"]
    code, out = run(capsys, "search", question, "--index", str(years_index), "--json")
    assert isinstance(json.loads(out), list)  # without --by-year: the list, as before


def test_cli_by_year_text_similar_and_recommend(capsys, sample, years_index):  # noqa: F811
    paper_id = sample.search(QUESTIONS[4], 1)[0].paper_id
    for argv, rank in (
            (["similar", paper_id], lambda k: sample.similar(paper_id, k)),
            (["recommend", "--like", paper_id], lambda k: sample.recommend([paper_id], top_k=k))):
        code, out = run(capsys, *argv, "--index", str(years_index), "--k", "3", "--by-year")
        assert code == 0
        head, _, table = out.partition("Years of the top 200 papers of this ranking")
        assert head.count(" id ") == 3
        rows = re.findall(r"^  (\d{4})  █+ (\d+)$", table, flags=re.MULTILINE)
        counts, _ = brute_counts(rank(SPREAD_DEPTH))
        assert {int(y): int(c) for y, c in rows} == counts
        assert "dated papers" in table


def test_cli_by_year_in_batch_mode(capsys, sample, years_index, tmp_path):  # noqa: F811
    batch = tmp_path / "questions.txt"
    batch.write_text("\n".join(QUESTIONS[:2]), encoding="utf-8")
    code, out = run(capsys, "search", "--batch", str(batch), "--index", str(years_index),
                    "--by-year")
    assert code == 0
    for line, question in zip(out.splitlines(), QUESTIONS[:2]):
        record = json.loads(line)
        counts, _ = brute_counts(sample.search(question, SPREAD_DEPTH))
        assert {c["year"]: c["count"] for c in record["years"]["counts"]} == counts
        assert len(record["results"]) == 10


def test_a_corpus_of_one_year_says_nothing_about_years(sample, monkeypatch):
    """IJCAI 2023 alone: '2023: 85 papers (100% of these; the corpus 100%)' said nothing."""
    from explorer.features.topics import ui as topics_ui

    question = QUESTIONS[0]
    assert ui_years.year_view(sample, Location(query=question), "search", question) is not None
    one = YearSpread(((2023, len(sample.papers)),))
    monkeypatch.setattr(ui_years, "corpus_spread", lambda explorer: one)
    monkeypatch.setattr(topics_ui, "corpus_spread", lambda explorer: one)
    assert ui_years.year_view(sample, Location(query=question), "search", question) is None
    assert topics_ui.topic_years(sample, topic_table(sample).topics("topic")[0].topic_id) is None
