"""Whether and how an index is upgraded to the stronger model in the background.

`plan_upgrade` decides (the stronger model installed, the index not already its own, the
embedding estimated from a rate measured on this computer within LIMIT_SECONDS); `start_upgrade`
starts the detached process (stage_run.py) that re-embeds the papers and swaps the index.

A detached process, not a thread of the build: `make run` runs `explorer build` to its end
before it starts the app, so a thread would die with the build; the process also outlives the
app and a closed terminal, and is resumed (from its checkpoint) by the next build when killed.
"""

from __future__ import annotations

import json
import os
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
from explorer.ingest.embedding import LazyEmbedder
from explorer.model.embedder import ModelSpec, resolve_model

# The longest a background upgrade may be estimated to take: half an hour keeps the better index
# within one sitting. The limit is a time, not a count, so it follows the computer: mpnet at
# 4.5 abstracts/s (AVX-512 bf16 EPYC, openvino bf16) upgrades about 8,000 papers in it, at 4/s
# (Xeon without bf16) 7,000; on the shared AVX2 EPYC under a load of 20-30 (README, "The
# model") the rate measured was 0.2/s: 360 papers, so the seeds (71) upgrade there, a venue not.
LIMIT_SECONDS = 30 * 60
SAMPLE = 16  # abstracts timed to measure a model's rate here when none is recorded yet
RATES = "upgrade-rates.json"  # in the cache folder: model fingerprint -> papers/s, measured here
LOG = ".upgrade.log"  # the background process's stderr, beside the index
# Why an upgrade does not start (Plan.reason); "" when it does.
MISSING, SAME, LARGE, RUNNING = "missing", "same", "large", "running"


@dataclass(frozen=True)
class Plan:
    """An upgrade's decision: the stronger model (None when not installed), the papers to
    embed, the rate (papers/s) the estimate used and `reason` it does not start ("" if it does;
    `detail`: the not-installed message)."""

    target: ModelSpec | None
    papers: int
    rate: float | None
    reason: str
    detail: str = ""

    @property
    def seconds(self) -> float | None:
        return None if not self.rate else self.papers / self.rate


def plan_upgrade(folder: Path, target: str, cache_dir: Path, batch_size: int,
                 measuring: Callable[[str], None] = lambda name: None) -> Plan:
    """What an upgrade of the index in `folder` to the model `target` would do. Measures the
    model's rate here (SAMPLE of the index's abstracts; `measuring(model id)` is called first)
    when none is recorded yet: once per computer and model."""
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
    rate = recorded_rate(cache_dir, spec)
    if rate is None:
        measuring(spec.model_id)
        rate = measure_rate(folder, spec, batch_size, cache_dir)
    reason = LARGE if manifest.count / rate > LIMIT_SECONDS else ""
    return Plan(spec, manifest.count, rate, reason)


def recorded_rate(cache_dir: Path, spec: ModelSpec) -> float | None:
    """The rate (papers/s) last measured here for this model, or None."""
    try:
        rate = json.loads((cache_dir / RATES).read_text(encoding="utf-8")).get(spec.fingerprint)
    except (OSError, ValueError, AttributeError):
        return None
    return float(rate) if isinstance(rate, (int, float)) and rate > 0 else None


def record_rate(cache_dir: Path, spec: ModelSpec, rate: float) -> None:
    """Remember `rate` (papers/s) for this model on this computer."""
    try:
        rates = json.loads((cache_dir / RATES).read_text(encoding="utf-8"))
        rates = rates if isinstance(rates, dict) else {}
    except (OSError, ValueError):
        rates = {}
    rates[spec.fingerprint] = round(rate, 3)
    cache_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(rates, indent=1)
    atomic_write(cache_dir / RATES, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def measure_rate(folder: Path, spec: ModelSpec, batch_size: int, cache_dir: Path) -> float:
    """Papers/s of `spec` on SAMPLE abstracts of the index, spread over it (the model loaded
    and warmed first, not timed); recorded for the next build."""
    papers = load_artifacts(folder).papers
    step = max(1, len(papers) // SAMPLE)
    texts = [papers[row].text for row in range(0, len(papers), step)][:SAMPLE]
    embedder = LazyEmbedder(spec, batch_size, None)
    embedder.embed("warm", texts[:2])
    started = time.perf_counter()
    embedder.embed("sample", texts)
    rate = len(texts) / max(time.perf_counter() - started, 1e-6)
    record_rate(cache_dir, spec, rate)
    return rate


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
