"""The tables of studies/explain_options.py, as Markdown."""

from __future__ import annotations


def report(results: dict) -> str:
    """The result tables as Markdown."""
    info = results["machine"]
    lines = ["# Explanations without a second model run (issue 12)", "",
             f"{info['date']} · {info['cpu']} (flags: {info['flags']}) · {info['cores']} cores"
             f" · load average at the end {results['load_average']} (shared machine: compare "
             "within a table only)", "", "## Quality: the best sentence against today's", "",
             "| cases | option | search cases | same best | today's best among the 2 shown "
             "| similar cases | same best pair | same sentence of the hit |", "|---" * 8 + "|"]
    for name, counts in results["quality"].items():
        (found, same, kept), (pairs, same_pairs, hit_side) = counts["search"], counts["similar"]
        lines.append(f"| {name} | {found} | {_share(same, found)} | "
                     f"{_share(kept, found)} | {pairs} | {_share(same_pairs, pairs)} | "
                     f"{_share(hit_side, pairs)} |")
    build = results["build"]
    papers = build["papers alone"]
    rows = {"today: papers + sentences alone": [a + b for a, b in zip(
                papers, build["sentences alone (today's second pass)"])],
            "(a) papers + pooled sentences": build["papers + pooled sentences (a)"],
            "(b) papers alone (sentences on demand)": papers,
            "(c) papers alone until usable, + sentences after": papers}
    lines += ["", f"## Build cost: embedding {results['build_corpus']} (best of rounds)", "",
              "| build | wall s | CPU s | x papers alone (wall / CPU) |", "|---|---|---|---|"]
    for name, (wall, cpu) in {**build, **rows}.items():
        lines.append(f"| {name} | {wall:.1f} | {cpu:.1f} | {wall / papers[0]:.2f} / "
                     f"{cpu / papers[1]:.2f} |")
    lines += ["", "## Query time: ms per hit explained (wall / CPU), default backend", "",
              "| path | wall ms | CPU ms |", "|---|---|---|"]
    lines += [f"| {name} | {wall} | {cpu} |" for name, (wall, cpu) in results["per_hit"].items()]
    lines += ["", "## The 256-token window", "", "| corpus | papers | past the window | "
              "sentences | ending past the window |", "|---|---|---|---|---|"]
    for name, row in results["window"].items():
        lines.append(f"| {name} | {row['papers']} | "
                     f"{_share(row['papers past the window'], row['papers'])} | "
                     f"{row['sentences']} | "
                     f"{_share(row['sentences past the window'], row['sentences'])} |")
    return "\n".join(lines) + "\n"


def _share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.0f}%)" if whole else "-"


def cases_markdown(differing: list[dict]) -> str:
    """Every case where an option's best sentence differs from today's, for a reader."""
    lines = ["# Where the best sentence differs from today's", ""]
    for number, case in enumerate(differing, 1):
        head = f"{number}. [{case['cases']}, {case['option']}] "
        if case["kind"] == "search":
            lines += [head + f"question: {case['question']} -- paper: {case['paper']}",
                      f"   - today: {case['today']}", f"   - other: {case['other']}"]
        else:
            lines += [head + f"similar: {case['paper']} ~ {case['hit']}",
                      f"   - today: {case['today'][0]} ~ {case['today'][1]}",
                      f"   - other: {case['other'][0]} ~ {case['other'][1]}"]
    return "\n".join(lines) + "\n"
