"""Parquet files (an OpenAlex snapshot's Parquet parts, a Semantic Scholar or arXiv table, any
table with the corpus format's columns) -> (source, row) records, read with pyarrow.

Rows are read `BATCH` at a time (`ParquetFile.iter_batches`), so memory holds one batch and the
row group it comes from, not the file. A row is a dict as JSON would give it: structs are
objects, lists are lists, a map a list of (key, value) pairs; dates and times become ISO texts,
decimals texts, binary values nothing. Sources are `file#row` (from 1). A file that is not
Parquet, or breaks while read, is a CorpusError naming it; one larger than the size limit is
refused before it is read.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.errors import CorpusError
from explorer.files import ReadErrors

BATCH = 1_024
MAX_DEPTH = 32  # of nested values turned into JSON-like ones


def read_parquet(path: Path, limit: int, errors: ReadErrors) -> Iterator[tuple[str, Any]]:
    """(`file#row`, row as a dict) of every row of a Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.suffix.lower() == ".gz":
        raise CorpusError(f"{path}: a gzipped Parquet file. Parquet compresses its own pages: "
                          "gunzip it and read the .parquet file.")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise errors(path, f"cannot read ({exc})", "Check the disk and the file.") from exc
    if size > limit:
        raise errors(path, f"more than {limit} bytes", errors.too_big)
    row = 0
    try:
        with pq.ParquetFile(path) as table:
            for batch in table.iter_batches(batch_size=BATCH, use_threads=False):
                for record in batch.to_pylist():
                    row += 1
                    yield f"{path}#{row}", _plain(record, 0)
    except (pa.ArrowException, OSError, ValueError) as exc:
        where = f"{path}#{row + 1}" if row else str(path)
        raise CorpusError(f"{where}: not a valid Parquet file ({exc}). Re-create the file."
                          ) from exc


def _plain(value: Any, depth: int) -> Any:
    """A value as JSON would give it (the module's rules)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if depth >= MAX_DEPTH:
        return None
    if isinstance(value, dict):
        return {str(key): _plain(inner, depth + 1) for key, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(inner, depth + 1) for inner in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return None
