"""`explorer build`: a corpus embedded into an index folder, with a progress bar."""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.cli.support import INDEX_HELP, Bar, positive_int
from explorer.cli.terminal import safe_json, safe_text
from explorer.corpus.readers import format_names
from explorer.features.upgrade.cli import add_upgrade_flag, after_build, model_to_build
from explorer.index.dense import INDEX_TYPES
from explorer.ingest.run import AUTO, LOCK_WAIT
from explorer.model.distributed import ENGINES, LOCAL
from explorer.settings import DEFAULT_CORPUS, Settings


def add_build(commands) -> None:
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
