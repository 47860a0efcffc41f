"""Static int8: the exported model with int8 matrix multiplies, for OpenVINO on CPUs with VNNI.

NNCF (OpenVINO's own post-training quantisation) puts int8 on the weights and activations of
the matrix multiplies, but for the feed-forward output projections, with activation ranges
calibrated once on fixed texts (calibration.txt: abstracts of seeds/ and short texts like
questions). So, unlike dynamic int8, a text's vector does not depend on the texts embedded
beside it, up to rounding that now and then moves a value across an int8 step (cosine >=
0.9998 between a seed abstract alone and in a batch; bf16: 0.99999; dynamic int8: 0.990).
Measured on an AVX-512 VNNI EPYC: 1.27-1.29x bf16's abstracts/s, mean cosine drift 0.0012 from fp32
on held-out abstracts (benchmarks/README.md, "Static int8").

The model is made once per export (export.ensure_export), in 10-15 s.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np

CALIBRATION_FILE = Path(__file__).with_name("calibration.txt")
# The exported BERT-style encoder's feed-forward output projections (not attention/output/...).
FEED_FORWARD_OUTPUT = r".*/layer\.\d+/output/dense/MatMul"


def calibration_texts() -> list[str]:
    """The calibration texts: calibration.txt's blocks after its header line."""
    blocks = CALIBRATION_FILE.read_text(encoding="utf-8").split("\n\n")
    return [" ".join(block.split()) for block in blocks[1:] if block.strip()]


def quantise(source: Path, target: Path, tokenizer_json: str, inputs: tuple[str, ...],
             pad_id: int, max_length: int) -> None:
    """Write the static int8 form of the ONNX model `source` as OpenVINO IR `target` (.xml,
    its weights beside it as .bin): made in a staging folder, then the .bin moved and the .xml
    last, so a crash never leaves an .xml without its weights."""
    os.environ["NNCF_CI"] = "1"  # NNCF's switch for its telemetry (only that): nothing is sent
    import nncf
    import openvino as ov

    model = ov.Core().read_model(os.fspath(source))
    feeds = list(_feeds(tokenizer_json, inputs, pad_id, max_length))
    # The feed-forward blocks' output projections stay in float: their inputs (after GELU)
    # hold the outlier activations that int8 ranges clip. On held-out paperlists-ml texts this
    # halved the mean drift from fp32 (0.0027 -> 0.0012) at the same abstracts/s, and moved
    # nDCG@10 on ACM-CR paragraphs from -0.58 to +0.17 point (benchmarks/README.md).
    float_layers = nncf.IgnoredScope(patterns=[FEED_FORWARD_OUTPUT], validate=False)
    with _quiet(nncf):
        model = nncf.quantize(model, nncf.Dataset(feeds), model_type=nncf.ModelType.TRANSFORMER,
                              subset_size=len(feeds), ignored_scope=float_layers)
    staging = target.parent / f".{target.stem}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        ov.save_model(model, os.fspath(staging / target.name), compress_to_fp16=False)
        weights = target.with_suffix(".bin")
        (staging / weights.name).replace(weights)
        (staging / target.name).replace(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _feeds(tokenizer_json: str, inputs: tuple[str, ...], pad_id: int, max_length: int
           ) -> Iterator[dict[str, np.ndarray]]:
    """One model input per calibration text, tokenised as the runtime tokenises."""
    from tokenizers import Tokenizer

    from explorer.model.inputs import feed

    tokenizer = Tokenizer.from_str(tokenizer_json)
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length)
    for text in calibration_texts():
        yield feed([tokenizer.encode(text)], inputs, pad_id)


@contextlib.contextmanager
def _quiet(nncf) -> Iterator[None]:
    """NNCF's INFO lines, tables and progress bars (rich, on stdout) say nothing a user can act
    on: hidden for the quantisation. Its warnings and errors still reach the log."""
    logger = logging.getLogger("nncf")
    level = logger.level
    nncf.set_log_level(logging.WARNING)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        nncf.set_log_level(level)
