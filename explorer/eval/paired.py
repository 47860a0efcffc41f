"""Two rankings compared question by question (issue 35): is one really ahead on a row of the
eval tables, or within the noise of which questions happen to be asked?

`per_question` turns the per-query runs that `explorer eval --per-query` keeps (small.small_runs)
into one score per question and row (set, size), averaged over the row's draws: a question drawn
three times is still one question. `paired` compares two runs' scores on the questions both
scored: the mean difference, a percentile bootstrap interval over questions (resampled with
replacement, RESAMPLES times, fixed seed) and a two-sided paired randomisation test (the sign of
each question's difference flipped at random), and how many questions each run wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

RESAMPLES = 10_000
SEED = 0
LEVEL = 0.95

Row = tuple[str, int | str]  # (set, size)


def per_question(runs: Sequence[Mapping], column: str = "default", metric: str = "ndcg@10"
                 ) -> dict[Row, dict[str, float]]:
    """small_runs' runs -> {(set, size): {query_id: `metric` of `column`, mean over draws}}."""
    sums: dict[Row, dict[str, list[float]]] = {}
    for run in runs:
        cell = sums.setdefault((run["set"], run["size"]), {})
        cell.setdefault(str(run["query_id"]), []).append(float(run["scores"][column][metric]))
    return {row: {query: float(np.mean(values)) for query, values in cell.items()}
            for row, cell in sums.items()}


def paired(first: Mapping[str, float], second: Mapping[str, float], resamples: int = RESAMPLES,
           seed: int = SEED, level: float = LEVEL) -> dict:
    """`second` against `first` ({query_id: score}) on the questions both hold -> {"questions",
    "difference" (mean of second - first), "low", "high" (the `level` bootstrap interval of the
    mean difference), "p" (two-sided paired randomisation test), "ahead" / "behind" / "tied"
    (questions where second scores higher / lower / the same)}."""
    if resamples < 1 or not 0 < level < 1:
        raise ValueError(f"need resamples >= 1 and 0 < level < 1, got {resamples}, {level}")
    shared = sorted(set(first) & set(second))
    if not shared:
        raise ValueError("the two runs share no question")
    diff = np.array([second[q] - first[q] for q in shared], dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), (resamples, len(diff)))].mean(axis=1)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    signs = rng.choice((-1.0, 1.0), (resamples, len(diff)))
    observed = abs(diff.mean())
    flipped = np.abs((signs * diff).mean(axis=1))
    p = (1 + int(np.sum(flipped >= observed - 1e-12))) / (resamples + 1)
    return {"questions": len(diff), "difference": float(diff.mean()), "low": float(low),
            "high": float(high), "p": p, "ahead": int(np.sum(diff > 0)),
            "behind": int(np.sum(diff < 0)), "tied": int(np.sum(diff == 0))}
