"""Requests that arrive together, answered together (group commit), for the query path.

The app's sessions share one Explorer, each in its own thread. A `Batcher` wraps a function
that answers a list of requests in one call (the model embeds several questions in one run,
the index scans its vectors once for several queries): while `workers` batches run, requests
that arrive queue up, and when one finishes the first waiting caller runs the queued requests
(up to `limit`) together. A request that arrives when a worker is free is answered at once,
alone, so batching never makes a lone session wait, and there is no timer.

A failed batch is answered again one request at a time (those it had not answered yet), so an
error reaches only the caller whose request caused it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(eq=False)
class _Request:
    item: Any
    done: bool = False
    answered: bool = False
    result: Any = None
    error: BaseException | None = None


class Batcher(Generic[T, R]):
    """Calls of `answer([item])` from many threads, grouped: `batcher(item)` returns what
    `answer` returned for `item` in the batch it ran in. `answer(items)` must return (or yield)
    one result per item, in order, each the same as for that item alone; each caller gets its
    result as soon as it is there."""

    def __init__(self, answer: Callable[[list[T]], Iterable[R]], limit: int,
                 workers: int = 1) -> None:
        if limit < 1 or workers < 1:
            raise ValueError(f"limit and workers must be positive, got {limit} and {workers}")
        self._answer = answer
        self.limit = limit
        self.workers = workers  # batches that may run at once
        self._queue: list[_Request] = []
        self._running = 0
        self._changed = threading.Condition(threading.Lock())
        self.batches = 0  # batches run so far, and the requests in them (for benchmarks)
        self.requests = 0

    def __call__(self, item: T) -> R:
        request = _Request(item)
        with self._changed:
            self._queue.append(request)
        while (batch := self._next(request)) is not None:
            self._run(batch)
        if request.error is not None:
            raise request.error
        return request.result

    def _next(self, request: _Request) -> list[_Request] | None:
        """Wait until `request` is answered or taken into a running batch (-> None) or a worker
        is free (-> the next batch, which the caller runs; it holds `request` unless more than
        `limit` others wait before it)."""
        with self._changed:
            while request in self._queue and self._running >= self.workers:
                self._changed.wait()
            if request not in self._queue:
                while not request.done:  # another caller's batch holds it
                    self._changed.wait()
                return None
            batch = self._queue[: self.limit]
            del self._queue[: self.limit]
            self._running += 1
            self.batches += 1
            self.requests += len(batch)
            return batch

    def _run(self, batch: list[_Request]) -> None:
        try:
            self._answer_batch(batch)
        except BaseException as exc:  # noqa: BLE001 - handed to the callers it belongs to
            for request in batch:
                if not request.answered:
                    request.error = exc
        finally:
            with self._changed:
                for request in batch:
                    request.done = True
                self._running -= 1
                self._changed.notify_all()

    def _answer_batch(self, batch: list[_Request]) -> None:
        given = 0
        try:
            for request, result in zip(batch, self._answer([request.item for request in batch])):
                self._give(request, result)
                given += 1
        except Exception:
            if len(batch) == 1:
                raise
            for request in batch:  # someone's request failed the batch: answer the rest alone
                if not request.answered:
                    self._alone(request)
            return
        if given != len(batch):
            raise ValueError(f"{given} results for {len(batch)} requests")

    def _give(self, request: _Request, result: Any) -> None:
        """Hand `result` to the caller of `request` now: an `answer` that yields its results
        frees each caller as its own comes, not when the whole batch is done."""
        with self._changed:
            request.result, request.answered, request.done = result, True, True
            self._changed.notify_all()

    def _alone(self, request: _Request) -> None:
        try:
            results = list(self._answer([request.item]))  # a list, or what the answer yields
            if len(results) != 1:
                raise ValueError(f"{len(results)} results for 1 request")
            request.result = results[0]
        except Exception as exc:  # noqa: BLE001 - re-raised in the thread that asked
            request.error = exc
        request.answered = True


class Occupancy:
    """How many questions this process is answering at this moment, over every thread. A part
    of the query path that can spread one question over the cores (the model's threads, the
    index's parallel ranges) does so only for a question answered alone: when others are in
    progress they keep the cores busy, and spreading only adds hand-offs and spinning threads
    (benchmarks/README.md, "Concurrent answers"). A thread counts once however deep its
    calls nest."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()
        self._depth = threading.local()

    @contextmanager
    def answering(self) -> Iterator[None]:
        """Count the calling thread as answering a question inside the block."""
        depth = getattr(self._depth, "value", 0)
        self._depth.value = depth + 1
        if depth == 0:
            with self._lock:
                self._count += 1
        try:
            yield
        finally:
            self._depth.value = depth
            if depth == 0:
                with self._lock:
                    self._count -= 1

    def alone(self) -> bool:
        """Whether at most one question is being answered (the caller's, if it is in one)."""
        return self._count <= 1


IN_PROGRESS = Occupancy()  # the process's: its cores are shared by every Explorer in it
