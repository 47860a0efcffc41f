"""Page logic of the web app that needs no Streamlit: the trail, labels, notes, loaded-index facts."""

from __future__ import annotations

import hashlib
import json
import os
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import urlsplit

from explorer.artifacts.layout import SENTENCE_TABLE
from explorer.artifacts.manifest import Manifest
from explorer.corpus.papers import Paper
from explorer.errors import UnknownPaperError
from explorer.query.engine import Explorer, Hit
from explorer.ui.links import ViewState
from explorer.ui.text import escape_markdown, plain

Step = tuple[str, str]  # ("q", question) or ("paper", paper_id)
TRAIL_LIMIT = 12
ON_DEMAND_EXPLANATIONS = 3  # without stored sentence vectors, each highlight embeds a paper
FAILED = ("This page could not be shown because of an internal error (the server's log has the "
          "details). Try again, or start over from the search box.")
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


def fit_to_corpus(state: ViewState, facets: Mapping[str, Sequence]) -> ViewState:
    """`state` with filters this corpus can show: venues and sources it has, years inside its
    range (a bound at or past the corpus's edge is no bound); `facets` as Explorer.facets()."""
    years = list(facets.get("years") or [])
    year_min, year_max = state.year_min, state.year_max
    if years:
        low, high = years[0], years[-1]
        year_min = None if year_min is None or year_min <= low else min(year_min, high)
        year_max = None if year_max is None or year_max >= high else max(year_max, low)
    else:
        year_min = year_max = None
    return replace(state, year_min=year_min, year_max=year_max,
                   venues=tuple(v for v in state.venues if v in set(facets.get("venues") or ())),
                   sources=tuple(s for s in state.sources if s in set(facets.get("sources") or ())))


def widget_values(facets: Mapping[str, Sequence], state: ViewState,
                  top_k_choices: list[int]) -> dict[str, Any]:
    """Initial values of the app's input widgets (by key) for `state` (fitted to `facets`)."""
    values: dict[str, Any] = {
        "query_box": state.query, "steer_box": state.steer, "venues": list(state.venues),
        "sources": list(state.sources),
        "top_k": min(top_k_choices, key=lambda k: abs(k - state.top_k))}
    years = list(facets.get("years") or [])
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
    if SENTENCE_TABLE in explorer.artifacts.arrays:
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


def loaded_facts(manifest: Manifest) -> dict[str, str]:
    """What is loaded, for the info panel: papers, model, index type, build time."""
    model = manifest.model
    built = manifest.built_at or ""
    try:
        built = datetime.strptime(built, "%Y-%m-%dT%H:%M:%S%z").strftime("%Y-%m-%d %H:%M %Z")
    except ValueError:
        pass
    return {
        "papers": f"{manifest.count:,}",
        "model": ("?" if model.model_id is None else model.model_id).rsplit("/", 1)[-1],
        "dimension": str(model.dimension),
        "index": manifest.index_type,
        "built": built.strip(),
        "inputs": ", ".join(Path(path).name or path for path in manifest.inputs or []),
    }


def example_questions(explorer: Explorer, count: int = 4) -> list[str]:
    """Starting points taken from the corpus map's largest topics (their key terms)."""
    topics = (explorer.artifacts.extras.get("map") or {}).get("topics") or []
    ranked = sorted(topics, key=lambda topic: -int(topic.get("size", 0)))
    return [" ".join(topic["terms"][:3]) for topic in ranked if topic.get("terms")][:count]


# -- what a web user may see of the server: no absolute paths, no links but http(s) --------------
_ABSOLUTE = re.compile(r"(?<![\w.:/~-])/(?:[^\s/`'\"]+/)*[^\s/`'\"]*")


def corpus_root(files: Iterable[str]) -> str:
    """The common parent folder of `files` ("" when there is none, e.g. relative and absolute
    paths mixed)."""
    parents = {os.path.dirname(os.path.normpath(path)) for path in files}
    try:
        return os.path.commonpath(parents) if parents else ""
    except ValueError:
        return ""


def public_path(path: str, root: str) -> str:
    """`path` as a web user may see it: relative to `root` when inside it, else its name."""
    path = os.path.normpath(path)
    if root and path != root and path.startswith(root.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, root)
    return PurePath(path).name or path


def source_names(files: Sequence[str]) -> dict[str, str]:
    """{name shown in the app: source file} for the corpus's source files."""
    root = corpus_root(files)
    names: dict[str, str] = {}
    for path in files:
        name = shown = public_path(path, root)
        number = 1
        while shown in names:  # only when no common root made the names unique
            number += 1
            shown = f"{name} ({number})"
        names[shown] = path
    return names


def public_paper(paper: Paper, root: str) -> Paper:
    """`paper` with its sources ("file:line") named relative to the corpus `root`."""
    def public(source: str) -> str:
        file = source.rsplit(":", 1)[0].split("#")[0]
        return public_path(file, root) + source[len(file):]

    return replace(paper, sources=tuple(public(source) for source in paper.sources))


def public_message(text: str, names: Mapping[str, str] | None = None) -> str:
    """`text` without server paths: each of `names` (path -> shown name) replaced, then any
    other absolute path cut to its last part."""
    for path, shown in sorted((names or {}).items(), key=lambda item: -len(item[0])):
        if path and os.path.isabs(path):
            text = text.replace(path.rstrip("/"), shown)
    return _ABSOLUTE.sub(lambda match: PurePath(match.group()).name or match.group(), text)


def public_hint(folder: str | Path, manifest: Manifest, root: str) -> str:
    """The rebuild command for this index, with inputs and folder named as `public_path`."""
    inputs = [public_path(str(path), root) for path in manifest.inputs or ["seeds"]]
    return f"explorer build {' '.join(inputs)} --out {public_path(str(folder), root)}"


def safe_url(url: str | None) -> str | None:
    """`url` when it is a plain http(s) address (the one link a card may show), else None."""
    if not url or any(char.isspace() or ord(char) < 32 for char in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.hostname else None


def public_items(items: Sequence[Hit | Paper], root: str) -> list[Hit | Paper]:
    """Hits or papers with their sources named as `public_paper` does (for the CSV export)."""
    return [replace(item, paper=public_paper(item.paper, root)) if isinstance(item, Hit)
            else public_paper(item, root) for item in items]


def rebuild_hint(explorer: Explorer) -> str:
    """The command that rebuilds the loaded index, without server paths."""
    root = public_facets(explorer)["root"]
    return public_hint(explorer.artifacts.folder, explorer.manifest, root)


def error_text(error: Exception, folder: str) -> tuple[str, list[str]]:
    """Markdown for a problem with the index in `folder` (no server paths, any text escaped),
    and the commands its message names."""
    shown = public_path(folder, "")
    message = public_message(str(error), {os.path.abspath(folder): shown, folder: shown})
    commands = re.findall(r"`([^`]+)`", message)
    return f"Cannot use the index in `{escape_markdown(shown)}`: {escape_markdown(message)}", commands


def unknown_notice(paper_ids: Sequence[str]) -> str:
    """Markdown naming the ids of a link that this index lacks (escaped: links come from anyone)."""
    names = ", ".join(plain(pid, 60) for pid in paper_ids[:10]) + (" …" if len(paper_ids) > 10 else "")
    return f"This link names papers not in this index: {escape_markdown(names)}."


_FACETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # never keeps an Explorer alive


def public_facets(explorer: Explorer) -> dict[str, Any]:
    """Explorer.facets() with source files by their public names, plus `source_files`
    ({public name: file}) and the corpus `root`; computed once per Explorer."""
    if explorer not in _FACETS:
        facets = dict(explorer.facets())
        files = source_names(facets["sources"])
        facets.update(sources=list(files), source_files=files, root=corpus_root(files.values()))
        _FACETS[explorer] = facets
    return _FACETS[explorer]


def narrowing(explorer: Explorer, state: ViewState) -> tuple:
    """The view's filters as a hashable cache key: (venues, source files, year_min, year_max),
    the sources named by their files (the view holds their public names)."""
    files = public_facets(explorer)["source_files"]
    sources = tuple(files[name] for name in state.sources if name in files)
    return state.venues, sources, state.year_min, state.year_max


def build_key(manifest: Manifest) -> str:
    """What tells one build of an index from the next: its build id, else the manifest's hash."""
    build_id = manifest.build_id
    if isinstance(build_id, str) and build_id:
        return build_id
    return hashlib.sha256(json.dumps(manifest.to_dict(), sort_keys=True, default=str).encode()
                          ).hexdigest()
