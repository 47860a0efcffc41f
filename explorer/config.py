"""One settings object, read from flags and EXPLORER_* environment variables."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_INDEX_DIR = "embeddings"


@dataclass(frozen=True)
class Settings:
    """What the CLI, the app and the API need to know; passed explicitly, never global."""

    index_dir: Path = Path(DEFAULT_INDEX_DIR)
    model: str = DEFAULT_MODEL
    batch_size: int = 32

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        index_dir: str | os.PathLike[str] | None = None,
        model: str | None = None,
    ) -> Settings:
        """Flags win over EXPLORER_INDEX / EXPLORER_MODEL, which win over the defaults."""
        env = os.environ if environ is None else environ
        return cls(
            index_dir=Path(index_dir or env.get("EXPLORER_INDEX") or DEFAULT_INDEX_DIR),
            model=model or env.get("EXPLORER_MODEL") or DEFAULT_MODEL,
        )
