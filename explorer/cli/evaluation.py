"""`explorer eval DATASET`: score the product's ranking, all of it in one command:

- the whole dataset (a BEIR-style folder, built into a cached index: explorer/eval/evaluate.py);
- `--sizes`: small corpora drawn from the dataset's embedded pool (eval/pool.py, eval/small.py);
- `--seeds FOLDER --seed-judgments FILE`: the hand-written seed set (eval/seeds.py).

With the whole dataset and the seed set, the strength words' reliability (eval/strength.py):
per word, the share of hits so labelled that are relevant, and how often a question asked with
its relevant papers left out still gets a top hit above "weak".

Prints a table per query set (rows: corpus sizes; columns: lexical, dense, the default;
nDCG@10) and the seed set's table, each labelled with the date, the machine and
the model; `--json` / `--output` give everything.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from explorer.cli.support import Bar, positive_int
from explorer.cli.terminal import safe_json, safe_text
from explorer.errors import CorpusError
from explorer.eval.columns import Corpus, columns_for
from explorer.eval.evaluate import (
    SETS,
    default_cache,
    describe_run,
    evaluate,
    format_table,
    judged,
    load_set,
    machine,
    prepare_index,
)
from explorer.eval.pool import POOL, open_pool, pool_folder
from explorer.eval.report import full_rows, label, model_label, ranking_tables, seed_table
from explorer.eval.seeds import read_judgments, score_seeds, seed_index, target_row
from explorer.eval.small import DRAWS, small_runs, summarise
from explorer.eval.strength import reliability, strength_table
from explorer.ranking.fusion import MODES
from explorer.settings import Settings


def add_eval(commands) -> None:
    """The `eval` verb."""
    command = commands.add_parser("eval", help="score the ranking on a BEIR-style folder, "
                                  "its small corpora and the seed set")
    command.add_argument("dataset", type=Path, help="folder with corpus.jsonl[.gz] and queries")
    command.add_argument("--set", dest="sets", nargs="+", default=["paragraphs"],
                         choices=[*SETS, "all"], help="query set(s) (default paragraphs)")
    command.add_argument("--queries", help="queries file in DATASET (instead of --set)")
    command.add_argument("--qrels", help="qrels file in DATASET (with --queries)")
    command.add_argument("--mode", nargs="+", default=list(MODES), choices=MODES,
                         help="rankings scored (hybrid: the default)")
    command.add_argument("--cache", type=Path, help="index folder kept between runs "
                         "(default ~/.cache/paper-explorer/eval/NAME-HASH)")
    command.add_argument("--model", help="model name (e.g. mpnet) or local sentence-transformers "
                         "folder")
    command.add_argument("--limit", type=positive_int,
                         help="score only the first N queries of each set (whole dataset)")
    command.add_argument("--diverse", action="store_true", help="also score each mode with MMR")
    command.add_argument("--no-full", dest="full", action="store_false",
                         help="skip the whole dataset (no index of it is built)")
    command.add_argument("--sizes", type=positive_int, nargs="+", default=[], metavar="N",
                         help="also score small corpora of about N papers (e.g. 100 1000 10000) "
                         "drawn from the dataset's embedded pool (ACM-CR-shaped datasets)")
    command.add_argument("--draws", type=positive_int, default=DRAWS,
                         help=f"draws per size below the pool's (default {DRAWS})")
    command.add_argument("--pool", type=Path, help="the embedded pool's folder (default "
                         "~/.cache/paper-explorer/quality-small[-MODEL]; embedded when missing)")
    command.add_argument("--pool-size", type=positive_int, default=POOL, metavar="N",
                         help=f"papers in the pool: the judged ones and random others (default "
                         f"{POOL:,}; fewer embed faster, for a slow model and sizes below N)")
    command.add_argument("--seeds", type=Path, help="also score the seed set: the seed abstracts' "
                         "folder (with --seed-judgments)")
    command.add_argument("--seed-judgments", type=Path, help="the seed set's questions and pairs "
                         "(tests/data/seed_judgments.json)")
    command.add_argument("--per-query", action="store_true", help="also keep each query's "
                         "scores in the JSON (small corpora: \"small\" -> \"runs\"), for paired "
                         "comparisons of two runs (eval/paired.py)")
    command.add_argument("--json", action="store_true", help="print JSON instead of tables")
    command.add_argument("--output", type=Path, help="also write the JSON result to this file")
    command.set_defaults(run=_eval)


def _eval(args: argparse.Namespace, settings: Settings, parser) -> int:
    if bool(args.queries) != bool(args.qrels):
        parser.error("eval: give --queries and --qrels together")
    if bool(args.seeds) != bool(args.seed_judgments):
        parser.error("eval: give --seeds and --seed-judgments together")
    if not (args.full or args.sizes or args.seeds):
        parser.error("eval: --no-full leaves nothing to score: add --sizes or --seeds")
    if not args.dataset.is_dir():
        raise CorpusError(f"{args.dataset} is not a folder: give the dataset's folder "
                          "(corpus.jsonl[.gz], queries, qrels), e.g. ../shared/data/acm-cr.")
    judgments = read_judgments(args.seed_judgments) if args.seeds else None
    names = list(SETS) if "all" in args.sets else args.sets
    columns = columns_for(args.mode)
    report: dict = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "machine": machine(),
                    "command": "explorer " + " ".join(sys.argv[1:]), "columns": list(columns)}
    bar, tables = Bar(), []
    if args.full:
        full, details = _full(args, settings, bar, names)
        report.update(full)
        tables.append(details)
    if args.sizes:
        report["small"] = _small(args, settings, bar, names, columns)
    report["ranking"] = report.get("small", {}).get("rows", []) + (full_rows(
        report["results"], report["papers"], columns) if args.full else [])
    if report["ranking"]:
        tables.append(ranking_tables(report["ranking"], _title(report, _models(report))))
    if judgments is not None:
        report["seeds"] = _seeds(args, settings, bar, judgments, columns)
        tables.append(seed_table(report["seeds"], _title(report, report["seeds"]["model"])))
        tables.append(strength_table(report["seeds"]["strength"],
                                     f"seed set ({report['seeds']['model']})"))
    if args.output:
        args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(safe_json(report, indent=2) if args.json
          else safe_text("\n\n".join(tables), keep_newlines=True))
    return 0


def _full(args, settings: Settings, bar: Bar, names: list[str]) -> tuple[dict, str]:
    """The whole dataset -> (describe_run + "results", the detailed table under its label)."""
    cache = args.cache or default_cache(args.dataset, settings.cache_dir, settings.model)
    explorer, summary = prepare_index(args.dataset, cache, settings.model, progress=bar.update)
    bar.close()
    print(f"explorer: index: {safe_text(summary)}", file=sys.stderr)
    sets = [load_set(args.dataset, name or "", args.queries, args.qrels)
            for name in ([None] if args.queries else names)]
    results = [evaluate(explorer, query_set, args.mode, args.limit,
                        diverse=args.diverse) for query_set in sets]
    run = describe_run(explorer, args.dataset, "explorer " + " ".join(sys.argv[1:]))
    model = model_label(run["model"], run["backend"])
    title = f"all metrics, whole dataset ({run['papers']:,} papers): " + label(
        run["date"], run["machine"], model)
    strength = {query_set.name: _strength(explorer, query_set, args.limit) for query_set in sets}
    text = "\n\n".join([f"{title}\n{format_table(results)}"] + [
        strength_table(result, f"{name} ({model})") for name, result in strength.items()])
    return {**run, "model_label": model, "results": results, "strength": strength}, text


def _strength(explorer, query_set, limit: int | None) -> dict:
    """The strength words' reliability on a query set's questions (eval/strength.py)."""
    scored = [(query.text, {row for row, grade in relevant.items() if grade > 0})
              for query, relevant in judged(explorer, query_set, limit)[0]
              if not query.is_document]
    vectors = explorer.embedder.embed_queries([text for text, _ in scored]) if scored else []
    return reliability(explorer, scored, np.asarray(vectors))


def _small(args, settings: Settings, bar: Bar, names: list[str], columns) -> dict:
    """The small corpora of the dataset's pool -> {"model", "pool", "pool_papers", "rows"}."""
    folder = args.pool or pool_folder(settings.cache_dir, settings.model, args.pool_size)
    pool = open_pool(args.dataset, folder, settings.model, progress=bar.update,
                     size=args.pool_size)
    bar.close()
    scoring = Bar("scoring", unit="corpus")
    runs = small_runs(pool, args.dataset, names, args.sizes, args.draws, columns,
                      progress=scoring.update)
    scoring.close()
    model = model_label(pool.model.get("id"), pool.model.get("backend"),
                        pool.model.get("precision"))
    small = {"model": model, "pool": str(folder), "pool_papers": len(pool.papers),
             "sizes": args.sizes, "draws": args.draws, "rows": summarise(runs)}
    return {**small, "runs": runs} if args.per_query else small


def _seeds(args, settings: Settings, bar: Bar, judgments, columns) -> dict:
    """The seed set scored over an index of the seeds folder (built in the cache)."""
    explorer, summary = seed_index(args.seeds, settings.cache_dir, settings.model, bar.update)
    bar.close()
    print(f"explorer: seeds index: {safe_text(summary)}", file=sys.stderr)
    vectors = explorer.embedder.embed_queries([query for query, _ in judgments.questions])
    scored = score_seeds(Corpus.of_index(explorer), vectors, judgments,
                         columns)
    targets = [(query, {target_row(explorer.papers, marker)})
               for query, marker in judgments.questions]
    model = explorer.manifest.model
    return {"model": model_label(model.model_id, model.backend, model.precision),
            "folder": str(args.seeds), "judgments": str(args.seed_judgments), **scored,
            "strength": reliability(explorer, targets, vectors)}


def _title(report: dict, model: str) -> str:
    return label(report["date"], report["machine"], model)


def _models(report: dict) -> str:
    """The model(s) behind the ranking tables: the whole dataset's and the pool's."""
    found = [report.get("model_label"), report.get("small", {}).get("model")]
    return " / ".join(dict.fromkeys(m for m in found if m))
