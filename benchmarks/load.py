"""Load: N concurrent browser sessions on a real `streamlit run` server, beside 1 session.

`benchmarks.run load [--index DIR] [--sessions 20] [--questions 50]`. The server runs
streamlit_app.py on 127.0.0.1 with the index (default: the seeds, built once under the
benchmark cache). Each session asks its own fresh questions (fragments of the corpus's
abstracts, no two alike, so no session reuses another's cached answer): the first and every
5th as a `?q=` link (a new Streamlit session), the others typed into the question box, and
after every 5th question it clicks "Similar papers" on a result card. Sessions are headless
Chromium contexts in one browser (benchmarks/sessions.py: what a user's browser does,
websocket, rendering and all, with errors seen where users see them); on a 2-core machine the
browser competes with the server for the same cores, so the times are an upper bound.
The same invocation first runs 1 session (fresh questions too), then N at once; the table
gives errors, p50/p99 per answer and answers per second for both, and their ratio.
`--backend NAME` runs the app with Explorer.open(backend=NAME) (e.g. openvino) through a
small wrapper script, to load a backend that `auto` does not pick on this CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import tempfile
import time
from pathlib import Path

from benchmarks.common import ROOT, cache_dir, percentiles, save
from benchmarks.sessions import Plan, SessionLog, run_sessions
from tests.app_fixtures import APP, streamlit_server

WRAPPER = """
import os, runpy
from explorer.query import engine as search
if not getattr(search.Explorer, "_load_backend", None):
    _open = search.Explorer.open
    def _open_with_backend(folder="embeddings", model=None, backend=None, **options):
        return _open(folder, model=model, backend=os.environ["LOAD_BACKEND"], **options)
    search.Explorer.open = staticmethod(_open_with_backend)
    search.Explorer._load_backend = True
runpy.run_path({app!r}, run_name="__main__")
"""


def cpu_flags() -> str:
    """The CPU flags that decide the embedding backend here (avx2, avx512*, amx_*)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown"
    line = next((x for x in text.splitlines() if x.startswith("flags")), "")
    flags = sorted({f for f in line.split(":", 1)[-1].split()
                    if f == "avx2" or f.startswith(("avx512", "amx"))})
    return " ".join(flags) or "no avx2/avx512/amx"


def questions(index: Path, count: int, seed: int = 0) -> list[str]:
    """`count` distinct questions: 5-8 word windows of the index's abstracts, shuffled."""
    from explorer.query.engine import Explorer

    papers = list(Explorer.open(index).papers)
    rng = random.Random(seed)
    found: dict[str, None] = {}
    for _ in range(count * 50):
        if len(found) >= count:
            break
        words = re.findall(r"[A-Za-z][A-Za-z-]{2,}", rng.choice(papers).abstract)
        size = rng.randint(5, 8)
        if len(words) > size:
            start = rng.randrange(len(words) - size)
            found.setdefault(" ".join(words[start:start + size]).lower(), None)
    if len(found) < count:
        raise SystemExit(f"only {len(found)} distinct questions from {index}; ask for fewer")
    return list(found)


def summary(label: str, logs: list[SessionLog], wall: float) -> dict:
    answers = [a for log in logs for a in log.answers]
    errors = [e for log in logs for e in log.errors]
    good = [a.seconds for a in answers if not a.error] or [0.0]
    return {"sessions": label, "answers": len(answers),
            "similar": sum(a.kind == "similar" for a in answers), "errors": len(errors),
            **{k: round(v) for k, v in percentiles(good).items()},
            "answers_per_s": round(len(answers) / wall, 2),
            "wall_s": round(wall, 1), "first_errors": errors[:5]}


def phase(url: str, pool: list[str], sessions: int, per_session: int, args) -> dict:
    plans = [Plan(pool[s * per_session:(s + 1) * per_session], args.similar_every,
                  args.link_every, args.answer_timeout, time.monotonic() + args.time_cap)
             for s in range(sessions)]
    logs, wall = asyncio.run(run_sessions(url, plans))
    row = summary(str(sessions), logs, wall)
    print(f"{sessions} session(s): {row['answers']} answers, {row['errors']} errors, "
          f"p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms, {row['answers_per_s']}/s"
          + (f"; first error: {row['first_errors'][0]}" if row["first_errors"] else ""), flush=True)
    return row


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run load")
    parser.add_argument("--index", type=Path, help="index folder (default: the seeds, built once)")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--questions", type=int, default=50, help="fresh questions per session")
    parser.add_argument("--similar-every", type=int, default=5)
    parser.add_argument("--link-every", type=int, default=5)
    parser.add_argument("--answer-timeout", type=float, default=120.0, help="seconds per answer")
    parser.add_argument("--time-cap", type=float, default=1200.0,
                        help="seconds per phase; sessions stop asking after it")
    parser.add_argument("--backend", help="Explorer backend for the app (default: auto)")
    args = parser.parse_args(argv)
    index = args.index or seeds_index()
    pool = questions(index, 1 + args.questions * (args.sessions + 1))
    with tempfile.TemporaryDirectory() as work, _server(index, Path(work), args.backend) as url:
        warm = phase(url, pool[:1], 1, 1, args)  # model and index load: not counted
        single = phase(url, pool[1:], 1, args.questions, args)
        many = phase(url, pool[1 + args.questions:], args.sessions, args.questions, args)
    _report(index, args, warm, single, many)


def _report(index: Path, args, warm: dict, single: dict, many: dict) -> None:
    from explorer.query.engine import Explorer

    count = len(Explorer.open(index).papers)
    flags = cpu_flags()
    for row in (single, many):
        row["cpu_flags"] = flags
    many["ratio_p50"] = round(many["p50_ms"] / max(single["p50_ms"], 1e-9), 2)
    many["ratio_throughput"] = round(many["answers_per_s"] / max(single["answers_per_s"], 1e-9), 2)
    errors = [e for row in (warm, single, many) for e in row["first_errors"]]
    notes = (f"Index: {count:,} papers ({index.name}); backend {args.backend or 'auto'}; "
             f"{args.questions} fresh questions per session (every {args.link_every}th a ?q= "
             f"link, the rest typed), a 'Similar papers' click after every {args.similar_every}th; "
             f"times from the action to the results drawn (checked every 50 ms), error answers "
             f"excluded from p50/p99. Warm-up answer (first load): {warm['p50_ms']:.0f} ms, "
             f"{warm['errors']} errors. N-session p50 ratio {many['ratio_p50']}x, throughput "
             f"ratio {many['ratio_throughput']}x.\n\nFirst errors: "
             + ("; ".join(errors[:5]) if errors else "none"))
    save(f"load-{count}", f"App under load: {args.sessions} sessions vs 1, {count:,} papers",
         [single, many], ["sessions", "answers", "similar", "errors", "p50_ms", "p99_ms",
                          "answers_per_s", "wall_s", "ratio_p50", "ratio_throughput", "cpu_flags"],
         notes)


def seeds_index() -> Path:
    """The seeds' index, brought up to date (incremental: unchanged papers cost nothing)."""
    from explorer.ingest.run import build

    out = cache_dir() / "bench" / "seeds-load"
    build([ROOT / "seeds"], out, "default")
    return out


def _server(index: Path, work: Path, backend: str | None):
    if not backend:
        return streamlit_server(index, timeout=300)
    wrapper = work / "load_app.py"
    wrapper.write_text(WRAPPER.format(app=str(APP)), encoding="utf-8")
    return streamlit_server(index, timeout=300, app=wrapper, env={"LOAD_BACKEND": backend})
