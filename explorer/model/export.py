"""Export a local sentence-transformers model to ONNX once, cached by the model's fingerprint.

The export holds the whole encoder, mean/CLS pooling and L2 normalisation, so running it needs
only `tokenizers` plus ONNX Runtime or OpenVINO: no torch, no sentence-transformers import. Its
second output, the encoder's last token states, lets a build pool a vector for each sentence from
the paper's own pass (runtimes.ExportedModel.embed_spans). The
files are build artifacts kept outside the repository (default ``~/.cache/paper-explorer``),
written to temp names and renamed, with ``meta.json`` last, so a crashed export is never used.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from explorer.files import atomic_write
from explorer.model.backends import SIGNED, UNSIGNED
from explorer.settings import default_cache_dir

logger = logging.getLogger(__name__)

FP32_FILE = "model.onnx"
INT8_FILE = "model-int8.onnx"  # signed int8 weights (CPUs with VNNI)
# The dynamic int8 file per weight type (backends.int8_weights) and the precision it is.
INT8_FILES = {SIGNED: INT8_FILE, UNSIGNED: "model-int8-u8.onnx"}
INT8_PRECISIONS = {INT8_FILE: "int8-dynamic", "model-int8-u8.onnx": "int8-dynamic-u8"}
# The static int8 model (quantise.py, OpenVINO IR: its weights beside it, same stem, .bin);
# "-2": the feed-forward output projections kept in float (a "-1" quantised every one).
STATIC_FILE = "model-int8-static-2.xml"
TOKENIZER_FILE = "tokenizer.json"
META_FILE = "meta.json"
# 2: the graph also outputs TOKEN_STATES; an export of version 1 lacks them and is made anew.
EXPORT_VERSION = 2
EMBEDDING, TOKEN_STATES = "embedding", "token_states"  # the graph's outputs, in this order
LOCK_FILE = ".export.lock"
_POOLING_MODES = ("mean", "cls")
_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def export_folder(fingerprint: str, cache_dir: Path | None = None) -> Path:
    """Where the export of a model lives: CACHE/models/FINGERPRINT-vVERSION, where CACHE is
    `cache_dir`, else the settings' cache folder (EXPLORER_CACHE, else ~/.cache/paper-explorer).
    The export version is part of the name, so that processes of two versions sharing a cache
    never rewrite each other's export (version 1 lived in CACHE/models/FINGERPRINT)."""
    return (cache_dir or default_cache_dir()) / "models" / f"{fingerprint}-v{EXPORT_VERSION}"


def load_meta(folder: Path, fingerprint: str) -> dict[str, Any] | None:
    """The export's metadata when a complete export for `fingerprint` is in `folder`."""
    try:
        meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if meta.get("fingerprint") != fingerprint or meta.get("version") != EXPORT_VERSION:
        return None
    files = meta.get("files", {})
    for name, size in files.items():
        path = folder / name
        if not path.is_file() or path.stat().st_size != size:
            return None
    return meta


def ensure_export(model_path: Path, fingerprint: str, *, int8: str | None = None,
                  static: bool = False, cache_dir: Path | None = None
                  ) -> tuple[Path, dict[str, Any]]:
    """Export (and, with `int8`, the weight type "s8" or "u8", quantise dynamically; with
    `static`, make the static int8 model, STATIC_FILE) the model unless a valid export exists;
    the dynamic int8 file is INT8_FILES[int8].

    Returns (folder, meta). Raises ValueError when the model cannot be expressed this way
    (e.g. an unsupported pooling mode) and ImportError when torch/onnx are missing.
    """
    if int8 is not None and int8 not in INT8_FILES:
        raise ValueError(f"int8 weights must be one of {tuple(INT8_FILES)}, got {int8!r}")
    name = INT8_FILES.get(int8) if int8 is not None else None
    wanted = [file for file in (name, STATIC_FILE if static else None) if file is not None]
    folder = export_folder(fingerprint, cache_dir)
    meta = load_meta(folder, fingerprint)
    if _holds(meta, wanted):
        return folder, meta
    folder.mkdir(parents=True, exist_ok=True)
    with _export_lock(folder):
        meta = load_meta(folder, fingerprint)
        if _holds(meta, wanted):  # another thread or process exported meanwhile
            return folder, meta
        # the one line a user sees of it (the CLI prints the library's INFO lines)
        logger.info("preparing the model for this computer, once (up to half a minute); "
                    "later builds and questions reuse it from %s", folder)
        meta = meta or _export(model_path, fingerprint, folder)
        if name is not None and name not in meta["files"]:
            atomic_write(folder / name, lambda tmp: _quantize(folder / FP32_FILE, tmp, int8))
            meta["files"][name] = (folder / name).stat().st_size
            _write_meta(folder, meta)
        if static and STATIC_FILE not in meta["files"]:
            _static(folder, meta)
    return folder, meta


def _holds(meta: dict[str, Any] | None, wanted: list[str]) -> bool:
    """Whether a complete export (`meta`, None when there is none) has every `wanted` file."""
    return meta is not None and all(file in meta["files"] for file in wanted)


def _static(folder: Path, meta: dict[str, Any]) -> None:
    """Make the static int8 model (quantise.py) and record its two files in `meta`."""
    from explorer.model.quantise import quantise

    target = folder / STATIC_FILE
    tokenizer = (folder / TOKENIZER_FILE).read_text(encoding="utf-8")
    quantise(folder / FP32_FILE, target, tokenizer, tuple(meta["inputs"]), int(meta["pad_id"]),
             int(meta["max_seq_length"]))
    for file in (target, target.with_suffix(".bin")):
        meta["files"][file.name] = file.stat().st_size
    _write_meta(folder, meta)


@contextmanager
def _export_lock(folder: Path) -> Iterator[None]:
    """Held by one exporter of `folder` at a time: a lock per folder for this process's threads,
    and an advisory file lock (where the OS has fcntl) for other processes."""
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(folder.resolve(), threading.Lock())
    with lock, open(folder / LOCK_FILE, "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: threads are still serialised
            yield
            return
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _export(model_path: Path, fingerprint: str, folder: Path) -> dict[str, Any]:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import torch
    from sentence_transformers import SentenceTransformer

    with _quiet():
        model = SentenceTransformer(str(model_path), device="cpu", local_files_only=True)
    wrapped, input_names, pad_id = _wrap(model)
    sample = model.tokenizer(["a short text", "a somewhat longer sample text"], padding=True,
                             return_tensors="pt")
    args = tuple(sample[name] for name in input_names)
    axes = {name: {0: "batch", 1: "tokens"} for name in input_names}

    def write(tmp: Path) -> None:
        with torch.no_grad(), _quiet():
            torch.onnx.export(wrapped, args, os.fspath(tmp), input_names=list(input_names),
                              output_names=[EMBEDDING, TOKEN_STATES], opset_version=17,
                              dynamo=False, dynamic_axes={**axes, EMBEDDING: {0: "batch"},
                                                          TOKEN_STATES: {0: "batch", 1: "tokens"}})

    atomic_write(folder / FP32_FILE, write)
    tokenizer = _backend_tokenizer(model, model_path)
    atomic_write(folder / TOKENIZER_FILE, lambda tmp: tmp.write_text(tokenizer, encoding="utf-8"))
    meta = {
        "version": EXPORT_VERSION, "fingerprint": fingerprint, "source": str(model_path),
        "inputs": list(input_names), "pad_id": pad_id, "pooling": wrapped.mode,
        "dimension": int(wrapped.dimension), "max_seq_length": int(model.max_seq_length),
        "files": {name: (folder / name).stat().st_size for name in (FP32_FILE, TOKENIZER_FILE)},
    }
    _write_meta(folder, meta)
    return meta


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence exactly what loading and tracing the model print that a user cannot act on:
    transformers' "Loading weights" bar, torch's TracerWarning (Python values in the trace are
    frozen as constants; tests/test_backends.py checks the export against the model) and
    torch.onnx's UserWarnings about how it writes an op in ONNX. Other warnings and every error
    go through. The warning filters are the process's (as any catch_warnings): an export runs
    once per model and machine, so a warning of another thread is rarely hidden meanwhile."""
    import torch
    from transformers.utils import logging as transformers_logging

    bars = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
            warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\.onnx\.")
            yield
    finally:
        if bars:
            transformers_logging.enable_progress_bar()


def _wrap(model) -> tuple[Any, tuple[str, ...], int]:
    """The encoder plus pooling and normalisation as one torch module with tensor inputs; it
    returns the unit vectors (batch, d) and the last token states (batch, tokens, d)."""
    import torch

    transformer, pooling = model[0], model[1]
    mode = (pooling.get_config_dict() or {}).get("pooling_mode")
    if type(pooling).__name__ != "Pooling" or mode not in _POOLING_MODES:
        raise ValueError(f"pooling {mode!r} is not exportable; supported: {_POOLING_MODES}")
    encoder = transformer.auto_model
    encoder.config._attn_implementation = "eager"  # traces to plain ONNX ops
    accepted = set(model.tokenizer.model_input_names)
    input_names = tuple(n for n in ("input_ids", "attention_mask", "token_type_ids")
                        if n in accepted)

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.dimension = encoder.config.hidden_size
            self.mode = mode

        def forward(self, *inputs):
            named = dict(zip(input_names, inputs))
            hidden = self.encoder(**named).last_hidden_state
            if mode == "cls":
                pooled = hidden[:, 0]
            else:
                mask = named["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1), hidden

    pad_id = model.tokenizer.pad_token_id
    return Encoder().eval(), input_names, int(pad_id if pad_id is not None else 0)


def _backend_tokenizer(model, model_path: Path) -> str:
    """The fast tokenizer as JSON: the model's own tokenizer.json, else the loaded one's."""
    own = model_path / TOKENIZER_FILE
    if own.is_file():
        return own.read_text(encoding="utf-8")
    backend = getattr(model.tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise ValueError("the model has no fast tokenizer (tokenizer.json) to export")
    return backend.to_str()


def _quantize(source: Path, target: Path, weights: str) -> None:
    """Dynamic int8: weights of the matrix multiplies only, per output channel, signed ("s8")
    or unsigned ("u8"; activations are unsigned either way, so u8 runs u8u8 kernels).

    Quantising every op (embeddings included) moved vectors by ~0.06 cosine on abstracts;
    MatMul-only per-channel keeps the mean drift near 0.005 (see benchmarks/README.md).
    """
    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    weight_type = QuantType.QInt8 if weights == SIGNED else QuantType.QUInt8
    with _without_preprocessing_advice():
        quantize_dynamic(os.fspath(source), os.fspath(target), op_types_to_quantize=["MatMul"],
                         per_channel=True, weight_type=weight_type,
                         extra_options={"DefaultTensorType": TensorProto.FLOAT})


class _PreprocessingAdvice(logging.Filter):
    """ONNX Runtime's "Please consider to run pre-processing before quantization" (its shape
    inference step, which a transformer with dynamic axes does not need): nothing to act on."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Please consider to run pre-processing")


@contextmanager
def _without_preprocessing_advice() -> Iterator[None]:
    """ORT logs that advice on the root logger, whose first record would also install a
    stderr handler for the whole process (logging.basicConfig); a NullHandler prevents that
    for the quantisation's duration and the filter drops the advice; other records pass."""
    root, advice, quiet = logging.getLogger(), _PreprocessingAdvice(), logging.NullHandler()
    root.addFilter(advice)
    root.addHandler(quiet)
    try:
        yield
    finally:
        root.removeHandler(quiet)
        root.removeFilter(advice)


def _write_meta(folder: Path, meta: dict[str, Any]) -> None:
    text = json.dumps(meta, indent=2)
    atomic_write(folder / META_FILE, lambda tmp: tmp.write_text(text, encoding="utf-8"))

