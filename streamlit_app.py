"""Paper Explorer in the browser: ask, read, walk from paper to paper, see the corpus map.

Run: `EXPLORER_INDEX=embeddings streamlit run streamlit_app.py`. The app only reads an index
built by `explorer build`; all search logic lives in the `explorer` package.
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from pathlib import Path

import streamlit as st

from explorer.artifacts.store import read_manifest
from explorer.errors import ExplorerError
from explorer.query.engine import Explorer, Filters, Hit
from explorer.query.explain import explain_match, explain_pair
from explorer.ui import page as view
from explorer.ui.export import to_bibtex, to_csv
from explorer.ui.links import ViewState, decode, encode, link
from explorer.ui.map_figure import MAX_POINTS, map_figure
from explorer.ui.text import escape_markdown, plain, rich_markdown

TOP_K_CHOICES = [5, 10, 20, 50, 100]
LOG = logging.getLogger("paper_explorer.app")


@st.cache_resource(show_spinner="Loading the model and the index…", max_entries=1)
def load_explorer(folder: str, build_key: str) -> Explorer:
    """The Explorer of the current build only: a rebuild swaps it (and frees the old files)."""
    explorer = Explorer.open(folder)
    explorer.embed_query("warm-up")  # load the model now, not on the first question
    return explorer


@st.cache_data(max_entries=256, show_spinner=False)
def _cached_vector(_explorer: Explorer, model_fingerprint: str, text: str):
    return _explorer.embed_query(text)


def vector_of(explorer: Explorer, text: str):
    """The (d,) vector of a question, embedded once per server and model."""
    return _cached_vector(explorer, str(explorer.manifest.model.fingerprint), text)


@st.cache_data(max_entries=4096, show_spinner=False)
def _match(_explorer: Explorer, build_id: str, paper_id: str, text: str, top: int):
    match = explain_match(_explorer, vector_of(_explorer, text), paper_id, top=top, query=text)
    return [(s.start, s.end) for s in match.sentences], list(match.shared_terms)


@st.cache_data(max_entries=4096, show_spinner=False)
def _pair(_explorer: Explorer, build_id: str, paper_id: str, other_id: str):
    pair = explain_pair(_explorer, paper_id, other_id, top=1)
    return [(theirs.start, theirs.end) for _, theirs, _ in pair.pairs], list(pair.shared_terms)


@st.cache_data(max_entries=512, show_spinner=False)
def _ranked(_explorer: Explorer, build_id: str, verb: str, subject: tuple, top_k: int,
            narrowing: tuple) -> list[Hit]:
    filters = Filters(frozenset(narrowing[0]), frozenset(narrowing[1]), *narrowing[2:])
    if verb == "search":
        vector = vector_of(_explorer, subject[0])
        return _explorer.search_vector(vector, top_k, filters, text=subject[0])
    if verb == "similar":
        return _explorer.similar(subject[0], top_k, filters)
    return _explorer.recommend(*subject, top_k=top_k, filters=filters)


def ranked(explorer: Explorer, verb: str, *subject, top_k: int = 0, narrow: bool = True) -> list[Hit]:
    """Hits of search(question) / similar(paper_id) / recommend(like, unlike, steer) under the
    view's filters; cached per index build, so clicks that rerun the page cost no search."""
    narrowing = view.narrowing(explorer, current()) if narrow else ((), (), None, None)
    return _ranked(explorer, str(explorer.manifest.build_id), verb, subject,
                   top_k or current().top_k, narrowing)


def highlights(explorer: Explorer, paper_id: str, text: str = "", other_id: str = "", top: int = 2):
    """(spans, shared terms) of a paper for a text or for another paper; cached per index build
    (an index without sentence vectors embeds a paper's sentences the first time)."""
    build_id = str(explorer.manifest.build_id)
    if other_id:
        return _pair(explorer, build_id, other_id, paper_id)
    return _match(explorer, build_id, paper_id, text, top)


# -- state: one ViewState per session, mirrored in the URL -------------------------------
def init_state(explorer: Explorer) -> None:
    """Once per session: the view named by the URL (ids the index lacks are reported and dropped)."""
    if "view" in st.session_state:
        return
    facets = view.public_facets(explorer)
    state = decode({key: st.query_params.get_all(key) for key in st.query_params})
    state, unknown = view.known_only(explorer, view.fit_to_corpus(state, facets))
    if unknown:
        st.session_state.notice = view.unknown_notice(unknown)
    st.session_state.update(view=state, trail=view.push((), view.step_of(state)),
                            **view.widget_values(facets, state, TOP_K_CHOICES))


def navigate(state: ViewState) -> None:
    """Callback helper: show `state`, add it to the trail, sync the search boxes."""
    st.session_state.view = state
    st.session_state.trail = view.push(st.session_state.trail, view.step_of(state))
    st.session_state.query_box, st.session_state.steer_box = state.query, state.steer
    st.session_state.map_version = st.session_state.get("map_version", 0) + 1


def current() -> ViewState:
    return st.session_state.view


def on_query() -> None:
    navigate(replace(current(), page="ask", query=st.session_state.query_box.strip()))


def on_map_click(key: str) -> None:
    points = st.session_state[key].selection.points
    if points:
        paper_id = points[0].get("customdata")
        paper_id = paper_id[0] if isinstance(paper_id, list) else paper_id
        navigate(replace(current(), page="paper", paper_id=str(paper_id)))


# -- building blocks ------------------------------------------------------------------------
def title_md(hit_or_paper) -> str:
    paper = getattr(hit_or_paper, "paper", hit_or_paper)
    badge = " :gray-badge[derived title]" if paper.title_is_derived else ""
    return f"**{rich_markdown(paper.title)}**{badge}"  # titles may carry LaTeX too


def mark_buttons_ui(paper_id: str, key: str) -> None:
    """Toggles: 'more like this' / 'less like this' (a second click unmarks)."""
    state = current()
    for liked, label, icon in ((True, "More like this", "thumb_up"),
                               (False, "Less like this", "thumb_down")):
        marked = paper_id in (state.like if liked else state.unlike)
        st.button(label + (" ✓" if marked else ""), key=f"{key}-{'like' if liked else 'unlike'}",
                  icon=f":material/{icon}:", type="primary" if marked else "secondary",
                  on_click=navigate, args=(state.mark(paper_id, None if marked else liked),))


def hit_ui(hit: Hit, key: str, spans=(), note: str = "") -> None:
    """One result card: title, score, facts, best sentences, expandable abstract, actions."""
    paper = hit.paper
    with st.container(border=True, key=f"card-{key}"):
        head, score = st.columns([5, 1.4], vertical_alignment="top")
        head.markdown(f"{hit.rank}\\. {title_md(paper)}")
        score.markdown(f":blue-badge[{view.score_text(hit)}]", help=
                       "Cosine similarity; 'top x%' = share of random paper pairs in this corpus "
                       "that are at least this similar; 'weak' = most of them are.")
        facts = [escape_markdown(part) for part in view.meta_parts(paper)] + ([note] if note else [])
        if facts:
            st.caption(" · ".join(facts))
        for start, end in list(spans)[:1]:
            st.markdown(rich_markdown(paper.abstract[start:end], [(0, end - start)]))
        with st.expander("Abstract"):
            st.markdown(rich_markdown(paper.abstract, spans))
        with st.container(horizontal=True):
            st.button("Similar papers", key=f"{key}-similar", icon=":material/explore:",
                      on_click=navigate, args=(replace(current(), page="paper", paper_id=hit.paper_id),))
            mark_buttons_ui(hit.paper_id, key)


def terms_note(terms: list[str]) -> str:
    return f"shared terms: *{escape_markdown(', '.join(terms[:5]))}*" if terms else ""


def downloads_ui(explorer: Explorer, items, name: str, key: str) -> None:
    if not items:
        return
    items = view.public_items(items, view.public_facets(explorer)["root"])
    with st.container(horizontal=True):
        st.download_button("CSV", to_csv(items), f"{name}.csv", "text/csv", key=f"{key}-csv",
                           icon=":material/download:", on_click="ignore")
        st.download_button("BibTeX", to_bibtex(items), f"{name}.bib", "application/x-bibtex",
                           key=f"{key}-bib", icon=":material/download:", on_click="ignore")


# -- pages ----------------------------------------------------------------------------------------
def ask_ui(explorer: Explorer) -> None:
    state = current()
    if not state.query:
        st.markdown("Ask in plain words, e.g. *which models can track group operations?* "
                    "Or start from a topic of this corpus:")
        with st.container(horizontal=True):
            for number, example in enumerate(view.example_questions(explorer)):
                st.button(escape_markdown(example), key=f"example-{number}", on_click=navigate,
                          args=(replace(state, page="ask", query=example),))
        return
    for note in (view.query_note(state.query), explorer.query_note(state.query)):
        if note:
            st.info(note, icon=":material/info:")
    hits = ranked(explorer, "search", state.query)
    if not hits:
        st.warning("No paper matches the filters. Widen them in the sidebar.")
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(f"{len(hits)} papers closest to your question; highlighted: its best-matching "
                   "sentences.")
        downloads_ui(explorer, hits, "paper-explorer-results", "results")
    explained = view.explained_count(explorer, len(hits))
    if explained < len(hits):
        command = view.rebuild_hint(explorer)
        st.caption(view.ON_DEMAND_NOTE.format(count=explained, command=command))
    for number, hit in enumerate(hits):
        lit = number < explained
        spans, terms = highlights(explorer, hit.paper_id, state.query) if lit else ([], [])
        hit_ui(hit, f"q-{hit.paper_id}", spans, terms_note(terms))


def paper_ui(explorer: Explorer) -> None:
    state = current()
    paper = explorer.paper(state.paper_id)
    st.markdown(f"### {rich_markdown(paper.title)}")
    if paper.title_is_derived:
        st.caption(":gray-badge[derived title] written from the abstract; the paper has none.")
    facts = view.meta_parts(paper) + [f"id {paper.paper_id}"]
    st.caption(" · ".join(escape_markdown(part) for part in facts))
    spans = []
    if state.query:
        spans, _ = highlights(explorer, paper.paper_id, state.query)
        st.caption(f"Highlighted: the sentences closest to “{escape_markdown(plain(state.query, 80))}”.")
    st.markdown(rich_markdown(paper.abstract, spans))
    with st.container(horizontal=True):
        mark_buttons_ui(paper.paper_id, "open")
        st.button("Show on the map", icon=":material/map:", key="open-map", on_click=navigate,
                  args=(replace(state, page="map"),))
        if view.safe_url(paper.url):
            st.link_button("Open source page", paper.url, icon=":material/open_in_new:")
    hits = ranked(explorer, "similar", paper.paper_id)
    st.markdown("#### Similar papers")
    downloads_ui(explorer, hits, f"similar-to-{paper.paper_id}", "similar")
    explained = view.explained_count(explorer, len(hits))
    for number, hit in enumerate(hits):
        spans, terms = (highlights(explorer, hit.paper_id, other_id=paper.paper_id)
                        if number < explained else ([], []))
        hit_ui(hit, f"n-{hit.paper_id}", spans, terms_note(terms))


def marked_ui(explorer: Explorer) -> None:
    state = current()
    st.markdown("### Marked papers")
    if not state.like and not state.unlike:
        st.info("Mark papers with :material/thumb_up: *More like this* or :material/thumb_down: "
                "*Less like this*; recommendations from the whole set appear here.")
    for label, ids in ((":material/thumb_up: More like these", state.like),
                      (":material/thumb_down: Less like these", state.unlike)):
        if ids:
            st.markdown(f"**{label}**")
        for paper_id in ids:
            title, opener, dropper = st.columns([6, 1.1, 1.3], vertical_alignment="center")
            title.markdown(title_md(explorer.paper(paper_id)))
            opener.button("Open", key=f"m-{paper_id}-open", type="tertiary", icon=":material/article:",
                          on_click=navigate, args=(replace(state, page="paper", paper_id=paper_id),))
            dropper.button("Remove", key=f"m-{paper_id}-drop", icon=":material/close:", type="tertiary",
                           on_click=navigate, args=(state.mark(paper_id, None),))
    downloads_ui(explorer, [explorer.paper(pid) for pid in state.like], "liked-papers", "marked")
    st.text_input("Steer the recommendations with words (optional)", key="steer_box",
                  on_change=lambda: navigate(replace(current(), steer=st.session_state.steer_box)))
    if state.like or state.steer.strip():
        recommendations_ui(explorer)


def recommendations_ui(explorer: Explorer) -> None:
    """Papers like the liked ones, unlike the unliked ones, steered by the optional words."""
    state = current()
    hits = ranked(explorer, "recommend", state.like, state.unlike, state.steer)
    st.markdown("#### Recommended from the marked set")
    downloads_ui(explorer, hits, "recommendations", "recs")
    explained = view.explained_count(explorer, len(hits)) if state.steer.strip() else 0
    for number, hit in enumerate(hits):  # highlight the sentence closest to the steering words
        spans = highlights(explorer, hit.paper_id, state.steer, top=1)[0] if number < explained else []
        hit_ui(hit, f"r-{hit.paper_id}", spans)


def map_ui(explorer: Explorer) -> None:
    state = current()
    neighbours = []
    if state.paper_id:
        nearest = ranked(explorer, "similar", state.paper_id, top_k=10, narrow=False)
        neighbours = [hit.paper_id for hit in nearest]
    figure = map_figure(explorer, state.paper_id, neighbours)
    if figure is None:
        st.warning(f"This index has no stored map. Rebuild it: `{view.rebuild_hint(explorer)}`")
        return
    st.caption("Each dot is a paper, placed by meaning and coloured by topic. Hover for the title, "
               "click to open it." + (" ★ the open paper, ◯ its neighbours." if state.paper_id else "")
               + (f" Drawn: an even sample of {MAX_POINTS:,} of {len(explorer.papers):,} papers."
                  if len(explorer.papers) > MAX_POINTS else ""))
    key = f"map-{st.session_state.get('map_version', 0)}"
    st.plotly_chart(figure, key=key, on_select=lambda: on_map_click(key), selection_mode="points",
                    config={"displaylogo": False, "scrollZoom": True})


# -- frame: sidebar, trail, main ------------------------------------------------------------------
def sidebar_ui(explorer: Explorer) -> None:
    state = current()
    with st.sidebar:
        st.markdown("## :material/library_books: Paper Explorer")
        marked = len(state.like) + len(state.unlike)
        for page, label, icon in (("ask", "Ask", ":material/search:"),
                                  ("marked", f"Marked ({marked})", ":material/bookmarks:"),
                                  ("map", "Corpus map", ":material/scatter_plot:")):
            st.button(label, key=f"nav-{page}", icon=icon, width="stretch",
                      type="primary" if state.page == page else "secondary",
                      on_click=navigate, args=(replace(state, page=page),))
        filters_ui(explorer)
        with st.popover("Share this view", icon=":material/link:", width="stretch"):
            st.code(link(st.context.url or "", current()), language=None, wrap_lines=True)
            st.caption("Opens this page as you see it: question, paper, marked set and filters.")
        facts = view.loaded_facts(explorer.manifest)
        st.caption(f"**{facts['papers']} papers** · {escape_markdown(facts['model'])} "
                   f"({facts['dimension']}-d) · {facts['index']} index  \nbuilt {facts['built']} "
                   f"from {escape_markdown(facts['inputs'])}")


def filters_ui(explorer: Explorer) -> None:
    facets, state = view.public_facets(explorer), current()
    with st.expander("Filters", expanded=state.filters().active()):
        venues = st.multiselect("Venue", facets["venues"], key="venues") if facets["venues"] else []
        sources = (st.multiselect("Source file", facets["sources"], key="sources")
                   if facets["sources"] else [])
        years = (None, None)
        if facets["years"]:
            low, high = facets["years"][0], facets["years"][-1]
            picked = st.slider("Years", low, max(high, low + 1), key="years")
            years = (picked[0] if picked[0] > low else None, picked[1] if picked[1] < high else None)
        top_k = st.select_slider("Results", TOP_K_CHOICES, key="top_k")
    st.session_state.view = replace(state, venues=tuple(venues), sources=tuple(sources),
                                    year_min=years[0], year_max=years[1], top_k=top_k)


def trail_ui(explorer: Explorer) -> None:
    trail, here = st.session_state.trail, view.step_of(current())
    if len(trail) < 2:
        return
    with st.container(horizontal=True, gap="small"):
        st.caption("Trail:")
        for number, step in enumerate(trail):
            st.button(escape_markdown(view.step_label(explorer, step)), key=f"trail-{number}",
                      icon=":material/search:" if step[0] == "q" else ":material/article:",
                      type="primary" if step == here else "secondary",
                      on_click=navigate, args=(view.go_to(current(), step),))


def error_ui(exc: ExplorerError, folder: str) -> None:
    message, commands = view.error_text(exc, folder)
    st.error(message)
    for command in commands:
        st.code(command, language="bash")


def main() -> None:
    st.set_page_config(page_title="Paper Explorer", page_icon="📚", layout="centered")
    folder = os.environ.get("EXPLORER_INDEX") or "embeddings"
    try:
        page_ui(folder)
    except ExplorerError as exc:  # e.g. no index, or a paper that a rebuilt index no longer has
        error_ui(exc, folder)
    except Exception:  # anything else: a plain message here, the traceback in the server log
        LOG.exception("page failed for index %s", folder)
        st.error(view.FAILED)


def page_ui(folder: str) -> None:
    explorer = load_explorer(folder, view.build_key(read_manifest(Path(folder))))
    init_state(explorer)
    sidebar_ui(explorer)
    if st.session_state.get("notice"):
        st.warning(st.session_state.pop("notice"))
    st.text_input("Ask a question", key="query_box", on_change=on_query, icon=":material/search:",
                  placeholder="Ask a question, e.g. how do transformers keep track of state?",
                  label_visibility="collapsed")
    trail_ui(explorer)
    st.query_params.from_dict(encode(current()))
    {"paper": paper_ui, "marked": marked_ui, "map": map_ui, "ask": ask_ui}[current().page](explorer)


main()
