"""The background upgrade (explorer/features/upgrade/): a build of the fast model is re-embedded
with a stronger model by a detached process and swapped in whole; a killed upgrade resumes from
its checkpoint; --model, --no-upgrade and EXPLORER_UPGRADE=off build one model only.

The "stronger" model of these plumbing tests is a real local sentence-transformers folder: the
bundled MiniLM with CLS pooling instead of mean pooling (other vectors, other rankings, fast);
the code does not care which model it is (tests/test_upgrade_mpnet.py runs the real mpnet)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.store import load_artifacts, read_manifest
from explorer.cli.main import main
from explorer.features.upgrade import stage
from explorer.features.upgrade.stage import start_upgrade
from explorer.features.upgrade.stage_run import BLOCK
from explorer.features.upgrade.stage_status import (
    DONE,
    EMBEDDING,
    FAILED,
    STATUS,
    Status,
    read_status,
)
from explorer.features.upgrade.ui import status_line
from explorer.model.embedder import Embedder, resolve_model
from explorer.settings import Settings
from explorer.ui.text import escape_markdown
from tests.conftest import SEEDS
from tests.model_fixtures import strong_model as _strong_model

strong_model = _strong_model  # conftest's fixture (made once a run), for modules importing it here
WAIT = 600.0  # seconds an upgrade of the seeds may take on two loaded cores


@pytest.fixture(autouse=True)
def any_question_time(monkeypatch):
    """These tests are about the swap, not about the latency rule (test_upgrade_latency.py):
    a question's time measured on the loaded machine never stops their upgrade."""
    monkeypatch.setattr(stage, "QUESTION_LIMIT_MS", float("inf"))


def wait_for(folder: Path, ready, seconds: float = WAIT, pause: float = 0.05):
    """The folder's upgrade status once `ready(status)` holds (fails after `seconds`)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = read_status(folder)
        if status is not None and ready(status):
            return status
        time.sleep(pause)
    pytest.fail(f"the upgrade of {folder} did not get there: {read_status(folder)}")


def build_cli(out: Path, *flags: str) -> int:
    return main(["build", str(SEEDS), "--out", str(out), *flags])


def test_kill_9_mid_upgrade_resumes_from_its_checkpoint(index_copy, strong_model, monkeypatch,
                                                        capsys):
    strong = resolve_model(str(strong_model))
    pid = start_upgrade(index_copy, [str(SEEDS)], str(strong_model), batch_size=8)
    first = wait_for(index_copy, lambda s: s.state == EMBEDDING and s.done >= BLOCK, pause=0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert first.done < first.total, "the upgrade finished before it could be killed"
    stopped = read_status(index_copy)
    assert not stopped.alive()
    assert "the next `explorer build` resumes it" in status_line(stopped, "all-MiniLM-L6-v2",
                                                                 stopped.alive())
    assert read_manifest(index_copy).model.fingerprint != strong.fingerprint  # old index whole
    # The next build (the fast model's index is up to date) starts the upgrade again.
    monkeypatch.setenv("EXPLORER_UPGRADE", str(strong_model))
    assert build_cli(index_copy) == 0
    assert "upgrading" in capsys.readouterr().err
    done = wait_for(index_copy, lambda s: s.state == DONE, pause=0.2)
    assert done.resumed >= BLOCK and done.done == done.total
    artifacts = load_artifacts(index_copy)
    assert artifacts.manifest.model.fingerprint == strong.fingerprint
    assert not any(p.name.startswith(".partial-") for p in index_copy.iterdir())
    # Resumed and fresh vectors alike are the strong model's own.
    rows = [0, len(artifacts.papers) // 2, len(artifacts.papers) - 1]
    direct = Embedder(strong).embed_documents([artifacts.papers[r].text for r in rows])
    stored = artifacts.index.vectors()[rows]
    assert np.allclose(np.sum(direct * stored, axis=1), 1.0, atol=1e-3)
    # A later build keeps the upgraded model: nothing to do, no new upgrade.
    assert build_cli(index_copy) == 0
    assert read_manifest(index_copy).build_id == artifacts.manifest.build_id
    assert "upgrading" not in capsys.readouterr().err


@pytest.mark.parametrize("how", ["--no-upgrade", "EXPLORER_UPGRADE=off", "--model"])
def test_one_model_when_asked(index_copy, strong_model, monkeypatch, capsys, how):
    monkeypatch.setenv("EXPLORER_UPGRADE", "off" if how.startswith("EXPLORER") else
                       str(strong_model))
    flags = {"--no-upgrade": ["--no-upgrade"], "--model": ["--model", "default"]}.get(how, [])
    before = read_manifest(index_copy)
    assert build_cli(index_copy, *flags) == 0
    time.sleep(1.0)  # a detached process, had one started, writes its status at once
    assert not (index_copy / STATUS).exists()
    assert "upgrad" not in capsys.readouterr().err
    assert read_manifest(index_copy).model.fingerprint == before.model.fingerprint


def test_an_explicit_model_is_built_even_over_an_upgraded_index(index_copy, strong_model,
                                                                monkeypatch):
    """--model chooses the model: a folder the upgrade would keep strong gets the one asked for."""
    monkeypatch.setenv("EXPLORER_UPGRADE", str(strong_model))
    assert main(["build", str(SEEDS), "--out", str(index_copy), "--model", str(strong_model),
                 "--no-sentences"]) == 0
    assert read_manifest(index_copy).model.model_id == "strong-model"
    assert main(["build", str(SEEDS), "--out", str(index_copy), "--model", "default",
                 "--no-sentences"]) == 0
    assert read_manifest(index_copy).model.model_id == resolve_model("default").model_id
    assert not (index_copy / STATUS).exists()


def test_a_missing_stronger_model_leaves_the_fast_index_and_says_how(index_copy, tmp_path,
                                                                     monkeypatch, capsys):
    monkeypatch.setenv("EXPLORER_CACHE", str(tmp_path / "empty-cache"))  # mpnet not installed
    monkeypatch.delenv("EXPLORER_UPGRADE", raising=False)
    before = read_manifest(index_copy)
    assert build_cli(index_copy) == 0
    err = capsys.readouterr().err
    assert "make mpnet" in err and err.count("\n") == 1
    assert read_manifest(index_copy).build_id == before.build_id
    assert not (index_copy / STATUS).exists()


def test_the_upgrade_process_refuses_a_second_run_of_the_same_folder(index_copy, strong_model):
    pid = start_upgrade(index_copy, [str(SEEDS)], str(strong_model), batch_size=8)
    try:
        wait_for(index_copy, lambda s: s.state == EMBEDDING)
        second = subprocess.run(
            [sys.executable, "-m", "explorer.features.upgrade.stage_run", "--out",
             str(index_copy), "--model", str(strong_model), "--", str(SEEDS)],
            capture_output=True, text=True, timeout=120)
        assert second.returncode == 1 and "already running" in second.stderr
        assert read_status(index_copy).pid == pid  # the first one's status is untouched
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def test_the_sidebar_line_names_the_model_and_the_upgrade_state():
    now = time.time()
    running = Status(EMBEDDING, "sentence-transformers/all-mpnet-base-v2", done=40, total=100,
                     rate=2.0, pid=os.getpid(), updated=now)
    line = status_line(running, "sentence-transformers/all-MiniLM-L6-v2", running.alive())
    assert line.startswith(f"Answering with **{escape_markdown('all-MiniLM-L6-v2')}**")
    assert "40 of 100 papers, about 30 s left" in line
    assert "is ready" in status_line(Status(DONE, "m/all-mpnet-base-v2"), "all-MiniLM-L6-v2",
                                     False)
    assert status_line(Status(DONE, "m/all-mpnet-base-v2"), "all-mpnet-base-v2", False) == ""
    failed = status_line(Status(FAILED, "x", message="disk *full*"), "all-MiniLM-L6-v2", False)
    assert "failed: disk \\*full\\*" in failed  # the message is escaped, never markup
    assert status_line(None, "all-MiniLM-L6-v2", False) == ""


@pytest.mark.parametrize(("value", "upgrade"), [("", "mpnet"), ("auto", "mpnet"), ("OFF", None),
                                                ("0", None), ("/models/x", "/models/x")])
def test_explorer_upgrade_setting(value, upgrade):
    assert Settings.from_env({"EXPLORER_UPGRADE": value}).upgrade == upgrade
