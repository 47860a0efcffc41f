"""OpenVINO's inference precision on this CPU: measured once per model file and CPU, then kept.

OpenVINO runs a model in bf16 wherever the CPU reports bf16 (AVX-512 bf16, AMX), and that is
not always the faster choice: on an AMD EPYC with avx512_bf16 (no AMX) bf16 embedded 1.7x
OpenVINO's own fp32, while on an Intel Xeon with avx512_bf16 and avx512_fp16 but no AMX it
embedded 0.74x, and the static int8 model (whose float parts follow the hint) 0.85x
(benchmarks/README.md, "Session 14"). So the first process to run a model file on a CPU times
it under both hints on a fixed batch and keeps the faster. The choice is stored beside the
export (CHOICES, keyed by the model file, the CPU's name and flags and OpenVINO's version),
so later processes read it, and it never changes by itself: a text's vector stays the same
from one process to the next on this computer. Both hints stay within the drift budget
(bf16 against fp32: mean cosine drift 0.00002 for the fp32 model, 0.00017 for static int8).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from explorer.files import atomic_write
from explorer.model.backends import cpu_flags, cpu_name

CHOICES = "openvino-precision.json"
HINTS = ("bf16", "f32")  # OpenVINO's INFERENCE_PRECISION_HINT values compared
PROBE = (8, 128)  # texts x tokens of the input timed (a batch of short abstracts)
RUNS = 3  # timed runs of it per hint (the fastest counts), after one untimed
# The CPU's features that change which precision is faster, named in the choice's key.
FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "avx512_vnni", "avx_vnni",
         "amx_bf16", "amx_int8", "amx_fp16")

_LOCK = threading.Lock()  # one measurement at a time in a process


def inference_hint(capabilities: list[str], model: Path, version: str,
                   timed: Callable[[str], float]) -> str:
    """The INFERENCE_PRECISION_HINT to compile `model` with on this CPU: "f32" where OpenVINO
    offers no bf16 (`capabilities`: its OPTIMIZATION_CAPABILITIES), else the faster of HINTS
    by `timed(hint)` (seconds of a fixed input: see probe), measured at the first use of
    `model` on this CPU under OpenVINO `version` and read from CHOICES afterwards."""
    if "BF16" not in capabilities:
        return "f32"
    file, key = model.parent / CHOICES, _key(model, version)
    with _LOCK:
        choices = _read(file)
        if key in choices:
            return choices[key]["hint"]
        seconds = {hint: timed(hint) for hint in HINTS}
        choices = _read(file)  # another process may have measured meanwhile: its choice holds
        if key in choices:
            return choices[key]["hint"]
        choices[key] = {"hint": min(HINTS, key=seconds.__getitem__),
                        "seconds": {hint: round(value, 5) for hint, value in seconds.items()}}
        text = json.dumps(choices, indent=2, sort_keys=True)
        try:
            atomic_write(file, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        except OSError:  # a read-only cache: use the choice now, measure again next time
            pass
        return choices[key]["hint"]


def _key(model: Path, version: str) -> str:
    flags = cpu_flags()
    return " | ".join([model.name, cpu_name() or "unknown CPU", " ".join(f for f in FLAGS if f in flags),
                       f"openvino {version}"])


def _read(file: Path) -> dict[str, Any]:
    """The stored choices ({} when missing or unreadable: they are measured again)."""
    try:
        choices = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(choices, dict):
        return {}
    return {key: value for key, value in choices.items()
            if isinstance(value, dict) and value.get("hint") in HINTS}


def probe(compiled: Any, shape: tuple[int, int] = PROBE) -> float:
    """Seconds of the fastest of RUNS runs of `compiled` (an OpenVINO compiled model) on a
    fixed input of `shape` (texts x tokens), after one untimed run (its set-up)."""
    request = compiled.create_infer_request()
    feed = {port.any_name: np.ones(shape, dtype=np.int64) for port in compiled.inputs}
    request.infer(feed)
    seconds = []
    for _ in range(RUNS):
        started = time.perf_counter()
        request.infer(feed)
        seconds.append(time.perf_counter() - started)
    return min(seconds)
