"""Whether and how an index is upgraded to the stronger model in the background.

`plan_upgrade` decides (the stronger model installed, the index not already its own, the
embedding estimated from a rate measured on this computer within LIMIT_SECONDS, and a question
embedded by it, measured by the same probe, within QUESTION_LIMIT_MS); `start_upgrade`
starts the detached process (stage_run.py) that re-embeds the papers and swaps the index.

A detached process, not a thread of the build: `make run` runs `explorer build` to its end
before it starts the app, so a thread would die with the build; the process also outlives the
app and a closed terminal, and is resumed (from its checkpoint) by the next build when killed.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.artifacts.store import load_artifacts, read_manifest
from explorer.errors import ExplorerError, ModelNotFoundError
from explorer.features.upgrade.stage_status import read_status
from explorer.files import atomic_write
from explorer.model.embedder import Embedder, ModelSpec, resolve_model

# The longest a background upgrade may be estimated to take: half an hour keeps the better index
# within one sitting. The limit is a time, not a count, so it follows the computer: mpnet at
# 4.5 abstracts/s (AVX-512 bf16 EPYC, openvino bf16) upgrades about 8,000 papers in it, at 4/s
# (Xeon without bf16) 7,000; on the shared AVX2 EPYC under a load of 20-30 (README, "The
# model") the rate measured was 0.2/s: 360 papers, so the seeds (71) upgrade there, a venue not.
LIMIT_SECONDS = 30 * 60
# The longest the stronger model may take to embed one question here (the median of the probe's
# QUESTIONS): an upgraded index must still answer a question within the loosest one-session p50
# target of the scale issue (25 ms end to end, issue 34). An index small enough to upgrade (under
# LIMIT_SECONDS of embedding: a few thousand papers) searches in a few ms beside the question's
# model run (benchmarks/results/query-models*.md), so the model run gets 20 ms of the 25.
# (The 10 ms target at ~92k papers is out of reach of mpnet's model run on every CPU measured.)
QUESTION_LIMIT_MS = 20.0
SAMPLE = 16  # abstracts timed to measure a model's rate here when none is recorded yet
QUESTIONS = 9  # of their titles embedded one at a time as questions (after one untimed)
RATES = "upgrade-rates.json"  # in the cache folder: fingerprint -> {"rate", "question_ms"}, here
LOG = ".upgrade.log"  # the background process's stderr, beside the index
# Why an upgrade does not start (Plan.reason); "" when it does.
MISSING, SAME, LARGE, SLOW, RUNNING = "missing", "same", "large", "slow", "running"


@dataclass(frozen=True)
class Plan:
    """An upgrade's decision: the stronger model (None when not installed), the papers to
    embed, the rate (papers/s) the estimate used, the model's question time measured here
    (`question_ms`, the median of QUESTIONS) and `reason` it does not start ("" if it does;
    `detail`: the not-installed message)."""

    target: ModelSpec | None
    papers: int
    rate: float | None
    reason: str
    detail: str = ""
    question_ms: float | None = None

    @property
    def seconds(self) -> float | None:
        return None if not self.rate else self.papers / self.rate


def plan_upgrade(folder: Path, target: str, cache_dir: Path, batch_size: int,
                 measuring: Callable[[str], None] = lambda name: None) -> Plan:
    """What an upgrade of the index in `folder` to the model `target` would do. Measures the
    model's rate and question time here (measure_probe; `measuring(model id)` is called first)
    when none is recorded yet, or a SLOW was timed while busy: once per computer and model.
    SLOW (a question over QUESTION_LIMIT_MS) is checked before LARGE: it holds whatever the
    corpus's size."""
    manifest = read_manifest(folder)
    try:
        spec = resolve_model(target)
    except ModelNotFoundError as exc:
        return Plan(None, manifest.count, None, MISSING, str(exc))
    if manifest.model.fingerprint == spec.fingerprint:
        return Plan(spec, 0, None, SAME)
    status = read_status(folder)
    if status is not None and status.alive():
        return Plan(spec, status.total - status.done, status.rate, RUNNING)
    probe = recorded_probe(cache_dir, spec)
    if probe is None:
        measuring(spec.model_id)
        probe = measure_probe(folder, spec, batch_size, cache_dir)
    rate, question_ms = probe
    reason = SLOW if question_ms > QUESTION_LIMIT_MS else (
        LARGE if manifest.count / rate > LIMIT_SECONDS else "")
    return Plan(spec, manifest.count, rate, reason, question_ms=question_ms)


UNKNOWN_BUSY = 2.0  # the load per core taken for an entry that recorded none (older files)


def recorded_probe(cache_dir: Path, spec: ModelSpec) -> tuple[float, float] | None:
    """(papers/s, question ms) last measured here for this model, or None (a rate recorded
    before questions were timed counts as none: the probe runs again)."""
    entry = _rates(cache_dir).get(spec.fingerprint)
    if not isinstance(entry, dict):
        return None
    rate, question_ms = entry.get("rate"), entry.get("question_ms")
    if not all(isinstance(v, (int, float)) and v > 0 for v in (rate, question_ms)):
        return None
    if question_ms > QUESTION_LIMIT_MS and entry.get("busy", UNKNOWN_BUSY) > 1:
        return None  # a refusal measured while the computer was overloaded (or a refusal
        # recorded before the load was, which may have been) is measured again
    return float(rate), float(question_ms)


def record_rate(cache_dir: Path, spec: ModelSpec, rate: float,
                question_ms: float | None = None, busy: float = 0.0) -> None:
    """Remember `rate` (papers/s) for this model on this computer, and `question_ms` when
    given (else the one recorded stays) with `busy`, the load average per core it was timed at."""
    rates = _rates(cache_dir)
    entry = rates.get(spec.fingerprint)
    entry = entry if isinstance(entry, dict) else {}
    entry["rate"] = round(rate, 3)
    if question_ms is not None:
        entry["question_ms"] = round(question_ms, 2)
        entry["busy"] = round(busy, 2)
    rates[spec.fingerprint] = entry
    cache_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(rates, indent=1)
    atomic_write(cache_dir / RATES, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _rates(cache_dir: Path) -> dict:
    try:
        rates = json.loads((cache_dir / RATES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return rates if isinstance(rates, dict) else {}


def measure_probe(folder: Path, spec: ModelSpec, batch_size: int, cache_dir: Path
                  ) -> tuple[float, float]:
    """(papers/s, question ms) of `spec` here: SAMPLE abstracts of the index, spread over it,
    embedded as a build embeds them, then QUESTIONS of their titles one at a time as the query
    path embeds a question (the median counts); the model loaded and warmed first, not timed.
    Recorded for the next build."""
    papers = load_artifacts(folder).papers
    step = max(1, len(papers) // SAMPLE)
    sample = [papers[row] for row in range(0, len(papers), step)][:SAMPLE]
    texts = [paper.text for paper in sample]
    embedder = Embedder(spec, batch_size=batch_size)
    embedder.embed_documents(texts[:2])
    started = time.perf_counter()
    embedder.embed_documents(texts)
    rate = len(texts) / max(time.perf_counter() - started, 1e-6)
    titles = [(paper.title or paper.text)[:200] for paper in sample]
    embedder.embed_query("warm-up question")
    seconds = []
    for title in (titles * QUESTIONS)[:QUESTIONS]:
        started = time.perf_counter()
        embedder.embed_query(title)
        seconds.append(time.perf_counter() - started)
    question_ms = 1000 * statistics.median(seconds)
    busy = os.getloadavg()[0] / (os.cpu_count() or 1)
    record_rate(cache_dir, spec, rate, question_ms, busy)
    return rate, question_ms


def start_upgrade(folder: Path, inputs: Sequence[str | Path], target: str, *, batch_size: int,
                  max_file_bytes: int | None = None) -> int:
    """Start the detached upgrade process (stage_run.py, at nice 10, in this working folder:
    `inputs` as given to the build); its errors go to LOG in `folder`. Returns its pid."""
    command = [sys.executable, "-m", "explorer.features.upgrade.stage_run", "--out", str(folder),
               "--model", target, "--batch-size", str(batch_size)]
    if max_file_bytes is not None:
        command += ["--max-file-bytes", str(max_file_bytes)]
    command += ["--", *map(str, inputs)]
    try:
        with (Path(folder) / LOG).open("ab") as log:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                       start_new_session=True, cwd=os.getcwd())
    except OSError as exc:
        raise ExplorerError(f"Cannot start the upgrade of {folder} ({exc.strerror}); the index "
                            "stays as built. Run the build again to retry.") from None
    return process.pid
