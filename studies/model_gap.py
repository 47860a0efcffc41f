"""Is all-mpnet-base-v2 really behind all-MiniLM-L6-v2 on a row of `explorer eval`, and why
(issue 35)? Reads the JSON of `explorer eval --per-query` for each model (same pool, sizes and
draws) and writes, for every row (set, size): each model's nDCG@10 of the shipped ranking, the
paired difference (mpnet - MiniLM) with its 95% bootstrap interval over questions and the
randomisation p (explorer/eval/paired.py), and the same for the dense channel alone; then, for
one row, the questions split by length in each model's own tokens (MiniLM reads 256, mpnet
384: longer questions are cut) and the questions that flip most.

    .venv/bin/python -m studies.model_gap --pairs MINILM.json MPNET.json [MINILM2.json MPNET2.json]
        [--seeds MINILM-SEEDS.json MPNET-SEEDS.json] [--row paragraphs 10000] \\
        --out studies/results/eval-models-paired.md
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from explorer.eval.evaluate import SETS, load_queries
from explorer.eval.paired import paired, per_question
from explorer.model.embedder import resolve_model

DATASET = Path("../shared/data/acm-cr")
MODELS = ("default", "mpnet")
CUTS = (256, 384)  # MiniLM's and mpnet's max_seq_length


def seed_rows(first: dict, second: dict) -> list[str]:
    """The seed set's pair directions (partner in the top 5 of `similar`), one 0/1 each,
    compared as interval_rows compares questions (the questions tie: every target in the top
    5 with both models)."""
    hits = [{str(i): float(i not in set(run["seeds"]["columns"]["default"]["partners_missed"]))
             for i in range(run["seeds"]["pair_directions"])} for run in (first, second)]
    result = paired(*hits)
    return [f"| seeds, pair directions: partner in top 5 | {result['questions']} | "
            f"{np.mean(list(hits[0].values())):.4f} | {np.mean(list(hits[1].values())):.4f} | "
            f"{_cell(result)} | {result['p']:.3f} | {result['ahead']} / {result['behind']} / "
            f"{result['tied']} | - |"]


def interval_rows(first: dict, second: dict) -> list[str]:
    """One markdown line per row of the two runs: both means, then default and dense paired."""
    lines = []
    cells = {c: (per_question(first["small"]["runs"], c), per_question(second["small"]["runs"], c))
             for c in ("default", "dense")}
    for row in cells["default"][0]:
        a, b = cells["default"][0][row], cells["default"][1][row]
        main, dense = paired(a, b), paired(cells["dense"][0][row], cells["dense"][1][row])
        lines.append(f"| {row[0]} {row[1]:,} | {main['questions']} | {np.mean(list(a.values())):.4f} | "
                     f"{np.mean(list(b.values())):.4f} | {_cell(main)} | {main['p']:.3f} | "
                     f"{main['ahead']} / {main['behind']} / {main['tied']} | {_cell(dense)} |")
    return lines


def pooled_rows(first: dict, second: dict) -> list[str]:
    """Per size, the three sets' questions pooled (each question weighs the same, so the
    sentences, the most numerous, weigh most): the shipped ranking, paired."""
    a, b = (per_question(run["small"]["runs"]) for run in (first, second))
    lines = []
    for size in dict.fromkeys(row[1] for row in a):
        one, two = ({f"{row[0]}:{q}": v for row in side if row[1] == size
                     for q, v in side[row].items()} for side in (a, b))
        result = paired(one, two)
        lines.append(f"| all three sets {size:,} | {result['questions']} | "
                     f"{np.mean(list(one.values())):.4f} | {np.mean(list(two.values())):.4f} | "
                     f"{_cell(result)} | {result['p']:.3f} | {result['ahead']} / "
                     f"{result['behind']} / {result['tied']} | - |")
    return lines


def _cell(result: dict) -> str:
    return (f"{100 * result['difference']:+.2f} [{100 * result['low']:+.2f}, "
            f"{100 * result['high']:+.2f}]")


def lengths(row_set: str, query_ids: list[str], dataset: Path) -> dict[str, tuple[int, int]]:
    """query id -> (MiniLM tokens, mpnet tokens) of the question as eval embeds it."""
    from transformers import AutoTokenizer

    queries, _ = load_queries(dataset / SETS[row_set][0])
    text = {q.query_id: q.text for q in queries}
    tokenizers = [AutoTokenizer.from_pretrained(str(resolve_model(m).path)) for m in MODELS]
    return {q: tuple(len(t(text[q])["input_ids"]) for t in tokenizers) for q in query_ids}


def by_length(first: dict, second: dict, row: tuple[str, int], dataset: Path) -> list[str]:
    """The row's questions by MiniLM token length: paired difference of default and dense."""
    cells = {c: (per_question(first["small"]["runs"], c)[row],
                 per_question(second["small"]["runs"], c)[row]) for c in ("default", "dense")}
    size = lengths(row[0], list(cells["default"][0]), dataset)
    bins = [("up to 256 tokens (both models read it all)", lambda n: n[0] <= CUTS[0]),
            ("257-384 (MiniLM cut, mpnet reads it all)", lambda n: CUTS[0] < n[0] <= CUTS[1]),
            ("over 384 (both cut)", lambda n: n[0] > CUTS[1])]
    lines = ["| MiniLM tokens | questions | default: mpnet - MiniLM | dense: mpnet - MiniLM |",
             "|---|---|---|---|"]
    for name, test in bins:
        keep = [q for q, n in size.items() if test(n)]
        if len(keep) < 2:
            lines.append(f"| {name} | {len(keep)} | - | - |")
            continue
        got = [paired({q: c[0][q] for q in keep}, {q: c[1][q] for q in keep})
               for c in (cells["default"], cells["dense"])]
        lines.append(f"| {name} | {len(keep)} | {_cell(got[0])} | {_cell(got[1])} |")
    flips = sorted(cells["default"][0], key=lambda q: -abs(cells["default"][1][q]
                                                            - cells["default"][0][q]))[:12]
    lines += ["", "The twelve questions that move most (nDCG@10 of the shipped ranking; dense "
              "channel alone in brackets):", "",
              "| query | tokens (MiniLM / mpnet) | MiniLM | mpnet |", "|---|---|---|---|"]
    for q in flips:
        d = cells["dense"]
        lines.append(f"| {q} | {size[q][0]} / {size[q][1]} | {cells['default'][0][q]:.3f} "
                     f"({d[0][q]:.3f}) | {cells['default'][1][q]:.3f} ({d[1][q]:.3f}) |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", nargs="+", type=Path, required=True,
                        help="MiniLM's and mpnet's JSON, pair after pair")
    parser.add_argument("--seeds", nargs=2, type=Path,
                        help="MiniLM's and mpnet's JSON of `explorer eval --seeds ...`")
    parser.add_argument("--row", nargs=2, default=["paragraphs", "10000"])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if len(args.pairs) % 2:
        parser.error("--pairs takes MiniLM's and mpnet's JSON, two by two")
    runs = [json.loads(p.read_text(encoding="utf-8")) for p in args.pairs]
    lines = ["# mpnet against MiniLM, question by question (issue 35)", "",
             "Written by `studies/model_gap.py` from: " + ", ".join(
                 f"`{p.name}` ({r['date']}, {r['machine']})" for p, r in zip(args.pairs, runs))
             + ".", "",
             f"Paired comparison of `explorer eval --per-query` runs (load average "
             f"{os.getloadavg()[0]:.1f} while this table was computed; the runs themselves: "
             f"see each JSON's date and machine).", "",
             "Cells: mpnet - MiniLM in nDCG@10 points (x100), mean over questions (a question's "
             "draws averaged first), [95% bootstrap interval over questions]; p: two-sided paired "
             "randomisation test; questions mpnet wins / loses / ties.", "",
             "| set, size | questions | MiniLM | mpnet | default: mpnet - MiniLM | p | "
             "wins / losses / ties | dense alone: mpnet - MiniLM |",
             "|---|---|---|---|---|---|---|---|"]
    for first, second in zip(runs[::2], runs[1::2]):
        lines += interval_rows(first, second)
    for first, second in zip(runs[::2], runs[1::2]):
        lines += pooled_rows(first, second)
    if args.seeds:
        lines += seed_rows(*(json.loads(p.read_text(encoding="utf-8")) for p in args.seeds))
    row = (args.row[0], int(args.row[1]))
    holder = next(((a, b) for a, b in zip(runs[::2], runs[1::2])
                   if row in per_question(a["small"]["runs"])), None)
    if holder:
        lines += ["", f"## {row[0]} at {row[1]:,} papers, by question length", "",
                  *by_length(*holder, row, args.dataset)]
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
