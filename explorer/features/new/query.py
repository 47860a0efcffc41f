"""What is new: the papers an index's builds added (features/new/stage.py records them), since a
build (default: the previous one), in corpus order, nearest first to a collection's papers, or
ranked for a question.

Near a collection, a new paper's score is its cosine with the collection paper closest to it,
placed among random paper pairs (so a paper unrelated to every paper of the collection reads
"weak", wording.STRENGTHS). For a question the ranking is the product's own (Explorer.rank,
restricted to the new papers), with its words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.artifacts.layout import ADDED_IN, BUILDS
from explorer.errors import ExplorerError
from explorer.query.engine import Explorer
from explorer.query.hits import Hit, placed
from explorer.ranking.calibration import PAPERS, QUESTIONS

SHOWN_BUILDS = 5  # recorded builds an unknown build id's message lists (the latest)


@dataclass(frozen=True)
class Build:
    """One recorded build: its id and time (None for a build from before the log), how many
    papers it added (None: not recorded) and the index's size after it."""

    place: int
    build_id: str | None
    built_at: str | None
    added: int | None
    count: int | None

    def to_dict(self) -> dict:
        return {"build_id": self.build_id, "built_at": self.built_at, "added": self.added,
                "papers": self.count}


@dataclass(frozen=True)
class New:
    """The papers added after build `since` (None: all the index's papers), ranked."""

    since: Build | None
    builds: tuple[Build, ...]
    hits: tuple[Hit, ...]
    added: int  # papers added since (hits may be fewer: top_k)
    near: tuple[str, ...] = ()  # per hit, the collection paper it is closest to


def builds(explorer: Explorer) -> tuple[list[Build], np.ndarray]:
    """The index's recorded builds, oldest first (the last is this index's own), and each
    paper's place among them ((n,) int32)."""
    manifest, count = explorer.artifacts.manifest, len(explorer.papers)
    log = explorer.artifacts.extras[BUILDS]
    places = np.asarray(explorer.artifacts.arrays[ADDED_IN], dtype=np.int32)
    found = [Build(n, _text(e.get("build_id")), _text(e.get("built_at")), _number(e.get("added")),
                   _number(e.get("count"))) for n, e in enumerate(log)]
    found.append(Build(len(log), manifest.build_id, manifest.built_at,
                       int(np.count_nonzero(places == len(log))), count))
    return found, places


def added_since(explorer: Explorer, since: str | None = None) -> tuple[Build | None, np.ndarray]:
    """The build asked for (an id or a unique start of one; None: the previous build) and the
    rows (m,) of the papers added after it. ExplorerError for an id the index has not recorded,
    or when it has recorded one build only."""
    found, places = builds(explorer)
    if since is None:
        if len(found) < 2:
            raise ExplorerError(
                "This index has recorded one build only, so nothing is new since a previous "
                "one. Add papers and build again (`explorer build ... --out` the same folder); "
                "then `explorer new` lists the papers that build added.")
        build = found[-2]
    else:
        build = _named(found, since)
    return build, np.flatnonzero(places > build.place)


def _named(found: Sequence[Build], since: str) -> Build:
    matches = [b for b in found if b.build_id and b.build_id.startswith(since.strip())]
    if since.strip() and len(matches) == 1:
        return matches[0]
    recent = ", ".join(b.build_id or "?" for b in found[-SHOWN_BUILDS:])
    what = "names several builds" if matches and since.strip() else "is not a build"
    raise ExplorerError(f"{since!r} {what} of this index. Its latest builds: {recent} "
                        "(`explorer new --builds` lists them all).")


def new_papers(explorer: Explorer, since: str | None = None, *, like: Sequence[str] = (),
               query: str | None = None, top_k: int | None = None) -> New:
    """The papers added after `since`: nearest first to the papers `like` (ids), else ranked
    for `query`, else in corpus order; at most `top_k` (None: all)."""
    found, _ = builds(explorer)
    build, rows = added_since(explorer, since)
    limit = len(rows) if top_k is None else min(top_k, len(rows))
    if like:
        hits, near = _near(explorer, rows, like, limit)
    elif query and query.strip() and len(rows):
        hits = tuple(explorer.rank(query, explorer.embed_query(query), top_k=limit,
                                   within=[int(r) for r in rows], kind=QUESTIONS))
        near = ()
    else:
        hits = tuple(Hit(n + 1, 0.0, None, explorer.papers[int(r)])
                     for n, r in enumerate(rows[:limit]))
        near = ()
    return New(build, tuple(found), hits, len(rows), near)


def _near(explorer: Explorer, rows: np.ndarray, like: Sequence[str], limit: int
          ) -> tuple[tuple[Hit, ...], tuple[str, ...]]:
    """The new papers by their cosine with the closest liked paper, highest first."""
    liked = sorted({explorer.row(paper_id) for paper_id in like})
    rows = np.array([r for r in rows if int(r) not in set(liked)], dtype=np.int64)
    if not len(rows):
        return (), ()
    vectors = explorer.vectors
    cosines = vectors[rows] @ vectors[liked].T  # (m, l)
    best, closest = cosines.max(axis=1), cosines.argmax(axis=1)
    order = np.argsort(-best, kind="stable")[:limit]
    scale = explorer.scale(PAPERS)
    hits = tuple(Hit(n + 1, float(best[i]), paper=explorer.papers[int(rows[i])],
                     **{k: v for k, v in placed(scale, float(best[i])).items()})
                 for n, i in enumerate(order))
    near = tuple(explorer.papers[liked[int(closest[i])]].paper_id for i in order)
    return hits, near


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
