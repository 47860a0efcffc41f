"""The index opened early: the app's first script run starts opening it on a thread, before the
pages' modules import (Streamlit's charts, pandas, plotly, pydeck: about as long as the model's
load), so the first answer waits for the slower of the two instead of their sum.

Once per server process, for the index the environment names; `opened` (shell.load_explorer)
takes it when it is the build asked for, else opens that build now. An early open that failed
is opened again by `opened`, which reports the error on the page as any open does."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from explorer.artifacts.store import read_manifest
from explorer.query.engine import Explorer
from explorer.settings import Settings
from explorer.ui.page import build_key

Key = tuple[str, str, str | None]  # (index folder, build key, query model)
_LOCK = threading.Lock()
_EARLY: list[tuple[Key, Future[Explorer]]] = []  # at most one, until taken
_STARTED = threading.Event()
_OPENER = ThreadPoolExecutor(1, thread_name_prefix="explorer-open")


def open_early() -> None:
    """Start opening the environment's index on a thread (the first call in a process only)."""
    with _LOCK:
        if _STARTED.is_set():
            return
        _STARTED.set()
    try:
        settings = Settings.from_env()
        folder = str(settings.index_dir)
        key = (folder, build_key(read_manifest(Path(folder))), settings.query_model)
    except Exception:  # noqa: BLE001 (no index yet, a bad setting: the page's own open says so)
        return
    with _LOCK:
        _EARLY.append((key, _OPENER.submit(Explorer.open, folder, model=key[2], warm=True)))


def opened(folder: str, build: str, model: str | None = None) -> Explorer:
    """The Explorer of `folder`'s build `build`: the one opened early when it is that one,
    else opened now (`model`: EXPLORER_MODEL, which embeds the questions)."""
    with _LOCK:
        early = _EARLY.pop() if _EARLY else None
    if early is not None and early[0] == (folder, build, model):
        try:
            return early[1].result()
        except Exception:  # noqa: BLE001 (opened again below, where the error reaches the page)
            pass
    return Explorer.open(folder, model=model, warm=True)  # the model loads with the index
