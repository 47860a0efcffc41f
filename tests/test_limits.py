"""Every text a visitor gives is bounded before anything costly reads it (issue 29): a question
or steer text of megabytes is cut to MAX_QUESTION_CHARS characters before it is tokenised,
answered in bounded time with a note, and never held whole in a memo key; the app's boxes and
uploaders, and Streamlit's server limits, say the numbers the library owns."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomllib
from streamlit.testing.v1 import AppTest

from explorer.cli.main import main
from explorer.corpus.papers import Paper
from explorer.errors import UnknownPaperError
from explorer.features.collections.records import MAX_NAME_CHARS
from explorer.features.collections.store import Collections
from explorer.features.drafts import ui as drafts
from explorer.features.drafts.passages import MAX_DRAFT_BYTES
from explorer.features.explanations.explain import explain_hits
from explorer.features.explanations.ui import lights
from explorer.features.topics.ui_map import MAX_POINTS, Focus, map_chart
from explorer.query import suggest
from explorer.query.engine import BATCHED_QUESTION_CHARS, MAX_QUESTION_CHARS, Explorer, cut_question
from explorer.ui.links import MAX_MARKED, Location
from explorer.ui.page import opened
from explorer.ui.public import public_facets
from explorer.ui.results import embed, ranked
from tests.app_fixtures import APP, ROOT, small_index  # noqa: F401 (small_index is a fixture)

QUESTION = "can diagonal state space layers follow non-commutative group operations"
MEGABYTES = 5_000_000  # the paste: counting its tokens took 8-11 s


def huge(ending: str = "") -> str:
    """A 5 MB question: a real one, then a pasted book, then `ending`."""
    book = "attention layers in transformers track state over long inputs. "
    return f"{QUESTION} {book * (MEGABYTES // len(book))}{ending}"


def test_a_question_is_cut_at_a_space_without_reading_past_the_cut():
    assert cut_question(QUESTION) == QUESTION
    words = cut_question("word " * 10_000)
    assert len(words) <= MAX_QUESTION_CHARS and words.endswith("word")
    assert cut_question("x" * 10_000) == "x" * MAX_QUESTION_CHARS  # no space near: cut there


def test_a_multi_megabyte_question_is_answered_in_bounded_time_with_a_note(seeds_explorer):
    seeds_explorer.search(QUESTION, 1)  # the model and BM25 loaded: only the question is timed
    question = huge()
    start = time.perf_counter()
    note = seeds_explorer.query_note(question)
    hits = seeds_explorer.search(question, 5)
    elapsed = time.perf_counter() - start
    assert elapsed < 3.0, elapsed  # a guard: the old code tokenised all 5 MB twice, 8-11 s each
    assert f"{len(question.strip()):,} characters: only its first {MAX_QUESTION_CHARS:,}" in note
    assert "reads its first 256 tokens, up to “…" in note
    cut = seeds_explorer.search(cut_question(question), 5)
    assert [hit.paper_id for hit in hits] == [hit.paper_id for hit in cut] and hits


class _Counting:
    """A real tokenizers.Tokenizer that records the length of every text it is given."""

    def __init__(self, tokenizer: Any, lengths: list[int]) -> None:
        self._tokenizer, self._lengths = tokenizer, lengths

    def encode(self, text: str, *args: Any, **kwargs: Any) -> Any:
        self._lengths.append(len(text))
        return self._tokenizer.encode(text, *args, **kwargs)

    def encode_batch(self, texts: list[str], *args: Any, **kwargs: Any) -> Any:
        self._lengths.extend(len(text) for text in texts)
        return self._tokenizer.encode_batch(texts, *args, **kwargs)


def test_no_path_of_a_question_tokenises_more_than_a_question(seeds_explorer, monkeypatch):
    """What reaches the model's tokenizers (the one that embeds, the one that counts) from each
    public path a question takes: never more than MAX_QUESTION_CHARS characters."""
    explorer = seeds_explorer
    embedder = explorer.embedder
    if embedder._exported is None:  # the spy sits on the exported model's tokenizers
        pytest.skip(f"backend {embedder.backend} runs no exported model")
    embedder.token_count("made before it is watched")
    lengths: list[int] = []
    exported = embedder._exported
    monkeypatch.setattr(exported, "_tokenizer", _Counting(exported._tokenizer, lengths))
    monkeypatch.setattr(exported, "_counter", _Counting(exported._counter, lengths))
    question, liked = huge(), explorer.papers[0].paper_id
    explorer.query_note(question)
    explorer.embed_query(question)
    hits = explorer.search(question, 3)
    explain_hits(explorer, hits, query=question)
    explorer.recommend([liked], query=question, top_k=3)
    explorer.similar_to_text(question, 3)
    embedder.token_count(question)
    embedder.embed_queries([question])
    embedder.embed_asked_together([question, QUESTION])
    # recommend and similar_to_text reuse the vector search kept for the same cut question
    # (query/asked.py), so 7 runs reach the tokenizers, each of at most the cut's length
    assert len(lengths) >= 7 and max(lengths) <= MAX_QUESTION_CHARS, max(lengths)


class _Held(_Counting):
    """A tokenizer that records each run's texts (encode_batch: one model run's questions) and
    holds the first `held` runs until `go` is set, so that the questions asked meanwhile queue
    up for the next batch."""

    def __init__(self, tokenizer: Any, held: int) -> None:
        super().__init__(tokenizer, [])
        self.runs: list[list[str]] = []
        self.go, self.holding = threading.Event(), threading.Semaphore(0)
        self._held, self._lock = held, threading.Lock()

    def encode_batch(self, texts: list[str], *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            self.runs.append(list(texts))
            hold, self._held = self._held > 0, self._held - 1
        if hold:
            self.holding.release()
            self.go.wait(60)
        return super().encode_batch(texts, *args, **kwargs)


@pytest.mark.parametrize("verb", ["search", "embed_query"])
def test_a_long_question_is_never_padded_into_short_questions_run(seeds_index, monkeypatch,
                                                                    verb):
    """Questions asked at once share a model run, padded to the longest: a 4,000-character
    question made the short ones of its run cost and wait as much as it (the others' p99 304 ms
    against 31 alone). Asked while every run is busy, it runs alone; the short ones together."""
    explorer = Explorer.open(seeds_index, warm=True)
    if explorer.embedder._exported is None:
        pytest.skip(f"backend {explorer.embedder.backend} runs no exported model")
    batcher = explorer._questions._batcher if verb == "search" else explorer.embedder._questions
    spy = _Held(explorer.embedder._exported._tokenizer, batcher.workers)
    monkeypatch.setattr(explorer.embedder._exported, "_tokenizer", spy)
    ask = getattr(explorer, verb)
    with ThreadPoolExecutor(batcher.workers + 4) as pool:
        busy = [pool.submit(ask, f"{QUESTION} {i}") for i in range(batcher.workers)]
        for _ in busy:  # every worker's run started, held: what comes now queues
            assert spy.holding.acquire(timeout=60)
        asked = [pool.submit(ask, question) for question in (huge(), "a", "b", "c")]
        deadline = time.monotonic() + 60
        while len(batcher._queue) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # the last to come queue too
        spy.go.set()
        for future in busy + asked:
            future.result()
    lengths = [sorted(map(len, run)) for run in spy.runs]
    long = [run for run in lengths if run[-1] > BATCHED_QUESTION_CHARS]
    assert len(long) == 1 and len(long[0]) == 1, lengths  # the long question ran alone
    assert [1, 1, 1] in lengths, lengths  # the short ones still share a run


def test_the_model_reads_the_part_reach_names(seeds_explorer):
    embedder = seeds_explorer.embedder
    text = " ".join(paper.abstract for paper in seeds_explorer.papers[:4])
    reach = embedder.reach(text)
    assert reach.tokens > embedder.max_seq_length and 0 < reach.chars < len(text)
    whole = embedder.embed_query(text)
    np.testing.assert_allclose(embedder.embed_query(text[:reach.chars]), whole, atol=1e-5)
    assert not np.allclose(embedder.embed_query(text[:reach.chars - 30]), whole, atol=1e-5)
    assert embedder.reach(QUESTION).chars == len(QUESTION)
    assert seeds_explorer.query_note(QUESTION) is None


def test_memo_keys_hold_no_more_than_a_question(seeds_explorer):
    """Two 5 MB questions (and steer texts) that differ only past MAX_QUESTION_CHARS are one
    memo entry: the key holds the cut question, not megabytes."""
    explorer, one, two = seeds_explorer, huge("first ending"), huge("second ending")
    first = ranked(explorer, Location(query=one), "search", one)
    assert first and ranked(explorer, Location(query=two), "search", two)[0] is first[0]
    assert embed(explorer, one) is embed(explorer, two)
    paper_id = first[0].paper_id
    assert lights(explorer, paper_id, one) is lights(explorer, paper_id, two)
    like = (paper_id,)
    steered = ranked(explorer, Location(page="marked", like=like, steer=one), "recommend",
                     like, (), one)
    assert ranked(explorer, Location(page="marked", like=like, steer=two), "recommend",
                  like, (), two)[0] is steered[0]


def _at_once(ask: Callable[[str], Any], barrier: threading.Barrier) -> Callable[[str], Any]:
    """`ask`, called once the barrier's threads are all there (they ask at the same moment)."""
    def asked(question: str) -> Any:
        barrier.wait()
        return ask(question)

    return asked


def test_threads_asking_huge_and_plain_questions_at_once_get_what_one_thread_gets(seeds_explorer):
    asked = [huge(str(i)) if i % 2 else f"{QUESTION} {i}" for i in range(6)]

    def answer(question: str) -> tuple:
        hits = seeds_explorer.search(question, 5)
        return [(hit.paper_id, round(hit.score, 5)) for hit in hits], seeds_explorer.query_note(
            question)

    with ThreadPoolExecutor(len(asked)) as pool:
        together = list(pool.map(_at_once(answer, threading.Barrier(len(asked))), asked))
    assert together == [answer(question) for question in asked]
    assert all(note for _, note in together[1::2])


def test_a_link_naming_hundreds_of_unknown_papers_looks_for_no_close_ids(seeds_explorer,
                                                                          monkeypatch):
    """A link may mark 200 + 200 papers; each unknown one cost a 'did you mean' search (difflib
    over up to 2,000 ids, 10-130 ms holding the GIL on 92k ids), twice: 800 of them per page
    load. The ids are only checked; a suggestion is made when a message is read."""
    searches = []
    found = suggest.close_ids
    monkeypatch.setattr(suggest, "close_ids", lambda *args: searches.append(1) or found(*args))
    fake = {key: [f"{key}-{number:03d}" for number in range(MAX_MARKED)] for key in ("like", "unlike")}
    location, unknown = opened(fake, public_facets(seeds_explorer), seeds_explorer)
    assert (location.like, location.unlike, len(unknown), searches) == ((), (), 2 * MAX_MARKED, [])
    with pytest.raises(UnknownPaperError, match="Did you mean 66489d54e9ae"):
        seeds_explorer.paper("66489d54e9a")  # read, the message still names close ids
    assert searches == [1]


def test_the_cli_says_when_a_question_was_cut(capsys, seeds_index: Path):
    question = huge()[:200_000]  # in process: an argument this long is no shell's
    assert main(["search", question, "--index", str(seeds_index), "--k", "1"]) == 0
    assert main(["recommend", "--query", question, "--index", str(seeds_index), "--k", "1"]) == 0
    err = capsys.readouterr().err
    assert err.count(f"only its first {MAX_QUESTION_CHARS:,} are used") == 2


# -- the app's widgets and Streamlit's server limits -----------------------------------------
def _app(index: Path, monkeypatch: pytest.MonkeyPatch, **params: Any) -> AppTest:
    monkeypatch.setenv("EXPLORER_INDEX", str(index))
    app = AppTest.from_file(str(APP), default_timeout=120)
    for key, value in params.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def test_every_box_and_uploader_is_limited_to_what_the_library_reads(small_index,  # noqa: F811
                                                                     monkeypatch):
    app = _app(small_index, monkeypatch, view="marked", like="gnn")
    assert app.text_input(key="query_box").max_chars == MAX_QUESTION_CHARS
    assert app.text_input(key="steer_box").max_chars == MAX_QUESTION_CHARS
    assert app.text_input(key="collection_name").max_chars == MAX_NAME_CHARS
    app = _app(small_index, monkeypatch, view="draft")
    assert app.text_area(key="draft_text").max_chars == MAX_DRAFT_BYTES
    app.radio(key="draft_cited").set_value(drafts.UPLOAD).run()
    sizes = {uploader.key: uploader.proto.max_upload_size_mb for uploader in app.file_uploader}
    assert sizes == {"draft_file": drafts.DRAFT_UPLOAD_MIB, "draft_bib": drafts.REFERENCE_UPLOAD_MIB}


def test_a_reference_list_past_the_pages_limit_is_refused_with_a_message(seeds_explorer,
                                                                         tmp_path):
    """One 50 MiB list held every other session at 2.4x for 151 s: a 6 MiB one is refused
    (before it is parsed), with the limit named."""
    entry = b"@article{k,\n  title = {A title},\n  year = {2020}\n}\n"
    data = entry * ((6 << 20) // len(entry))
    upload = drafts.Given(text=QUESTION, references=_Upload("refs.bib", data),
                          source=drafts.UPLOAD)
    checked, error = drafts.check(seeds_explorer, upload, Collections.at(tmp_path), 5)
    limit = f"more than the {drafts.MAX_REFERENCE_BYTES:,} allowed"
    assert checked is None and limit in error.replace("\\", "")


class _Upload:
    def __init__(self, name: str, data: bytes) -> None:
        self.name, self._data = name, data

    def getvalue(self) -> bytes:
        return self._data


def _server_config() -> dict[str, Any]:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]


def test_streamlit_limits_are_what_the_app_reads():
    """The config file cannot import the library: its numbers are checked against it here."""
    server, mib = _server_config(), drafts.MIB
    for limit, upload in ((MAX_DRAFT_BYTES, drafts.DRAFT_UPLOAD_MIB),
                          (drafts.MAX_REFERENCE_BYTES, drafts.REFERENCE_UPLOAD_MIB)):
        assert (upload - 1) * mib < limit <= upload * mib  # the limit, rounded up to MiB
    assert server["maxUploadSize"] == max(drafts.DRAFT_UPLOAD_MIB, drafts.REFERENCE_UPLOAD_MIB)
    # a browser's message holds the draft box's longest text, 3 bytes a UTF-16 unit at most
    assert 3 * MAX_DRAFT_BYTES < server["maxWidgetStateSize"] * 1e6 <= 6 * MAX_DRAFT_BYTES
    assert server["maxMessageSize"] >= server["maxWidgetStateSize"]


def _worst_titles() -> Iterator[Paper]:
    for row in range(MAX_POINTS):  # 90 characters (plain's cut), '"' escaped by JSON
        yield Paper(f"{row:012x}", '"<&>' * 25, False, "")


def test_the_largest_message_the_app_sends_fits_the_message_limit():
    """The corpus map (MAX_POINTS points, every title made of characters JSON or HTML escape) is the
    largest message the app sends; server.maxMessageSize holds it with room to spare."""
    papers = list(_worst_titles())
    rng = np.random.default_rng(0)
    corpus_map = {"x": rng.normal(size=MAX_POINTS).tolist(), "y": rng.normal(size=MAX_POINTS).tolist(),
                  "topic": [row % 40 for row in range(MAX_POINTS)],
                  "topics": [{"id": t, "label": f"topic {t}", "terms": ["a"], "size": 500}
                             for t in range(40)]}
    focus = Focus(open_row=0, neighbour_rows=list(range(1, 11)))
    size = len(map_chart(corpus_map, papers, focus).to_json().encode())
    assert 2 * size < _server_config()["maxMessageSize"] * 1e6, size
