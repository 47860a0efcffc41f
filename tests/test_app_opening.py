"""The app's index opened early (explorer/app/opening.py): once per process, taken by the first
load of that build, opened anew for any other, and an early failure reported by the page's open."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.app_fixtures import ROOT

SCRIPT = """
import json, sys
from pathlib import Path
from explorer.app import opening
from explorer.artifacts.store import read_manifest
from explorer.errors import ExplorerError
from explorer.query.engine import Explorer
from explorer.ui.page import build_key

opens = []
real_open = Explorer.open
def counted(*args, **kwargs):
    opens.append(str(args[0]))
    return real_open(*args, **kwargs)
Explorer.open = counted
folder = sys.argv[1]
opening.open_early()
opening.open_early()  # a rerun: no second open
found = {"early": len(opens)}
if Path(folder, "manifest.json").is_file():
    explorer = opening.opened(folder, build_key(read_manifest(Path(folder))))
    found["first"] = len(opens)
    found["hits"] = [hit.paper.paper_id for hit in explorer.search("graph neural networks")]
    opening.opened(folder, "another build")
    found["other"] = len(opens)
else:
    try:
        opening.opened(folder, "none")
    except ExplorerError as exc:
        found["error"] = type(exc).__name__
print(json.dumps(found))
"""


def _run(index: Path) -> dict:
    env = {**os.environ, "EXPLORER_INDEX": str(index)}
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(index)], capture_output=True,
                            text=True, env=env, cwd=ROOT, check=True, timeout=300)
    return json.loads(result.stdout.splitlines()[-1])


def test_the_first_load_takes_the_index_opened_early(seeds_index, seeds_explorer):
    found = _run(seeds_index)
    assert found["early"] == 1  # started by the first call only
    assert found["first"] == 1  # taken, not opened twice
    expected = [hit.paper.paper_id for hit in seeds_explorer.search("graph neural networks")]
    assert found["hits"] == expected
    assert found["other"] == 2  # another build is opened anew


def test_a_missing_index_is_reported_by_the_pages_open(tmp_path):
    found = _run(tmp_path / "no-index")
    assert found["early"] == 0  # nothing to open early
    assert found["error"] == "IndexMissingError", found
