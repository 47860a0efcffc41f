"""Session fixtures shared by several test modules: one `streamlit run` server per index and
data folder, started once for the run instead of once per module (each start loads the model
and the index, about a CPU-second or two, and minutes of wall time on a loaded machine).
Registered in conftest.py; a module that needs a server of its own (its own index, app wrapper
or environment) still starts it with app_fixtures.streamlit_server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer import files
from explorer.corpus.papers import Paper
from explorer.features.collections.store import Collections
from tests.app_fixtures import build_served_index, streamlit_server

# A saved collection of the small app's data folder: one paper of the index and one it lacks.
GHOST_COLLECTION = ("With a ghost", ["speech", "ghost-paper"])


@pytest.fixture(scope="session")
def seeds_server(seeds_index: Path,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(url, data folder): the seeds index served with an EXPLORER_DATA of its own (empty at
    the start). Used by test_browser and test_browser_draft."""
    data = tmp_path_factory.mktemp("seeds-app-data")
    with streamlit_server(seeds_index, env={"EXPLORER_DATA": str(data)}) as url:
        yield url, data


@pytest.fixture(scope="session")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Collections]]:
    """(url, the server's collections): app_fixtures' small corpus plus its SERVED_PAPERS (a
    hostile formula, LaTeX markup) served with an EXPLORER_DATA holding GHOST_COLLECTION. Used
    by test_browser, test_browser_collections, test_browser_limits, test_browser_markup and
    test_sessions."""
    index = build_served_index(tmp_path_factory.mktemp("small-app-index"))
    data = tmp_path_factory.mktemp("small-app-data")
    store = Collections.at(data)
    store.create(*GHOST_COLLECTION)
    with streamlit_server(index, env={"EXPLORER_DATA": str(data)}) as url:
        yield url, store


@pytest.fixture(scope="session")
def venue_server(venue_index: Path,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Collections]]:
    """(url, the server's collections): the venue corpus (tests/venue_fixtures.py) served with
    an EXPLORER_DATA of its own (empty at the start). Used by test_browser_dashboard,
    test_browser_facets and test_browser_map."""
    data = tmp_path_factory.mktemp("venue-app-data")
    with streamlit_server(venue_index, env={"EXPLORER_DATA": str(data)}) as url:
        yield url, Collections.at(data)


PAPERS_HINT = "explorer build SEEDS --out INDEX"  # the rebuild hint PaperList.read is given


def papers_file(folder: Path) -> Path:
    """The papers file an index folder's manifest names."""
    manifest = json.loads((folder / "manifest.json").read_text())
    return folder / manifest["files"]["papers"]["name"]


def full_parse(path: Path) -> list[Paper]:
    """Every record of a papers file parsed the plain way (what a PaperList must equal)."""
    return [Paper.from_dict(record) for _, record in files.read_jsonl(path)]
