"""`--filter FIELD=VALUE` of search, similar, recommend and missed (repeatable: values of one
field are OR, different fields AND), and `explorer facets`: the fields and values to filter by."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from explorer.cli.terminal import safe_json, safe_text
from explorer.errors import ExplorerError
from explorer.query.engine import Explorer
from explorer.ranking.facets import MAX_FACET_CHARS, FacetSpec, facet_spec
from explorer.settings import Settings

FILTER_HELP = ("only papers whose FIELD holds VALUE (repeatable: values of one field are OR, "
               "different fields AND), e.g. --filter status=Rejected --filter track=main; "
               "`explorer facets` lists the fields and values")
SHOWN_VALUES = 8  # values per field in `explorer facets`' text


def facet_pair(text: str) -> tuple[str, str]:
    """FIELD=VALUE -> (field, value); an argparse error otherwise."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not FIELD=VALUE (e.g. status=Rejected or year=2018)")
    if len(name) > MAX_FACET_CHARS or len(value) > MAX_FACET_CHARS:
        raise argparse.ArgumentTypeError(f"a field or value is at most {MAX_FACET_CHARS} characters")
    return name.strip(), value.strip()


def add_filter_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--filter", action="append", default=[], type=facet_pair,
                         metavar="FIELD=VALUE", dest="facets", help=FILTER_HELP)


def facet_filters(pairs: Sequence[tuple[str, str]]) -> FacetSpec:
    """The --filter pairs as Filters.facets takes them (the index checks the names)."""
    try:
        return facet_spec([(name, (value,)) for name, value in pairs])
    except ValueError as exc:
        raise ExplorerError(f"--filter: {exc}") from exc


def add_facets(commands) -> None:
    facets = commands.add_parser("facets", help="the fields and values that --filter takes")
    facets.add_argument("--index", help="index folder (default: EXPLORER_INDEX)")
    facets.add_argument("--json", action="store_true")
    facets.set_defaults(run=_facets)


def _facets(args, settings: Settings, parser) -> int:
    counts = Explorer.open(settings.index_dir).facet_counts()
    if args.json:
        print(safe_json(counts, indent=2))
        return 0
    for name, values in counts.items():
        shown = ", ".join(f"{value} ({n})" for value, n in values[:SHOWN_VALUES])
        more = len(values) - SHOWN_VALUES
        print(safe_text(f"{name}: {shown}" + (f", … {more} more" if more > 0 else "")))
    return 0
