"""The embedding backends by name, and which of them this CPU runs well.

Both the model (embedder.py) and the runtimes that run an export (runtimes.py) need these
names; they live here so that neither imports the other for them.
"""

from __future__ import annotations

import importlib.util

AUTO, OPENVINO, ONNX_INT8, ONNX, TORCH = "auto", "openvino", "onnx-int8", "onnx", "torch"
BACKENDS = (AUTO, OPENVINO, ONNX_INT8, ONNX, TORCH)


def cpu_flags() -> frozenset[str]:
    """The CPU feature flags Linux reports (empty elsewhere): avx512_vnni, avx512_bf16, amx_*."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def has_bf16(flags: frozenset[str]) -> bool:
    return bool({"avx512_bf16", "amx_bf16"} & flags)


def has_vnni(flags: frozenset[str]) -> bool:
    return bool({"avx512_vnni", "avx_vnni", "amx_int8"} & flags)


def auto_backends(flags: frozenset[str] | None = None) -> list[str]:
    """Backends worth trying on this CPU, fastest acceptable first; torch always last."""
    flags = cpu_flags() if flags is None else flags
    order = []
    if has_bf16(flags) and importlib.util.find_spec("openvino") is not None:
        order.append(OPENVINO)
    if importlib.util.find_spec("onnxruntime") is not None:
        order += [ONNX_INT8, ONNX] if has_vnni(flags) else [ONNX]
    return order + [TORCH]
