"""`explorer topics` (the corpus's broad areas and the finer topics in each) and `explorer topic
ID` (one topic: its key phrases, neighbours, years and most central papers)."""

from __future__ import annotations

import argparse

from explorer.cli.support import INDEX_HELP, positive_int
from explorer.cli.terminal import safe_json, safe_text
from explorer.features.topics.table import topic_table
from explorer.settings import Settings


def add_topics(commands) -> None:
    """The `topics` and `topic` verbs."""
    listing = commands.add_parser(
        "topics", help="the corpus's broad areas and the finer topics in each",
        description="List the topics found at build time: broad areas (ids 1, 2, ...) and the "
        "finer topics inside each (1.1, 1.2, ...), each with its name, size and key phrases.")
    listing.add_argument("--index", help=INDEX_HELP)
    listing.add_argument("--json", action="store_true", help="print JSON instead of a list")
    listing.set_defaults(run=_topics)
    one = commands.add_parser(
        "topic", help="one topic: its papers (most central first), key phrases, neighbours",
        description="Show one topic by its id from `explorer topics` (an area such as 2, or a "
        "finer topic such as 2.3).")
    one.add_argument("topic_id", metavar="ID", help="a topic id from `explorer topics`")
    one.add_argument("--index", help=INDEX_HELP)
    one.add_argument("--k", type=positive_int, default=10, help="papers to list (default 10)")
    one.add_argument("--json", action="store_true", help="print JSON instead of text")
    one.set_defaults(run=_topic)


def _explorer(settings: Settings):
    from explorer.query.engine import Explorer

    return Explorer.open(settings.index_dir)


def _topics(args: argparse.Namespace, settings: Settings, parser) -> int:
    topics = topic_table(_explorer(settings)).topics()
    if args.json:
        print(safe_json({"topics": [topic.to_dict() for topic in topics]}, indent=2))
        return 0
    if not topics:
        print("This index stores no topics: rebuild it with `explorer build`.")
    for topic in topics:
        indent = "" if topic.parent is None else "    "
        phrases = "; ".join(topic.phrases[1:4])
        print(safe_text(f"{indent}{topic.topic_id:<6} {topic.name}  ({topic.size:,} papers)"
                        + (f"  - {phrases}" if phrases else "")))
    return 0


def _topic(args: argparse.Namespace, settings: Settings, parser) -> int:
    report = topic_table(_explorer(settings)).report(args.topic_id, args.k)
    if args.json:
        print(safe_json(report, indent=2))
        return 0
    names = report["names"]
    lines = [f"{report['id']}  {report['name']}  ({report['level']}; {report['growth']})"]
    if report["parent"]:
        lines.append(f"in        {report['parent']}  {names[report['parent']]}")
    lines.append(f"phrases   {'; '.join(report['phrases']) or '-'}")
    for label, key in (("topics", "children"), ("near", "neighbours")):
        if report[key]:
            lines.append(f"{label:<9} " + "; ".join(f"{t} {names[t]}" for t in report[key]))
    for paper in report["papers"]:
        facts = ", ".join(str(f) for f in (paper["venue"], paper["year"]) if f)
        lines.append(f"{paper['rank']:>3}. {paper['title']}" + (f" ({facts})" if facts else "")
                     + f"  [{paper['paper_id']}]")
    print(safe_text("\n".join(lines), keep_newlines=True))
    return 0
