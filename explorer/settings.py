"""One settings object, read from flags and EXPLORER_* environment variables."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import ExplorerError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_INDEX_DIR = "embeddings"
DEFAULT_MAX_FILE_BYTES = 2 << 30  # per corpus file, decompressed
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


@dataclass(frozen=True)
class Settings:
    """What the CLI, the app and the API need to know; passed explicitly, never global."""

    index_dir: Path = Path(DEFAULT_INDEX_DIR)
    model: str = DEFAULT_MODEL
    batch_size: int = 32
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        index_dir: str | os.PathLike[str] | None = None,
        model: str | None = None,
    ) -> Settings:
        """Flags win over EXPLORER_INDEX / EXPLORER_MODEL / EXPLORER_MAX_FILE_BYTES, which win
        over the defaults. Raises ExplorerError for a size that is not a positive number."""
        env = os.environ if environ is None else environ
        return cls(
            index_dir=Path(index_dir or env.get("EXPLORER_INDEX") or DEFAULT_INDEX_DIR),
            model=model or env.get("EXPLORER_MODEL") or DEFAULT_MODEL,
            max_file_bytes=parse_size(env.get("EXPLORER_MAX_FILE_BYTES") or "",
                                      DEFAULT_MAX_FILE_BYTES),
        )


def parse_size(text: str, default: int) -> int:
    """Bytes from "2147483648", "512M", "2G" or "2GiB"; `default` for an empty text."""
    cleaned = text.strip().upper().removesuffix("IB").removesuffix("B")
    if not cleaned:
        return default
    number, unit = (cleaned[:-1], cleaned[-1]) if cleaned[-1] in _UNITS else (cleaned, "")
    if not (number.isascii() and number.isdigit()) or len(number) > 18 or int(number) < 1:
        raise ExplorerError(
            f"EXPLORER_MAX_FILE_BYTES={text!r} is not a positive size. Use a number of bytes"
            " or one with K, M or G, e.g. 2G."
        )
    return int(number) * _UNITS[unit]
