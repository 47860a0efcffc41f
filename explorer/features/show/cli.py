"""`explorer show ID [--json]`: everything the index knows about one paper
(features/show/record.py's sections), as text or JSON."""

from __future__ import annotations

import textwrap
from typing import Any

from explorer.cli.support import INDEX_HELP
from explorer.cli.terminal import safe_json, safe_text
from explorer.corpus.markup import readable
from explorer.settings import Settings

WIDTH = 100
HEAD = ("paper_id", "title", "title_is_derived", "abstract")  # printed first, not as fields


def add_show(commands) -> None:
    """The `show` verb."""
    show = commands.add_parser(
        "show", help="everything the index knows about one paper",
        description="A paper's fields (status, venue, track, ids, ...), its other versions, "
        "its close relatives and its topic.")
    show.add_argument("paper_id", metavar="ID", help="a paper id (or an alias of one)")
    show.add_argument("--index", help=INDEX_HELP)
    show.add_argument("--json", action="store_true", help="print JSON instead of text")
    show.set_defaults(run=_show)


def _show(args, settings: Settings, parser) -> int:
    from explorer.features.show.record import paper_record
    from explorer.query.engine import Explorer

    record = paper_record(Explorer.open(settings.index_dir), args.paper_id)
    print(safe_json(record, indent=2) if args.json else "\n".join(text_lines(record)))
    return 0


def text_lines(record: dict[str, Any]) -> list[str]:
    """A paper_record as terminal lines (every text made safe for a terminal)."""
    paper = record["paper"]
    lines = [safe_text(paper["title"]), f"id {safe_text(paper['paper_id'])}"]
    for name, value in paper.items():
        if name not in HEAD and value not in (None, [], {}, ""):
            lines.extend(_field_lines(name, value))
    abstract = " ".join(readable(paper["abstract"])[0].split())
    lines += ["", *textwrap.wrap(safe_text(abstract), WIDTH)]
    for version in record.get("versions", ()):
        lines.append(_titled("version", version, f"{_where(version)}"))
    for kind, label in (("references", "cites"), ("cited_by", "cited by")):
        for paper in record.get(kind, ()):
            lines.append(_titled(label, paper, _where(paper)))
    for relative in record.get("relatives", ()):
        lines.append(_titled("relative", relative, f"cosine {relative['score']:.3f}"))
    if topic := record.get("topic"):
        lines += ["", safe_text(f"topic {topic['id']}: {topic['name']}")]
    return lines


def _field_lines(name: str, value: Any) -> list[str]:
    if isinstance(value, dict):
        return [line for key, inner in value.items() for line in _field_lines(key, inner)]
    text = "; ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    return [safe_text(f"{name}: {textwrap.shorten(text, WIDTH * 3, placeholder=' …')}")]


def _where(paper: dict[str, Any]) -> str:
    return " ".join(str(x) for x in (paper.get("venue"), paper.get("year"), paper.get("status"))
                    if x)


def _titled(kind: str, paper: dict[str, Any], detail: str) -> str:
    return safe_text(f"{kind}: {paper['paper_id']} · {paper['title']} · {detail}")
