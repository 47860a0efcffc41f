"""The app's first answer loads no torch: its modules, the index opened as the app opens it
(shell.load_explorer: Explorer.open, warm) and one question."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from explorer.model.embedder import TORCH
from tests.app_fixtures import ROOT

SCRIPT = """
import json, sys
import explorer.app.shell  # the pages' modules: all a first answer has loaded by then
from explorer.query.engine import Explorer

HEAVY = ("torch", "sentence_transformers", "transformers")
index = Explorer.open(sys.argv[1], warm=True)
hits = [hit.paper.paper_id for hit in index.search("graph neural networks")]
print(json.dumps({"hits": hits, "backend": index.embedder.backend,
                  "heavy": sorted(m for m in HEAVY if m in sys.modules)}))
"""


def test_the_apps_first_answer_loads_no_torch(seeds_index, seeds_explorer, cpu_branch):
    """No torch, transformers or sentence-transformers (their import alone costs seconds)
    unless torch is the backend; the answer is the one the library gives."""
    env = {**os.environ, "EXPLORER_INDEX": str(seeds_index)}
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(seeds_index)], capture_output=True,
                            text=True, env=env, cwd=ROOT, check=True, timeout=300)
    found = json.loads(result.stdout.splitlines()[-1])
    expected = [hit.paper.paper_id for hit in seeds_explorer.search("graph neural networks")]
    assert found["hits"] == expected
    cpu_branch(f"the app's first answer runs {found['backend']}")
    if found["backend"] == TORCH:
        pytest.skip("no exported backend runs on this machine: torch is the fallback")
    assert found["heavy"] == []
