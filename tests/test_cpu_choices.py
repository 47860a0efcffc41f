"""What the product chooses on each CPU kind the suite has met, from the flags Linux reports:
the automatic backends (model/backends.py), the weights of dynamic int8, OpenVINO's precision
(model/precision.py: measured only where OpenVINO offers bf16) and whose BLAS multiplies many
queries (index/blas.py). The expected choices are written from those modules' documented
reasoning, one CPU kind at a time; none depends on the CPU that runs the test."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from explorer.index import blas
from explorer.model import backends, precision
from explorer.model.backends import ONNX, OPENVINO, OPENVINO_INT8, SIGNED, TORCH, UNSIGNED

_X86 = "fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt aes pclmulqdq avx f16c fma bmi1 bmi2 avx2"
_AVX512 = "avx512f avx512dq avx512cd avx512bw avx512vl"
_ICE_LAKE_ON = "avx512ifma avx512vbmi avx512_vbmi2 avx512_vnni avx512_bitalg avx512_vpopcntdq gfni"


@dataclass(frozen=True)
class Cpu:
    """A CPU kind: its flags (abridged /proc/cpuinfo) and the choices expected on it."""

    flags: str
    auto: tuple[str, ...]  # backends.auto_backends with openvino, nncf and onnxruntime installed
    weights: str  # backends.int8_weights
    bf16: bool  # OpenVINO offers bf16 (its OPTIMIZATION_CAPABILITIES list BF16)
    kernels: tuple[str, str] | None  # the kernel sets FAISS's and numpy's OpenBLAS run there
    numpy_multiplies: bool | None  # blas.wider (None: the kernels were never read there)

    def flag_set(self) -> frozenset[str]:
        return frozenset(f"{_X86} {self.flags}".split())


CPUS = {
    # This machine (Zen 3): no AVX-512, no VNNI, no bf16. Static int8 wants int8 products
    # (VNNI, AMX) and OpenVINO bf16 native bf16: neither, so ONNX Runtime fp32. Without VNNI,
    # AVX2's u8 x s8 product saturates its pair sums: unsigned weights. Both OpenBLAS copies
    # run AVX2 kernels (read here: FAISS's names the core Zen): FAISS's own product.
    "AVX2-only EPYC": Cpu("sha_ni vaes vpclmulqdq", (ONNX, TORCH), UNSIGNED, False,
                          ("Zen", "Haswell"), False),
    # Zen 5: AVX-512 VNNI and bf16, no AMX: static int8 first (1.27-1.29x bf16 there), then
    # bf16; VNNI sums u8 x s8 exactly: signed weights. FAISS's OpenBLAS (0.3.15) predates
    # the core and runs SSE kernels, numpy's AVX-512 ones (read there, benchmarks/README.md
    # session 17): numpy multiplies.
    "Zen-5 EPYC": Cpu(f"{_AVX512} {_ICE_LAKE_ON} avx_vnni avx512_bf16 avx512_vp2intersect",
                      (OPENVINO_INT8, OPENVINO, ONNX, TORCH), SIGNED, True,
                      ("Barcelona", "SkylakeX"), True),
    # Sapphire Rapids: AMX int8 and bf16 as well; the same order. Newer than FAISS's
    # OpenBLAS too: SSE kernels there, numpy's SapphireRapids (by OpenBLAS's model tables, as
    # blas.py says; not read on one).
    "Sapphire Rapids (AMX)": Cpu(f"{_AVX512} {_ICE_LAKE_ON} avx_vnni avx512_bf16 avx512_fp16 "
                                 "amx_bf16 amx_tile amx_int8",
                                 (OPENVINO_INT8, OPENVINO, ONNX, TORCH), SIGNED, True,
                                 ("Prescott", "SapphireRapids"), True),
    # Session 14's Xeon: bf16 and fp16 but no AMX (bf16 measured slower there: precision.py);
    # a core of Sapphire Rapids' time, so its kernels as there (not read on it).
    "Xeon, avx512_fp16 without AMX": Cpu(f"{_AVX512} {_ICE_LAKE_ON} avx_vnni avx512_bf16 "
                                         "avx512_fp16", (OPENVINO_INT8, OPENVINO, ONNX, TORCH),
                                         SIGNED, True, ("Prescott", "SapphireRapids"), True),
    # Ice Lake: AVX-512 VNNI without bf16 (issue 29's machine): static int8, no OpenVINO
    # bf16, so ONNX Runtime next. Its kernels were not read there: whether FAISS's 0.3.15
    # places its server model (SkylakeX) or not (Prescott) only changes whose BLAS is faster.
    "Ice Lake Xeon": Cpu(f"{_AVX512} {_ICE_LAKE_ON}", (OPENVINO_INT8, ONNX, TORCH), SIGNED,
                         False, None, None),
    # Not met yet: AVX2 with AVX-VNNI (recent desktop cores). VNNI sums u8 x s8 exactly:
    # signed weights; static int8 was measured with AVX-512 VNNI only, so it stays off.
    "AVX2 with AVX-VNNI": Cpu("avx_vnni", (ONNX, TORCH), SIGNED, False, None, None),
}


@pytest.fixture
def packages(monkeypatch) -> set[str]:
    """The packages backends.installed reports: all three, until a test removes some."""
    present = {"openvino", "nncf", "onnxruntime"}
    monkeypatch.setattr(backends, "installed", lambda package: package in present)
    return present


@pytest.mark.parametrize("kind", CPUS)
def test_the_backends_each_cpu_kind_gets(kind: str, packages: set[str]):
    cpu = CPUS[kind]
    flags = cpu.flag_set()
    assert tuple(backends.auto_backends(flags)) == cpu.auto
    # a model other than the bundled one (its int8 drift unmeasured) is never int8 on its own
    assert tuple(backends.auto_backends(flags, static_int8=False)) == tuple(
        name for name in cpu.auto if name != OPENVINO_INT8)
    assert backends.int8_weights(flags) == cpu.weights
    assert backends.has_bf16(flags) == cpu.bf16
    packages.discard("nncf")  # static int8 is made by NNCF
    assert OPENVINO_INT8 not in backends.auto_backends(flags)
    packages.discard("openvino")
    assert backends.auto_backends(flags) == [ONNX, TORCH]
    packages.discard("onnxruntime")
    assert backends.auto_backends(flags) == [TORCH]


@pytest.mark.parametrize("kind", CPUS)
def test_openvino_precision_on_each_cpu_kind(kind: str, monkeypatch, tmp_path: Path):
    """inference_hint: f32 without a measurement where OpenVINO offers no bf16; else both
    hints timed once, the faster kept, stored under a key naming this CPU kind's flags (a
    choice measured on one kind is never read on another)."""
    cpu = CPUS[kind]
    monkeypatch.setattr(precision, "cpu_flags", cpu.flag_set)
    monkeypatch.setattr(precision, "cpu_name", lambda: kind)
    capabilities = ["FP32", "INT8", "BIN", "EXPORT_IMPORT"] + (["BF16"] if cpu.bf16 else [])
    timed: list[str] = []

    def seconds(hint: str) -> float:
        timed.append(hint)
        return {"bf16": 1.0, "f32": 2.0}[hint]

    model = tmp_path / "model.onnx"
    hint = precision.inference_hint(capabilities, model, "1", seconds)
    store = tmp_path / precision.CHOICES
    if not cpu.bf16:
        assert hint == "f32" and timed == [] and not store.exists()
        return
    assert hint == "bf16" and sorted(timed) == ["bf16", "f32"]
    (key,) = json.loads(store.read_text())
    assert kind in key and "avx512_bf16" in key and ("amx_bf16" in key) == ("amx_bf16" in
                                                                            cpu.flag_set())
    for other, other_cpu in CPUS.items():  # another kind with bf16 measures for itself
        if other != kind and other_cpu.bf16:
            monkeypatch.setattr(precision, "cpu_flags", other_cpu.flag_set)
            monkeypatch.setattr(precision, "cpu_name", lambda other=other: other)
            precision.inference_hint(capabilities, model, "1", seconds)
    assert len(json.loads(store.read_text())) == sum(c.bf16 for c in CPUS.values())


@pytest.mark.parametrize("kind", [kind for kind, cpu in CPUS.items() if cpu.kernels])
def test_whose_blas_multiplies_on_each_cpu_kind(kind: str):
    faiss_kernels, numpy_kernels = CPUS[kind].kernels
    assert blas.wider({"faiss": faiss_kernels, "numpy": numpy_kernels}) is \
        CPUS[kind].numpy_multiplies


def test_this_cpu_is_one_of_the_kinds_or_says_which_it_is(cpu_branch):
    """Names the kind this run's CPU matches (by the flags the choices read), or says it is
    a new kind; the choices made here are then those of that kind."""
    here = backends.cpu_flags()
    relevant = set(precision.FLAGS)
    kinds = [kind for kind, cpu in CPUS.items() if cpu.flag_set() & relevant == here & relevant]
    cpu_branch(f"CPU kind: {', '.join(kinds) or 'none of the known kinds'}")
    if kinds and backends.installed("nncf") and backends.installed("openvino"):
        assert tuple(backends.auto_backends()) == CPUS[kinds[0]].auto
