"""The command line: readable lists, JSON, batch mode, and one-line errors with exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli.main import main

LEAN = "66489d54e9ae"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_prints_a_readable_ranked_list(capsys, seeds_index: Path):
    code, out, _ = run(capsys, "search", "find lemmas in a proof assistant library",
                       "--index", str(seeds_index), "--k", "3")
    assert code == 0
    # the list starts at 1 (after the notice when no hit reaches "related": issue 31's gate)
    first = next(line for line in out.splitlines() if line.lstrip()[:1].isdigit())
    assert first.lstrip().startswith("1. Lean Finder")
    assert "[title derived from abstract]" in out and f"id {LEAN}" in out


def test_search_json_has_the_documented_fields(capsys, seeds_index: Path):
    code, out, _ = run(capsys, "search", "video generation speed-up", "--index",
                       str(seeds_index), "--k", "4", "--json")
    hits = json.loads(out)
    assert code == 0 and [h["rank"] for h in hits] == [1, 2, 3, 4]
    for key in ("rank", "paper_id", "title", "title_is_derived", "score", "abstract"):
        assert key in hits[0]


def test_similar_json_excludes_the_paper(capsys, seeds_index: Path):
    code, out, _ = run(capsys, "similar", LEAN, "--index", str(seeds_index), "--json")
    ids = [h["paper_id"] for h in json.loads(out)]
    assert code == 0 and len(ids) == 10 and LEAN not in ids


@pytest.mark.parametrize("verb, target", [("search", "misinformation injection in LLMs"),
                                           ("similar", LEAN)])
def test_no_feedback_ranks_like_the_api_without_feedback(capsys, seeds_index: Path,
                                                        seeds_explorer, verb, target, monkeypatch):
    import explorer.ranking.feedback
    import explorer.ranking.policy

    default = [h.paper_id for h in getattr(seeds_explorer, verb)(target, 10)]
    plain = [h.paper_id for h in getattr(seeds_explorer, verb)(target, 10, feedback=False)]
    assert default == plain  # 71 papers: below FEEDBACK_MIN_PAPERS the pass does not run
    monkeypatch.setattr(explorer.ranking.feedback, "FEEDBACK_MIN_PAPERS", 0)  # as on a big corpus
    monkeypatch.setattr(explorer.ranking.policy, "PAPER_POLICY_BELOW", 0)  # similar: blend + pass
    code, out, _ = run(capsys, verb, target, "--index", str(seeds_index), "--json",
                       "--no-feedback")
    api = getattr(seeds_explorer, verb)(target, 10, feedback=False)
    assert code == 0 and [h["paper_id"] for h in json.loads(out)] == [h.paper_id for h in api]
    _, with_feedback, _ = run(capsys, verb, target, "--index", str(seeds_index), "--json")
    default = getattr(seeds_explorer, verb)(target, 10)
    assert [h["paper_id"] for h in json.loads(with_feedback)] == [h.paper_id for h in default]
    assert [h.paper_id for h in api] != [h.paper_id for h in default]  # the flag matters here


def test_index_defaults_to_the_environment(capsys, seeds_index: Path, monkeypatch):
    monkeypatch.setenv("EXPLORER_INDEX", str(seeds_index))
    code, out, _ = run(capsys, "info", "--json")
    assert code == 0 and json.loads(out)["count"] == 71


def test_info_prints_count_model_and_build_time(capsys, seeds_index: Path):
    code, out, _ = run(capsys, "info", "--index", str(seeds_index))
    assert code == 0
    assert "71" in out and "all-MiniLM-L6-v2" in out and "built" in out and "flat" in out


def test_batch_mode_prints_one_json_line_per_input(capsys, seeds_index: Path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{LEAN}\n\nno-such-id\n"))
    code, out, _ = run(capsys, "similar", "--batch", "-", "--index", str(seeds_index), "--k", "2")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(lines) == 2
    assert lines[0]["input"] == LEAN and len(lines[0]["results"]) == 2
    assert "No paper with id 'no-such-id'" in lines[1]["error"]


def test_batch_queries_from_a_file(capsys, seeds_index: Path, tmp_path: Path):
    queries = tmp_path / "queries.txt"
    queries.write_text("spoken language models\nwatermarking generated text\n")
    code, out, _ = run(capsys, "search", "--batch", str(queries), "--index", str(seeds_index))
    assert code == 0 and [json.loads(line)["input"] for line in out.splitlines()] == [
        "spoken language models", "watermarking generated text"]


def test_recommend_from_liked_papers(capsys, seeds_index: Path):
    code, out, _ = run(capsys, "recommend", "--like", LEAN, "--index", str(seeds_index),
                       "--k", "3", "--json")
    assert code == 0 and LEAN not in [h["paper_id"] for h in json.loads(out)]


def test_a_long_query_gets_a_note_on_stderr(capsys, seeds_index: Path):
    code, _, err = run(capsys, "search", "word " * 400, "--index", str(seeds_index), "--k", "1")
    assert code == 0 and "note:" in err and "first 256" in err


def test_unknown_id_is_one_line_and_exit_1(capsys, seeds_index: Path):
    code, out, err = run(capsys, "similar", "66489d54e9a", "--index", str(seeds_index))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "Did you mean 66489d54e9ae" in err


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_a_usage_error(capsys, seeds_index: Path, query: str):
    with pytest.raises(SystemExit) as info:
        main(["search", query, "--index", str(seeds_index)])
    assert info.value.code == 2
    assert "non-empty query" in capsys.readouterr().err


def test_missing_index_says_to_build(capsys, tmp_path: Path):
    code, _, err = run(capsys, "search", "anything", "--index", str(tmp_path / "none"))
    assert code == 1 and "explorer build" in err and "Traceback" not in err


def explorer_command(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """The installed `explorer` console script, run as a user runs it."""
    exe = Path(sys.executable).with_name("explorer")
    return subprocess.run([exe, *args], env=env, capture_output=True, text=True, check=False)


def test_the_console_script_builds_and_reports(tmp_path: Path):
    """The installed `explorer` command end to end, as a user runs it, on a tiny corpus."""
    corpus = tmp_path / "tiny.txt"
    corpus.write_text("Header line\n\nWe fold proteins with diffusion models.\n\n"
                      "Robots learn to walk on sand.\n\nWe fold proteins with diffusion models.\n")
    env = {**os.environ, "EXPLORER_INDEX": str(tmp_path / "idx")}
    done = explorer_command(["build", str(corpus), "--no-sentences"], env)
    assert done.returncode == 0, done.stderr
    assert "2 papers from 3 records (1 duplicates merged" in done.stdout
    again = explorer_command(["build", str(corpus), "--no-sentences"], env)
    assert "embedded 0" in again.stdout and "already up to date" in again.stdout
    bad = explorer_command(["similar", "zzz"], env)
    assert bad.returncode == 1 and bad.stderr.startswith("explorer: error: No paper with id")


def test_build_summary_names_dropped_values_and_the_size_limit_applies(tmp_path: Path):
    """Values the reader dropped are named in the summary; EXPLORER_MAX_FILE_BYTES reaches the
    build through the settings."""
    corpus = tmp_path / "papers.jsonl"
    corpus.write_text(json.dumps({"abstract": "We fold proteins with diffusion models.",
                                  "year": "9" * 5000}) + "\n")
    env = {**os.environ, "EXPLORER_INDEX": str(tmp_path / "idx")}
    done = explorer_command(["build", str(corpus), "--no-sentences"], env)
    assert done.returncode == 0, done.stderr
    assert "noted: 1 year" in done.stdout
    small = explorer_command(["build", str(corpus), "--no-sentences", "--out",
                              str(tmp_path / "other")], {**env, "EXPLORER_MAX_FILE_BYTES": "100"})
    assert small.returncode == 1 and small.stderr.count("\n") == 1, small.stderr
    assert "papers.jsonl" in small.stderr and "Traceback" not in small.stderr


def _build_fails_with(monkeypatch, exc: BaseException) -> None:
    import explorer.ingest.run

    def fail(*args, **kwargs):
        raise exc

    monkeypatch.setattr(explorer.ingest.run, "build", fail)


@pytest.mark.parametrize(("exc", "says"), [
    (OSError(28, "No space left on device", "/data/index/papers.jsonl.tmp"), "the disk is full"),
    (PermissionError(13, "Permission denied", "/data/index"), "Permission denied"),
    (MemoryError(), "out of memory"),
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
    (RuntimeError("Infer Request is busy"), "unexpected RuntimeError: Infer Request is busy"),
    (ValueError("bad\nthing \x1b[31m"), "unexpected ValueError: bad thing \\x1b[31m"),
])
def test_every_failure_is_one_line_and_exit_1(capsys, monkeypatch, tmp_path: Path, exc, says):
    monkeypatch.delenv("EXPLORER_DEBUG", raising=False)
    _build_fails_with(monkeypatch, exc)
    code, out, err = run(capsys, "build", str(tmp_path), "--out", str(tmp_path / "idx"))
    assert code == 1 and out == ""
    assert err.startswith("explorer: error: ") and err.count("\n") == 1, err
    assert says in err and "Traceback" not in err and "\x1b" not in err
    if not isinstance(exc, OSError | MemoryError | RecursionError):
        assert "EXPLORER_DEBUG=1" in err


def test_explorer_debug_prints_the_traceback(capsys, monkeypatch, tmp_path: Path):
    monkeypatch.setenv("EXPLORER_DEBUG", "1")
    _build_fails_with(monkeypatch, RuntimeError("backend exploded"))
    code, _, err = run(capsys, "build", str(tmp_path), "--out", str(tmp_path / "idx"))
    assert code == 1 and "Traceback" in err and "backend exploded" in err
    assert err.rstrip().splitlines()[-1].startswith("explorer: error: unexpected RuntimeError")


def test_a_bad_size_setting_is_one_line(capsys, monkeypatch, tmp_path: Path):
    monkeypatch.setenv("EXPLORER_MAX_FILE_BYTES", "lots")
    code, _, err = run(capsys, "build", str(tmp_path), "--out", str(tmp_path / "idx"))
    assert code == 1 and "EXPLORER_MAX_FILE_BYTES='lots' is not a positive size" in err


@pytest.mark.parametrize("argv", [
    ["build", "--batch-size", "0"], ["build", "--batch-size", "-4"], ["search", "q", "--k", "0"],
    ["search", "q", "--k", "-1"], ["similar", "x", "--k", "\u00b2"], ["search", "q", "--k", "9" * 5000],
    ["recommend", "--like", "x", "--k", "0"], ["search", "q", "--year-min", "\u00b2"],
    ["search", "q", "--year-max", "99999"], ["eval", "d", "--limit", "0"],
])
def test_counts_and_years_are_checked_by_the_parser(capsys, argv: list[str]):
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and "Traceback" not in err
    assert "expected a whole number from 1" in err or "expected a year" in err


HOSTILE_ABSTRACT = ("Terminal \x1b[2J\x1b[31mred\x1b[0m and an \x1b]8;;https://e.org/phish\x1b\\"
                    "OSC 8 link\x1b]8;;\x1b\\ with a bell \x07, back\x08space, carriage\rreturn, "
                    "an 8-bit CSI \x9b31m, a line\u2028separator and a \u202eright-to-left override.")
_UNSAFE = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))] + [
    "\u2028", "\u2029", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]


@pytest.fixture(scope="module")
def hostile_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    records = [{"id": "evil\x1b[1mid", "title": "Title \x1b]0;owned\x07 here\u202e",
                "venue": "Venue\x9b2J", "abstract": HOSTILE_ABSTRACT},
               {"id": "calm", "abstract": "A calm abstract about protein folding with diffusion."}]
    (folder / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["build", str(folder / "c.jsonl"), "--out", str(folder / "idx"),
                 "--no-sentences"]) == 0
    return folder / "idx"


def test_text_output_never_prints_control_or_bidi_characters(capsys, hostile_index: Path):
    capsys.readouterr()
    code, out, err = run(capsys, "search", "terminal colours and links", "--index",
                         str(hostile_index), "--k", "2")
    assert code == 0 and "\\x1b[31mred" in out and "\\u202e" in out and "\\x9b" in out
    bad = [c for c in _UNSAFE if c in out.replace("\n", "") or c in err.replace("\n", "")]
    assert not bad, bad


def test_json_output_escapes_every_control_and_round_trips(capsys, hostile_index: Path):
    capsys.readouterr()
    code, out, _ = run(capsys, "search", "terminal colours and links", "--index",
                       str(hostile_index), "--k", "2", "--json")
    assert code == 0
    assert not [c for c in _UNSAFE if c in out.replace("\n", "")]
    hits = {h["paper_id"]: h for h in json.loads(out)}
    assert hits["evil\x1b[1mid"]["abstract"] == " ".join(HOSTILE_ABSTRACT.split())
    assert hits["evil\x1b[1mid"]["venue"] == "Venue\x9b2J"
