"""Strength words that mean relevance (issue 31): fit the chance that a question's hit is
relevant (ranking/calibration.relevance: a logistic model of relevance_features) on judged
lists (studies/strength_data.py) and check it HELD OUT: fitted on two sets, read on the third
(and, second, fitted on even questions of all sets, read on the odd ones). Reports per set the
share of hits relevant per strength word, how often an absent-topic question's top hit reads
above "weak", and the share of the seed paraphrase targets that read "strong" or "good" —
under today's words (the cosine's percentile among random question-paper cosines) and the
calibrated ones. Per model (--model; ranking/fitted.py keeps one table per model): the weights
fitted on all sets are what that model's `relevance_weights` ship, the gate the rule picks its
`gate`, and the held-out tables are read at that gate.

    nice -n 10 .venv/bin/python -m studies.strength_calibration [--model mpnet] \\
        --paperlists ../shared/data/paperlists-ml --acm-cr ../shared/data/acm-cr
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from benchmarks.common import machine
from explorer import wording
from explorer.eval.evaluate import model_suffix
from explorer.model.embedder import resolve_model
from explorer.ranking.calibration import GATE, GATED_CHANCE, relevance, relevance_features
from explorer.ranking.fitted import calibration_for
from studies.strength_data import SMALL, Judged, Sizes, judged_sets

RESULTS = Path(__file__).resolve().parent / "results"
L2 = 1e-4  # ridge on the weights (not the intercept): keeps a fit on few positives tame
Words = Callable[[Judged], list[str]]


def fit(lists: Sequence[Judged], l2: float = L2, steps: int = 50, absent: bool = True
        ) -> np.ndarray:
    """Logistic regression by Newton's method -> weights (intercept, one per feature); each set
    weighs the same in total, whatever its number of hits. `absent`: the six signals
    (calibration.SIGNALS: with the hit's gaps to the best and the next hit and the best cosine
    against the corpus's absent-topic bests), else the three of an index built before those
    were stored."""
    x = np.vstack([_features(j, absent) for j in lists])
    y = np.concatenate([j.relevant.astype(float) for j in lists])
    sets = np.concatenate([[j.set] * len(j.scores) for j in lists])
    names, counts = np.unique(sets, return_counts=True)
    weight = np.array([1.0 / dict(zip(names, counts))[s] for s in sets]) * len(y) / len(names)
    x = np.column_stack([np.ones(len(y)), x])
    w = np.zeros(x.shape[1])
    ridge = np.diag([0.0] + [l2] * (x.shape[1] - 1))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (weight * (p - y)) + ridge @ w * len(y)
        hessian = (x * (weight * p * (1 - p))[:, None]).T @ x + ridge * len(y)
        w -= np.linalg.solve(hessian, gradient)
    return w


def _features(j: Judged, absent: bool) -> np.ndarray:
    return relevance_features(j.scores, j.quantiles, j.cosines if absent else None,
                              j.absent_best if absent else ())


def calibrated(weights: np.ndarray, absent: bool = True, gate: float = GATE,
               cuts: tuple[tuple[float, str], ...] = wording.RELEVANCE_WORDS) -> Words:
    """The words of the model with `weights` (and, with `absent`, its gate at `gate`%), the
    chances named by `cuts` (wording.RELEVANCE_WORDS')."""
    return lambda j: [wording.relevance_word(float(p), cuts) for p in relevance(
        j.scores, j.quantiles, weights, cosines=j.cosines if absent else None,
        absent=j.absent_best if absent else (), gate=gate)]


def gate_sweep(sets: dict[str, list[Judged]]) -> list[dict]:
    """Per gate percentile (0, 5, ..., 95): each set's absent-topic rate above weak and the seed
    targets' share strong or good, each set read by the weights fitted on the others, and the
    odd seed targets read by the weights fitted on the even questions of all sets. GATE is the
    highest percentile at which both shares of seed targets stay at 85% or more. With the
    seeds alone (--seeds-only), each "other sets" reading is the odd half by the even's."""
    even, odd = halves(sets)
    even_weights, odd_seeds = fit(even), [j for j in odd if j.set == "seeds"]
    alone = len(sets) == 1
    weights = {name: even_weights if alone else fit(
        [j for other, ls in sets.items() if other != name for j in ls]) for name in sets}
    shown = {name: [j for j in odd if j.set == name] if alone else ls for name, ls in sets.items()}
    rows = []
    for gate in range(0, 100, 5):
        read = {name: report(ls, calibrated(weights[name], gate=gate))
                for name, ls in shown.items()}
        halved = report(odd_seeds, calibrated(even_weights, gate=gate))
        rows.append({"gate": gate, "targets": read["seeds"]["targets_strong_or_good"],
                     "odd targets": halved["targets_strong_or_good"],
                     "hand": "{1}/{0}".format(*read["seeds"]["hand_written_absent"]),
                     **{name: r["absent_top_above_weak"] for name, r in read.items()},
                     **{f"{name} topic": r["topic_absent_top_above_weak"]
                        for name, r in read.items()}})
    return rows


def compared(lists: Sequence[Judged], rest: Sequence[Judged], gate: float = GATE) -> dict:
    """`lists` read by today's words and by the models fitted on `rest` (gate at `gate`%)."""
    return {"today": report(lists, today),
            "three signals, no gate": report(lists, calibrated(fit(rest, absent=False), False)),
            "calibrated": report(lists, calibrated(fit(rest), gate=gate))}


def today(j: Judged) -> list[str]:
    """The words before issue 31: the cosine's percentile among question-paper cosines."""
    table = np.asarray(j.quantiles)
    steps = len(table) - 1
    return [wording.strength(100.0 * min(int(np.searchsorted(table, c)), steps) / steps)
            for c in j.cosines]


def report(lists: Sequence[Judged], words: Words) -> dict:
    """Per word: hits and share relevant (present and absent lists); absent lists' top hit above
    weak; seed paraphrase targets reading strong or good."""
    by_word = {word: [0, 0] for word in wording.WORDS}
    above, absent, targets, good = 0, 0, 0, 0
    hand = [0, 0]  # the hand-written absent topics (tests/absent_topics.py): lists, above weak
    topic = [0, 0]  # the self-supervised ones with the topic gone too (Judged.topic)
    for j in lists:
        said = words(j)
        for word, relevant in zip(said, j.relevant):
            by_word[word][0] += 1
            by_word[word][1] += int(relevant)
        if j.absent and said and j.kind == "absent-topic":
            hand[0] += 1
            hand[1] += said[0] != wording.WEAK
        elif j.absent and said:
            absent += 1
            above += said[0] != wording.WEAK
        if j.topic is not None and len(j.topic.scores):
            topic[0] += 1
            topic[1] += words(j.topic)[0] != wording.WEAK
        if j.kind == "paraphrase" and not j.absent:
            targets += 1
            good += j.target_rank is not None and said[j.target_rank - 1] in wording.WORDS[:2]
    return {"words": {w: {"hits": n, "relevant": round(r / n, 3) if n else None}
                      for w, (n, r) in by_word.items()},
            "absent_lists": absent, "absent_top_above_weak": round(above / absent, 3) if absent
            else None, "hand_written_absent": hand, "topic_absent_lists": topic[0],
            "topic_absent_top_above_weak": round(topic[1] / topic[0], 3) if topic[0] else None,
            "paraphrase_targets": targets,
            "targets_strong_or_good": round(good / targets, 3) if targets else None}


def held_out(sets: dict[str, list[Judged]], gate: float = GATE) -> dict:
    """Leave one set out, and even/odd questions (pairs of present/absent lists kept together);
    the gate at `gate`%."""
    out = {}
    for name, lists in sets.items() if len(sets) > 1 else ():
        rest = [j for other, ls in sets.items() if other != name for j in ls]
        out[f"{name} (fitted on the other sets)"] = compared(lists, rest, gate)
    half, other = halves(sets)
    for name in sets:
        part = [j for j in other if j.set == name]
        out[f"{name}, odd questions (fitted on the even ones of all sets)"] = compared(
            part, half, gate)
    return out


def halves(sets: dict[str, list[Judged]]) -> tuple[list[Judged], list[Judged]]:
    """The even and the odd questions of all sets (a present list and its absent twin together)."""
    alls = [j for ls in sets.values() for j in ls]
    return ([j for i, j in enumerate(alls) if (i // 2) % 2 == 0],
            [j for i, j in enumerate(alls) if (i // 2) % 2 == 1])


def markdown(result: dict) -> str:
    lines = [f"# Strength words against judged relevance: {result['model']} ({result['date']}, "
             f"{result['cpu']})",
             "", "Written by `studies/strength_calibration.py` (see its docstring); every table "
             "is held out. Share relevant per word (hits so labelled); absent: the share of "
             "absent-topic questions whose top hit reads above *weak*; targets: the share of "
             "seed paraphrase targets that read *strong* or *good match*.", "",
             f"Weights fitted on all sets, this run: `{result['weights']}` (an index without the "
             f"absent-topic bests: `{result['three_signal_weights']}`); shipped (ranking/"
             f"fitted.py): `{result.get('shipped')}`; lists per set: {result['lists']}. "
             f"CPU flags: {result.get('flags')}; load average {result.get('load')}.", ""]
    lines += ["## The gate, chosen on the seeds", "", "Absent-topic top hits above weak per "
              "set and seed targets strong/good, by the gate's percentile of the corpus's "
              "absent-topic bests (each set read by weights fitted on the others); shipped: "
              f"{result['gate']}; the rule (highest gate with both targets >= 0.85) picks "
              f"{result['gate_by_rule']}. Per set, near-but-absent (its relevant papers and "
              "their versions left out) / topic-absent (their close neighbours too: "
              "strength_data.KIN).", "", "| gate % | targets | odd targets | hand-written | "
              + " | ".join(result["lists"]) + " |", "|---|---|---|---|" + "---|" * len(result["lists"])]
    lines += [f"| {row['gate']} | {row['targets']} | {row['odd targets']} | {row['hand']} | "
              + " | ".join(f"{row[name]} / {row[name + ' topic']}" for name in result["lists"])
              + " |" for row in result["gate_sweep"]]
    lines.append("")
    for name, pair in result["held_out"].items():
        lines += [f"## {name}", "", "| words | " + " | ".join(wording.WORDS)
                  + " | absent above weak | topic-absent above weak | hand-written above weak "
                  "| targets strong/good |", "|---|" + "---|" * (len(wording.WORDS) + 4)]
        for label, r in pair.items():
            cells = [f"{r['words'][w]['relevant'] if r['words'][w]['hits'] else '-'} "
                     f"({r['words'][w]['hits']})" for w in wording.WORDS]
            hand = "{1}/{0}".format(*r["hand_written_absent"]) if r["hand_written_absent"][0] \
                else "-"
            lines.append(f"| {label} | " + " | ".join(cells) + f" | {r['absent_top_above_weak']}"
                         f" | {r['topic_absent_top_above_weak']} | {hand} | "
                         f"{r['targets_strong_or_good']} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paperlists", type=Path, default=Path("../shared/data/paperlists-ml"))
    parser.add_argument("--acm-cr", type=Path, default=Path("../shared/data/acm-cr"))
    parser.add_argument("--model", default="default", help="the model the sets are embedded by")
    parser.add_argument("--small", action="store_true", help="the sets at strength_data.SMALL's "
                        "sizes (a slow model on shared cores), each model read at the same")
    parser.add_argument("--out", type=Path,
                        help="default: results/strength-calibration[-NAME][-small|-seeds]")
    parser.add_argument("--seeds-only", action="store_true", help="the seed set alone (a slow "
                        "model where the other sets cannot be embedded in time): held out by halves")
    args = parser.parse_args(argv)
    sizes = SMALL if args.small else Sizes()
    kind = "-seeds" if args.seeds_only else "-small" if args.small else ""
    args.out = args.out or RESULTS / f"strength-calibration{model_suffix(args.model)}{kind}"
    started = time.perf_counter()
    missing = Path("/nonexistent")
    sets = judged_sets(missing if args.seeds_only else args.paperlists,
                       missing if args.seeds_only else args.acm_cr, args.model, sizes)
    sweep = gate_sweep(sets)
    gate = max([row["gate"] for row in sweep if min(row["targets"], row["odd targets"]) >= 0.85],
               default=0)
    everything = [j for ls in sets.values() for j in ls]
    shipped = calibration_for(resolve_model(args.model).model_id)
    result = {"date": time.strftime("%Y-%m-%d"), "cpu": machine()["cpu"], "model": args.model,
              "flags": machine()["flags"], "load": round(os.getloadavg()[0], 1),
              "shipped": list(shipped.relevance_weights) if shipped else None,
              "sizes": sizes.__dict__,
              "lists": {name: len(lists) for name, lists in sets.items()},
              "weights": [round(float(w), 3) for w in fit(everything)],
              "three_signal_weights": [round(float(w), 3) for w in fit(everything, absent=False)],
              "gate": {"percent": gate, "chance_at_most": GATED_CHANCE},
              "held_out": held_out(sets, gate), "gate_sweep": sweep, "gate_by_rule": gate,
              "seconds": round(time.perf_counter() - started)}
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result) + "\n")
    print(markdown(result))
    return args.out.with_suffix(".md")


if __name__ == "__main__":
    main()
