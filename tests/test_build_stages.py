"""A build's stage times: each stage charged once, nested ones to themselves; the CLI shows them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.ingest import report as report_module
from explorer.ingest.report import STAGES, BuildReport, Stopwatch

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"


def test_a_stage_inside_another_is_charged_to_itself_only(monkeypatch):
    clock = iter([0.0, 1.0, 4.0, 6.0, 10.0, 11.0])
    monkeypatch.setattr(report_module.time, "perf_counter", lambda: next(clock))
    seconds: dict[str, float] = {}
    watch = Stopwatch(seconds)
    with watch("papers"):  # 0 .. 6, the model loading inside it from 1 to 4
        assert seconds == {}  # nothing is charged before a stage ends or another starts
        with watch("model"):
            assert seconds == {"papers": 1.0}
    with watch("map"):  # 10 .. 11
        pass
    assert seconds == {"papers": 3.0, "model": 3.0, "map": 1.0}
    with pytest.raises(ValueError, match="unknown build stage"), watch("lunch"):
        pass


def test_the_report_lists_stages_in_build_order():
    built = BuildReport(papers=1, records=1, duplicates_merged=0, skipped={}, embedded=1,
                        reused=0, model_id="m", index_type="flat", seconds=2.0,
                        stages={"papers": 1.25, "model": 0.5, "read": 0.25})
    assert built.stage_line() == "stages (s): read 0.2, model 0.5, papers 1.2"
    assert list(built.to_dict()["stages"]) == ["read", "model", "papers"]


def test_build_json_reports_every_stage_and_they_add_up_to_the_build(tmp_path: Path):
    """`explorer build --json` (the console script): each stage of a fresh build, and the
    stages cover the build's time; the text summary's second line names them too."""
    files = sorted(SEEDS.glob("*.txt"))[:3]  # three papers: the least a map (t-SNE) lays out
    exe = Path(sys.executable).with_name("explorer")
    done = subprocess.run([exe, "build", *map(str, files), "--out", str(tmp_path / "a"),
                           "--json", "--sentences"], capture_output=True, text=True, check=False,
                          env=os.environ)
    assert done.returncode == 0, done.stderr
    built = json.loads(done.stdout)
    assert list(built["stages"]) == [s for s in STAGES if s in built["stages"]]
    assert set(built["stages"]) == set(STAGES), built["stages"]  # a first build runs them all
    # (--sentences: the sentence phase too; the default build has every stage but that one)
    assert all(seconds >= 0 for seconds in built["stages"].values())
    total = sum(built["stages"].values())
    assert 0.8 * built["seconds"] <= total <= built["seconds"] + 1e-3, built
    text = subprocess.run([exe, "build", *map(str, files), "--out", str(tmp_path / "a")],
                          capture_output=True, text=True, check=False, env=os.environ)
    summary, stages = text.stdout.splitlines()
    assert "already up to date" in summary and stages.startswith("stages (s): read ")
