"""The years chart beside a ranking's results: its papers per year (features/years/spread.py), and
how a click on a bar and the sidebar's year slider agree.

What the chart counts is the pool the results are cut from (results.pool: the top
SPREAD_DEPTH of the same ranking) with the location's year filter lifted, so every year stays
on the chart while one is shown; the years the filter lets through are drawn in colour. A
click on a bar gives the slider's value that shows that year only (a second click on it, or
"All years", the whole range); the location follows from the slider as for any filter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

# pandas imported whole here, under the import lock: plotly imports it on a figure's first
# array through sys.modules, and a second session thread then met it half made
# ("partially initialized module 'pandas' has no attribute 'Series'", test_sessions)
import pandas  # noqa: F401
import plotly.graph_objects as go

from explorer.features.years.spread import (
    Growth,
    YearSpread,
    corpus_spread,
    growth,
    pool_basis,
    shares_in_words,
    spread,
    year_of,
    year_shares,
)
from explorer.query.engine import Explorer
from explorer.ui.links import Location
from explorer.ui.page import with_filters, year_range
from explorer.ui.results import pool

SHOWN, HIDDEN = "#4C78A8", "#C8D2DE"  # bars of years the filter shows / leaves out
CONFIG = {"displayModeBar": False, "displaylogo": False, "scrollZoom": False}
HEIGHT = 170
HINT = "Click a bar to show that year only."
MIN_CHART_YEARS = 3  # fewer years than this: the years in words, no chart
MAX_TICKS = 12  # year labels on the axis, at most (every n-th year beyond)
BARS = ("Bars: each year's share of these papers; dark marks: the corpus's share of that year "
        "(a bar above its mark: that year counts more here than in the corpus).")
CORPUS = "#333333"  # the corpus's share of each year, drawn over the bars


@dataclass(frozen=True)
class YearView:
    """What the chart of one ranking shows: the `years` of its pool without the year filter,
    their `trend` against the corpus, and the location's year bounds (None: open)."""

    years: YearSpread
    trend: Growth | None
    year_min: int | None = None
    year_max: int | None = None
    reference: YearSpread | None = None  # the corpus's years, the chart's comparison

    @property
    def filtered(self) -> bool:
        return self.year_min is not None or self.year_max is not None

    @property
    def charted(self) -> bool:
        """Whether a chart says more than words: MIN_CHART_YEARS years or more."""
        return worth_a_chart(self.years)


def worth_a_chart(years: YearSpread) -> bool:
    """A chart of two years or fewer says nothing a sentence does not (shares_in_words)."""
    return len(years.counts) >= MIN_CHART_YEARS


def year_view(explorer: Explorer, location: Location, verb: str, *subject: Any) -> YearView | None:
    """The chart of `verb`'s ranking of `subject` at `location` (results.ranked's arguments);
    None when no paper of it has a year (e.g. the seeds) or the corpus has one year only: then
    no chart is drawn and nothing said."""
    lifted = replace(location, year_min=None, year_max=None)
    hits = pool(explorer, lifted, verb, *subject)
    years = spread(hits, pool_basis(len(hits)))
    if not years.counts:
        return None
    reference = corpus_spread(explorer)
    if len(reference.counts) < 2:  # one year in the whole corpus: nothing to say
        return None
    return YearView(years, growth(years, reference), location.year_min, location.year_max,
                    reference)


def chart(years: YearSpread, year_min: int | None = None, year_max: int | None = None,
          reference: YearSpread | None = None) -> go.Figure:
    """A bar per year with papers in `years`: its share of their dated papers (customdata: the
    year), and with `reference` (the corpus's years) the corpus's share of each year as a dark
    mark over it, so a bigger conference year is no growth; bars outside `year_min`..`year_max`
    (None: open) muted. The axis labels whole years only. Also for any set of papers:
    chart(spread(papers), reference=corpus_spread(explorer))."""
    low, high = year_min or -1, year_max or 10**6
    shares = year_shares(years, reference)
    colours = [SHOWN if low <= item.year <= high else HIDDEN for item in shares]
    said = [f"{item.year}: {item.count:,} papers, {item.share:.0%} of these"
            + ("" if item.reference is None else f"; the corpus: {item.reference:.0%}")
            for item in shares]
    figure = go.Figure(go.Bar(
        x=list(years.years), y=[100 * item.share for item in shares],
        customdata=list(years.years), hovertext=said, hoverinfo="text", name="these papers",
        marker={"color": colours}, selected={"marker": {"opacity": 1}},
        unselected={"marker": {"opacity": 1}}))
    if reference is not None and reference.dated:
        figure.add_trace(go.Scatter(
            x=list(years.years), y=[100 * (item.reference or 0) for item in shares],
            customdata=list(years.years), mode="markers", name="the corpus",
            marker={"symbol": "line-ew-open", "size": 26, "color": CORPUS,
                    "line": {"width": 3, "color": CORPUS}},
            hovertext=said, hoverinfo="text"))
    figure.update_layout(
        height=HEIGHT, margin={"l": 0, "r": 0, "t": 4, "b": 0}, bargap=0.15,
        xaxis={"fixedrange": True, "showgrid": False, **year_ticks(years.years)},
        yaxis={"fixedrange": True, "title": None, "ticksuffix": "%"}, dragmode=False,
        showlegend=False, clickmode="event+select", hovermode="closest")
    return figure


def year_ticks(years: Sequence[int]) -> dict[str, Any]:
    """The x axis's ticks: whole years only, every n-th one when there are more than MAX_TICKS
    (Plotly's own ticks fall between years, "2017 2017 2018 2018" with tickformat "d")."""
    if not years:
        return {}
    step = max(1, -(-(years[-1] - years[0] + 1) // MAX_TICKS))
    shown = list(range(years[0], years[-1] + 1, step))
    return {"tickmode": "array", "tickvals": shown, "ticktext": [str(y) for y in shown],
            "range": [years[0] - 0.6, years[-1] + 0.6]}


def caption(view: YearView, clickable: bool = True) -> str:
    """The chart's caption (or, with two years or fewer, what stands in for it): what it
    counts, the papers without a year, each year's share against the corpus's (in words when
    no chart is drawn), the recent share, which years the results show."""
    parts = [f"Years of the {view.years.basis}"
             + (f" ({view.years.undated} without a year)." if view.years.undated else ".")]
    parts.append(BARS if view.charted else shares_in_words(view.years, view.reference))
    if view.trend is not None:
        parts.append(view.trend.sentence())
    parts.append(shown_years(view) if view.filtered else HINT if view.charted and clickable
                 else "")
    return " ".join(p for p in parts if p)


def shown_years(view: YearView) -> str:
    low, high = view.year_min, view.year_max
    if low is not None and low == high:
        return f"Showing {low} only."
    if low is None:
        return f"Showing up to {high}."
    return f"Showing {low} and later." if high is None else f"Showing {low}–{high}."


def clicked_year(points: Sequence[Mapping[str, Any]], years: YearSpread) -> int | None:
    """The year of the bar a click selected (Plotly's selection points), if it is one of the
    chart's years; anything else (no point, a forged value) -> None."""
    if not points:
        return None
    point = points[0]
    value = point.get("customdata", point.get("x"))
    year = year_of(value[0] if isinstance(value, list) and value else value)
    return year if year is not None and years.count(year) else None


def slider_value(facets: Mapping[str, Sequence], year: int | None) -> tuple[int, int] | None:
    """The year slider's value that shows `year` only (None: every year, the full range);
    None when the corpus has no years (no slider)."""
    span = year_range(facets)
    if span is None:
        return None
    return span if year is None else (year, year)


def picked(points: Sequence[Mapping[str, Any]], view: YearView,
           facets: Mapping[str, Sequence]) -> tuple[int, int] | None:
    """The slider value a click on the chart asks for: that year only, or, when that year is
    already the only one shown, every year; None when the click names no bar."""
    year = clicked_year(points, view.years)
    if year is None:
        return None
    only = located(Location(), facets, (year, year))
    again = (only.year_min, only.year_max) == (view.year_min, view.year_max) and view.filtered
    return slider_value(facets, None if again else year)


def located(location: Location, facets: Mapping[str, Sequence],
            value: tuple[int, int] | None) -> Location:
    """`location` with the year filter the slider's `value` means (page.with_filters' rule:
    a bound at the corpus's edge is no bound)."""
    return with_filters(location, facets, location.venues, location.sources, value,
                        location.top_k)
