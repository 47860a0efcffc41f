"""`--by-year` of search, similar and recommend: papers per year of the ranking's top
SPREAD_DEPTH, counted from the same ranking the results come from (features/years/spread.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from explorer.features.years.spread import (
    SPREAD_DEPTH,
    YearSpread,
    corpus_spread,
    growth,
    ranked_with_spread,
)
from explorer.query.engine import Explorer, Hit

BAR_WIDTH = 40  # characters of the longest bar


def add_by_year(command: argparse.ArgumentParser) -> None:
    command.add_argument("--by-year", action="store_true",
                         help=f"also count papers per year among the top {SPREAD_DEPTH} of this "
                         "ranking (with --json: an object with results and years)")


def ranked(rank: Callable[[int], Sequence[Hit]], top_k: int, by_year: bool
           ) -> tuple[list[Hit], YearSpread | None]:
    """The `top_k` hits of `rank(n)`, and with `by_year` the spread of its top SPREAD_DEPTH
    (one ranking for both)."""
    if not by_year:
        return list(rank(top_k)), None
    return ranked_with_spread(rank, top_k)


def years_record(explorer: Explorer, years: YearSpread) -> dict[str, Any]:
    """The spread as JSON: basis, counted, undated, counts [{year, count}], growth (None, or
    its fields and the sentence that says it), against the corpus's spread."""
    trend = growth(years, corpus_spread(explorer))
    return {**years.to_dict(), "growth": None if trend is None
            else {**trend.to_dict(), "sentence": trend.sentence()}}


def year_lines(record: dict[str, Any]) -> list[str]:
    """A years_record as text: a heading, one line per year with papers (a bar and the
    count), and the recent share against the corpus's."""
    undated = f"; {record['undated']} without a year" if record["undated"] else ""
    lines = [f"Years of the {record['basis']}{undated}:"]
    counts = [(item["year"], item["count"]) for item in record["counts"]]
    if not counts:
        return [*lines, "  no paper here has a year"]
    most = max(count for _, count in counts)
    lines += [f"  {year}  {'█' * max(1, round(BAR_WIDTH * count / most))} {count}"
              for year, count in counts]
    if record["growth"] is not None:
        lines.append(record["growth"]["sentence"])
    return lines
