"""`explorer collection new|list|show|add|remove|rename|delete|export|import`: saved collections
of papers (explorer/collections/), kept in the user data folder (EXPLORER_DATA), and the papers
of one for `explorer recommend --collection NAME` (and `explorer missed --collection NAME`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from explorer.cli.support import INDEX_HELP
from explorer.cli.terminal import safe_json, safe_text
from explorer.errors import ExplorerError, IndexMissingError
from explorer.features.collections.records import Collection, split_known
from explorer.features.collections.store import Collections
from explorer.settings import Settings

FORMATS = ("bibtex", "ris", "csl-json", "csv")


def add_collection(commands) -> None:
    """The `collection` verb and its actions."""
    verb = commands.add_parser("collection", help="saved collections of papers (your own lists)")
    actions = verb.add_subparsers(dest="collection_command", required=True, metavar="ACTION")
    for name, help_text, run, ids in (
        ("new", "create a collection, optionally with papers", _new, "*"),
        ("list", "the saved collections", _list, None),
        ("show", "a collection's papers (and which this index lacks) and its link", _show, None),
        ("add", "add papers (checked against the index)", _add, "+"),
        ("remove", "remove papers", _remove, "+"),
        ("rename", "give a collection another name", _rename, None),
        ("delete", "delete a collection", _delete, None),
        ("export", "a collection's papers as BibTeX, RIS, CSL-JSON or CSV", _export, None),
        ("import", "a new collection of the papers of a .bib (.ris, CSL-JSON) this index has",
         _import, None),
    ):
        action = actions.add_parser(name, help=help_text)
        if name != "list":
            action.add_argument("name", help="the collection's name (any text; quote it)")
        if name == "rename":
            action.add_argument("new_name", help="its new name")
        if name == "import":
            action.add_argument("file", metavar="FILE",
                                help="a reference list: .bib (BibTeX), .ris or .json (CSL-JSON)")
        if ids:
            action.add_argument("paper_ids", nargs=ids, metavar="ID", help="paper ids")
        if name in ("new", "add", "show", "export", "import"):
            action.add_argument("--index", help=INDEX_HELP)
        if name in ("new", "add"):
            action.add_argument("--no-check", dest="check", action="store_false",
                                help="keep ids this index lacks (e.g. for another index)")
        if name == "show":
            action.add_argument("--base", default="", metavar="URL",
                                help="the app's address, to print a full link")
        if name == "export":
            action.add_argument("--format", choices=FORMATS, default="bibtex")
            action.add_argument("--abstract", action="store_true",
                                help="include the abstracts in the citations")
            action.add_argument("--out", type=Path, help="write to this file (default: stdout)")
        else:
            action.add_argument("--json", action="store_true", help="print JSON")
        action.set_defaults(run=run)


def liked_papers(settings: Settings, name: str, papers) -> list[str]:
    """The ids of collection `name` that the index `papers` has, for `recommend --collection`;
    the ones it lacks are named on stderr. ExplorerError when it has none of them."""
    collection = Collections.at(settings.data_dir).get(name)
    known, missing = split_known(collection.paper_ids, papers)
    _warn_missing(collection, missing)
    if not known:
        raise ExplorerError(f"None of the {len(collection.paper_ids)} papers of collection "
                            f"{collection.name!r} is in this index. Use the index it was made "
                            "with (--index), or add papers of this one.")
    return known


def _store(settings: Settings) -> Collections:
    return Collections.at(settings.data_dir)


def _new(args: argparse.Namespace, settings: Settings, parser) -> int:
    ids = _checked(args, settings) if args.paper_ids else []
    return _print(_store(settings).create(args.name, ids), args, "created")


def _add(args: argparse.Namespace, settings: Settings, parser) -> int:
    return _print(_store(settings).add(args.name, _checked(args, settings)), args, "added to")


def _remove(args: argparse.Namespace, settings: Settings, parser) -> int:
    store = _store(settings)
    absent = set(args.paper_ids) - set(store.get(args.name).paper_ids)
    if absent:
        print(f"explorer: note: not in the collection: {safe_text(', '.join(sorted(absent)))}",
              file=sys.stderr)
    return _print(store.remove(args.name, args.paper_ids), args, "removed from")


def _rename(args: argparse.Namespace, settings: Settings, parser) -> int:
    return _print(_store(settings).rename(args.name, args.new_name), args, "renamed")


def _delete(args: argparse.Namespace, settings: Settings, parser) -> int:
    return _print(_store(settings).delete(args.name), args, "deleted")


def _list(args: argparse.Namespace, settings: Settings, parser) -> int:
    listing = _store(settings).listing()
    for problem in listing.problems:
        print(f"explorer: warning: {safe_text(problem)}", file=sys.stderr)
    if args.json:
        print(safe_json([c.to_dict() for c in listing.collections], indent=2))
        return 0
    if not listing.collections:
        print("No collections yet. Create one with `explorer collection new NAME [ID ...]`.")
    for collection in listing.collections:
        print(f"{safe_text(collection.name)}\t{len(collection.paper_ids)} papers\t"
              f"changed {collection.updated}")
    return 0


def _show(args: argparse.Namespace, settings: Settings, parser) -> int:
    from explorer.features.collections.ui import collection_link

    collection = _store(settings).get(args.name)
    papers = _index_or_none(settings)
    url, cut = collection_link(args.base, collection.paper_ids)
    rows = [_row(paper_id, papers) for paper_id in collection.paper_ids]
    if args.json:
        print(safe_json({**collection.to_dict(), "link": url, "papers": rows}, indent=2))
        return 0
    print(f"{safe_text(collection.name)}: {len(rows)} papers")
    for row in rows:
        title = row["title"] if row["in_index"] else "(missing from this index)"
        print(f"  {safe_text(row['paper_id'])}\t{safe_text(title or '')}")
    print(f"link: {safe_text(url)}" + (f"  ({cut})" if cut else ""))
    return 0


def _export(args: argparse.Namespace, settings: Settings, parser) -> int:
    from explorer.features.exports.ui import export_text
    from explorer.files import atomic_write
    from explorer.query.engine import Explorer
    from explorer.ui.export import to_csv

    collection = _store(settings).get(args.name)
    explorer = Explorer.open(settings.index_dir, model=settings.query_model)
    known, missing = split_known(collection.paper_ids, explorer)
    _warn_missing(collection, missing)
    papers = [explorer.paper(paper_id) for paper_id in known]
    text = (to_csv(papers) if args.format == "csv"
            else export_text(papers, args.format, abstract=args.abstract))
    if args.out is None:
        sys.stdout.write(text)
        return 0
    atomic_write(args.out, lambda tmp: tmp.write_text(text, encoding="utf-8", newline=""))
    print(f"wrote {len(papers)} papers to {safe_text(str(args.out))}", file=sys.stderr)
    return 0


def _import(args: argparse.Namespace, settings: Settings, parser) -> int:
    """The entries of a reference list that this index has (matched by DOI, arXiv id,
    abstract or title) become a new collection; the others are named."""
    from explorer.cli.support import cited_from_file
    from explorer.query.engine import Explorer

    explorer = Explorer.open(settings.index_dir, model=settings.query_model)
    cited = cited_from_file(args.file, settings, explorer, name_missing=False)
    if not cited.paper_ids:
        raise ExplorerError(f"None of the {cited.entries} entries of {args.file} is in this "
                            "index, so no collection was made. Use the index of the corpus "
                            "they come from (--index), or build one with the file in it.")
    collection = _store(settings).create(args.name, cited.paper_ids)
    if args.json:
        print(safe_json({**collection.to_dict(), "not_in_index": [
            {"entry_id": e.paper_id, "title": e.title, "source": e.sources[0] if e.sources else ""}
            for e in cited.missing], "unparsed": list(cited.unparsed)}, indent=2))
        return 0
    print(f"created {safe_text(collection.name)}: {len(collection.paper_ids)} papers")
    for entry in cited.missing:
        print(f"  not in this index: {safe_text(entry.title)} ({safe_text(entry.paper_id)})")
    return 0


def _checked(args: argparse.Namespace, settings: Settings) -> Sequence[str]:
    """The ids given, each as the index's own id; an unknown id is refused (with close ids)
    unless --no-check."""
    if not args.check:
        return args.paper_ids
    from explorer.query.engine import Explorer

    explorer = Explorer.open(settings.index_dir, model=settings.query_model)
    return [explorer.paper(paper_id).paper_id for paper_id in args.paper_ids]


def _index_or_none(settings: Settings):
    from explorer.query.engine import Explorer

    try:
        return Explorer.open(settings.index_dir, model=settings.query_model)
    except IndexMissingError:
        print(f"explorer: note: no index in {safe_text(str(settings.index_dir))}; titles are "
              "not shown (give --index DIR)", file=sys.stderr)
        return None


def _row(paper_id: str, papers) -> dict:
    if papers is None:
        return {"paper_id": paper_id, "in_index": None, "title": None}
    known, _ = split_known([paper_id], papers)
    if not known:
        return {"paper_id": paper_id, "in_index": False, "title": None}
    return {"paper_id": paper_id, "in_index": True, "title": papers.paper(paper_id).title}


def _warn_missing(collection: Collection, missing: Sequence[str]) -> None:
    if missing:
        shown = ", ".join(missing[:20]) + (" …" if len(missing) > 20 else "")
        print(f"explorer: note: {len(missing)} of the {len(collection.paper_ids)} papers of "
              f"{safe_text(collection.name)} are not in this index (they stay in the collection): "
              f"{safe_text(shown)}", file=sys.stderr)


def _print(collection: Collection, args: argparse.Namespace, what: str) -> int:
    if args.json:
        print(safe_json(collection.to_dict(), indent=2))
    else:
        print(f"{what} {safe_text(collection.name)}: {len(collection.paper_ids)} papers")
    return 0
