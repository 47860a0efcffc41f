"""`explorer export ID [ID ...] --format bibtex|ris|csl-json [--index DIR] [--abstract]`:
papers of an index as citations on stdout (explorer/features/exports/)."""

from __future__ import annotations

import argparse
import sys

from explorer.cli.support import INDEX_HELP
from explorer.errors import ExplorerError, UnknownPaperError
from explorer.features.exports.ui import FORMAT_NAMES
from explorer.settings import Settings

MAX_IDS = 10_000  # papers one export may name


def add_export(commands) -> None:
    """The `export` verb."""
    command = commands.add_parser(
        "export", help="papers as citations: BibTeX, RIS or CSL-JSON",
        description="Write papers of the index as citations on stdout: accepted conference "
        "papers as proceedings papers of the venue (its full name), journal papers as "
        "articles, rejected, withdrawn or under-review submissions as unpublished "
        "('Submitted to ICLR 2018'), never as published.")
    command.add_argument("paper_ids", nargs="+", metavar="ID", help="paper ids (or aliases)")
    command.add_argument("--format", choices=FORMAT_NAMES, default="bibtex",
                         help="bibtex (.bib), ris (Zotero, Mendeley, EndNote) or csl-json "
                         "(pandoc, Zotero); default bibtex")
    command.add_argument("--abstract", action="store_true", help="include the abstracts")
    command.add_argument("--index", help=INDEX_HELP)
    command.set_defaults(run=_export)


def _export(args: argparse.Namespace, settings: Settings, parser) -> int:
    from explorer.cli.terminal import safe_text
    from explorer.features.exports.ui import export_text
    from explorer.features.versions.ui import where
    from explorer.query.engine import Explorer

    if len(args.paper_ids) > MAX_IDS:
        raise ExplorerError(f"{len(args.paper_ids)} ids: an export takes at most {MAX_IDS}. "
                            "Export them in parts.")
    explorer = Explorer.open(settings.index_dir, model=settings.query_model)
    papers, unknown, seen = [], [], set()
    for paper_id in dict.fromkeys(args.paper_ids):  # each paper once, in the order given
        try:
            row = explorer.row(paper_id)
        except UnknownPaperError as exc:
            unknown.append(str(exc))
            continue
        paper = explorer.papers[explorer.works.cited(row)]  # a version: the accepted one
        if paper.paper_id != explorer.papers[row].paper_id:
            print(safe_text(f"explorer: note: {paper_id} is cited as its version "
                            f"{paper.paper_id} ({where(paper)})"), file=sys.stderr)
        if paper.paper_id not in seen:  # an alias of one given before: once
            seen.add(paper.paper_id)
            papers.append(paper)
    if unknown:
        shown = " ".join(unknown[:5]) + (f" (and {len(unknown) - 5} more)" if len(unknown) > 5 else "")
        raise ExplorerError(f"{len(unknown)} of {len(args.paper_ids)} ids not in this index, "
                            f"so nothing was exported: {shown}")
    sys.stdout.write(export_text(papers, args.format, abstract=args.abstract))
    print(f"exported {len(papers)} papers as {args.format}", file=sys.stderr)
    return 0

