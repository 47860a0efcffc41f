"""`explorer new [--since BUILD] [--collection NAME | --query TEXT] [--top N] [--json]
[--builds]`: the papers the index's builds added since a build (features/new/query.py)."""

from __future__ import annotations

import argparse
import textwrap

from explorer.cli.support import INDEX_HELP, positive_int
from explorer.cli.terminal import safe_json, safe_text
from explorer.settings import Settings
from explorer.wording import score_line

DEFAULT_TOP = 20


def add_new(commands) -> None:
    """The `new` verb."""
    command = commands.add_parser(
        "new", help="papers added since a build, nearest first to a collection or a question",
        description="List the papers that the index's builds added since a build (default: "
        "the previous one): in corpus order, nearest first to a saved collection's papers "
        "(--collection; unrelated ones read 'weak'), or ranked for a question (--query).")
    command.add_argument("--since", metavar="BUILD",
                         help="a build id (or its unique start) from `explorer new --builds`")
    near = command.add_mutually_exclusive_group()
    near.add_argument("--collection", metavar="NAME", help="nearest first to this collection")
    near.add_argument("--query", metavar="TEXT", help="ranked for this question")
    command.add_argument("--top", type=positive_int, default=DEFAULT_TOP, metavar="N",
                         help=f"how many papers (default {DEFAULT_TOP})")
    command.add_argument("--builds", action="store_true", help="list the recorded builds")
    command.add_argument("--index", help=INDEX_HELP)
    command.add_argument("--model", help="must be the model the index was built with")
    command.add_argument("--json", action="store_true", help="print JSON instead of a list")
    command.set_defaults(run=_new)


def _new(args: argparse.Namespace, settings: Settings, parser) -> int:
    from explorer.features.collections.cli import liked_papers
    from explorer.features.new.query import builds, new_papers
    from explorer.query.engine import Explorer

    explorer = Explorer.open(settings.index_dir, model=settings.query_model)
    if args.builds:
        return _print_builds(builds(explorer)[0], args.json)
    like = liked_papers(settings, args.collection, explorer) if args.collection else ()
    found = new_papers(explorer, args.since, like=like, query=args.query, top_k=args.top)
    records = [{**hit.to_dict(), **({"near": found.near[n]} if found.near else {})}
               for n, hit in enumerate(found.hits)]
    if args.json:
        print(safe_json({"since": found.since.to_dict() if found.since else None,
                         "added": found.added, "papers": records}, indent=2))
        return 0
    since = found.since
    label = f"build {since.build_id}" if since and since.build_id else "the build before the log"
    print(f"{found.added:,} paper{'s' * (found.added != 1)} added since {safe_text(label)}"
          f"{' (' + safe_text(since.built_at) + ')' if since and since.built_at else ''}"
          f"{_order(args)}:")
    for record, hit in zip(records, found.hits):
        facts = " · ".join(str(x) for x in (record["venue"], record["year"]) if x)
        title = textwrap.shorten(hit.title, 90, placeholder=" …")
        print(f"{hit.rank:>3}. {safe_text(title)} (id {safe_text(hit.paper_id)}"
              f"{' · ' + safe_text(facts) if facts else ''})")
        if hit.percentile is not None or hit.strength is not None:
            near = f" · nearest to {safe_text(record['near'])}" if "near" in record else ""
            line = score_line(hit.score, hit.strength, hit.percentile, hit.compared_with,
                              detail=True, chance=hit.relevance,
                              name="cos" if found.near else "score")
            print(f"     {line}{near}")
    if found.added > len(found.hits):
        print(f"... {found.added - len(found.hits):,} more (--top N shows more).")
    return 0


def _order(args: argparse.Namespace) -> str:
    if args.collection:
        return f", nearest first to collection {safe_text(repr(args.collection))}"
    return f", ranked for {safe_text(repr(args.query))}" if args.query else ""


def _print_builds(found, as_json: bool) -> int:
    if as_json:
        print(safe_json([build.to_dict() for build in found], indent=2))
        return 0
    for build in found:
        added = "?" if build.added is None else f"{build.added:,}"
        print(f"{safe_text(build.build_id or '(before the log)')}  "
              f"{safe_text(build.built_at or '')}  added {added}")
    return 0
