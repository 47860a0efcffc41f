"""What a test run makes once, however many pytest-xdist workers run it: the session fixtures'
indexes (conftest.py seeds_index, venue_fixtures, years_fixtures, app_fixtures' small_index),
and the session's Streamlit servers (tests/shared.py), whose users run on one worker."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer import files

SERVERS = ("seeds_server", "small_server", "venue_server")  # tests/shared.py's fixtures
# Files run as one file under `--dist loadfile`, by what their text names: the server users (one
# server start each), and the Ray files (a local ray.init() beside another worker's `ray start`
# cluster may join that cluster; two Ray instances on two cores starve each other).
TOGETHER = {"servers": SERVERS, "ray": ('importorskip("ray"',)}
BUILD_WAIT = 3600.0  # seconds a worker waits for another worker's build of the same thing


def made_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Path]) -> Path:
    """`make(folder)` (-> a path inside `folder`, e.g. an index it built there) in a new temp
    folder, once per process. Under pytest-xdist the workers share it: the first to ask makes
    it in the run's common temp folder under a lock, the others wait and get the same path, so
    a session fixture made this way costs one build however many workers use it. Its users
    read what it made and never change it (they change a copy: shutil.copytree)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make(factory.mktemp(name))
    root = factory.getbasetemp().parent  # the run's folder, above each worker's own
    folder, made = root / name, root / f"{name}.made"
    with files.FolderLock(root, BUILD_WAIT, name=f".{name}.lock"):
        if not made.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # a killed worker's half-made one
            folder.mkdir()
            made.write_text(str(make(folder).relative_to(folder)), encoding="utf-8")
    return folder / made.read_text(encoding="utf-8")


def file_scheduler(config: pytest.Config, log):
    """pytest-xdist's `loadfile` scheduling, with the test files of each TOGETHER group taken
    as one file: their tests run on one worker (each server starts once per run; one Ray at a
    time). (`loadgroup` would say so with marks, but pytest-xdist 3.8 appends a test's group to
    `item._nodeid`, which pytest 9.2 no longer reads: its groups never reach the scheduler.)"""
    from xdist.scheduler import LoadFileScheduling

    root, scopes = config.rootpath, {}

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = super()._split_scope(nodeid)
            if file not in scopes:
                path = root / file
                text = path.read_text(encoding="utf-8") if path.is_file() else ""
                scopes[file] = next((group for group, names in TOGETHER.items()
                                     if any(name in text for name in names)), file)
            return scopes[file]

    return Scheduling(config, log)
