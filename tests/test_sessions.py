"""8 browser sessions at once against a real `streamlit run` server: every page answers, none errs.

Each session (its own Chromium context, so its own Streamlit session) opens a fresh `?q=` link,
types one more fresh question and opens one paper's similar list: each of the three ways in (a
new session, a rerun of one, a button) once per session, 8 of each at once, all through one
Explorer that the server shares between its session threads. (A second typed question per
session, as before, repeated the rerun case: 32 answers took 42 s of the serial CI run.)
Run on the default backend: the app's path does not depend on the backend, and OpenVINO's
infer requests under many threads (the pool that once failed under this load) are
test_concurrency's [openvino] cases (eight threads on one Explorer get what one thread gets).
A backend name added to the parametrize list runs the same sessions on it (through
benchmarks/load.py's WRAPPER).
The driver and its error checks are benchmarks/sessions.py (also behind `benchmarks.run load`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.load import WRAPPER, questions
from benchmarks.sessions import Plan, page_errors, run_sessions
from explorer.model.backends import OPENVINO, OPENVINO_INT8, auto_backends
from tests.app_fixtures import (  # noqa: F401 (small_index is a fixture)
    APP,
    CHROMIUM,
    require_chromium,
    small_index,
    streamlit_server,
)

pytestmark = pytest.mark.browser
pytest.importorskip("playwright.async_api")
SESSIONS, QUESTIONS = 8, 2


@pytest.fixture(scope="module", autouse=True)
def chromium() -> None:
    require_chromium()


def test_error_checks_see_what_a_broken_page_shows() -> None:
    assert page_errors("ok", ["RuntimeError: Infer Request is busy"]).startswith("error element")
    for shown in ("Traceback (most recent call last):", "RuntimeError: Infer Request is busy",
                  'File "/srv/app/streamlit_app.py", line 3', "ValueError: bad k",
                  "Connection error. Is Streamlit still running?"):
        assert page_errors(f"Paper Explorer\n{shown}\nmore", []), shown
    clean = "Mean squared error bounds for onerror handlers; 10 papers closest to your question"
    assert page_errors(clean, []) == ""


@pytest.mark.parametrize("backend", ["auto"])
def test_eight_sessions_at_once_all_answer_without_errors(small_index: Path, tmp_path: Path,  # noqa: F811
                                                          backend: str, cpu_branch,
                                                          request) -> None:
    automatic = auto_backends()[0]
    if backend != "auto" and automatic in (OPENVINO, OPENVINO_INT8):
        cpu_branch(f"skipped: the automatic backend here is {automatic}, OpenVINO's")
        pytest.skip("the default backend here is OpenVINO's already: the same pool of infer "
                    "requests under the same load (a minute of the suite on two cores)")
    cpu_branch(f"ran {backend} (the automatic backend here: {automatic})")
    pool = questions(small_index, SESSIONS * QUESTIONS + 1, seed=len(backend))
    with _server(request, small_index, tmp_path, backend) as url:
        warm, _ = _run(run_sessions(url, [Plan(pool[-1:], similar_every=0)]))
        assert warm[0].errors == [], warm[0].errors  # the first page loads the model and index
        deadline = time.monotonic() + 180  # a bound for a loaded machine; ~20 s when quiet
        plans = [Plan(pool[s * QUESTIONS:(s + 1) * QUESTIONS], similar_every=QUESTIONS,
                      link_every=QUESTIONS + 1, answer_timeout_s=90, deadline=deadline)
                 for s in range(SESSIONS)]
        logs, _ = _run(run_sessions(url, plans))
    answers = [answer for log in logs for answer in log.answers]
    errors = [error for log in logs for error in log.errors]
    assert errors == [], f"{len(errors)} of {len(answers)} answers failed; first: {errors[:3]}"
    assert len(answers) == SESSIONS * (QUESTIONS + 1), "a session stopped early (time cap)"
    assert sum(answer.kind == "similar" for answer in answers) == SESSIONS


@contextlib.contextmanager
def _server(request, index: Path, folder: Path, backend: str) -> Iterator[str]:
    """The app's URL: the small app's shared server (tests/shared.py) on the automatic
    backend, else a server of its own that loads `backend` (benchmarks/load.py's WRAPPER)."""
    if backend == "auto":
        yield request.getfixturevalue("small_server")[0]
        return
    app = folder / "load_app.py"
    app.write_text(WRAPPER.format(app=str(APP)), encoding="utf-8")
    with streamlit_server(index, app=app, env={"LOAD_BACKEND": backend}) as url:
        yield url


def _run(sessions):
    """asyncio.run in a thread of its own: the run's shared Playwright (tests/conftest.py
    `browser`, sync API) keeps an event loop in the main thread once a browser test has run."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, sessions).result()
