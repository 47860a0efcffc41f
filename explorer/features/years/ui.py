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

import plotly.graph_objects as go

from explorer.features.years.spread import (
    Growth,
    YearSpread,
    corpus_spread,
    growth,
    pool_basis,
    spread,
    year_of,
)
from explorer.query.engine import Explorer
from explorer.ui.links import Location
from explorer.ui.page import with_filters, year_range
from explorer.ui.results import pool

SHOWN, HIDDEN = "#4C78A8", "#C8D2DE"  # bars of years the filter shows / leaves out
CONFIG = {"displayModeBar": False, "displaylogo": False, "scrollZoom": False}
HEIGHT = 170
HINT = "Click a bar to show that year only."


@dataclass(frozen=True)
class YearView:
    """What the chart of one ranking shows: the `years` of its pool without the year filter,
    their `trend` against the corpus, and the location's year bounds (None: open)."""

    years: YearSpread
    trend: Growth | None
    year_min: int | None = None
    year_max: int | None = None

    @property
    def filtered(self) -> bool:
        return self.year_min is not None or self.year_max is not None


def year_view(explorer: Explorer, location: Location, verb: str, *subject: Any) -> YearView | None:
    """The chart of `verb`'s ranking of `subject` at `location` (results.ranked's arguments);
    None when no paper of it has a year (e.g. the seeds): then no chart is drawn."""
    lifted = replace(location, year_min=None, year_max=None)
    hits = pool(explorer, lifted, verb, *subject)
    years = spread(hits, pool_basis(len(hits)))
    if not years.counts:
        return None
    return YearView(years, growth(years, corpus_spread(explorer)), location.year_min,
                    location.year_max)


def chart(years: YearSpread, year_min: int | None = None, year_max: int | None = None
          ) -> go.Figure:
    """A bar per year with papers in `years` (customdata: the year); bars outside
    `year_min`..`year_max` (None: open) muted. Also for any set of papers: chart(spread(papers))."""
    low, high = year_min or -1, year_max or 10**6
    colours = [SHOWN if low <= year <= high else HIDDEN for year in years.years]
    figure = go.Figure(go.Bar(
        x=list(years.years), y=[count for _, count in years.counts], customdata=list(years.years),
        marker={"color": colours}, hovertemplate="%{x}: %{y} papers<extra></extra>",
        selected={"marker": {"opacity": 1}}, unselected={"marker": {"opacity": 1}}))
    figure.update_layout(
        height=HEIGHT, margin={"l": 0, "r": 0, "t": 4, "b": 0}, bargap=0.15,
        xaxis={"tickformat": "d", "fixedrange": True, "showgrid": False},
        yaxis={"fixedrange": True, "title": None}, dragmode=False, showlegend=False,
        clickmode="event+select", hovermode="closest")
    return figure


def caption(view: YearView) -> str:
    """The chart's caption: what it counts, the papers without a year, the recent share,
    which years the results show."""
    parts = [f"Years of the {view.years.basis}"
             + (f" ({view.years.undated} without a year)." if view.years.undated else ".")]
    if view.trend is not None:
        parts.append(view.trend.sentence())
    parts.append(shown_years(view) if view.filtered else HINT)
    return " ".join(parts)


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
