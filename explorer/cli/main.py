"""The command line: parse, call the library, print. Errors become one line and an exit code."""

from __future__ import annotations

import argparse
import logging
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

from explorer.cli.evaluation import add_eval
from explorer.cli.models import add_model
from explorer.cli.support import (
    EXIT_ERROR,
    Bar,
    author_name,
    describe,
    fail,
    positive_int,
    year,
)
from explorer.cli.terminal import safe_json, safe_text
from explorer.corpus.markup import readable
from explorer.corpus.readers import format_names
from explorer.errors import ExplorerError
from explorer.features.collections.cli import add_collection, liked_papers
from explorer.features.drafts.cli import add_missed
from explorer.features.exports.cli import add_export
from explorer.features.facets.cli import add_facets, add_filter_option, facet_filters
from explorer.features.new.cli import add_new
from explorer.features.relatives.cli import add_relatives
from explorer.features.show.cli import add_show
from explorer.features.topics.cli import add_topics
from explorer.features.upgrade.cli import add_upgrade_flag, after_build, model_to_build
from explorer.features.versions.cli import versions_text
from explorer.features.years.cli import add_by_year, year_lines, years_record
from explorer.features.years.cli import ranked as ranked_by_year
from explorer.index.dense import INDEX_TYPES
from explorer.ingest.run import AUTO, LOCK_WAIT
from explorer.model.distributed import ENGINES, LOCAL
from explorer.query.engine import DEFAULT_RECOMMENDER, RECOMMENDERS
from explorer.ranking.filters import MAX_AUTHORS
from explorer.ranking.fusion import MODES
from explorer.settings import DEFAULT_CORPUS, DEFAULT_INDEX_DIR, Settings
from explorer.wording import NOTHING_RELEVANT, nothing_relevant, score_line

EXIT_USAGE = 2
INDEX_HELP = f"index folder (default: EXPLORER_INDEX or {DEFAULT_INDEX_DIR})"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Every failure ends in one line on stderr and a non-zero exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    _show_notices()
    settings = Settings()  # the defaults (debug off) should reading the environment itself fail
    try:
        settings = Settings.from_env(index_dir=getattr(args, "index", None),
                                     model=getattr(args, "model", None),
                                     batch_size=getattr(args, "batch_size", None))
        return args.run(args, settings, parser)
    except ExplorerError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        print("explorer: interrupted; the previous index is unchanged.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `explorer search ... | head`: the reader left, nothing to say
        sys.stderr.close()
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence: one clear line
        return fail(describe(exc), unexpected=True, debug=settings.debug)


def _show_notices() -> None:
    """Print the library's INFO and WARNING lines (e.g. the model being prepared once) on
    stderr as the CLI's own: 'explorer: ...'. Only the library's logger: a dependency's log
    lines stay as the dependency leaves them."""
    library = logging.getLogger("explorer")
    if not any(isinstance(handler, _Notices) for handler in library.handlers):
        library.addHandler(_Notices())
        library.setLevel(logging.INFO)


class _Notices(logging.Handler):
    """Writes a log line to the sys.stderr of the moment (tests swap it), as 'explorer: ...'."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(f"explorer: {record.getMessage()}", file=sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr closed or gone: nobody to tell
            pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explorer", description="Semantic search and related papers over abstracts.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in VERBS:
        add(commands)
    return parser


def _add_build(commands) -> None:
    build = commands.add_parser("build", help="embed a corpus into an index folder")
    build.add_argument("paths", nargs="*", default=[DEFAULT_CORPUS], metavar="PATH",
                       help=f"files or folders: {format_names()} (optionally .gz)")
    build.add_argument("--out", type=Path, help=INDEX_HELP)
    build.add_argument("--model", help="model name or local sentence-transformers folder")
    build.add_argument("--index-type", default=AUTO, choices=[AUTO, *INDEX_TYPES])
    build.add_argument("--batch-size", type=positive_int)  # default: Settings.batch_size
    build.add_argument("--wait", type=float, default=LOCK_WAIT, metavar="SECONDS",
                       help="how long to wait for another build of the same folder "
                       f"(default {LOCK_WAIT:g})")
    build.add_argument("--engine", default=LOCAL, choices=ENGINES,
                       help="where to embed: this machine, or a Ray cluster (RAY_ADDRESS)")
    stored = build.add_mutually_exclusive_group()
    stored.add_argument("--sentences", dest="sentences", action="store_const", const=True,
                        help="also store a vector per abstract sentence, after the index is "
                        "usable (instant explanations; about doubles the build). Default: as "
                        "the folder's last build; a new folder embeds a paper's sentences the "
                        "first time it is explained")
    stored.add_argument("--no-sentences", dest="sentences", action="store_const", const=False,
                        help="store no sentence vectors (drop those of the folder's last build)")
    build.add_argument("--json", action="store_true",
                       help="print the build's report (counts, seconds per stage) as JSON")
    add_upgrade_flag(build)
    build.set_defaults(run=_build)


def _add_search(commands) -> None:
    _add_ask(commands, "search", "query", "papers that answer a question in plain language")


def _add_similar(commands) -> None:
    _add_ask(commands, "similar", "paper_id", "papers most like a given paper")


def _add_ask(commands, name: str, target: str, help_text: str) -> None:
    """`search QUERY` or `similar PAPER_ID`: one input, or one per line of --batch FILE."""
    command = commands.add_parser(name, help=help_text)
    command.add_argument(target, nargs="?", help="omit when --batch is given")
    command.add_argument("--batch", metavar="FILE",
                         help="one input per line ('-' for stdin); prints JSON lines")
    _add_query_options(command)
    command.add_argument("--mode", choices=MODES,
                         help="ranking: BM25, embeddings, or both fused (default: the index's)")
    command.add_argument("--explain", action="store_true",
                         help="show the best-matching sentences and shared terms of each hit")
    command.add_argument("--no-feedback", dest="feedback", action="store_false",
                         help="hybrid without its pseudo-relevance feedback pass")
    command.set_defaults(run=_ask, verb=name)


def _add_recommend(commands) -> None:
    recommend = commands.add_parser("recommend", help="papers like several papers at once")
    recommend.add_argument("--like", nargs="+", default=[], metavar="ID")
    recommend.add_argument("--unlike", nargs="+", default=[], metavar="ID")
    recommend.add_argument("--query", help="optional text that steers the recommendation")
    recommend.add_argument("--collection", metavar="NAME",
                           help="like the papers of this saved collection (with any --like)")
    methods = [DEFAULT_RECOMMENDER, *(m for m in RECOMMENDERS if m != DEFAULT_RECOMMENDER)]
    recommend.add_argument("--method", choices=methods, default=DEFAULT_RECOMMENDER,
                           help="per-request linear SVM (default) or the mean of the liked papers")
    _add_query_options(recommend)
    recommend.set_defaults(run=_recommend)


def _add_info(commands) -> None:
    info = commands.add_parser("info", help="what an index holds")
    info.add_argument("--index", help=INDEX_HELP)
    info.add_argument("--json", action="store_true")
    info.set_defaults(run=_info)


def _add_query_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--index", help=INDEX_HELP)
    command.add_argument("--model", help="must be the model the index was built with")
    command.add_argument("--k", type=positive_int, default=10,
                         help="how many results (default 10)")
    command.add_argument("--json", action="store_true", help="print JSON instead of a list")
    command.add_argument("--venue", action="append", default=[], help="only this venue")
    command.add_argument("--author", action="append", default=[], metavar="NAME",
                         type=author_name, help="only papers by this person (repeatable): "
                         "'Sergey Levine', 'S. Levine', 'Levine, Sergey' and 'Schölkopf' / "
                         "'Scholkopf' match alike")
    command.add_argument("--year-min", type=year)
    command.add_argument("--year-max", type=year)
    command.add_argument("--diverse", action="store_true",
                         help="re-rank for variety (MMR) so near-copies do not fill the list")
    add_filter_option(command)
    add_by_year(command)


# The verbs, in the order `explorer --help` lists them: each adds its subcommand (a feature's
# verb lives in features/<feature>/cli.py; tests/test_layout.py checks that each is here).
VERBS = (_add_build, _add_search, _add_similar, _add_recommend, add_missed, add_relatives, add_eval,
         _add_info, add_model, add_collection, add_export, add_topics, add_facets, add_show,
         add_new)


def _build(args, settings: Settings, parser) -> int:
    from explorer.ingest.run import build

    bar = Bar()
    out = args.out or settings.index_dir

    def usable(seconds: float) -> None:
        bar.close()
        print(f"explorer: {out} is searchable now ({seconds:.1f} s); adding the sentence vectors "
              "of explanations, which the app and the CLI use once they are written",
              file=sys.stderr, flush=True)

    report = build(args.paths, out, model_to_build(args, settings, out),
                   index_type=args.index_type,
                   batch_size=settings.batch_size, sentences=args.sentences, progress=bar.update,
                   engine=args.engine, wait=args.wait, max_file_bytes=settings.max_file_bytes,
                   on_usable=usable)
    bar.close()
    if args.json:
        print(safe_json(report.to_dict(), indent=2))
    else:
        print(safe_text(report.summary()))
        print(safe_text(report.stage_line()))
    after_build(args, settings, out)  # the stronger model, in the background (features/upgrade)
    return 0


def _ask(args, settings: Settings, parser) -> int:
    target = args.query if args.verb == "search" else args.paper_id
    if args.batch is None and (target is None or not target.strip()):
        parser.error(f"{args.verb}: give a non-empty {'query' if args.verb == 'search' else 'paper id'}"
                     " or --batch FILE")
    if args.k < 1:
        parser.error("--k must be at least 1")
    explorer, filters = _open(args, settings)
    verb = explorer.search if args.verb == "search" else explorer.similar

    def ask(text: str) -> tuple[list[dict], dict | None]:
        hits, years = ranked_by_year(lambda top_k: verb(
            text, top_k, filters, mode=args.mode, diverse=args.diverse,
            feedback=None if args.feedback else False), args.k, args.by_year)
        return (_with_explanations(explorer, hits, args, text),
                None if years is None else years_record(explorer, years))

    if args.batch is None:
        if args.verb == "search":
            note = explorer.query_note(target)
            if note:
                print(f"explorer: note: {safe_text(note)}", file=sys.stderr)
            if not args.json and (named := explorer.named(target, filters)):
                print(safe_text(f"{named.heading} first:"))
        _print_hits(*ask(target.strip()), args.json)
        return 0
    for line in _batch_lines(args.batch):
        try:
            results, years = ask(line)
            record = {"input": line, "results": results, **({"years": years} if years else {})}
        except ExplorerError as exc:
            record = {"input": line, "error": str(exc)}
        print(safe_json(record), flush=True)
    return 0


def _recommend(args, settings: Settings, parser) -> int:
    if not args.like and not args.collection and not (args.query and args.query.strip()):
        parser.error("recommend: give at least one --like ID, a --collection or a --query")
    explorer, filters = _open(args, settings)
    if args.query and (note := explorer.query_note(args.query)):
        print(f"explorer: note: {safe_text(note)}", file=sys.stderr)
    like = list(args.like)
    if args.collection:
        like += [i for i in liked_papers(settings, args.collection, explorer) if i not in like]
    hits, years = ranked_by_year(lambda top_k: explorer.recommend(
        like, args.unlike, args.query, top_k, filters, method=args.method, diverse=args.diverse),
        args.k, args.by_year)
    _print_hits([h.to_dict() for h in hits], None if years is None else years_record(
        explorer, years), args.json)
    return 0


def _info(args, settings: Settings, parser) -> int:
    from explorer.artifacts.store import read_manifest

    manifest = read_manifest(settings.index_dir)
    if args.json:
        print(safe_json(manifest.to_dict(), indent=2))
        return 0
    model = manifest.model
    print(safe_text(f"index     {settings.index_dir}/  ({manifest.index_type}, "
          f"{manifest.metric})\n"
          f"papers    {manifest.count}  (from {manifest.records} records, "
          f"{manifest.duplicates_merged} duplicates merged)\n"
          f"model     {model.model_id}  (dimension {model.dimension}, "
          f"max {model.max_seq_length} tokens)\n"
          f"built     {manifest.built_at} from {' '.join(manifest.inputs or ())}",
                    keep_newlines=True))
    return 0


def _open(args, settings: Settings):
    from explorer.query.engine import Explorer, Filters

    explorer = Explorer.open(settings.index_dir, model=settings.query_model)
    if len(args.author) > MAX_AUTHORS:
        raise ExplorerError(f"give at most {MAX_AUTHORS} --author names")
    filters = Filters(venues=frozenset(args.venue), year_min=args.year_min,
                      year_max=args.year_max, authors=frozenset(args.author),
                      facets=facet_filters(args.facets))
    return explorer, filters


def _batch_lines(source: str) -> Iterator[str]:
    if source == "-":
        handle = sys.stdin
    else:
        try:
            handle = open(source, encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise ExplorerError(f"cannot read batch file {source}: {exc.strerror}") from exc
    with handle:
        for line in handle:
            if line.strip():
                yield line.strip()


def _with_explanations(explorer, hits, args, text: str) -> list[dict]:
    """Hits as dicts; with --explain each carries an "explanation" (see
    explorer.features.explanations.explain)."""
    records = [h.to_dict() for h in hits]
    if args.explain:
        from explorer.features.explanations.explain import explain_hits

        reasons = explain_hits(explorer, hits, **(
            {"query": text} if args.verb == "search" else {"paper_id": text}))
        for record, reason in zip(records, reasons):
            record["explanation"] = reason
    return records


def _print_hits(hits: list[dict], years: dict | None, as_json: bool) -> None:
    """The hits (and with --by-year their `years`, years_record) as text or JSON."""
    if as_json:
        print(safe_json(hits if years is None else {"results": hits, "years": years}, indent=2))
        return
    from explorer.features.explanations.explain import explanation_lines

    if not hits:
        print("No results.")
    elif nothing_relevant(hit["strength"] for hit in hits):
        print(f"{NOTHING_RELEVANT}\n")
    for hit in hits:
        mark = "  [title derived from abstract]" if hit["title_is_derived"] else ""
        details = " · ".join(str(x) for x in (hit["venue"], hit["year"], hit.get("status")) if x)
        print(f"{hit['rank']:>2}. {safe_text(hit['title'])}{mark}")
        line = score_line(hit["score"], hit["strength"], hit["percentile"], hit["compared_with"],
                          detail=True, chance=hit["relevance"])
        print(f"    id {safe_text(hit['paper_id'])} · {line}"
              f"{' · ' + safe_text(details) if details else ''}")
        if hit.get("versions"):
            print(f"    {safe_text(versions_text(hit['versions']))}")
        abstract = safe_text(" ".join(readable(hit["abstract"])[0].split()))
        print(textwrap.indent(textwrap.shorten(abstract, 300, placeholder=" …"), "    "))
        for line in explanation_lines(hit.get("explanation", {})):
            print(f"    > {safe_text(line)}")
        print()
    if years is not None:
        print("\n".join(year_lines(years)))

