"""What listing saved collections and saving a new one cost as a folder fills (issue 29).

Baseline (`read_all`): parse every collection file, what the Marked page did at every rerun
and what every create did to check its name before the folder had an index
(`Collections.listing()` still reads every file: the command line's `collection list`).
Catalog: `Collections.catalog()`, the page's listing now: stat every file, read only those the
index (.index.json) does not hold as unchanged. Create: a new collection saved and deleted
again (lock, name check against the index, atomic write, index update), per change. Cold: the
catalog with the index deleted first (a folder from before the index: every file read once,
then the index stored). Each collection holds 20 ids. All measured in one run, alternating,
`repeats` times each; `ratio` = read_all p50 / catalog p50.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from benchmarks.common import save, timed
from explorer.features.collections.catalog import INDEX
from explorer.features.collections.records import Collection, file_name, write_file
from explorer.features.collections.store import Collections


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run collections")
    parser.add_argument("--sizes", default="100,2500", help="collections in the folder")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    rows = []
    for size in (int(s) for s in args.sizes.split(",") if s):
        with tempfile.TemporaryDirectory() as folder:
            rows.append(_measure(Path(folder), size, args.repeats))
    save("collections", "Saved collections: listing and saving as a folder fills", rows,
         ["collections", "read_all_ms", "catalog_ms", "ratio", "create_ms", "cold_catalog_ms"],
         notes=__doc__.strip())


def _measure(folder: Path, size: int, repeats: int) -> dict:
    store = Collections(folder / "collections")
    store.folder.mkdir(parents=True)
    for number in range(size):  # written directly: the set-up is not what is measured
        name = f"Reading list {number}"
        ids = tuple(f"10.1000/paper-{number}-{i}" for i in range(20))
        write_file(store.folder / file_name(name), Collection(name, ids, 1, uid=f"{number:016x}"))
    store.catalog()  # the index, as the first page view leaves it
    read_all, listed, created, cold = [], [], [], []
    for turn in range(repeats + 1):  # the first turn warms the file cache, not counted
        times = [timed(store.listing)[0], timed(store.catalog)[0],
                 timed(lambda t=turn: _create_and_delete(store, t))[0] / 2]
        (store.folder / INDEX).unlink()
        times.append(timed(store.catalog)[0])
        if turn:
            for kept, seconds in zip((read_all, listed, created, cold), times):
                kept.append(seconds * 1000)
    p50 = {name: round(statistics.median(values), 2) for name, values in
           (("read_all", read_all), ("catalog", listed), ("create", created), ("cold", cold))}
    return {"collections": size, "read_all_ms": p50["read_all"], "catalog_ms": p50["catalog"],
            "ratio": round(p50["read_all"] / p50["catalog"], 1), "create_ms": p50["create"],
            "cold_catalog_ms": p50["cold"]}


def _create_and_delete(store: Collections, turn: int) -> None:
    name = f"New one {turn}"
    store.create(name, ["a", "b"])
    store.delete(name)
