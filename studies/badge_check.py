"""How the strength badges read on the seeds: are good matches called good and nonsense weak?

The badge of a hit is its cosine placed among random cosines of the same corpus (question-paper
ones for a question, paper-paper ones for a paper; query/calibration.py) and named by
wording.STRENGTHS. Measured on an index of seeds/ through the public API only:
- each paraphrased question of tests/paraphrases.py: the badge its target paper gets (search,
  default mode, looked up wherever it ranks) and the badges of the other hits of its top 5;
  and, for comparison, the words its score would get among paper pairs (what the percentile
  compared it with before question scores were stored);
- off-topic questions (OFF_TOPIC): the badge of the top hit and of the best badge in the top 5;
- each related pair, both ways: the badge the partner gets in `similar` of the other paper, and
  every paper's nearest neighbour.

    .venv/bin/python -m studies.badge_check [--index DIR] [--out studies/results/badges-seeds]
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import ROOT
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from explorer.query.hits import Hit
from explorer.ranking.calibration import PAPERS
from explorer.wording import STRENGTHS, WEAK, strength

OFF_TOPIC = ["recipes for sourdough bread", "medieval castle architecture",
             "how to train a puppy to sit", "tax law for small businesses in France",
             "football world cup results of 1998"]
WORDS = [word for _, word in STRENGTHS] + [WEAK]


def target(explorer: Explorer, marker: str) -> str:
    (paper_id,) = [p.paper_id for p in explorer.papers if marker in p.abstract]
    return paper_id


def find(hits: list[Hit], paper_id: str) -> Hit:
    return next(hit for hit in hits if hit.paper_id == paper_id)


def measure(explorer: Explorer) -> dict[str, list[dict]]:
    """Badged hits per row of the table: {row name: [{paper_id, rank, score, percentile,
    compared_with, strength}]}."""
    from tests.paraphrases import PARAPHRASES, RELATED_PAIRS

    every = len(explorer.papers)
    rows: dict[str, list[Hit]] = {name: [] for name in (
        "paraphrase targets (search)", "other hits of their top 5", "off-topic: top hit",
        "off-topic: best of top 5", "related partners (similar, both ways)",
        "nearest neighbour of every seed (similar)")}
    for query, marker in PARAPHRASES:
        hits = explorer.search(query, every)
        wanted = target(explorer, marker)
        rows["paraphrase targets (search)"].append(find(hits, wanted))
        rows["other hits of their top 5"] += [h for h in hits[:5] if h.paper_id != wanted]
    for query in OFF_TOPIC:
        hits = explorer.search(query, 5)
        rows["off-topic: top hit"].append(hits[0])
        rows["off-topic: best of top 5"].append(max(hits, key=lambda h: h.percentile))
    for first, second, _ in RELATED_PAIRS:
        a, b = target(explorer, first), target(explorer, second)
        for paper_id, partner in ((a, b), (b, a)):
            rows["related partners (similar, both ways)"].append(
                find(explorer.similar(paper_id, every), partner))
    rows["nearest neighbour of every seed (similar)"] = [
        explorer.similar(p.paper_id, 1)[0] for p in explorer.papers]
    measured = {name: [{"paper_id": h.paper_id, "rank": h.rank, "score": round(h.score, 4),
                        "percentile": h.percentile, "compared_with": h.compared_with,
                        "strength": h.strength} for h in hits] for name, hits in rows.items()}
    before = [{**hit, "percentile": explorer.scale(PAPERS).percentile(hit["score"]),
               "compared_with": PAPERS} for hit in measured["paraphrase targets (search)"]]
    measured["paraphrase targets, among paper pairs (before)"] = [
        {**hit, "strength": strength(hit["percentile"])} for hit in before]
    return measured


def table(measured: dict[str, list[dict]]) -> str:
    """Markdown: per row, how many hits read each word, and the percentiles' range."""
    head = ["| hits | n | compared with | " + " | ".join(WORDS) + " | percentile min / median |",
            "|---" * (len(WORDS) + 4) + "|"]
    lines = []
    for name, hits in measured.items():
        counts = Counter(h["strength"] for h in hits)
        ranks = sorted(h["percentile"] for h in hits)
        kinds = ", ".join(sorted({str(h["compared_with"]) for h in hits}))
        lines.append(f"| {name} | {len(hits)} | {kinds} | "
                     + " | ".join(str(counts.get(word, 0)) for word in WORDS)
                     + f" | {ranks[0]:.1f} / {ranks[len(ranks) // 2]:.1f} |")
    return "\n".join(head + lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, help="an index of seeds/ (default: built here)")
    parser.add_argument("--out", type=Path, help="write OUT.md and OUT.json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        index = args.index or Path(scratch) / "index"
        if args.index is None:
            build([ROOT / "seeds"], index, "default")
        explorer = Explorer.open(index)
        measured = measure(explorer)
    thresholds = ", ".join(f"{word} >= {cut:g}" for cut, word in STRENGTHS)
    text = (f"# Strength badges on the seeds\n\n{time.strftime('%Y-%m-%d')}, "
            f"{platform.machine()}, {explorer.manifest.model.model_id}, "
            f"{len(explorer.papers)} papers. Thresholds (percentile): {thresholds}, "
            f"else {WEAK}.\n\n{table(measured)}\n")
    print(text)
    if args.out:
        args.out.with_suffix(".md").write_text(text, encoding="utf-8")
        columns = ["paper_id", "rank", "score", "percentile", "compared_with", "strength"]
        rows = {name: [[hit[c] for c in columns] for hit in hits] for name, hits in measured.items()}
        args.out.with_suffix(".json").write_text(json.dumps({"columns": columns, "rows": rows})
                                                 + "\n", encoding="utf-8")
    return measured


if __name__ == "__main__":
    main()
