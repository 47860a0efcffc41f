"""An index of an older format (issue 30): the query path refuses it with one line that names the
command to rebuild it, and that build (which `make run` runs) reuses every vector it holds.

The older index is one the current code wrote, its manifest set back to format 1: what an index
of the previous release looks like to the checks (the format is the only thing they read)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.manifest import FORMAT_VERSION, OLDEST_FORMAT, read_manifest
from explorer.cli.main import main
from explorer.errors import IndexInvalidError
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.conftest import SEEDS


def _downgrade(folder: Path, version: int = OLDEST_FORMAT) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**manifest, "format_version": version}), encoding="utf-8")


def test_an_older_index_is_refused_with_the_command_that_rebuilds_it(index_copy: Path, capsys):
    assert FORMAT_VERSION > OLDEST_FORMAT
    _downgrade(index_copy)
    with pytest.raises(IndexInvalidError) as refused:
        Explorer.open(index_copy)
    message = str(refused.value)
    assert f"format {OLDEST_FORMAT}" in message and "older version" in message
    assert f"--out {index_copy}`" in message and "`explorer build " in message
    assert main(["search", "robots", "--index", str(index_copy)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "explorer build" in err


def test_rebuilding_an_older_index_embeds_nothing_and_reads_again(index_copy: Path):
    before = Explorer.open(index_copy)
    vectors, ids = before.vectors.copy(), [paper.paper_id for paper in before.papers]
    _downgrade(index_copy)
    report = build([SEEDS], index_copy, "default")
    assert not report.up_to_date  # an older index is never current
    assert (report.embedded, report.reused) == (0, len(ids))
    assert read_manifest(index_copy).format_version == FORMAT_VERSION
    after = Explorer.open(index_copy)
    assert [paper.paper_id for paper in after.papers] == ids
    np.testing.assert_array_equal(after.vectors, vectors)
    assert after.search("robots learning to grasp", 3)


def test_a_format_from_the_future_or_from_nowhere_is_not_taken_for_an_older_one(index_copy: Path):
    for version in (FORMAT_VERSION + 1, OLDEST_FORMAT - 1):
        _downgrade(index_copy, version)
        with pytest.raises(IndexInvalidError, match=f"format {version}\\)") as refused:
            Explorer.open(index_copy)
        assert "older version" not in str(refused.value)
