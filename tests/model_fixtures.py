"""Models and model-built indexes made once per test run, in the run's temp folder (nothing
kept in the user's cache between runs: a clean machine, as CI's, runs what any other does).

- strong_model: a second real model folder for the upgrade's plumbing tests (test_upgrade*.py).
- mpnet_seeds_index: the seeds embedded by all-mpnet-base-v2 (test_upgrade_calibration.py).

Each is made once per process however many modules name it (a fixture imported into a module
is that module's own fixture to pytest: without the cache below each would copy or build anew),
and once per run under pytest-xdist (run_fixtures.made_once)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from explorer.ingest.run import build
from explorer.model.embedder import resolve_model
from explorer.model.export import export_folder
from tests.run_fixtures import made_once

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
_MADE: dict[str, Path] = {}


def _once(factory: pytest.TempPathFactory, name: str, make) -> Path:
    if name not in _MADE:
        _MADE[name] = made_once(factory, name, make)
    return _MADE[name]


def make_strong_model(folder: Path) -> Path:
    """The bundled MiniLM, pooled by its CLS token instead of the mean: other vectors, other
    rankings, as fast as the default."""
    out = folder / "strong-model"
    shutil.copytree(resolve_model("default").path, out)
    pooling = out / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.write_text(json.dumps(config))
    return out


def shared_exports(cache: Path) -> Path:
    """A new, empty cache folder `cache` whose model exports are the run's own (its models/
    folder links to the settings' cache's, where every other test's embedder finds them): a
    test that needs a cache of its own (an eval's pools) does not export and quantise the
    model again, which is test_quiet_build's and test_backends' subject, not its own."""
    shared = export_folder("x").parent
    shared.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True)
    (cache / shared.name).symlink_to(shared, target_is_directory=True)
    return cache


@pytest.fixture(scope="session")
def strong_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second real model folder: the bundled MiniLM, pooled by its CLS token. Read-only."""
    return _once(tmp_path_factory, "strong", make_strong_model)


@pytest.fixture(scope="session")
def mpnet_seeds_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real index of the seeds embedded by all-mpnet-base-v2 (no sentence vectors), built in
    this run (about a minute on an idle 2-core EPYC). Read-only. The caller skips first where
    mpnet is not installed."""
    def make(folder: Path) -> Path:
        out = folder / "index"
        build([SEEDS], out, "mpnet", sentences=False)
        return out

    return _once(tmp_path_factory, "seeds-mpnet", make)
