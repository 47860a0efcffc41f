"""The background upgrade itself (started by stage.start_upgrade, at nice 10):

1. under `.upgrade.lock` (one upgrade of a folder at a time; the build lock stays free, so
   builds and questions go on), the current index's papers are embedded with the stronger
   model in blocks of BLOCK, each block saved in the build's checkpoint for that model
   (ingest/checkpoint.py), so a killed upgrade resumes where it stopped;
2. then `build(inputs, folder, model)` runs as any build: it takes the vectors from the
   checkpoint (embedding only papers added meanwhile), computes everything calibrated from the
   stronger model's own vectors (score quantiles, strength references, relatives, map) and
   swaps the manifest in one rename: readers see the old index or the new one, whole.
Progress goes to stage_status.STATUS, written atomically after every block.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from explorer.artifacts.store import load_artifacts, read_manifest
from explorer.errors import ExplorerError
from explorer.features.upgrade.stage import record_rate
from explorer.features.upgrade.stage_status import (
    DONE,
    EMBEDDING,
    FAILED,
    WRITING,
    Status,
    write_status,
)
from explorer.files import FolderLock
from explorer.ingest.checkpoint import Checkpoint
from explorer.ingest.embedding import LazyEmbedder
from explorer.ingest.run import build
from explorer.model.embedder import resolve_model
from explorer.settings import DEFAULT_BATCH_SIZE, default_cache_dir

BLOCK = 32  # papers between two saves: ~a minute of mpnet on two loaded cores
LOCK = ".upgrade.lock"
BUSY = "An upgrade of {folder} is already running (process {pid})."
WRITE_WAIT = 1800.0  # seconds the final build waits for a build of the fast model to finish


def run_upgrade(folder: Path, inputs: Sequence[str], target: str, *,
                batch_size: int = DEFAULT_BATCH_SIZE, max_file_bytes: int | None = None,
                cache_dir: Path | None = None) -> None:
    """Upgrade the index in `folder` to the model `target` (see the module's text)."""
    spec = resolve_model(target)
    with FolderLock(folder, 0, name=LOCK, busy=BUSY):
        manifest = read_manifest(folder)
        if manifest.model.fingerprint == spec.fingerprint:
            return
        status = Status(EMBEDDING, spec.model_id, pid=os.getpid(), updated=time.time())
        write_status(folder, status)
        embedder = LazyEmbedder(spec, batch_size, None)
        status, rate = _embed(folder, spec.fingerprint, embedder, status)
        write_status(folder, _moved(status, state=WRITING))
        build(inputs, folder, target, index_type=manifest.index_type, batch_size=batch_size,
              wait=WRITE_WAIT, max_file_bytes=max_file_bytes)
        if rate is not None:
            record_rate(cache_dir or default_cache_dir(), spec, rate)
        write_status(folder, _moved(status, state=DONE))


def _embed(folder: Path, key: str, embedder: LazyEmbedder, status: Status
           ) -> tuple[Status, float | None]:
    """Embed every text of the folder's current papers that the checkpoint lacks, a block at a
    time; returns the last status and the rate of this run (papers/s, None if it embedded none)."""
    papers = load_artifacts(folder).papers
    checkpoint = Checkpoint(folder, key)
    stored = checkpoint.load(lambda: embedder.info)
    texts = {p.text_hash: p.text for p in papers}  # one per text (duplicates embed once)
    todo = sorted((h for h in texts if h not in stored), key=lambda h: len(texts[h]),
                  reverse=True)  # longest first: the estimate errs long, never short
    resumed = len(texts) - len(todo)
    status = _moved(status, done=resumed, total=len(texts), resumed=resumed)
    write_status(folder, status)
    started = time.perf_counter()
    for start in range(0, len(todo), BLOCK):
        hashes = todo[start:start + BLOCK]
        vectors = embedder.embed("upgrade", [texts[h] for h in hashes])
        checkpoint.save(hashes, vectors, embedder.info)
        rate = (start + len(hashes)) / max(time.perf_counter() - started, 1e-6)
        status = _moved(status, done=resumed + start + len(hashes), rate=round(rate, 3))
        write_status(folder, status)
    return status, status.rate if todo else None


def _moved(status: Status, **changes) -> Status:
    return Status(**{**status.__dict__, **changes, "updated": time.time()})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="explorer-upgrade")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument("--max-file-bytes", type=int)
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args(argv)
    os.nice(10)  # questions answered meanwhile come first
    try:
        run_upgrade(args.out, args.inputs, args.model, batch_size=args.batch_size,
                    max_file_bytes=args.max_file_bytes)
    except ExplorerError as exc:
        _failed(args.out, args.model, str(exc))
        return 1
    except Exception as exc:  # a detached process: say it in the status file too
        _failed(args.out, args.model, f"{type(exc).__name__}: {exc}")
        raise
    return 0


def _failed(folder: Path, model: str, message: str) -> None:
    print(f"explorer upgrade: {message}", file=sys.stderr)
    if not message.startswith(BUSY.split("{folder}")[0]):  # the other run's status stays
        write_status(folder, Status(FAILED, model, pid=os.getpid(), updated=time.time(),
                                    message=message))


if __name__ == "__main__":
    sys.exit(main())
