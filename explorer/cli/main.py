"""The command line: parse, call the library, print. Errors become one line and an exit code."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from explorer.cli.ask import add_recommend, add_search, add_similar
from explorer.cli.build import add_build
from explorer.cli.evaluation import add_eval
from explorer.cli.models import add_model
from explorer.cli.support import (
    EXIT_ERROR,
    INDEX_HELP,
    describe,
    fail,
)
from explorer.cli.terminal import safe_json, safe_text
from explorer.errors import ExplorerError
from explorer.features.collections.cli import add_collection
from explorer.features.drafts.cli import add_missed
from explorer.features.exports.cli import add_export
from explorer.features.facets.cli import add_facets
from explorer.features.new.cli import add_new
from explorer.features.relatives.cli import add_relatives
from explorer.features.show.cli import add_show
from explorer.features.topics.cli import add_topics
from explorer.settings import Settings

EXIT_USAGE = 2


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


def _add_info(commands) -> None:
    info = commands.add_parser("info", help="what an index holds")
    info.add_argument("--index", help=INDEX_HELP)
    info.add_argument("--json", action="store_true")
    info.set_defaults(run=_info)


# The verbs, in the order `explorer --help` lists them: each adds its subcommand (a feature's
# verb lives in features/<feature>/cli.py; tests/test_layout.py checks that each is here).
VERBS = (add_build, add_search, add_similar, add_recommend, add_missed, add_relatives, add_eval,
         _add_info, add_model, add_collection, add_export, add_topics, add_facets, add_show,
         add_new)


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


