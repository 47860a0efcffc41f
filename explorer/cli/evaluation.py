"""`explorer eval DATASET`: score the product's ranking on a BEIR-style folder
(explorer/eval/evaluate.py), one table or JSON report per query set."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from explorer.cli.support import Bar, positive_int
from explorer.cli.terminal import safe_json, safe_text
from explorer.eval.evaluate import (
    SETS,
    default_cache,
    describe_run,
    evaluate,
    format_table,
    load_set,
    prepare_index,
)
from explorer.query.ranking import MODES
from explorer.settings import Settings


def add_eval(commands) -> None:
    """The `eval` verb."""
    command = commands.add_parser("eval", help="score the ranking on a BEIR-style folder")
    command.add_argument("dataset", type=Path, help="folder with corpus.jsonl[.gz] and queries")
    command.add_argument("--set", dest="sets", nargs="+", default=["paragraphs"],
                         choices=[*SETS, "all"], help="query set(s) (default paragraphs)")
    command.add_argument("--queries", help="queries file in DATASET (instead of --set)")
    command.add_argument("--qrels", help="qrels file in DATASET (with --queries)")
    command.add_argument("--mode", nargs="+", default=list(MODES), choices=MODES)
    command.add_argument("--cache", type=Path, help="index folder kept between runs "
                         "(default ~/.cache/paper-explorer/eval/NAME-HASH)")
    command.add_argument("--model", help="model name or local sentence-transformers folder")
    command.add_argument("--limit", type=positive_int, help="score only the first N queries of each set")
    command.add_argument("--diverse", action="store_true", help="also score each mode with MMR")
    command.add_argument("--json", action="store_true", help="print JSON instead of a table")
    command.add_argument("--output", type=Path, help="also write the JSON result to this file")
    command.set_defaults(run=_eval)


def _eval(args: argparse.Namespace, settings: Settings, parser) -> int:
    if bool(args.queries) != bool(args.qrels):
        parser.error("eval: give --queries and --qrels together")
    bar = Bar()
    cache = args.cache or default_cache(args.dataset, settings.cache_dir)
    explorer, summary = prepare_index(args.dataset, cache, settings.model, progress=bar.update)
    bar.close()
    print(f"explorer: index: {safe_text(summary)}", file=sys.stderr)
    names = [None] if args.queries else (list(SETS) if "all" in args.sets else args.sets)
    results = [evaluate(explorer, load_set(args.dataset, name or "", args.queries, args.qrels),
                        args.mode, args.limit, diverse=args.diverse) for name in names]
    report = {**describe_run(explorer, args.dataset, "explorer " + " ".join(sys.argv[1:])),
              "results": results}
    if args.output:
        args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(safe_json(report, indent=2) if args.json
          else safe_text(format_table(results), keep_newlines=True))
    return 0
