"""Close relatives (`explorer twins`) against the works paperlists-ml holds twice.

The known twins: two papers of the corpus with the same non-generic title (lower case, only
letters and digits kept), from a different venue or year, whose embedded texts differ (papers
of identical text are merged by the corpus step and never listed). A title is generic when all
its words are front-matter words (FRONT_MATTER: "Preface", "Workshops and Tutorials", "Plenary
and Keynote Talks") or when more than two papers carry it. Titles are then hidden: the pairs are
found by the product's own build-time self-join (features/relatives/stage.py `compute_relatives`) over
the vectors of an index of the whole corpus (no title used; the papers' vectors are re-used,
not re-embedded, rows matched to corpus records by text hash).

The default threshold is chosen on half of the twins (fold 0, by a hash of the title): the
highest cosine, in steps of 0.01, that still finds RECALL_TARGET of them. Fold 1's recall at it
is the held-out number. Precision: the top pairs overall (`--top`) are written to `--judged`
with a reader's verdict column (same work / concurrent work / just related); verdicts already
in that file are kept for pairs still listed, new pairs are marked "to judge".

    .venv/bin/python -m studies.twins_study ../shared/data/paperlists-ml \\
        [--index ~/.cache/paper-explorer/paperlists-ml-int8] [--top 50] \\
        [--out studies/results/twins-paperlists] [--judged studies/results/twins-judged.md]

Per model (ranking/fitted.py), `--pairs --model NAME` embeds only the known twins' papers with
that model (no index, no join: a twin the join would miss as not a neighbour counts as found)
and prints each fold's recall, the threshold the rule picks on fold 0, and the twins' median
cosine (fitted.py's `versions`), as JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from explorer.corpus.papers import Paper, read_corpus
from explorer.eval.evaluate import machine
from explorer.features.relatives.query import DEFAULT_THRESHOLD, RECALL_TARGET, STEP
from explorer.features.relatives.stage import FLOOR, compute_relatives
from explorer.query.engine import Explorer

FRONT_MATTER = frozenset(
    "preface foreword editorial front matter proceedings contents index welcome message "
    "workshops workshop tutorials tutorial plenary keynote talks talk invited program "
    "committee organizers sponsors and the of".split())
VERDICTS = ("same work", "concurrent work", "just related", "to judge")
_ROW = re.compile(r"^\|\s*(?P<rank>\d+)\s*\|\s*(?P<a>[^|]+?)\s*\|\s*(?P<b>[^|]+?)\s*\|"
                  r"[^|]*\|[^|]*\|\s*(?P<verdict>[a-z ]+?)\s*\|\s*(?P<why>.*?)\s*\|$")


def title_key(title: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", title.lower()).split())


def is_generic(key: str, copies: int) -> bool:
    """A title no reader would take as naming one work (see the module)."""
    return copies > 2 or not key or all(word in FRONT_MATTER for word in key.split())


def known_twins(papers: list[Paper]) -> tuple[list[tuple[str, int, int]], dict[str, int]]:
    """(title key, row, row) of each known twin (see the module), and counts of the groups
    of the same title left out, by reason."""
    groups: dict[str, list[int]] = defaultdict(list)
    for row, paper in enumerate(papers):
        if not paper.title_is_derived:
            groups[title_key(paper.title)].append(row)
    twins, left_out = [], defaultdict(int)
    for key, rows in groups.items():
        if len(rows) < 2:
            continue
        first, second = (papers[r] for r in rows[:2])
        if is_generic(key, len(rows)):
            left_out["generic title"] += 1
        elif (first.venue, first.year) == (second.venue, second.year):
            left_out["same venue and year"] += 1
        elif first.text_hash == second.text_hash:
            left_out["identical text"] += 1
        else:
            twins.append((key, rows[0], rows[1]))
    return twins, dict(left_out)


def fold_of(key: str) -> int:
    return hashlib.sha256(key.encode()).digest()[0] % 2


def recall(scores: list[float], threshold: float) -> float:
    return float(np.mean([s >= threshold for s in scores])) if scores else 0.0


def choose_threshold(scores: list[float]) -> float:
    """The highest cosine (a multiple of STEP, at least FLOOR) finding RECALL_TARGET."""
    best = FLOOR
    for step in range(round(FLOOR / STEP), round(1 / STEP) + 1):
        if recall(scores, step * STEP) >= RECALL_TARGET:
            best = step * STEP
    return round(best, 2)


def pair_score(found: dict[tuple[int, int], float], a: int, b: int) -> float:
    """The twin's cosine if the join found it (else 0: not above FLOOR, or not a neighbour)."""
    return found.get((min(a, b), max(a, b)), 0.0)


def pairs_only(corpus: Path, model: str) -> dict:
    """The twins rule on the known twins embedded by `model` alone (see the module)."""
    from explorer.model.embedder import Embedder, resolve_model

    papers = read_corpus([corpus]).papers
    twins, left_out = known_twins(papers)
    rows = sorted({row for _, a, b in twins for row in (a, b)})
    embedder = Embedder(resolve_model(model))
    vectors = dict(zip(rows, embedder.embed_documents([papers[row].text for row in rows])))
    scores: dict[int, list[float]] = {0: [], 1: []}
    for key, a, b in twins:
        scores[fold_of(key)].append(float(vectors[a] @ vectors[b]))
    chosen, everything = choose_threshold(scores[0]), scores[0] + scores[1]
    return {"model": embedder.info.get("id"), "known_twins": len(twins), "left_out": left_out,
            "chosen_on_fold_0": chosen, "held_out_recall_at_chosen": round(recall(
                scores[1], chosen), 3), "median_twin_cosine": round(float(np.median(
                    everything)), 3), "recall": {f"fold {f}": {f"{t:.2f}": round(recall(
                        scores[f], t), 3) for t in (0.8, 0.85, 0.88, 0.9, 0.92, 0.95)}
                                                  for f in (0, 1)},
            "twin_cosines": sorted(round(value, 3) for value in everything)}


def run(corpus: Path, index: Path, top: int) -> tuple[dict, list[tuple]]:
    explorer = Explorer.open(index)
    read = read_corpus([corpus]).papers
    by_hash = {p.text_hash: row for row, p in enumerate(explorer.papers)}
    rows = [by_hash.get(p.text_hash) for p in read]
    missing = sum(r is None for r in rows)
    twins, left_out = known_twins(read)
    hashes = np.frombuffer(b"".join(bytes.fromhex(p.text_hash) for p in explorer.papers),
                           dtype=np.uint8).reshape(len(explorer.papers), 32)
    wall, cpu = time.perf_counter(), time.process_time()
    pairs = compute_relatives(explorer.artifacts.index, hashes)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    found = {(int(a), int(b)): float(s) for (a, b), s in zip(pairs.rows, pairs.scores)}
    scores: dict[int, list[float]] = {0: [], 1: []}
    for key, a, b in twins:
        if rows[a] is not None and rows[b] is not None:
            scores[fold_of(key)].append(pair_score(found, rows[a], rows[b]))
    chosen = choose_threshold(scores[0])
    everything = scores[0] + scores[1]
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
        "command": " ".join(["python -m studies.twins_study", *sys.argv[1:]]),
        "index": str(index), "papers": len(explorer.papers), "records_unmatched": missing,
        "known_twins": len(twins), "left_out": left_out, "floor": FLOOR,
        "join_seconds": round(wall, 1), "join_cpu_seconds": round(cpu, 1),
        "stored_pairs": len(pairs), "chosen_on_fold_0": chosen,
        "shipped_default": DEFAULT_THRESHOLD,
        "recall": {f"fold {f}": {f"{t:.2f}": round(recall(scores[f], t), 3)
                                 for t in (0.8, 0.85, 0.88, 0.9, 0.92, 0.95)} for f in (0, 1)},
        "held_out_recall_at_chosen": round(recall(scores[1], chosen), 3),
        "recall_at_default_all": round(recall(everything, DEFAULT_THRESHOLD), 3),
        "twins_per_fold": {f"fold {f}": len(scores[f]) for f in (0, 1)},
        "pairs_above": {f"{t:.2f}": len(pairs.above(t)) for t in (0.8, 0.85, 0.9, 0.95)},
        "twin_cosines": sorted(round(s, 3) for s in everything),
    }
    listed = [(rank, explorer.papers[int(a)], explorer.papers[int(b)], float(s))
              for rank, ((a, b), s) in enumerate(zip(pairs.rows[:top], pairs.scores[:top]), 1)]
    return result, listed


def judged_table(listed: list[tuple], path: Path) -> tuple[str, dict]:
    """The top pairs as a Markdown table, keeping the verdicts already in `path`; and the
    count of each verdict."""
    kept: dict[tuple[str, str], tuple[str, str]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if match := _ROW.match(line):
                kept[(match["a"], match["b"])] = (match["verdict"], match["why"])
    lines = ["| # | paper | other | cos | titles | verdict | why |", "|---|---|---|---|---|---|---|"]
    counts: dict[str, int] = defaultdict(int)
    for rank, paper, other, score in listed:
        verdict, why = kept.get((paper.paper_id, other.paper_id), ("to judge", ""))
        counts[verdict] += 1
        titles = f"{_cell(paper.title)} ({paper.venue} {paper.year}) / {_cell(other.title)} " \
                 f"({other.venue} {other.year})"
        lines.append(f"| {rank} | {paper.paper_id} | {other.paper_id} | {score:.3f} | {titles} "
                     f"| {verdict} | {why} |")
    return "\n".join(lines) + "\n", dict(counts)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "/")[:90]


def markdown(result: dict, counts: dict) -> str:
    judged = sum(counts.get(v, 0) for v in VERDICTS[:3])
    right = counts.get("same work", 0) + counts.get("concurrent work", 0)
    lines = [f"# Close relatives against paperlists-ml's known twins ({result['date']})", "",
             f"Machine: {result['machine']}. Command: `{result['command']}`.", "",
             f"Index: {result['papers']:,} papers ({result['index']}); corpus records not in "
             f"it: {result['records_unmatched']}. Known twins: {result['known_twins']} "
             f"(left out: {result['left_out']}). Self-join above cos {result['floor']}: "
             f"{result['stored_pairs']:,} pairs, {result['join_seconds']} s wall, "
             f"{result['join_cpu_seconds']} s CPU.", "",
             "| fold | twins | " + " | ".join(f"recall @{t}" for t in result["recall"]["fold 0"])
             + " |", "|---" * (2 + len(result["recall"]["fold 0"])) + "|"]
    for fold, values in result["recall"].items():
        lines.append(f"| {fold} | {result['twins_per_fold'][fold]} | "
                     + " | ".join(f"{v:.3f}" for v in values.values()) + " |")
    lines += ["", f"Chosen on fold 0 (highest cosine keeping {RECALL_TARGET:.0%} of its twins): "
              f"**{result['chosen_on_fold_0']:.2f}**; fold 1 (held out) recall there: "
              f"**{result['held_out_recall_at_chosen']:.3f}**. Shipped default "
              f"{result['shipped_default']:.2f}: recall over all twins "
              f"{result['recall_at_default_all']:.3f}.", "",
              "Pairs in the corpus above: " + ", ".join(
                  f"cos {t}: {n:,}" for t, n in result["pairs_above"].items()) + ".", "",
              f"Top pairs judged: {judged}; same work or concurrent work: {right} "
              f"(precision {right / judged:.2f}); " if judged else "Top pairs judged: none; ",
              "verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ".", ""]
    return "\n".join(lines)


def render(out: Path, judged: Path) -> None:
    """The table again from a run's JSON and the verdicts now in `judged`, at today's default."""
    result = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    result["shipped_default"] = DEFAULT_THRESHOLD
    result["recall_at_default_all"] = round(recall(result["twin_cosines"], DEFAULT_THRESHOLD), 3)
    counts: dict[str, int] = defaultdict(int)
    for line in judged.read_text(encoding="utf-8").splitlines():
        if match := _ROW.match(line):
            counts[match["verdict"]] += 1
    result["verdicts"] = dict(counts)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(markdown(result, counts), encoding="utf-8")
    print(markdown(result, counts))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="the paperlists-ml folder (corpus.jsonl.gz)")
    parser.add_argument("--index", type=Path,
                        default=Path.home() / ".cache/paper-explorer/paperlists-ml-int8")
    parser.add_argument("--top", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("studies/results/twins-paperlists"))
    parser.add_argument("--judged", type=Path, default=Path("studies/results/twins-judged.md"))
    parser.add_argument("--render", action="store_true",
                        help="only re-read --out's JSON and the verdicts in --judged (no join)")
    parser.add_argument("--pairs", action="store_true",
                        help="only embed the known twins with --model (no index, no join)")
    parser.add_argument("--model", default="default", help="with --pairs: the model")
    args = parser.parse_args(argv)
    if args.pairs:
        print(json.dumps(pairs_only(args.dataset / "corpus.jsonl.gz", args.model), indent=2))
        return
    if args.render:
        render(args.out, args.judged)
        return
    result, listed = run(args.dataset / "corpus.jsonl.gz", args.index, args.top)
    table, counts = judged_table(listed, args.judged)
    result["verdicts"] = counts
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.judged.write_text(f"# Top {args.top} pairs of `explorer twins`, judged\n\n" + table,
                           encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(result, counts), encoding="utf-8")
    print(markdown(result, counts))


if __name__ == "__main__":
    main()
