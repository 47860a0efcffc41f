"""Quantisations the product does not ship, measured beside its backends by `benchmarks.run embed`.

Each candidate runs the product's own export through `ExportedModel` (same tokenizer, batches
and pooling), only with another model file:

- `onnx-int8-s8`: the product's dynamic int8 with signed weights, the VNNI choice, on any CPU
  (on a CPU without VNNI, the product takes unsigned weights: `backends.int8_weights`);
- `onnx-static`: ONNX Runtime static int8 (QDQ, per-channel weights, MinMax ranges of the
  activations calibrated on real abstracts and titles);
- `openvino-w8`: NNCF int8 weight compression (activations stay float), run by OpenVINO.

(NNCF's static int8, weights and activations, is the product's `openvino-int8` backend:
explorer/model/quantise.py.) The calibration texts of `onnx-static` are paperlists-ml records
not among the measured ones. The files are kept under EXPLORER_CACHE/bench/quantised-FINGERPRINT/.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import cache_dir, load_abstracts, paper_text
from explorer.files import atomic_write
from explorer.model.backends import ONNX, ONNX_INT8, OPENVINO, SIGNED
from explorer.model.embedder import ModelSpec
from explorer.model.export import FP32_FILE, INT8_FILES, TOKENIZER_FILE, ensure_export
from explorer.model.runtimes import ExportedModel

CALIBRATION = 200  # texts: 150 abstracts and 50 titles (short, as questions are)
CANDIDATES = ("onnx-int8-s8", "onnx-static", "openvino-w8")


class Candidate:
    """An export run like `Embedder` runs it (chunks of 16 batches), with its own model file."""

    def __init__(self, name: str, model: ExportedModel, batch_size: int, precision: str) -> None:
        self.backend, self.precision = name, precision
        self._model, self._batch_size = model, batch_size

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        step = self._batch_size * 16
        return np.vstack([self._model.embed(texts[start:start + step], self._batch_size)
                          for start in range(0, len(texts), step)])

    def embed_query(self, text: str) -> np.ndarray:
        return self._model.embed([text], self._batch_size)[0]


def candidate(name: str, spec: ModelSpec, batch_size: int, measured: set[str]) -> Candidate:
    """The candidate `name` for the model `spec` (made once). `measured`: doc ids of the
    benchmark's texts (never calibrated on)."""
    folder, meta = ensure_export(spec.path, spec.fingerprint, int8=SIGNED)
    if name == "onnx-int8-s8":
        model = ExportedModel(folder, meta, ONNX_INT8, INT8_FILES[SIGNED])
        return Candidate(name, model, batch_size, model.precision)
    if name not in CANDIDATES:
        raise ValueError(f"unknown candidate {name!r}; expected one of {CANDIDATES}")
    work = cache_dir() / "bench" / f"quantised-{spec.fingerprint}"
    work.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(folder / TOKENIZER_FILE, work / TOKENIZER_FILE)
    source = folder / FP32_FILE
    if name == "onnx-static":
        file = _made(work / "static-qdq.onnx", lambda tmp: _static(source, tmp, work, measured))
        return Candidate(name, ExportedModel(work, meta, ONNX, file), batch_size, "int8-static")
    file = _compressed(source, work / "nncf-compress.xml")
    return Candidate(name, ExportedModel(work, meta, OPENVINO, file), batch_size, "int8-weights")


def _made(target: Path, make: Callable[[Path], None]) -> str:
    if not target.is_file():
        atomic_write(target, make)
    return target.name


def _feeds(work: Path, measured: set[str]) -> Iterator[dict[str, np.ndarray]]:
    """Calibration inputs, one text each: abstracts and titles of unmeasured records."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str((work / TOKENIZER_FILE).read_text(encoding="utf-8"))
    tokenizer.enable_truncation(256)
    records = [r for r in load_abstracts(CALIBRATION * 2, seed=7) if r["doc_id"] not in measured]
    texts = [paper_text(r) for r in records[:150]] + [r["title"] for r in records[150:200]]
    for text in texts:
        ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
        yield {"input_ids": ids, "attention_mask": np.ones_like(ids),
               "token_type_ids": np.zeros_like(ids)}


def _static(source: Path, target: Path, work: Path, measured: set[str]) -> None:
    from onnx import TensorProto
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self._feeds = _feeds(work, measured)

        def get_next(self) -> dict[str, Any] | None:
            return next(self._feeds, None)

    prepared = work / "static-pre.onnx"
    quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
    quantize_static(str(prepared), str(target), Reader(), quant_format=QuantFormat.QDQ,
                    op_types_to_quantize=["MatMul"], per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    extra_options={"DefaultTensorType": TensorProto.FLOAT})
    prepared.unlink()


def _compressed(source: Path, target: Path) -> str:
    """NNCF's int8 weight compression as OpenVINO IR (`target`, its weights beside it as
    .bin), made once: written in a temp folder, the .bin moved first and the .xml last."""
    if target.is_file():
        return target.name
    import nncf
    import openvino as ov

    model = nncf.compress_weights(ov.Core().read_model(str(source)),
                                  mode=nncf.CompressWeightsMode.INT8_ASYM)
    staging = target.parent / f".{target.stem}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    ov.save_model(model, str(staging / target.name), compress_to_fp16=False)
    weights = target.with_suffix(".bin")
    (staging / weights.name).replace(weights)
    (staging / target.name).replace(target)
    shutil.rmtree(staging)
    return target.name
