"""The map's papers layer as a file the browser fetches: Streamlit's static serving (the app's
`static/` folder, served from 127.0.0.1 under `app/static/`), so the largest part of the map
never crosses the websocket and never walks through deck.gl's JSON converter, which visits
every object of an inline layer. Written once per index, zoom and format, atomically; the
chart names it by a URL relative to the page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from explorer.corpus.papers import Paper
from explorer.features.topics.ui_map import papers_data, papers_layer
from explorer.files import atomic_write, make_dirs

FOLDER = "maps"  # inside the app's static folder
FORMAT = "v1"  # papers_data's shape: a new one gets new files
KEEP = 32  # files kept; older ones go (Streamlit stops serving a static folder past 1 GB)
URL = "app/static/" + FOLDER + "/{name}"  # relative to the page (a base URL path is kept)


def file_name(index_key: str, zoom: str | None) -> str:
    """The file of one index (`index_key`: its build key) and zoom: only [0-9a-z.-] in it."""
    digest = hashlib.sha256(f"{FORMAT}\0{index_key}\0{zoom}".encode()).hexdigest()[:24]
    return f"papers-{digest}.json"


def served_layer(static: Path, name: str, corpus_map: Mapping[str, Any], papers: Sequence[Paper],
                 zoom_rows: Sequence[int] | None = None) -> str:
    """The papers layer (papers_layer) whose data is the file `name` in `static`/FOLDER, written
    there first when missing (OSError when it cannot be)."""
    path = static / FOLDER / name
    if not path.is_file():
        text = papers_data(corpus_map, papers, zoom_rows)
        make_dirs(path.parent)
        atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        prune(path.parent)
    return papers_layer(corpus_map, papers, data_url=URL.format(name=name))


def prune(folder: Path, keep: int = KEEP) -> None:
    """Remove all but the `keep` newest layer files of `folder` (another server may remove the
    same one at the same moment)."""
    files = sorted(folder.glob("papers-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[keep:]:
        old.unlink(missing_ok=True)
