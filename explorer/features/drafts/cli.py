"""`explorer missed --draft FILE [--bib FILE | --collection NAME]`: the corpus papers most
related to a draft that its cited set lacks (explorer/features/drafts/missed.py)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from explorer import wording
from explorer.cli.support import INDEX_HELP, positive_int
from explorer.cli.terminal import safe_json, safe_text
from explorer.features.facets.cli import add_filter_option
from explorer.settings import Settings


def add_missed(commands) -> None:
    """The `missed` verb."""
    command = commands.add_parser(
        "missed", help="papers related to your draft that it does not cite",
        description="Rank the corpus against a draft (an abstract, an introduction, several "
        "paragraphs: each paragraph finds its own related work) and list the related papers "
        "its cited set does not contain.")
    command.add_argument("--draft", required=True, metavar="FILE",
                         help="the draft as plain text (.txt, .md, .tex); '-' reads stdin")
    cited = command.add_mutually_exclusive_group()
    cited.add_argument("--bib", metavar="FILE",
                       help="what the draft cites: a .bib (BibTeX), .ris or .json (CSL-JSON)")
    cited.add_argument("--collection", metavar="NAME", help="a saved collection as the cited set")
    command.add_argument("--index", help=INDEX_HELP)
    command.add_argument("--model", help="must be the model the index was built with")
    command.add_argument("--k", type=positive_int, default=10,
                         help="how many missed papers, overall and per passage (default 10)")
    command.add_argument("--json", action="store_true", help="print JSON instead of a list")
    add_filter_option(command)
    command.set_defaults(run=_missed)


def _missed(args: argparse.Namespace, settings: Settings, parser) -> int:
    from explorer.cli.support import cited_from_file, read_input
    from explorer.features.collections.cli import liked_papers
    from explorer.features.drafts.missed import MissedOptions, missed
    from explorer.features.drafts.passages import MAX_DRAFT_BYTES, read_draft
    from explorer.features.facets.cli import facet_filters
    from explorer.query.engine import Explorer
    from explorer.ranking.filters import Filters

    name = "stdin" if args.draft == "-" else Path(args.draft).name
    draft = read_draft(read_input(args.draft, MAX_DRAFT_BYTES, "draft"), f"draft {name}")
    explorer = Explorer.open(settings.index_dir, model=settings.query_model)
    cited: list[str] = []
    if args.bib:
        cited = list(cited_from_file(args.bib, settings, explorer).paper_ids)
    elif args.collection:
        cited = liked_papers(settings, args.collection, explorer)
    options = MissedOptions(filters=Filters(facets=facet_filters(args.facets)))
    result = missed(explorer, draft, cited, args.k, options=options)
    for note in result.notes:
        print(f"explorer: note: {safe_text(note)}", file=sys.stderr)
    if args.json:
        print(safe_json(result.to_dict(), indent=2))
    else:
        _print(result, len(explorer.papers))
    return 0


def _print(result, papers: int) -> None:
    split = result.split
    print(f"Checked {len(split.passages)} passage{'s' * (len(split.passages) != 1)} "
          f"({split.checked_words:,} words) against {papers:,} papers; "
          f"{len(result.cited)} cited paper{'s' * (len(result.cited) != 1)} kept out.")
    if not result.papers:
        print("No missed papers: every related paper is cited (or the corpus is that small).")
        return
    print("\nMissed papers, most related first:")
    for paper in result.papers:
        _print_paper(paper, f"{paper.hit.rank:>2}. ")
    print("\nBy passage of the draft:")
    for passage, papers in result.groups():
        text = textwrap.shorten(" ".join(passage.text.split()), 90, placeholder=" …")
        print(f"  passage {passage.number}: {safe_text(text)}")
        for paper in papers:
            print(f"    {paper.hit.rank:>2}. {safe_text(paper.hit.title)} "
                  f"({safe_text(paper.paper_id)})")


def _print_paper(paper, prefix: str) -> None:
    hit = paper.hit
    facts = " · ".join(str(x) for x in (hit.paper.venue, hit.paper.year) if x)
    print(f"{prefix}{safe_text(hit.title)}")
    line = wording.score_line(hit.score, hit.strength, hit.percentile, hit.compared_with,
                              name="cos")
    print(f"    id {safe_text(hit.paper_id)} · {line} · passage "
          f"{paper.passage}{' · ' + safe_text(facts) if facts else ''}")
    if paper.tie is not None:
        print(f"    draft: {safe_text(_quote(paper.tie.draft.text))}")
        if paper.tie.paper is not None:
            print(f"    paper: {safe_text(_quote(paper.tie.paper.text))}")
    if paper.closest is not None:
        print(f"    closest cited: {safe_text(_quote(paper.closest.title, 70))} "
              f"({wording.closeness_line(paper.closest.score)})")


def _quote(text: str, width: int = 100) -> str:
    return "“" + textwrap.shorten(" ".join(text.split()), width, placeholder=" …") + "”"
