"""Both models' `explorer eval` results side by side (issue 35): per set and corpus size, each
model's nDCG@10 under the shipped ranking ("default") and which model is ahead, and whether the
default ranking is the best column for each model; the seed set likewise. Reads the JSON that
`explorer eval --output` wrote for each model (no embedding, no ranking here).

    .venv/bin/python -m studies.eval_models studies/results/eval-minilm.json \\
        studies/results/eval-mpnet.json [--seeds-json A.json B.json] --out studies/results/eval-models.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DEFAULT = "default"


def _rows(result: dict) -> dict[tuple[str, str], dict]:
    return {(row["set"], str(row["size"])): row["columns"] for row in result.get("ranking", [])}


def _best(columns: dict, metric: str) -> str:
    """The best column's name ("a = b" when tied)."""
    top = max(values[metric] for values in columns.values())
    return " = ".join(name for name, values in columns.items() if values[metric] == top)


def ranking_table(first: dict, second: dict, names: tuple[str, str]) -> list[str]:
    """nDCG@10 of the default ranking per set and size under both models."""
    a, b = _rows(first), _rows(second)
    lines = [f"| set, size | {names[0]} | {names[1]} | ahead | best column ({names[0]} / "
             f"{names[1]}) |", "|---|---|---|---|---|"]
    for key in [k for k in a if k in b]:
        x, y = a[key][DEFAULT]["ndcg@10"], b[key][DEFAULT]["ndcg@10"]
        ahead = names[1] if y > x else names[0] if x > y else "tie"
        lines.append(f"| {key[0]} {key[1]} | {x:.4f} | {y:.4f} | {ahead} ({y - x:+.4f}) | "
                     f"{_best(a[key], 'ndcg@10')} / {_best(b[key], 'ndcg@10')} |")
    return lines


def seed_table(first: dict, second: dict, names: tuple[str, str]) -> list[str]:
    """The seed set's measures of the default ranking under both models."""
    lines = [f"| seed set measure | {names[0]} | {names[1]} |", "|---|---|---|"]
    for measure in ("mrr@100", "top5", "partners@5"):
        x = first["seeds"]["columns"][DEFAULT][measure]
        y = second["seeds"]["columns"][DEFAULT][measure]
        lines.append(f"| {measure} | {x:.4f} | {y:.4f} |")
    return lines


def strength_table(first: dict, second: dict, names: tuple[str, str]) -> list[str]:
    """The seed set's strength words under each model's own table (ranking/fitted.py)."""
    a, b = first["seeds"]["strength"], second["seeds"]["strength"]
    lines = [f"| strength on the seed set | {names[0]} | {names[1]} |", "|---|---|---|"]
    for word in a["words"]:
        x, y = a["words"][word], b["words"][word]
        lines.append(f"| {word}: share relevant (hits) | {x['relevant']} ({x['hits']}) | "
                     f"{y['relevant']} ({y['hits']}) |")
    for key, label in (("answer_strong_or_good", "first relevant hit strong or good"),
                       ("absent_top_above_weak", "near-but-absent top hit above weak"),
                       ("topic_absent_top_above_weak", "absent-topic top hit above weak")):
        lines.append(f"| {label} | {a.get(key, '-')} | {b.get(key, '-')} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--names", nargs=2, default=["all-MiniLM-L6-v2", "all-mpnet-base-v2"])
    parser.add_argument("--seeds-json", nargs=2, type=Path,
                        help="the seed set from other runs (e.g. on another CPU)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    first, second = (json.loads(path.read_text(encoding="utf-8"))
                     for path in (args.first, args.second))
    names = tuple(args.names)
    lines = [f"Ranking runs: {first['date']} ({first['machine']}) and {second['date']} "
             f"({second['machine']}).", "", *ranking_table(first, second, names), ""]
    seeds = [json.loads(p.read_text(encoding="utf-8")) for p in args.seeds_json] \
        if args.seeds_json else [first, second]
    if all("seeds" in s for s in seeds):
        lines += [f"Seed set runs: {seeds[0]['date']} ({seeds[0]['machine']}) and "
                  f"{seeds[1]['date']} ({seeds[1]['machine']}).", "",
                  *seed_table(seeds[0], seeds[1], names), ""]
        if all("strength" in s["seeds"] for s in seeds):
            lines += [*strength_table(seeds[0], seeds[1], names), ""]
    text = "\n".join(lines)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
