"""Shared fixtures: one real index of the seeds, built once per test session with the real model."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.corpus.papers import read_corpus
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.acm_fixtures import write_tiny_acm
from tests.app_fixtures import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SCREENSHOTS,
    SHARED_DATA,
    require_chromium,
    small_index,
)
from tests.model_fixtures import mpnet_seeds_index, strong_model
from tests.run_fixtures import made_once
from tests.shared import seeds_server, small_server, venue_server
from tests.venue_fixtures import venue_index

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
CPU_BRANCH = "cpu_branch"  # the user property a CPU-dependent test names its branch with


def same_text_cosine(precision: str | None) -> float:
    """The least cosine between a text's vector alone and in a batch (other batch-mates, other
    padding) on a backend of `precision`: static int8 rounds a value across an int8 step now
    and then (1 - cosine up to 1.9e-4 on the seeds), bf16 and fp32 only in the last bits."""
    return 0.9995 if precision == "int8-static" else 0.9999


@pytest.fixture
def cpu_branch(record_property) -> Callable[[str], None]:
    """cpu_branch(text): say which branch a test that depends on the CPU took; the run's
    summary lists every such test with its branch, under the CPU's flags and choices."""
    return lambda branch: record_property(CPU_BRANCH, branch)


def pytest_terminal_summary(terminalreporter) -> None:
    """The CPU, what the product chooses on it, and the branch of each CPU-dependent test."""
    from explorer.index import blas
    from explorer.model.backends import auto_backends, cpu_flags, cpu_name, int8_weights
    from explorer.model.precision import FLAGS

    branches = {(report.nodeid, value): None for reports in terminalreporter.stats.values()
                for report in reports for name, value in getattr(report, "user_properties", ())
                if name == CPU_BRANCH}
    flags = [flag for flag in FLAGS if flag in cpu_flags()]
    kernels = blas.kernels()
    terminalreporter.section("CPU-dependent branches")
    terminalreporter.line(f"{cpu_name() or 'unknown CPU'}: {' '.join(flags) or 'no avx2'} "
                          f"(of {' '.join(FLAGS)}); automatic backends {auto_backends()}; "
                          f"dynamic int8 weights {int8_weights()}; OpenBLAS kernels {kernels}: "
                          f"{'numpy' if blas.wider(kernels) else 'FAISS'} multiplies many queries")
    for nodeid, branch in branches:
        terminalreporter.line(f"{nodeid}: {branch}")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`pytest -n 2 --dist loadfile` (pytest-xdist; Makefile `test`): each file's tests on one
    worker (its module fixtures made once), and the files that use a session's Streamlit
    server (tests/shared.py) together as one file (each server started once)."""
    if config.getvalue("dist") == "loadfile":
        from tests.run_fixtures import file_scheduler

        return file_scheduler(config, log)
    return None


@pytest.fixture(scope="session", autouse=True)
def private_data_folder(tmp_path_factory: pytest.TempPathFactory):
    """EXPLORER_DATA in a temp folder: no test (nor the app it starts) reads or writes the
    user's own saved collections. EXPLORER_UPGRADE=off: a CLI build starts no background
    upgrade to the stronger model (tests/test_upgrade*.py set it themselves)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXPLORER_DATA", str(tmp_path_factory.mktemp("user-data")))
        patch.setenv("EXPLORER_UPGRADE", "off")
        yield


@pytest.fixture(scope="session")
def seeds_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real index of seeds/ (all-MiniLM-L6-v2, exact FAISS, sentence vectors stored, as
    `explorer build --sentences` writes them). Read-only."""
    def make(out: Path) -> Path:
        build([SEEDS], out, "default", sentences=True)
        return out

    return made_once(tmp_path_factory, "seeds-index", make)


@pytest.fixture(scope="session")
def seeds_explorer(seeds_index: Path) -> Explorer:
    return Explorer.open(seeds_index)


@pytest.fixture(scope="session")
def venue_explorer(seeds_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Explorer:
    """The seed abstracts as JSONL with venues and years, vectors reused from the seeds index
    (tests/test_search.py, test_index_types.py; test_browser_* have their own: paperlists')."""
    def make(folder: Path) -> Path:
        out = folder / "index"
        shutil.copytree(seeds_index, out)
        rows = [{"abstract": p.abstract, "venue": ["ICLR", "NeurIPS", "ICML"][i % 3],
                 "year": 2020 + i % 5} for i, p in enumerate(read_corpus([SEEDS]).papers)]
        (folder / "papers.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
        report = build([folder / "papers.jsonl"], out, "default")
        assert report.embedded == 0  # same texts, same model: nothing re-embedded
        return out

    return Explorer.open(made_once(tmp_path_factory, "seed-venues", make))


@pytest.fixture(scope="session")
def tiny_acm(seeds_explorer: Explorer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny ACM-CR-shaped folder made from the seeds (tests/acm_fixtures.py). Read-only."""
    return write_tiny_acm(seeds_explorer.papers, tmp_path_factory.mktemp("tiny-acm"))


@pytest.fixture
def index_copy(seeds_index: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the seeds index (tests may damage or extend it)."""
    target = tmp_path / "index"
    shutil.copytree(seeds_index, target)
    return target


# fixtures of other modules, shared; SHARED_DATA (app_fixtures) for the modules that import it here
__all__ = ["SHARED_DATA", "mpnet_seeds_index", "seeds_server", "small_index", "small_server",
           "strong_model", "venue_index", "venue_server"]


@pytest.fixture(scope="session")
def browser() -> Iterator:
    """Headless Debian chromium through Playwright, one for the whole run (each test opens its
    own pages or contexts; Playwright is imported only when a test asks for it)."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    require_chromium()
    # expect()'s own default wait is 5 s, too short on a loaded machine (a page's state after a
    # rerun); the pages' own waits are the modules' WAIT (90 s): the same bound for both.
    playwright_api.expect.set_options(timeout=90_000)
    SCREENSHOTS.mkdir(exist_ok=True)
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
