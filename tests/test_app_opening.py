"""The app's index opened early (explorer/app/opening.py): once per process, taken by the first
load of that build, opened anew for any other, and an early failure reported by the page's open."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.model.embedder import TORCH
from tests.app_fixtures import ROOT

SCRIPT = """
import json, sys, threading
from pathlib import Path
from explorer.app import opening
from explorer.artifacts.store import read_manifest
from explorer.errors import ExplorerError
from explorer.query.engine import Explorer
from explorer.ui.page import build_key

HEAVY = ("torch", "sentence_transformers", "transformers")
opens = []
real_open = Explorer.open
def counted(*args, **kwargs):
    opens.append(threading.current_thread().name.split("_")[0])  # which thread opened
    return real_open(*args, **kwargs)
Explorer.open = counted
folder = sys.argv[1]
opening.open_early()
opening.open_early()  # a rerun: no second open
found = {}
if Path(folder, "manifest.json").is_file():
    index = opening.opened(folder, build_key(read_manifest(Path(folder))))
    found["first"] = list(opens)
    found["hits"] = [hit.paper.paper_id for hit in index.search("graph neural networks")]
    import explorer.app.shell  # the pages' modules: all a first answer has loaded by then
    found["backend"] = index.embedder.backend
    found["heavy"] = sorted(m for m in HEAVY if m in sys.modules)
    opening.opened(folder, "another build")
    found["other"] = list(opens)
else:
    try:
        opening.opened(folder, "none")
    except ExplorerError as exc:
        found["error"] = type(exc).__name__
    found["opens"] = opens
print(json.dumps(found))
"""


def _run(index: Path) -> dict:
    env = {**os.environ, "EXPLORER_INDEX": str(index)}
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(index)], capture_output=True,
                            text=True, env=env, cwd=ROOT, check=True, timeout=300)
    return json.loads(result.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def early(seeds_index) -> dict:
    return _run(seeds_index)


def test_the_first_load_takes_the_index_opened_early(early, seeds_explorer):
    found = early
    assert found["first"] == ["explorer-open"]  # opened early, once, and taken
    expected = [hit.paper.paper_id for hit in seeds_explorer.search("graph neural networks")]
    assert found["hits"] == expected
    assert found["other"] == ["explorer-open", "MainThread"]  # another build: opened anew


def test_a_missing_index_is_reported_by_the_pages_open(tmp_path):
    found = _run(tmp_path / "no-index")
    assert found["opens"] == ["MainThread"]  # nothing to open early: only the page's open
    assert found["error"] == "IndexMissingError", found


def test_the_apps_first_answer_loads_no_torch(early, cpu_branch):
    """The app's modules, the index opened early and its first answer: no torch, transformers
    or sentence-transformers (their import alone costs seconds) unless torch is the backend."""
    found = early
    cpu_branch(f"the app's first answer runs {found['backend']}")
    if found["backend"] == TORCH:
        pytest.skip("no exported backend runs on this machine: torch is the fallback")
    assert found["heavy"] == []
