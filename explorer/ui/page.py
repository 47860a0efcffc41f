"""Page logic of the web app that needs no Streamlit: the location a link opens, what the
pages say (notes, facts of the loaded index) and the keys the app caches under (the sidebar's
labels: the page records, explorer/app/)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from explorer import wording
from explorer.artifacts.manifest import Manifest
from explorer.corpus.papers import Paper
from explorer.errors import UnknownPaperError
from explorer.features.facets.ui import known_facets, status_badge
from explorer.query.engine import MAX_QUESTION_CHARS
from explorer.query.hits import Hit
from explorer.ranking.authors import Named
from explorer.ui.links import ASK, PAPER, Location, author_names, decode
from explorer.ui.public import public_path
from explorer.ui.text import escape_markdown, rich_markdown
from explorer.ui.trail import PaperLookup

FAILED = ("This page could not be shown because of an internal error (the server's log has the "
          "details). Try again, or start over from the search box.")
ACTION_FAILED = ("That did not work because of an internal error (the server's log has the "
                 "details). Try again; if it keeps failing, tell whoever runs this server.")
NOT_WRITTEN = ("That could not be saved: the server cannot write its files ({reason}); what was "
               "saved before is unchanged. Tell whoever runs this server (a full disk, or a "
               "folder it may not write to).")
START = ("Ask in plain words, or paste an abstract (the box takes "
         f"{MAX_QUESTION_CHARS:,} characters). Or start from a question about one of its topics:")
# Example questions: a topic's name fills each form in turn (any noun phrase reads well in all)
QUESTION_FORMS = ("What are the main approaches to {name}?", "What are recent advances in {name}?",
                  "Which open problems remain in {name}?", "How are methods for {name} evaluated?")
SHOWN_VENUES = 8  # venues named on the start page (the count names them all)
PLACEHOLDER = "Ask a question, e.g. how do transformers keep track of state?"
NO_MATCH = "No paper matches the filters. Widen them in the sidebar."
ASKED = wording.RESULTS_CAPTION  # the score is the fused one, not a cosine (explorer/wording.py)
DERIVED = ":gray-badge[derived title] written from the abstract; the paper has none."
MARK_HINT = ("Mark papers with :material/thumb_up: *More like this* or :material/thumb_down: "
             "*Less like this*; recommendations from the whole set appear here.")
STEER = "Steer the recommendations with words (optional)"
AUTHOR_HELP = ("Papers by any of these people. A name matches the ways papers write it: "
               "'S. Levine', 'Levine, Sergey' and 'sergey levine' find Sergey Levine; "
               "'Scholkopf' finds Schölkopf. An initial matches everyone with it (S. Levine: "
               "Sergey and Samuel); pick a full name to tell them apart.")


def named_markdown(named: Named) -> str:
    """The line above a question's results when the question is a title or an author's name
    (Explorer.named): whose papers, or which paper, come first (names escaped)."""
    count = len(named.rows)
    papers = f"{count} paper{'s' * (count != 1)}"
    if named.kind == "title":
        return f"**{escape_markdown(named.heading)}** first, then papers like it."
    return (f"**{escape_markdown(named.heading)}** first ({papers} in this corpus), then the "
            "other results for your question.")
SHARE_NOTE = "Opens this page as you see it: question, paper, marked set and filters."


# -- the location a link opens ----------------------------------------------------------------
def opened(params: Mapping[str, Any], facets: Mapping[str, Sequence],
           papers: PaperLookup) -> tuple[Location, list[str]]:
    """The location the URL's `params` name, fitted to this corpus, and the paper ids it names
    that the index lacks (dropped from it); `facets` as public.public_facets."""
    return known_only(papers, fit_to_corpus(decode(params), facets))


def known_only(papers: PaperLookup, location: Location) -> tuple[Location, list[str]]:
    """`location` without the paper ids this index lacks (e.g. from an old link), and those ids."""
    def known(paper_id: str) -> bool:
        try:
            papers.paper(paper_id)
        except UnknownPaperError:
            return False
        return True

    unknown = [pid for pid in (location.paper_id, *location.like, *location.unlike)
               if pid and not known(pid)]
    location = replace(location, like=tuple(p for p in location.like if known(p)),
                       unlike=tuple(p for p in location.unlike if known(p)))
    if location.paper_id and not known(location.paper_id):
        location = replace(location, page=ASK if location.page == PAPER else location.page,
                           paper_id=None)
    return location, unknown


def fit_to_corpus(location: Location, facets: Mapping[str, Sequence]) -> Location:
    """`location` with filters this corpus can show: venues and sources it has, years inside its
    range (a bound at or past the corpus's edge is no bound); `facets` as Explorer.facets()."""
    years = list(facets.get("years") or [])
    year_min, year_max = location.year_min, location.year_max
    if years:
        low, high = years[0], years[-1]
        year_min = None if year_min is None or year_min <= low else min(year_min, high)
        year_max = None if year_max is None or year_max >= high else max(year_max, low)
    else:
        year_min = year_max = None
    return replace(location, year_min=year_min, year_max=year_max,
                   venues=tuple(v for v in location.venues if v in set(facets.get("venues") or ())),
                   sources=tuple(s for s in location.sources if s in set(facets.get("sources") or ())),
                   facets=known_facets(location.facets, facets.get("fields") or {}))


def widget_values(facets: Mapping[str, Sequence], location: Location,
                  top_k_choices: list[int]) -> dict[str, Any]:
    """Initial values of the app's input widgets (by key) for `location` (fitted to `facets`)."""
    values: dict[str, Any] = {
        "query_box": location.query, "steer_box": location.steer, "venues": list(location.venues),
        "sources": list(location.sources), "authors": list(location.authors),
        "top_k": min(top_k_choices, key=lambda k: abs(k - location.top_k))}
    years = list(facets.get("years") or [])
    if years:
        values["years"] = (location.year_min or years[0],
                           location.year_max or max(years[-1], years[0] + 1))
    return values


def year_range(facets: Mapping[str, Sequence]) -> tuple[int, int] | None:
    """The range of the year slider (at least two years wide), None when no paper has a year."""
    years = list(facets.get("years") or [])
    return (years[0], max(years[-1], years[0] + 1)) if years else None


def with_filters(location: Location, facets: Mapping[str, Sequence], venues: Sequence[str],
                 sources: Sequence[str], years: tuple[int, int] | None, top_k: int,
                 authors: Sequence[str] | None = None) -> Location:
    """`location` with the filters picked in the app (`years` the slider's range: a bound at
    the corpus's edge is no bound; `authors` None: the location's, else links.author_names
    of them)."""
    year_min = year_max = None
    corpus_years = list(facets.get("years") or [])
    if years is not None and corpus_years:
        year_min = years[0] if years[0] > corpus_years[0] else None
        year_max = years[1] if years[1] < corpus_years[-1] else None
    authors = location.authors if authors is None else author_names(authors)
    return replace(location, venues=tuple(venues), sources=tuple(sources), year_min=year_min,
                   year_max=year_max, top_k=top_k, authors=authors)


def badged_title(paper: Paper, bold: bool = True) -> str:
    """A paper's title (its LaTeX rendered; bold unless not `bold`) and its status's badge."""
    title = rich_markdown(paper.title)
    return (f"**{title}**" if bold else title) + status_badge(paper.status)


def title_markdown(paper: Paper) -> str:
    """A paper's title in bold (its LaTeX rendered), badged when derived from the abstract, and
    its status's badge (features/facets/ui.py: "Rejected", "Withdrawn" stand out)."""
    derived = " :gray-badge[derived title]" if paper.title_is_derived else ""
    return f"**{rich_markdown(paper.title)}**{derived}{status_badge(paper.status)}"


def facts_markdown(paper: Paper, extra: Sequence[str] = ()) -> str:
    """A paper's facts (`meta_parts`, escaped) and the Markdown notes `extra`, for a caption."""
    return " · ".join([escape_markdown(part) for part in meta_parts(paper)] + [e for e in extra if e])


def example_questions(corpus_map: Mapping[str, Any] | None, count: int = 4) -> list[str]:
    """Questions to start from: the names of the corpus map's largest topics, one topic per
    area while areas last, each set in one of QUESTION_FORMS (unnamed topics skipped)."""
    topics = [topic for topic in (corpus_map or {}).get("topics") or []
              if _named(str(topic.get("label") or ""))]
    ranked = sorted(topics, key=lambda topic: -int(topic.get("size", 0)))
    firsts = {}  # the largest topic of each area, in size order
    for topic in ranked:
        firsts.setdefault(topic.get("area"), topic)
    chosen = list(firsts.values()) + [t for t in ranked if t not in firsts.values()]
    names = list(dict.fromkeys(_in_sentence(str(topic["label"])) for topic in chosen))[:count]
    return [QUESTION_FORMS[n % len(QUESTION_FORMS)].format(name=name)
            for n, name in enumerate(names)]


def _named(label: str) -> bool:
    """False for the stage's stand-in names ("topic 3", "all papers") and empty labels."""
    words = label.split()
    return bool(words) and label != "all papers" and not (
        len(words) == 2 and words[0] in ("topic", "area") and words[1].isdigit())


def _in_sentence(name: str) -> str:
    """A topic's name inside a sentence: its first letter lower-cased unless the first word is
    an acronym or a name's capital (GANs, ImageNet), whitespace collapsed."""
    words = name.split()
    first = words[0]
    if sum(char.isupper() for char in first) == 1 and first[0].isupper():
        words[0] = first[0].lower() + first[1:]
    return " ".join(words)


def corpus_markdown(manifest: Manifest, facets: Mapping[str, Sequence]) -> str:
    """What the corpus is, for the start page: papers, venues, years, model, when it was built
    (venue names and files escaped)."""
    facts = loaded_facts(manifest)
    parts = [f"**{facts['papers']} papers**"]
    venues = list(facets.get("venues") or [])
    if venues:
        shown = ", ".join(escape_markdown(v) for v in venues[:SHOWN_VENUES])
        more = f" and {len(venues) - SHOWN_VENUES} more" if len(venues) > SHOWN_VENUES else ""
        parts.append(f"{len(venues)} venue{'s' * (len(venues) != 1)} ({shown}{more})")
    years = list(facets.get("years") or [])
    if years:
        parts.append(f"{years[0]}–{years[-1]}" if years[-1] != years[0] else str(years[0]))
    parts.append(f"embedded with {escape_markdown(facts['model'])}")
    if facts["built"]:
        parts.append(f"built {escape_markdown(facts['built'])}")
    return "This corpus: " + " · ".join(parts) + "."


def query_note(query: str) -> str | None:
    """A note when a question has nothing a reader would call words."""
    if query.strip() and not any(char.isalnum() for char in query):
        return "Your question has no letters or digits, so the ranking below is close to arbitrary."
    return None


def score_text(hit: Hit) -> str:
    """The card's badge: wording.score_line of the hit ('score 0.612 · strong match')."""
    return wording.score_line(hit.score, hit.strength, hit.percentile, hit.compared_with)


def score_help(hit: Hit) -> str:
    """The badge's hover text (wording.score_help)."""
    return wording.score_help(hit.score, hit.cosine, hit.strength, hit.percentile,
                              hit.compared_with, hit.relevance)


def meta_parts(paper: Paper) -> list[str]:
    """Authors, venue, year, status and source files, as far as they are known; a status with a
    badge (status_badge: the title's) is not repeated here, so a row names it once."""
    parts = []
    if paper.authors:
        shown = ", ".join(paper.authors[:3])
        parts.append(shown + (" et al." if len(paper.authors) > 3 else ""))
    if paper.venue:
        parts.append(paper.venue)
    if paper.year:
        parts.append(str(paper.year))
    if paper.status and not status_badge(paper.status):
        parts.append(paper.status)
    files = sorted({source.rsplit(":", 1)[0].rsplit("/", 1)[-1] for source in paper.sources})
    if files:
        parts.append("from " + ", ".join(files[:3]) + (" …" if len(files) > 3 else ""))
    return parts


# -- what the app reads of the manifest ---------------------------------------------------------
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


def index_caption(facts: Mapping[str, str]) -> str:
    """Markdown of `loaded_facts` for the sidebar."""
    return (f"**{facts['papers']} papers** · {escape_markdown(facts['model'])} "
            f"({facts['dimension']}-d) · {facts['index']} index  \nbuilt {facts['built']} "
            f"from {escape_markdown(facts['inputs'])}")


def public_hint(folder: str | Path, manifest: Manifest, root: str) -> str:
    """The rebuild command for this index, with inputs and folder named as `public_path`."""
    return manifest.rebuild_hint(folder, show=lambda path: public_path(path, root))


def build_key(manifest: Manifest) -> str:
    """What tells one build of an index from the next: its build id, else the manifest's hash."""
    build_id = manifest.build_id
    if isinstance(build_id, str) and build_id:
        return build_id
    text = json.dumps(manifest.to_dict(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def model_key(manifest: Manifest) -> str:
    """What tells the vectors of one model from another's: its fingerprint."""
    return str(manifest.model.fingerprint)


def action_failed(exc: Exception) -> str:
    """What the page says when a button's action failed on the server (no path, no traceback)."""
    if isinstance(exc, OSError):
        return NOT_WRITTEN.format(reason=exc.strerror or type(exc).__name__)
    return ACTION_FAILED
