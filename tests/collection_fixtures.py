"""Helpers for the collections tests: many threads acting on collections at the same moment."""

from __future__ import annotations

import threading
from collections.abc import Callable

from explorer.errors import CollectionError


def at_once(work: Callable[[int], object], count: int) -> list[tuple[str, object]]:
    """Run work(i) for i < count in threads released together by a barrier: per thread, in
    order of i, ("done", what it returned) or ("refused", the CollectionError's message)."""
    barrier = threading.Barrier(count)
    results: list[tuple[str, object]] = [("missing", None)] * count

    def run(number: int) -> None:
        barrier.wait()
        try:
            results[number] = ("done", work(number))
        except CollectionError as exc:
            results[number] = ("refused", str(exc))

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
