"""Sentence vectors for explanations (issue 12): a build is searchable before they are written,
they are exact (each sentence embedded alone), reused by later builds, and the pooled option
and the export's token states do what they say. Real model throughout."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from explorer.corpus.sentences import split_sentences, text_spans
from explorer.features.explanations.explain import explain_hits, explain_match
from explorer.ingest.run import build
from explorer.model.embedder import Embedder, resolve_model
from explorer.model.export import EXPORT_VERSION, META_FILE, TOKEN_STATES, export_folder, load_meta
from explorer.query.engine import Explorer
from tests.conftest import SEEDS, same_text_cosine
from tests.paraphrases import PARAPHRASES

QUERY = "spotting manipulated or synthesized faces produced by unseen forgery generators"


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


@pytest.fixture(scope="module")
def few_seeds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight seed papers, the HydraFake paper among them, as one seed file (a header line, then
    an abstract a paragraph, as in seeds/). Read-only. (Eight papers, not the 71 of the seeds'
    four files: every build of this module embeds a ninth of what it would.)"""
    paragraphs = [block for file in sorted(SEEDS.glob("*.txt"))
                  for block in file.read_text(encoding="utf-8").split("\n\n")[1:] if block.strip()]
    wanted = [b for b in paragraphs if "HydraFake" in b][:1]
    wanted += list(dict.fromkeys(b for b in paragraphs if "HydraFake" not in b))[:7]
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "few.txt").write_text("Eight seed papers\n\n" + "\n\n".join(wanted) + "\n",
                                    encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def few_built(few_seeds: Path, seeds_index: Path,
              tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two builds of `few_seeds`, made once for the module. Read-only: "bare" is the default
    build of a new folder (no sentence vectors stored), "stored" the `--sentences` build, made
    over a copy of the session's seeds index (a `--sentences` build of all the seeds): every
    paper and sentence vector reused, nothing embedded again."""
    bare, stored = (tmp_path_factory.mktemp(name) / "index" for name in ("bare", "stored"))
    build([few_seeds], bare, "default")
    shutil.copytree(seeds_index, stored)
    report = build([few_seeds], stored, "default", sentences=True)
    assert report.embedded == 0 and report.papers == len(Explorer.open(bare).papers)
    return {"bare": bare, "stored": stored}


@pytest.fixture
def copy_of(few_built: dict[str, Path], tmp_path: Path) -> Callable[[str], Path]:
    """copy_of(name): a private, writable copy of one of `few_built`'s indexes."""
    return lambda name: Path(shutil.copytree(few_built[name], tmp_path / name))


def test_stored_vectors_are_each_sentence_embedded_alone(seeds_explorer: Explorer):
    embedder = seeds_explorer.embedder
    for paper in seeds_explorer.papers[::10]:
        spans, stored = seeds_explorer.sentences(paper.paper_id)
        assert spans == split_sentences(paper.abstract)
        alone = embedder.embed_documents([paper.abstract[s:e] for s, e in spans])
        assert np.einsum("ij,ij->i", stored, alone).min() > 0.999  # fp16 storage only


def test_explanations_on_the_seeds_are_present_and_point_at_their_paper(seeds_explorer: Explorer):
    """For every paraphrased question, its target's best sentence is a real sentence of the
    abstract, and asking that sentence finds the paper again (it is characteristic of it)."""
    found = 0
    for question, phrase in PARAPHRASES:
        paper = next(p for p in seeds_explorer.papers if phrase in p.abstract)
        vector = seeds_explorer.embed_query(question)
        best = explain_match(seeds_explorer, vector, paper.paper_id, top_k=2).sentences
        assert len(best) == 2 and best[0].score >= best[1].score > 0
        assert paper.abstract[best[0].start:best[0].end] == best[0].text
        hits = seeds_explorer.search(best[0].text, 3, mode="dense")
        found += paper.paper_id in {h.paper_id for h in hits}
    assert found >= 0.9 * len(PARAPHRASES), found


def test_a_build_is_searchable_before_its_sentence_vectors_are_written(few_seeds: Path,
                                                                      tmp_path: Path):
    out = tmp_path / "index"
    during: list[tuple] = []

    def usable(seconds: float) -> None:
        manifest = _manifest(out)
        explorer = Explorer.open(out)
        hit = explorer.search(QUERY, 1)[0]
        explanation = explain_hits(explorer, [hit], query=QUERY)[0]  # embedded on demand
        during.append((seconds, manifest["sentences"], "sentence_vectors" in manifest["files"],
                       explorer.has_sentence_vectors, hit.paper_id, explanation))

    report = build([few_seeds], out, "default", sentences=True, on_usable=usable)
    assert len(during) == 1
    seconds, recorded, stored, has_vectors, paper_id, explanation = during[0]
    assert 0 < seconds < report.seconds and not recorded and not stored and not has_vectors
    assert "HydraFake" in Explorer.open(out).paper(paper_id).abstract
    manifest = _manifest(out)
    assert manifest["sentences"] is True and "sentence_vectors" in manifest["files"]
    final = Explorer.open(out)
    assert final.has_sentence_vectors
    stored_explanation = explain_hits(final, [final.search(QUERY, 1)[0]], query=QUERY)[0]
    assert [s["text"] for s in stored_explanation["sentences"]] == [
        s["text"] for s in explanation["sentences"]]  # what the first phase showed, stored
    assert not list(out.glob(".partial-*"))
    assert build([few_seeds], out, "default", on_usable=usable).up_to_date and len(during) == 1


def _count_model_runs(monkeypatch, method: str = "embed_documents") -> list[int]:
    """The number of texts of every call of the Embedder's `method` from now on."""
    runs: list[int] = []
    real = getattr(Embedder, method)

    def counting(self, texts, *args, **kwargs):
        runs.append(len(texts))
        return real(self, texts, *args, **kwargs)

    monkeypatch.setattr(Embedder, method, counting)
    return runs


def test_updates_embed_only_the_new_sentences(few_seeds: Path, copy_of, tmp_path: Path,
                                              monkeypatch):
    out = copy_of("bare")
    embedded = _count_model_runs(monkeypatch)
    report = build([few_seeds], out, "default", sentences=True)  # for an index without them
    papers = Explorer.open(out).papers
    assert report.embedded == 0 and embedded == [sum(len(split_sentences(p.abstract))
                                                     for p in papers)]
    extra = tmp_path / "extra.jsonl"
    extra.write_text(json.dumps({"id": "new-1", "title": "Robots on sand",
                                 "abstract": "Robots learn to walk on sand. They fall less."}))
    embedded.clear()
    report = build([few_seeds, extra], out, "default")
    assert report.embedded == 1 and embedded == [1, 2]  # the paper, then its two sentences
    explorer = Explorer.open(out)
    assert len(explorer.sentences("new-1")[0]) == 2


def test_pooled_sentence_vectors_come_from_the_papers_own_pass(few_seeds: Path, tmp_path: Path,
                                                               cpu_branch):
    out = tmp_path / "pooled"
    calls: list[float] = []
    build([few_seeds], out, "default", sentences="pooled", on_usable=calls.append)
    manifest = _manifest(out)
    assert not calls and manifest["sentences"] is False  # not reused as exact vectors
    explorer = Explorer.open(out)
    embedder = explorer.embedder
    cpu_branch(f"{embedder.precision}: least cosine {same_text_cosine(embedder.precision)}")
    for paper in explorer.papers:
        spans, stored = explorer.sentences(paper.paper_id)
        vectors, (pooled,) = embedder.embed_documents_with_spans([paper.text],
                                                                 [text_spans(paper)])
        assert len(stored) == len(spans) and np.einsum("ij,ij->i", stored, pooled).min() > 0.999
        # The paper's vector from that pass is the index's (up to the rounding between a batch
        # of one and the build's batches: conftest.same_text_cosine).
        indexed = explorer.artifacts.index.vectors()[explorer.row(paper.paper_id)]
        assert float(vectors[0] @ indexed) > same_text_cosine(embedder.precision)
    with pytest.raises(ValueError, match="sentences must be"):
        build([few_seeds], out, "default", sentences="sometimes")


def test_spans_past_the_window_are_pooled_from_a_further_window():
    embedder = Embedder(resolve_model("default"))
    text = " ".join(f"Sentence number {i} talks about topic {i % 7} in some detail."
                    for i in range(80))  # about 1,000 tokens: four windows
    spans = split_sentences(text)
    assert embedder.token_count(text) > 3 * embedder.max_seq_length
    vector, (pooled,) = embedder.embed_documents_with_spans([text], [spans])
    np.testing.assert_allclose(vector, embedder.embed_documents([text]), atol=1e-5)
    assert pooled.shape == (len(spans), embedder.dimension)
    np.testing.assert_allclose(np.linalg.norm(pooled, axis=1), 1.0, atol=1e-5)
    last = spans[-5][0]  # the same sentences pooled from a window of their own
    _, (tail,) = embedder.embed_documents_with_spans(
        [text[last:]], [[(s - last, e - last) for s, e in spans[-5:]]])
    whole = pooled[-5:] @ tail.T
    assert np.diag(whole).min() > 0.8  # the last window's context is most of theirs
    one, (all_of_it,) = embedder.embed_documents_with_spans(["We fold proteins."],
                                                           [[(0, 17)]])
    assert float(one[0] @ all_of_it[0]) > 0.98  # one span over the text: the text's vector


def test_the_export_outputs_token_states_under_a_new_cache_key(tmp_path: Path):
    import onnx

    spec = resolve_model("default")
    Embedder(spec, backend="onnx")  # the run's shared export (every build's), made once
    shared = export_folder(spec.fingerprint)
    assert shared.name == f"{spec.fingerprint}-v{EXPORT_VERSION}" and EXPORT_VERSION >= 2
    folder = Path(shutil.copytree(shared, tmp_path / shared.name,  # changed below
                                  ignore=shutil.ignore_patterns("openvino-cache", ".*lock")))
    graph = onnx.load(str(folder / "model.onnx"), load_external_data=False).graph
    assert [output.name for output in graph.output] == ["embedding", TOKEN_STATES]
    meta = json.loads((folder / META_FILE).read_text())
    assert meta["pooling"] == "mean"
    meta["version"] = 1  # an export from before the token states is not used
    (folder / META_FILE).write_text(json.dumps(meta))
    assert load_meta(folder, spec.fingerprint) is None


def _explained_together(explorer: Explorer, questions: list[str]) -> list:
    """explain_hits of each question's top 3, one thread per question, all released at once."""
    results: list = [None] * len(questions)
    barrier = threading.Barrier(len(questions))

    def ask(i: int) -> None:
        barrier.wait()
        hits = explorer.search(questions[i], 3)
        results[i] = explain_hits(explorer, hits, query=questions[i])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(questions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_many_threads_explaining_at_once_get_what_one_thread_gets(
        few_built: dict[str, Path], seeds_index: Path):
    """Stored vectors, and sentences embedded on demand (an index without them, as while a
    build writes them), from eight threads at once."""
    out = few_built["bare"]
    questions = [QUERY, "graph neural networks", "reasoning in language models",
                 "speech tokens", "video diffusion", "robot control", "data mixtures",
                 "privacy of images"]
    for folder in (out, seeds_index):
        together = _explained_together(Explorer.open(folder), questions)
        for question, got in zip(questions, together):
            fresh = Explorer.open(folder)  # nothing embedded and kept yet
            alone = explain_hits(fresh, fresh.search(question, 3), query=question)
            assert all(e["sentences"] for e in got)
            starts = [[s["start"] for s in e["sentences"]] for e in got]
            assert starts == [[s["start"] for s in e["sentences"]] for e in alone]
            scores = [s["score"] for e in got for s in e["sentences"]]
            # bf16 backends differ by up to ~5e-4 per component between batch compositions
            assert scores == pytest.approx([s["score"] for e in alone for s in e["sentences"]],
                                           abs=2e-3)


def test_a_default_build_stores_none_and_explains_with_the_stored_builds_sentences(
        few_built: dict[str, Path]):
    """The default build (a new folder) stores no sentence vectors; a paper's sentences are
    embedded when it is explained, and they are the ones `--sentences` stores."""
    bare, stored = few_built["bare"], few_built["stored"]  # built by few_built
    assert _manifest(bare)["sentences"] is False and "sentence_vectors" not in _manifest(bare)["files"]
    on_demand, kept = Explorer.open(bare), Explorer.open(stored)
    assert not on_demand.has_sentence_vectors and kept.has_sentence_vectors
    ids = [p.paper_id for p in on_demand.papers]
    for (spans, vectors), paper_id in zip(on_demand.sentences_of(ids), ids):
        kept_spans, kept_vectors = kept.sentences(paper_id)
        assert spans == kept_spans
        assert np.einsum("ij,ij->i", vectors, kept_vectors).min() > 0.999  # fp16 storage
    for question in (QUERY, "graph neural networks", "reasoning in language models"):
        picked = [explain_hits(e, e.search(question, 5), query=question) for e in (on_demand, kept)]
        assert [[s["start"] for s in x["sentences"]] for x in picked[0]] == [
            [s["start"] for s in x["sentences"]] for x in picked[1]]


def test_a_default_build_keeps_what_the_folder_stores_and_no_sentences_drops_it(
        few_seeds: Path, copy_of):
    out = copy_of("stored")  # a `--sentences` build
    assert build([few_seeds], out, "default").up_to_date  # the default keeps them
    assert _manifest(out)["sentences"] is True
    assert not build([few_seeds], out, "default", sentences=False).up_to_date
    assert _manifest(out)["sentences"] is False and not Explorer.open(out).has_sentence_vectors
    assert build([few_seeds], out, "default").up_to_date  # and now keeps storing none


def test_a_page_of_hits_embeds_its_sentences_in_one_run_and_keeps_them(
        few_built: dict[str, Path], monkeypatch):
    out = few_built["bare"]
    explorer = Explorer.open(out)
    hits = explorer.search(QUERY, 5)
    runs = _count_model_runs(monkeypatch, "embed_sentences")
    first = explain_hits(explorer, hits, query=QUERY)
    assert runs == [sum(len(split_sentences(explorer.paper(h.paper_id).abstract)) for h in hits)]
    assert explain_hits(explorer, hits, query=QUERY) == first and len(runs) == 1  # kept
    explain_hits(explorer, explorer.search("video diffusion", 5), query="video diffusion")
    assert len(runs) == 2 and runs[1] < runs[0] + sum(  # only papers not seen before
        len(split_sentences(p.abstract)) for p in explorer.papers)


def test_a_page_draws_its_first_card_after_embedding_only_that_papers_sentences(
        few_built: dict[str, Path], monkeypatch):
    """The app's cards (features.explanations.ui.lit): the first hit's sentences in a run of their
    own, so its card is drawn at once, then the other hits' in one run; the same highlights as the
    library's explain_hits; a second view embeds nothing."""
    from explorer.features.explanations.ui import lit

    out = few_built["bare"]
    explorer = Explorer.open(out)
    hits = explorer.search(QUERY, 5)
    sizes = [len(split_sentences(explorer.paper(h.paper_id).abstract)) for h in hits]
    expected = explain_hits(Explorer.open(out), hits, query=QUERY)  # another Explorer's
    runs = _count_model_runs(monkeypatch, "embed_sentences")
    cards = lit(explorer, hits, QUERY)
    first = next(cards)
    assert runs == [sizes[0]]  # the first card is drawn before the others are embedded
    lights = [first, *cards]
    assert runs == [sizes[0], sum(sizes[1:])]
    assert [spans for spans, _ in lights] == [
        [(s["start"], s["end"]) for s in x["sentences"]] for x in expected]
    assert list(lit(explorer, hits, QUERY)) == lights and len(runs) == 2  # kept


def test_sentences_kept_are_bounded_and_stored_ones_are_never_embedded():
    """Plumbing of features/explanations/vectors.py with a stand-in model (counts what it embeds)."""
    from explorer.features.explanations.vectors import SentenceVectors

    first, second, third = (f"This is the {word} sentence of an abstract." for word in
                            ("first", "second", "third"))
    abstracts = {0: f"{first} {second}", 1: third, 2: "", 3: f"{third} {first}", 4: "Stored."}
    embedded: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        embedded.append(texts)
        return np.ones((len(texts), 4), dtype=np.float32) / 2

    stored = {4: ([(0, 6)], np.zeros((1, 4), dtype=np.float32))}
    vectors = SentenceVectors(stored.get, abstracts.__getitem__, embed, capacity=2)
    found = vectors.of_rows([0, 1, 0])
    assert embedded == [[first, second, third]]  # one run for both papers
    assert [len(spans) for spans, _ in found] == [2, 1, 2] and not found[0][1].flags.writeable
    vectors.of(0)  # used last: 1 is now the least recently used of the two kept (0, 1)...
    vectors.of(3)  # ...and goes when 3 comes in
    assert embedded[-1] == [third, first]
    vectors.of(0)
    assert len(embedded) == 2
    vectors.of(1)
    assert embedded[-1] == [third]
    other = SentenceVectors(stored.get, abstracts.__getitem__, embed)
    (empty, _), kept = other.of_rows([2, 4])
    assert empty == [] and kept is stored[4] and len(embedded) == 3  # nothing to embed
    with pytest.raises(ValueError, match="capacity"):
        SentenceVectors(stored.get, abstracts.__getitem__, embed, capacity=0)
