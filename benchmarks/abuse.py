"""Abuse: one session sends the worst inputs while others ask ordinary questions (issue 29).

`benchmarks.run abuse [--index DIR] [--sessions 3] [--rounds 2] [--alone-seconds 8]
[--action-seconds 4] [--trap-kb 20] [--reference-mb 50] [--no-old-path]`

Threads act as the app's sessions (Streamlit runs each session in a thread of one process),
through the functions the app's pages call, on one Explorer opened as the app opens it (warm;
default index: the seeds, as `benchmarks.run load`). Ordinary sessions ask fresh questions
(5-8 word windows of the corpus's abstracts, none asked twice) one after another, as the Ask
page does: `Explorer.query_note`, then `ui.results.ranked`. Each round runs them alone for
--alone-seconds, then beside an abuser that runs each of its actions in turn, each repeated for
at least --action-seconds:

- for comparison, ordinary questions (one more ordinary session: what any visitor costs);
- a 5 MB question on the Ask page (query_note + ranked, each one starting with a fresh question
  so that no memo answers it): what a client that skips the box's limit sends;
- the same question tokenised whole, as query_note and the search did before issue 29 (the
  model's own tokenizer, untruncated, twice): the old path, measured in the same run;
- a 5 MB steer text on the Marked page (query_note + ranked "recommend");
- crafted reference lists through the draft page's parser (features/drafts/ui.uploaded_cited):
  a .bib field `title = aaa…aaa"x" # b`, and a .ris and a CSL-JSON record without a title whose
  abstract is one unbroken word (its title is derived from it), each --trap-kb KB;
- a 2 MB draft through the draft check (features/drafts/ui.check, nothing cited), and for
  comparison a 20-paragraph draft (the check reads the first 20 passages of any draft: the same work);
- the largest reference list the page accepts (--reference-mb MiB of valid BibTeX, 0: none),
  read as the page reads it (in a process of its own: corpus/apart.py) and, for comparison,
  in the server's process as before (not with --no-old-path).

An ordinary answer counts under the action it overlapped most. Before the first round each
path is warmed with ordinary input (a question, a steer, the 20-paragraph draft's check, a
one-entry .bib): what a running server has already loaded is not charged to the abuser.
Rows: the ordinary answers' p50/p99 alone, beside each action and beside all of them, with their
ratios to alone (the issue's target: p99 within 2x of alone), and each action's own time per
repetition.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from benchmarks.common import QUERIES, ROOT, save
from benchmarks.load import questions, seeds_index
from explorer.corpus.references import read_references
from explorer.features.collections.store import Collections
from explorer.features.drafts import ui as drafts
from explorer.features.drafts.cited import cited_from_references
from explorer.features.drafts.passages import MAX_DRAFT_BYTES
from explorer.query.engine import Explorer
from explorer.ui.links import Location
from explorer.ui.results import ranked

MEGABYTES = 5_000_000  # the question: its token count held the GIL 8-11 s
BOOK = "attention layers in transformers track state over long inputs. "
Act = Callable[[int], object]  # one repetition of an abusive action (its number)


def ordinary(explorer: Explorer, pool: Iterator[str], lock: threading.Lock,
             stop: threading.Event, answers: list[tuple[float, float]]) -> None:
    """One ordinary session: fresh questions as the Ask page asks them, until `stop`;
    appends (start, seconds) of each answer."""
    while not stop.is_set():
        with lock:
            question = next(pool)
        started = time.perf_counter()
        explorer.query_note(question)
        ranked(explorer, Location(query=question), "search", question)
        answers.append((started, time.perf_counter() - started))


def abuse(acts: dict[str, Act], seconds: float, spans: list[tuple[str, float, float, int]]) -> None:
    """The abuser: each action in turn, repeated for at least `seconds`; appends (name, start,
    end, repetitions)."""
    for name, act in acts.items():
        started, count = time.perf_counter(), 0
        while count == 0 or time.perf_counter() - started < seconds:
            act(count)
            count += 1
        spans.append((name, started, time.perf_counter(), count))


def phase(explorer: Explorer, pool: Iterator[str], sessions: int, acts: dict[str, Act] | None,
          seconds: float) -> tuple[list[tuple[float, float]], list[tuple[str, float, float, int]]]:
    """`sessions` ordinary sessions for `seconds` (alone: `acts` None) or while the abuser runs
    `acts` -> (answers, the abuser's spans)."""
    answers: list[tuple[float, float]] = []
    spans: list[tuple[str, float, float, int]] = []
    stop, lock = threading.Event(), threading.Lock()
    workers = [threading.Thread(target=ordinary, args=(explorer, pool, lock, stop, answers))
               for _ in range(sessions)]
    for worker in workers:
        worker.start()
    try:
        if acts is None:
            time.sleep(seconds)
        else:
            abuse(acts, seconds, spans)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    return answers, spans


def actions(explorer: Explorer, args: argparse.Namespace, store: Collections) -> dict[str, Act]:
    """The abuser's actions, by name, through the functions the app's pages call."""
    book, liked = BOOK * (MEGABYTES // len(BOOK)), (explorer.papers[0].paper_id,)

    def short(number: int) -> str:  # a fresh question: no memo holds it
        return f"{QUERIES[number % len(QUERIES)]} ({number})"

    def question(number: int) -> str:
        return f"{short(number)} {book}"

    def ask(number: int) -> None:
        explorer.query_note(question(number))
        ranked(explorer, Location(query=question(number)), "search", question(number))

    def steer(number: int) -> None:
        text = question(number)
        explorer.query_note(text)
        ranked(explorer, Location(page="marked", like=liked, steer=text), "recommend", liked, (),
               text)

    def plain(number: int) -> None:  # what one more ordinary session costs the others
        ranked(explorer, Location(query=short(number)), "search", short(number))

    acts: dict[str, Act] = {f"one more ordinary session ({args.sessions + 1} in all)": plain,
                            "5 MB question (Ask page)": ask}
    if not args.no_old_path:
        acts["5 MB question tokenised whole (before issue 29)"] = _old_path(explorer, question)
    acts["5 MB steer text (Marked page)"] = steer
    return {**acts, **_uploads_and_drafts(explorer, args, store)}


def _uploads_and_drafts(explorer: Explorer, args: argparse.Namespace, store: Collections
                        ) -> dict[str, Act]:
    """The crafted uploads, the drafts and the largest reference list, by name."""
    trap, acts = "a" * (args.trap_kb * 1000), {}
    kb = f"{args.trap_kb} KB"
    for suffix, name, data in ((".bib", f"title = a…a\"x\" # b, {kb}", _trap_bib(trap)),
                               (".ris", f"untitled, a {kb} word", _trap_ris(trap)),
                               (".json", f"untitled, a {kb} word", _trap_csl(trap))):
        acts[f"{suffix} trap: {name}"] = _upload(explorer, suffix, data)
    acts["2 MB draft (Check my draft)"] = _draft(explorer, store, MAX_DRAFT_BYTES)
    acts["a 20-paragraph draft, for comparison"] = _draft(explorer, store, 0)
    if args.reference_mb:
        data = _reference_list(explorer, args.reference_mb << 20)
        acts[f"valid .bib of {len(data) / 2**20:.0f} MiB (largest accepted)"] = _upload(
            explorer, ".bib", data)
        if not args.no_old_path:
            acts["the same .bib read in the server's process (before)"] = _in_place(
                explorer, data)
    return acts


def _in_place(explorer: Explorer, data: bytes) -> Act:
    """How the page read a reference list before corpus/apart.py: parsed in the server's
    process, holding its interpreter lock."""
    def read(number: int) -> None:
        references = read_references(data, "upload.bib", drafts.MAX_REFERENCE_BYTES)
        cited_from_references(explorer, references)

    return read


def _old_path(explorer: Explorer, question: Callable[[int], str]) -> Act:
    """What query_note and the search did with a question before issue 29: tokenise all of it
    (the model's tokenizer; truncation comes after tokenising), once each."""
    tokenizer = Tokenizer.from_file(str(explorer.embedder.spec.path / "tokenizer.json"))
    tokenizer.no_truncation()

    def tokenise(number: int) -> None:
        for _ in range(2):
            tokenizer.encode(question(number))

    return tokenise


def _upload(explorer: Explorer, suffix: str, data: bytes) -> Act:
    return lambda number: drafts.uploaded_cited(explorer, f"upload{suffix}", data)


def _trap_bib(word: str) -> bytes:
    return f'@article{{trap,\n  title = {word}"x" # b,\n  year = 2020\n}}\n'.encode()


def _trap_ris(word: str) -> bytes:
    return f"TY  - JOUR\nAB  - {word}\nER  - \n".encode()


def _trap_csl(word: str) -> bytes:
    return json.dumps([{"id": "trap", "type": "article-journal", "abstract": word,
                        "DOI": "10.1234/trap"}]).encode()


def _draft(explorer: Explorer, store: Collections, size: int) -> Act:
    """The draft check of a draft of about `size` bytes (0: 20 paragraphs, what the check reads
    of any longer draft): the corpus's abstracts as paragraphs, repeated."""
    abstracts = [paper.abstract for paper in explorer.papers]
    paragraphs = "\n\n".join(abstracts if size else abstracts[:20]) + "\n\n"
    text = paragraphs * (size // len(paragraphs.encode()) + 1) if size else paragraphs
    text = text.encode()[:size or None].decode(errors="ignore")

    def check(number: int) -> None:
        checked, error = drafts.check(explorer, drafts.Given(text=text), store, 10)
        if checked is None:
            raise RuntimeError(f"the draft check refused the draft: {error}")

    return check


def _reference_list(explorer: Explorer, size: int) -> bytes:
    """About `size` bytes (at most MAX_REFERENCE_BYTES) of valid BibTeX: the corpus's papers,
    each entry made distinct by a number."""
    size, entries, count = min(size, drafts.MAX_REFERENCE_BYTES), [], 0
    while count < size - 4096:
        paper = explorer.papers[len(entries) % len(explorer.papers)]
        title, abstract = (_braceless(text) for text in (paper.title, paper.abstract))
        entry = (f"@article{{ref{len(entries)},\n  title = {{{title} {len(entries)}}},\n"
                 f"  author = {{Doe, Jane and Roe, Richard}},\n  year = {{2020}},\n"
                 f"  abstract = {{{abstract}}}\n}}\n")
        entries.append(entry)
        count += len(entry.encode())
    return "".join(entries).encode()


def _braceless(text: str) -> str:
    return text.replace("{", "(").replace("}", ")")


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run abuse")
    parser.add_argument("--index", type=Path, help="index folder (default: the seeds, built once)")
    parser.add_argument("--sessions", type=int, default=3, help="ordinary sessions")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--alone-seconds", type=float, default=8.0)
    parser.add_argument("--action-seconds", type=float, default=4.0)
    parser.add_argument("--trap-kb", type=int, default=20, help="size of each crafted upload")
    parser.add_argument("--reference-mb", type=int, default=drafts.REFERENCE_UPLOAD_MIB,
                        help="MiB of the valid reference list (0: none)")
    parser.add_argument("--no-old-path", action="store_true",
                        help="skip the question tokenised whole (the path before issue 29)")
    args = parser.parse_args(argv)
    folder = args.index or seeds_index()
    explorer = Explorer.open(folder, warm=True)  # as the app opens its engine
    pool = _fresh(questions(folder, 2000))
    alone: list[tuple[float, float]] = []
    beside = []
    with tempfile.TemporaryDirectory() as work:
        acts = actions(explorer, args, Collections.at(Path(work)))
        _warm_up(explorer, Collections.at(Path(work)))
        phase(explorer, pool, args.sessions, None, 1.0)  # first calls' costs: not counted
        for turn in range(args.rounds):
            print(f"round {turn + 1} of {args.rounds}", flush=True)
            alone += phase(explorer, pool, args.sessions, None, args.alone_seconds)[0]
            beside.append(phase(explorer, pool, args.sessions, acts, args.action_seconds))
    rows = _rows([seconds for _, seconds in alone], beside, list(acts))
    save(f"abuse-{len(explorer.papers)}",
         f"{args.sessions} ordinary sessions alone and beside one abuser, {len(explorer.papers):,} "
         f"papers ({folder.name}), backend {explorer.embedder.backend}", rows,
         ["beside", "answers", "p50_ms", "p99_ms", "p50_x", "p99_x", "p99_within_2x",
          "action_s", "repeats"], notes=f"Code: {_code()}.\n\n{__doc__.strip()}")


def _warm_up(explorer: Explorer, store: Collections) -> None:
    """Each path of the app the abuser takes, once with ordinary input: the first recommend
    imports scikit-learn, a draft check embeds its papers' sentences the first time (kept)."""
    liked = (explorer.papers[0].paper_id,)
    ranked(explorer, Location(query=QUERIES[0]), "search", QUERIES[0])
    ranked(explorer, Location(page="marked", like=liked, steer=QUERIES[1]), "recommend", liked,
           (), QUERIES[1])
    _draft(explorer, store, 0)(0)  # its ties' sentences kept: both drafts' checks run warm
    drafts.uploaded_cited(explorer, "warm.bib", _trap_bib("warm"))


def _fresh(pool: list[str]) -> Iterator[str]:
    """The questions of `pool`, then again each with a number (never one asked before)."""
    for number in range(10**9):
        for question in pool:
            yield question if number == 0 else f"{question} {number}"
    raise RuntimeError("out of questions")


def _rows(alone: list[float], beside: list, names: list[str]) -> list[dict]:
    """A row for alone, one per action and one for all of them (ratios to alone)."""
    during: dict[str, list[float]] = {name: [] for name in names}
    took: dict[str, list[float]] = {name: [] for name in names}
    repeats: dict[str, int] = dict.fromkeys(names, 0)
    for answers, spans in beside:
        for name, start, end, count in spans:
            took[name].append((end - start) / count)
            repeats[name] += count
        for started, seconds in answers:  # under the action it overlapped most
            overlap = {name: min(end, started + seconds) - max(start, started)
                       for name, start, end, _ in spans}
            if overlap and max(overlap.values()) > 0:
                during[max(overlap, key=overlap.__getitem__)].append(seconds)
    base = _stats(alone)
    rows = [{"beside": "nothing (alone)", **base}]
    every = [seconds for values in during.values() for seconds in values]
    for name, values in [*during.items(), ("the abuser, all actions", every)]:
        row = {"beside": name, **_stats(values)}
        if values:
            row["p50_x"] = round(row["p50_ms"] / base["p50_ms"], 2)
            row["p99_x"] = round(row["p99_ms"] / base["p99_ms"], 2)
            row["p99_within_2x"] = "yes" if row["p99_x"] <= 2 else "no"
        if name in took:
            row["action_s"], row["repeats"] = round(float(np.mean(took[name])), 3), repeats[name]
        rows.append(row)
    return rows


def _stats(seconds: list[float]) -> dict:
    if not seconds:
        return {"answers": 0}
    ms = np.percentile(np.array(seconds) * 1000, [50, 99])
    return {"answers": len(seconds), "p50_ms": round(float(ms[0]), 1),
            "p99_ms": round(float(ms[1]), 1)}


def _code() -> str:
    """The commit this ran (and whether the tree had changes), so a table says what it measured."""
    def git(*command: str) -> str:
        return subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True,
                              check=False).stdout.strip()

    return f"commit {git('rev-parse', '--short', 'HEAD') or 'unknown'}" + (
        " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else "")
