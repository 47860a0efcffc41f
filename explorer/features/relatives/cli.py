"""`explorer relatives [--threshold T] [--top N] [--paper ID] [--json]`: close relatives, papers so
alike they may be one work in two versions or concurrent work (explorer/features/relatives/query.py)."""

from __future__ import annotations

import argparse
import sys
import textwrap

from explorer import wording
from explorer.cli.support import INDEX_HELP, positive_int
from explorer.cli.terminal import safe_json, safe_text
from explorer.features.relatives.query import DEFAULT_THRESHOLD, DEFAULT_TOP_K, SENTENCE_PAIRS
from explorer.settings import Settings

ON_DEMAND = 20  # without stored sentence vectors, pairs explained (their sentences embedded)


def add_relatives(commands) -> None:
    """The `relatives` verb (`twins`, its older name, too)."""
    command = commands.add_parser(
        "relatives", aliases=["twins"],
        help="pairs of papers so alike they may be one work, or concurrent work",
        description="Rank the corpus's closest pairs of papers (versions of one work, a "
        "submission that reappears elsewhere, concurrent work on one idea), each with the "
        "sentence pairs that tie them; or, with --paper, one paper's close relatives.")
    command.add_argument("--threshold", type=float, metavar="COS",
                         help="lowest cosine of a pair (default: the index's model's, "
                         f"{DEFAULT_THRESHOLD:g} for the default model)")
    command.add_argument("--top", type=positive_int, default=DEFAULT_TOP_K, metavar="N",
                         help=f"how many pairs (default {DEFAULT_TOP_K})")
    command.add_argument("--paper", metavar="ID", help="the close relatives of this paper")
    command.add_argument("--index", help=INDEX_HELP)
    command.add_argument("--model", help="must be the model the index was built with")
    command.add_argument("--json", action="store_true", help="print JSON instead of a list")
    command.set_defaults(run=_relatives)


def _relatives(args: argparse.Namespace, settings: Settings, parser) -> int:
    from explorer.features.relatives.query import check_threshold, check_top_k
    from explorer.query.engine import Explorer

    check_threshold(args.threshold)  # a bad number fails before the index loads
    check_top_k(args.top)
    explorer = Explorer.open(settings.index_dir, model=settings.query_model)
    if args.paper is not None:
        return _paper_relatives(explorer, args)
    return _corpus_pairs(explorer, args)


def _paper_relatives(explorer, args: argparse.Namespace) -> int:
    """`relatives --paper ID`: the paper's own relatives."""
    from explorer.features.relatives.query import relatives

    paper = explorer.paper(args.paper)
    found = relatives(explorer, paper.paper_id, args.threshold, args.top)
    records = [_explained(explorer, paper.paper_id, r.paper.paper_id, r.to_dict(), n)
               for n, r in enumerate(found)]
    if args.json:
        print(safe_json({"paper_id": paper.paper_id, "relatives": records}, indent=2))
    else:
        _print_relatives(paper, records, args, explorer)
    return 0


def _corpus_pairs(explorer, args: argparse.Namespace) -> int:
    """`relatives`: the closest pairs of the whole corpus."""
    from explorer.features.relatives.query import closest_pairs, default_threshold, pair_count

    found = closest_pairs(explorer, args.threshold, args.top)
    explorer.sentences_of([p.paper_id for t in found[:ON_DEMAND] for p in (t.paper, t.other)])
    records = [_explained(explorer, t.paper.paper_id, t.other.paper_id, t.to_dict(), n)
               for n, t in enumerate(found)]
    if len(records) > ON_DEMAND and not explorer.has_sentence_vectors:
        print(f"explorer: note: this index stores no sentence vectors (build with --sentences "
              f"to store them), so only the first {ON_DEMAND} pairs show sentence pairs.",
              file=sys.stderr)
    if args.json:
        print(safe_json(records, indent=2))
        return 0
    total = pair_count(explorer, args.threshold)
    threshold = args.threshold if args.threshold is not None else default_threshold(explorer)
    print(f"{total:,} pair{'s' * (total != 1)} of papers at cos >= {threshold:g} among "
          f"{len(explorer.papers):,} papers; the closest {len(records)}:\n")
    for record in records:
        first, second = record["papers"]
        print(f"{record['rank']:>3}. {wording.pair_line(record['score'])}")
        for paper in (first, second):
            print(f"     {_line(paper)}")
        _print_sentences(record["sentence_pairs"])
        print()
    return 0


def _explained(explorer, paper_id: str, other_id: str, record: dict, number: int) -> dict:
    """`record` with the sentence pairs that tie the two papers (the `number`th listed; past
    ON_DEMAND none, when the index stores no sentence vectors)."""
    from explorer.features.relatives.query import sentence_pairs

    if number >= ON_DEMAND and not explorer.has_sentence_vectors:
        return {**record, "sentence_pairs": [], "shared_terms": []}
    pairs = sentence_pairs(explorer, paper_id, other_id, SENTENCE_PAIRS).to_dict()
    return {**record, "sentence_pairs": pairs["pairs"], "shared_terms": pairs["shared_terms"]}


def _print_relatives(paper, records: list[dict], args, explorer) -> None:
    from explorer.features.relatives.query import default_threshold

    threshold = args.threshold if args.threshold is not None else default_threshold(explorer)
    print(f"Close relatives of {safe_text(paper.title)} ({safe_text(paper.paper_id)}), "
          f"cos >= {threshold:g}:")
    if not records:
        print("None: no other paper is that close (try a lower --threshold).")
    for number, record in enumerate(records, start=1):
        print(f"{number:>3}. {wording.pair_line(record['score'])} · {_line(record)}")
        _print_sentences(record["sentence_pairs"])


def _line(paper: dict) -> str:
    facts = " · ".join(str(x) for x in (paper["venue"], paper["year"]) if x)
    return (f"{safe_text(textwrap.shorten(paper['title'], 90, placeholder=' …'))} "
            f"(id {safe_text(paper['paper_id'])}{' · ' + safe_text(facts) if facts else ''})")


def _print_sentences(pairs: list[dict]) -> None:
    for pair in pairs:
        print(f"       ~ {pair['score']:.2f}  “{_quote(pair['sentence']['text'])}”")
        print(f"                “{_quote(pair['other_sentence']['text'])}”")


def _quote(text: str) -> str:
    return safe_text(textwrap.shorten(" ".join(text.split()), 100, placeholder=" …"))
