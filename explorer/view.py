"""Page logic of the web app that needs no Streamlit: the trail, labels, notes, loaded-index facts."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from explorer.corpus import Paper
from explorer.errors import UnknownPaperError
from explorer.links import ViewState
from explorer.search import Explorer, Hit
from explorer.view_text import plain

Step = tuple[str, str]  # ("q", question) or ("paper", paper_id)
TRAIL_LIMIT = 12
ON_DEMAND_EXPLANATIONS = 3  # without stored sentence vectors, each highlight embeds a paper
ON_DEMAND_NOTE = ("This index has no sentence vectors (built with --no-sentences or by an older "
                  "version), so only the first {count} results are highlighted. To highlight all: "
                  "`{command}`")


def step_of(state: ViewState) -> Step | None:
    """The trail step a view stands for: a question or an open paper (other pages add none)."""
    if state.page == "paper" and state.paper_id:
        return ("paper", state.paper_id)
    if state.page == "ask" and state.query.strip():
        return ("q", state.query)
    return None


def push(trail: tuple[Step, ...], step: Step | None) -> tuple[Step, ...]:
    """`trail` with `step` at the end; a step already on it stays where it is (no loss of place)."""
    if step is None or step in trail:
        return trail
    return (trail + (step,))[-TRAIL_LIMIT:]


def go_to(state: ViewState, step: Step) -> ViewState:
    """The view of a trail step, keeping the marked set and filters."""
    kind, value = step
    if kind == "q":
        return replace(state, page="ask", query=value)
    if kind == "paper":
        return replace(state, page="paper", paper_id=value)
    raise ValueError(f"unknown trail step kind {kind!r}")


def known_only(explorer: Explorer, state: ViewState) -> tuple[ViewState, list[str]]:
    """`state` without the paper ids this index lacks (e.g. from an old link), and those ids."""
    def known(paper_id: str) -> bool:
        try:
            explorer.row(paper_id)
        except UnknownPaperError:
            return False
        return True

    unknown = [pid for pid in (state.paper_id, *state.like, *state.unlike) if pid and not known(pid)]
    state = replace(state, like=tuple(p for p in state.like if known(p)),
                    unlike=tuple(p for p in state.unlike if known(p)))
    if state.paper_id and not known(state.paper_id):
        state = replace(state, page="ask" if state.page == "paper" else state.page, paper_id=None)
    return state, unknown


def widget_values(explorer: Explorer, state: ViewState, top_k_choices: list[int]) -> dict[str, Any]:
    """Initial values of the app's input widgets (by key) for `state`."""
    values: dict[str, Any] = {
        "query_box": state.query, "steer_box": state.steer, "venues": list(state.venues),
        "sources": list(state.sources),
        "top_k": min(top_k_choices, key=lambda k: abs(k - state.top_k))}
    years = explorer.facets()["years"]
    if years:
        values["years"] = (state.year_min or years[0], state.year_max or max(years[-1], years[0] + 1))
    return values


def step_label(explorer: Explorer, step: Step, limit: int = 38) -> str:
    """Short plain-text label for a trail step (the caller escapes it for Markdown)."""
    kind, value = step
    if kind == "q":
        return plain(value, limit)
    try:
        title = explorer.paper(value).title
    except UnknownPaperError:  # a step from before the index was rebuilt
        title = value
    return plain(title, limit)


def explained_count(explorer: Explorer, count: int) -> int:
    """How many of `count` hits get sentence highlights: all when the index stores sentence
    vectors; else the first few, since each then embeds a whole abstract (~0.1 s on a CPU)."""
    if "sentence_table" in explorer.artifacts.arrays:
        return count
    return min(count, ON_DEMAND_EXPLANATIONS)


def query_note(query: str) -> str | None:
    """A note when a question has nothing a reader would call words."""
    if query.strip() and not any(char.isalnum() for char in query):
        return "Your question has no letters or digits, so the ranking below is close to arbitrary."
    return None


def score_text(hit: Hit) -> str:
    """'cos 0.612 · top 0.4%' — the cosine and how rare such a score is among paper pairs.

    A score that most random pairs reach says so ("top 94%" would read as praise)."""
    text = f"cos {hit.score:.3f}"
    if hit.percentile is not None:
        rarer = max(100.0 - hit.percentile, 0.0)
        if rarer > 50:
            text += " · weak"
        elif rarer >= 1:
            text += f" · top {rarer:.0f}%"
        else:
            text += f" · top {rarer:.1f}%" if rarer >= 0.1 else " · top <0.1%"
    return text


def meta_parts(paper: Paper) -> list[str]:
    """Venue, year, authors and source files, as far as they are known."""
    parts = []
    if paper.venue:
        parts.append(paper.venue)
    if paper.year:
        parts.append(str(paper.year))
    if paper.authors:
        shown = ", ".join(paper.authors[:3])
        parts.append(shown + (" et al." if len(paper.authors) > 3 else ""))
    files = sorted({source.rsplit(":", 1)[0].rsplit("/", 1)[-1] for source in paper.sources})
    if files:
        parts.append("from " + ", ".join(files[:3]) + (" …" if len(files) > 3 else ""))
    return parts


def loaded_facts(manifest: dict[str, Any]) -> dict[str, str]:
    """What is loaded, for the info panel: papers, model, index type, build time."""
    model = manifest.get("model", {})
    built = str(manifest.get("built_at", ""))
    try:
        built = datetime.strptime(built, "%Y-%m-%dT%H:%M:%S%z").strftime("%Y-%m-%d %H:%M %Z")
    except ValueError:
        pass
    return {
        "papers": f"{manifest.get('count', 0):,}",
        "model": str(model.get("id", "?")).rsplit("/", 1)[-1],
        "dimension": str(model.get("dimension", "?")),
        "index": str(manifest.get("index_type", "?")),
        "built": built.strip(),
        "inputs": ", ".join(Path(path).name or path for path in manifest.get("inputs") or []),
    }


def example_questions(explorer: Explorer, count: int = 4) -> list[str]:
    """Starting points taken from the corpus map's largest topics (their key terms)."""
    topics = (explorer.artifacts.extras.get("map") or {}).get("topics") or []
    ranked = sorted(topics, key=lambda topic: -int(topic.get("size", 0)))
    return [" ".join(topic["terms"][:3]) for topic in ranked if topic.get("terms")][:count]
