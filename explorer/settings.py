"""One settings object, read from flags and EXPLORER_* environment variables.

This module is the only reader of the environment (tests/test_settings.py checks it): the CLI and
the app build one `Settings` and pass what each step needs explicitly; library functions whose
argument is left out fall back to the same functions here, called when needed, never at import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from explorer.errors import ExplorerError

APP_NAME = "paper-explorer"  # the folder name of the cache and the user data folder
DEFAULT_MODEL = "all-MiniLM-L6-v2"
# The stronger model a build of the default model upgrades to in the background
# (features/upgrade/; EXPLORER_UPGRADE: off, auto, or another model's name or folder).
UPGRADE_MODEL = "mpnet"
UPGRADE_OFF = ("off", "0", "no", "false", "none")
DEFAULT_INDEX_DIR = "embeddings"
DEFAULT_CORPUS = "seeds"  # what `explorer build` reads when given no paths
DEFAULT_BATCH_SIZE = 32  # texts per model call (benchmarks/README.md: 8/16/32 within noise)
DEFAULT_MAX_FILE_BYTES = 2 << 30  # per corpus file, decompressed
VISITORS = ("auto", "private", "shared")  # EXPLORER_VISITORS: see Settings and README
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


@dataclass(frozen=True)
class Settings:
    """What the CLI, the app and the API need to know; passed explicitly, never global.

    `model` is what a build embeds with. `query_model` is the model asked for by --model or
    EXPLORER_MODEL, None when neither was given: search, similar and recommend then use the
    model the index records; given, it replaces the recorded one (e.g. a model folder that
    moved) and must still have the index's fingerprint. `cache_dir` holds derived files kept
    between runs: model exports (models/) and `explorer eval` indexes (eval/). `data_dir`
    holds the user's own files: saved collections (collections/). `visitors`: what the app's
    visitors may do with collections (`VISITORS`; features/collections/visitors.py): "auto" (the web
    changes the owner's collections when the app listens on this computer only, else each
    browser keeps its own and the owner's are read-only), "private" (always the latter: an app
    behind a proxy on 127.0.0.1) or "shared" (every visitor changes the owner's collections).
    """

    index_dir: Path = Path(DEFAULT_INDEX_DIR)
    model: str = DEFAULT_MODEL
    query_model: str | None = None
    batch_size: int = DEFAULT_BATCH_SIZE
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    cache_dir: Path = field(default_factory=lambda: default_cache_dir({}))  # ~/.cache/...
    data_dir: Path = field(default_factory=lambda: default_data_dir({}))  # ~/.local/share/...
    debug: bool = False
    visitors: str = "auto"
    upgrade: str | None = UPGRADE_MODEL  # None: never upgrade (EXPLORER_UPGRADE=off)

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        index_dir: str | os.PathLike[str] | None = None,
        model: str | None = None,
        batch_size: int | None = None,
    ) -> Settings:
        """Flags win over EXPLORER_INDEX / EXPLORER_MODEL / EXPLORER_MAX_FILE_BYTES /
        EXPLORER_CACHE / EXPLORER_DATA / EXPLORER_DEBUG / EXPLORER_VISITORS /
        EXPLORER_UPGRADE, which win over the defaults. Raises ExplorerError for a size that
        is not a positive number, or visitors that are none of `VISITORS`."""
        env = os.environ if environ is None else environ
        chosen = model or env.get("EXPLORER_MODEL") or None
        return cls(
            index_dir=Path(index_dir or env.get("EXPLORER_INDEX") or DEFAULT_INDEX_DIR),
            model=chosen or DEFAULT_MODEL,
            query_model=chosen,
            batch_size=batch_size or DEFAULT_BATCH_SIZE,
            max_file_bytes=parse_size(env.get("EXPLORER_MAX_FILE_BYTES") or "",
                                      DEFAULT_MAX_FILE_BYTES),
            cache_dir=default_cache_dir(env),
            data_dir=default_data_dir(env),
            debug=env.get("EXPLORER_DEBUG", "").strip() not in ("", "0"),
            visitors=parse_visitors(env.get("EXPLORER_VISITORS", "")),
            upgrade=parse_upgrade(env.get("EXPLORER_UPGRADE", "")),
        )


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """EXPLORER_CACHE, else $XDG_CACHE_HOME/paper-explorer, else ~/.cache/paper-explorer."""
    env = os.environ if environ is None else environ
    explicit = env.get("EXPLORER_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    base = env.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / APP_NAME


def default_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """EXPLORER_DATA, else the platform's user data folder (platformdirs: on Linux
    $XDG_DATA_HOME/paper-explorer, else ~/.local/share/paper-explorer)."""
    env = os.environ if environ is None else environ
    explicit = env.get("EXPLORER_DATA")
    if explicit:
        return Path(explicit).expanduser()
    import platformdirs  # here, not at import: nothing reads folders when settings is imported

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def thread_limit(environ: Mapping[str, str] | None = None) -> int | None:
    """OMP_NUM_THREADS as a positive number, else None. Read by the process that runs the model,
    when it runs it: Ray sets it to each actor's CPUs in the actor's own process."""
    env = os.environ if environ is None else environ
    limit = env.get("OMP_NUM_THREADS", "")
    return int(limit) if limit.isdigit() and int(limit) > 0 else None


def cores(capped: bool = True) -> int:
    """Cores this process may use; OMP_NUM_THREADS caps it (Ray sets it to an actor's CPUs)."""
    try:
        count = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        count = max(1, os.cpu_count() or 1)
    limit = thread_limit() if capped else None
    return min(count, limit) if limit else count


def parse_visitors(text: str) -> str:
    """One of `VISITORS` (any case; "auto" when empty); ExplorerError for anything else: a
    setting that decides who may change whose collections is never guessed."""
    value = text.strip().lower() or "auto"
    if value not in VISITORS:
        raise ExplorerError(f"EXPLORER_VISITORS={text!r} is not one of {', '.join(VISITORS)}. "
                            "Use shared to let every visitor change the owner's collections.")
    return value


def parse_upgrade(text: str) -> str | None:
    """EXPLORER_UPGRADE: None for off (UPGRADE_OFF), UPGRADE_MODEL for "", auto or on, else the
    model (a name or folder) to upgrade to."""
    value = text.strip()
    if value.lower() in UPGRADE_OFF:
        return None
    return UPGRADE_MODEL if value.lower() in ("", "auto", "on") else value


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
