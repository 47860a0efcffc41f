"""What a web user may see of the server: no absolute paths, no links but http(s).

Source files are shown relative to the corpus's common folder, messages lose their server
paths, and a paper's link is shown only when it is a plain web address.
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import PurePath
from typing import Any, Protocol
from urllib.parse import urlsplit

from explorer.corpus.papers import Paper
from explorer.query.hits import Hit
from explorer.ui.links import Location
from explorer.ui.text import escape_markdown, plain

_ABSOLUTE = re.compile(r"(?<![\w.:/~-])/(?:[^\s/`'\"]+/)*[^\s/`'\"]*")


class Faceted(Protocol):
    """Lists the values present in a corpus (an Explorer is one)."""

    def facets(self) -> dict[str, list]: ...

    def facet_counts(self) -> dict[str, list[list]]: ...


def corpus_root(files: Iterable[str]) -> str:
    """The common parent folder of `files` ("" when there is none, e.g. relative and absolute
    paths mixed)."""
    parents = {os.path.dirname(os.path.normpath(path)) for path in files}
    try:
        return os.path.commonpath(parents) if parents else ""
    except ValueError:
        return ""


def public_path(path: str, root: str) -> str:
    """`path` as a web user may see it: relative to `root` when inside it, else its name."""
    path = os.path.normpath(path)
    if root and path != root and path.startswith(root.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, root)
    return PurePath(path).name or path


def source_names(files: Sequence[str]) -> dict[str, str]:
    """{name shown in the app: source file} for the corpus's source files."""
    root = corpus_root(files)
    names: dict[str, str] = {}
    for path in files:
        name = shown = public_path(path, root)
        number = 1
        while shown in names:  # only when no common root made the names unique
            number += 1
            shown = f"{name} ({number})"
        names[shown] = path
    return names


def public_paper(paper: Paper, root: str) -> Paper:
    """`paper` with its sources ("file:line") named relative to the corpus `root`."""
    def public(source: str) -> str:
        file = source.rsplit(":", 1)[0].split("#")[0]
        return public_path(file, root) + source[len(file):]

    return replace(paper, sources=tuple(public(source) for source in paper.sources))


def public_message(text: str, names: Mapping[str, str] | None = None) -> str:
    """`text` without server paths: each of `names` (path -> shown name) replaced, then any
    other absolute path cut to its last part."""
    for path, shown in sorted((names or {}).items(), key=lambda item: -len(item[0])):
        if path and os.path.isabs(path):
            text = text.replace(path.rstrip("/"), shown)
    return _ABSOLUTE.sub(lambda match: PurePath(match.group()).name or match.group(), text)


def safe_url(url: str | None) -> str | None:
    """`url` when it is a plain http(s) address (the one link a card may show), else None."""
    if not url or any(char.isspace() or ord(char) < 32 for char in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.hostname else None


def public_items(items: Sequence[Hit | Paper], root: str) -> list[Hit | Paper]:
    """Hits or papers with their sources named as `public_paper` does (for the CSV export)."""
    return [replace(item, paper=public_paper(item.paper, root)) if isinstance(item, Hit)
            else public_paper(item, root) for item in items]


def error_text(error: Exception, folder: str) -> tuple[str, list[str]]:
    """Markdown for a problem with the index in `folder` (no server paths, any text escaped),
    and the commands its message names."""
    shown = public_path(folder, "")
    message = public_message(str(error), {os.path.abspath(folder): shown, folder: shown})
    commands = re.findall(r"`([^`]+)`", message)
    return f"Cannot use the index in `{escape_markdown(shown)}`: {escape_markdown(message)}", commands


def unknown_notice(paper_ids: Sequence[str]) -> str:
    """Markdown naming the ids of a link that this index lacks (escaped: links come from anyone)."""
    names = ", ".join(plain(pid, 60) for pid in paper_ids[:10]) + (" …" if len(paper_ids) > 10 else "")
    return f"This link names papers not in this index: {escape_markdown(names)}."


_FACETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # never keeps an Explorer alive


def public_facets(explorer: Faceted) -> dict[str, Any]:
    """Explorer.facets() with source files by their public names, plus `source_files`
    ({public name: file}) and the corpus `root`; computed once per Explorer."""
    if explorer not in _FACETS:
        facets = dict(explorer.facets())
        files = source_names(facets["sources"])
        facets.update(sources=list(files), source_files=files, root=corpus_root(files.values()),
                      fields=explorer.facet_counts())  # features/facets/
        _FACETS[explorer] = facets
    return _FACETS[explorer]


def narrowing(facets: Mapping[str, Any], location: Location) -> tuple:
    """The location's filters as a hashable cache key: (venues, source files, year_min,
    year_max, authors), the sources named by their files (a location holds their public
    names); `facets` as public_facets."""
    files = facets["source_files"]
    sources = tuple(files[name] for name in location.sources if name in files)
    return location.venues, sources, location.year_min, location.year_max, location.authors
