"""The upgrade's latency rule (issue 35): the plan measures the stronger model's question time
here with the same probe as its rate, and an upgrade whose questions would take longer than
QUESTION_LIMIT_MS to embed does not start, whatever the corpus's size; the build says why in one
line. The plumbing tests fake the probe; one runs the real probe on a real model."""

from __future__ import annotations

import json
import time

import pytest

from explorer.artifacts.store import read_manifest
from explorer.features.upgrade import stage
from explorer.features.upgrade.cli import plan_line
from explorer.features.upgrade.stage import (
    QUESTION_LIMIT_MS,
    RATES,
    SLOW,
    plan_upgrade,
    recorded_probe,
)
from explorer.features.upgrade.stage_status import STATUS
from explorer.model.embedder import resolve_model
from tests.test_upgrade import build_cli

FAST_RATE = 1000.0  # papers/s: the seeds (71) are far inside LIMIT_SECONDS


def fake_probe(monkeypatch, question_ms: float) -> list[str]:
    """Replace the probe by one that reports `question_ms`; returns the models it measured."""
    measured: list[str] = []

    def probe(folder, spec, batch_size, cache_dir):
        measured.append(spec.model_id)
        stage.record_rate(cache_dir, spec, FAST_RATE, question_ms)
        return FAST_RATE, question_ms

    monkeypatch.setattr(stage, "measure_probe", probe)
    return measured


@pytest.mark.parametrize("factor", [2.0, 0.5])
def test_the_plan_refuses_a_model_whose_questions_are_too_slow(
        index_copy, strong_model, tmp_path, monkeypatch, factor):
    measured = fake_probe(monkeypatch, factor * QUESTION_LIMIT_MS)
    plan = plan_upgrade(index_copy, str(strong_model), tmp_path, batch_size=8)
    assert measured == ["strong-model"]
    assert plan.question_ms == factor * QUESTION_LIMIT_MS
    assert plan.reason == (SLOW if factor > 1 else "")
    # Recorded: the next plan reads it instead of measuring again.
    again = plan_upgrade(index_copy, str(strong_model), tmp_path, batch_size=8)
    assert measured == ["strong-model"] and again.reason == plan.reason


def test_a_build_keeps_the_fast_model_and_says_why_in_one_line(
        index_copy, strong_model, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EXPLORER_UPGRADE", str(strong_model))
    monkeypatch.setenv("EXPLORER_CACHE", str(tmp_path / "cache"))
    fake_probe(monkeypatch, 3 * QUESTION_LIMIT_MS)
    before = read_manifest(index_copy)
    assert build_cli(index_copy) == 0
    time.sleep(1.0)  # a detached process, had one started, writes its status at once
    assert not (index_copy / STATUS).exists()
    err = capsys.readouterr().err.splitlines()
    lines = [line for line in err if "strong-model" in line and "timing" not in line]
    assert len(lines) == 1, err  # the probe's "timing ..." line, then the decision's one
    assert f"{3 * QUESTION_LIMIT_MS:.0f} ms" in lines[0]
    assert f"over the {QUESTION_LIMIT_MS:.0f} ms" in lines[0]
    assert "keeps the fast model" in lines[0]
    assert read_manifest(index_copy).model.fingerprint == before.model.fingerprint


def test_a_rate_recorded_before_questions_were_timed_is_measured_again(
        index_copy, strong_model, tmp_path, monkeypatch):
    spec = resolve_model(str(strong_model))
    (tmp_path / RATES).write_text(json.dumps({spec.fingerprint: 4.5}), encoding="utf-8")
    assert recorded_probe(tmp_path, spec) is None
    measured = fake_probe(monkeypatch, 1.0)
    plan_upgrade(index_copy, str(strong_model), tmp_path, batch_size=8)
    assert measured == ["strong-model"]
    assert recorded_probe(tmp_path, spec) == (FAST_RATE, 1.0)


@pytest.mark.parametrize("busy, measured_again", [(0.5, False), (3.0, True), (None, True)])
def test_a_refusal_timed_on_an_overloaded_computer_is_measured_again(
        index_copy, strong_model, tmp_path, monkeypatch, busy, measured_again):
    """busy None: a refusal recorded before the load was (older files) is measured again."""
    spec = resolve_model(str(strong_model))
    slow = {"rate": FAST_RATE, "question_ms": 2 * QUESTION_LIMIT_MS}
    if busy is not None:
        slow["busy"] = busy
    (tmp_path / RATES).write_text(json.dumps({spec.fingerprint: slow}), encoding="utf-8")
    measured = fake_probe(monkeypatch, 1.0)
    plan = plan_upgrade(index_copy, str(strong_model), tmp_path, batch_size=8)
    assert measured == (["strong-model"] if measured_again else [])
    assert plan.reason == ("" if measured_again else SLOW)


def test_the_real_probe_times_a_real_models_questions_and_the_build_reports_it(
        index_copy, strong_model, tmp_path):
    said: list[str] = []
    plan = plan_upgrade(index_copy, str(strong_model), tmp_path, batch_size=8, measuring=said.append)
    assert said == ["strong-model"]
    assert plan.rate is not None and plan.rate > 0
    assert plan.question_ms is not None and plan.question_ms > 0
    entry = json.loads((tmp_path / RATES).read_text(encoding="utf-8"))[plan.target.fingerprint]
    assert (entry["rate"], entry["question_ms"]) == pytest.approx(
        (plan.rate, plan.question_ms), rel=1e-2)
    assert entry["busy"] >= 0
    assert plan.reason == (SLOW if plan.question_ms > QUESTION_LIMIT_MS else "")
    line = plan_line(plan, index_copy)
    assert f"{plan.question_ms:.0f} ms" in line
