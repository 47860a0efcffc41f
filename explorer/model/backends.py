"""The embedding backends by name, and which of them this CPU runs well.

Both the model (embedder.py) and the runtimes that run an export (runtimes.py) need these
names; they live here so that neither imports the other for them.
"""

from __future__ import annotations

import functools
import importlib.util

AUTO, OPENVINO, ONNX_INT8, ONNX, TORCH = "auto", "openvino", "onnx-int8", "onnx", "torch"
OPENVINO_INT8 = "openvino-int8"  # static int8 (quantise.py), run by OpenVINO
BACKENDS = (AUTO, OPENVINO_INT8, OPENVINO, ONNX_INT8, ONNX, TORCH)
# The int8 weights of `onnx-int8` (dynamic quantisation): signed or unsigned (int8_weights).
SIGNED, UNSIGNED = "s8", "u8"


def cpu_flags() -> frozenset[str]:
    """The CPU feature flags Linux reports (empty elsewhere): avx512_vnni, avx512_bf16, amx_*."""
    return frozenset(_cpuinfo().get("flags", "").split())


def cpu_name() -> str:
    """The CPU's model name as Linux reports it ("" elsewhere)."""
    return _cpuinfo().get("model name", "")


@functools.cache
def _cpuinfo() -> dict[str, str]:
    """The first CPU's fields in /proc/cpuinfo (read once: they do not change while running)."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    break  # the end of the first CPU's block
                name, _, value = line.partition(":")
                fields.setdefault(name.strip(), value.strip())
    except OSError:
        pass
    return fields


def has_bf16(flags: frozenset[str]) -> bool:
    return bool({"avx512_bf16", "amx_bf16"} & flags)


def has_int8_matmul(flags: frozenset[str]) -> bool:
    """AVX-512 VNNI or AMX int8: the int8 products static int8 runs fastest on (measured with
    AVX-512 VNNI; AMX int8 has twice AMX bf16's products a cycle)."""
    return bool({"avx512_vnni", "amx_int8"} & flags)


def has_vnni(flags: frozenset[str]) -> bool:
    return bool({"avx512_vnni", "avx_vnni", "amx_int8"} & flags)


def int8_weights(flags: frozenset[str] | None = None) -> str:
    """The weight type of dynamic int8 on this CPU: signed where VNNI multiplies unsigned
    activations by signed weights into exact 32-bit sums (ONNX Runtime's fastest kernels,
    measured there). Without VNNI the same u8s8 product (AVX2's vpmaddubsw) saturates its 16-bit
    pair sums; unsigned weights take ONNX Runtime's u8u8 kernels, which do not: on an AVX2 EPYC
    they drifted 0.0048 mean cosine against 0.0065 for signed ones (benchmarks/README.md)."""
    flags = cpu_flags() if flags is None else flags
    return SIGNED if has_vnni(flags) else UNSIGNED


def auto_backends(flags: frozenset[str] | None = None, static_int8: bool = True) -> list[str]:
    """Backends worth trying on this CPU, fastest acceptable first; torch always last.

    AVX-512 VNNI or AMX int8, with NNCF installed, and `static_int8` (the model's int8 drift
    was measured): OpenVINO static int8 (1.27-1.29x bf16's abstracts/s on an AVX-512 EPYC,
    mean cosine drift 0.0012 from fp32; a text's vector depends on its batch only by rounding:
    cosine >= 0.9998, quantise.py). Native bf16 (AVX-512 bf16, AMX): OpenVINO bf16,
    practically exact. Then ONNX Runtime fp32.
    Dynamic int8 (`onnx-int8`, see int8_weights) is never automatic: it quantises activations
    with one scale per batch, so a text's vector depends on the texts embedded beside it (cosine
    0.990 between one abstract alone and in a batch on an AVX2 EPYC, 1.000 for fp32): a paper
    embedded in a build and again as a query, or two questions batched together, would not
    agree. It stays an explicit choice (benchmarks/README.md has its speed and drift)."""
    flags = cpu_flags() if flags is None else flags
    order = []
    openvino = installed("openvino")
    if static_int8 and has_int8_matmul(flags) and openvino and installed("nncf"):
        order.append(OPENVINO_INT8)
    if has_bf16(flags) and openvino:
        order.append(OPENVINO)
    if installed("onnxruntime"):
        order.append(ONNX)
    return order + [TORCH]


def installed(package: str) -> bool:
    """Whether `package` can be imported here (without importing it)."""
    return importlib.util.find_spec(package) is not None
