"""Paper Explorer in the browser: ask, read, walk from paper to paper, see the corpus map.

Run: `EXPLORER_INDEX=embeddings streamlit run streamlit_app.py`. The app only reads an index
built by `explorer build`; all search logic lives in the `explorer` package, and what the pages
say in `explorer.ui`. Session state holds the Location (mirrored in the URL): it changes in `go`,
the callback of every widget that navigates, and in `app_ui`, from the filters the sidebar returns.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import streamlit as st

from explorer.artifacts.store import read_manifest
from explorer.errors import ExplorerError
from explorer.features.collections import ui as saved
from explorer.features.collections.records import MAX_NAME_CHARS
from explorer.features.collections.visitors import PRIVATE, Shelf, sharing, valid_key
from explorer.features.drafts import ui as drafts
from explorer.features.explanations import ui as explanations
from explorer.features.explanations.ui import Lights, lit
from explorer.features.relatives import ui as twins
from explorer.features.topics import ui as topics
from explorer.features.topics.ui import corpus_figure
from explorer.features.topics.ui_map import caption, clicked_paper_id
from explorer.features.years import ui as years
from explorer.query.engine import MAX_QUESTION_CHARS, Explorer, Hit
from explorer.settings import DEFAULT_INDEX_DIR, Settings
from explorer.ui import page, public
from explorer.ui.export import to_bibtex, to_csv
from explorer.ui.links import Location, encode, link
from explorer.ui.results import ranked
from explorer.ui.text import escape_markdown, rich_markdown
from explorer.ui.trail import Step, go_to, push, step_label, step_of

TOP_K_CHOICES = [5, 10, 20, 50, 100]
LOG = logging.getLogger("paper_explorer.app")


# -- loading --------------------------------------------------------------------------------------
@st.cache_resource(show_spinner="Loading the model and the index… (the first start on a "
                   "computer also prepares the model, once: up to half a minute)", max_entries=1)
def load_explorer(folder: str, build_key: str, model: str | None = None) -> Explorer:
    """The Explorer of the current build only: a rebuild swaps it (and frees the old files).
    `model` (EXPLORER_MODEL) embeds the questions; it must be the index's own model."""
    return Explorer.open(folder, model=model, warm=True)  # the model loads with the index


# -- callbacks: each one `reported` ------------------------------------------------------------------
def reported(callback: Callable[..., None]) -> Callable[..., None]:
    """`callback` as a widget's callback: a failure shows a plain message at the top of the page
    (the traceback goes to the server log), never Streamlit's error page (callbacks run before
    the script, outside main()'s handler). Every callback of the app is one (test_callbacks.py)."""
    @functools.wraps(callback)
    def run(*args, **kwargs) -> None:
        try:
            callback(*args, **kwargs)
        except ExplorerError as exc:
            st.session_state.action_error = escape_markdown(public.public_message(str(exc)))
        except Exception as exc:  # a plain message here, the traceback in the server log
            LOG.exception("callback %s failed", getattr(callback, "__name__", "?"))
            st.session_state.action_error = page.action_failed(exc)
    return run


# -- the location: one per session, mirrored in the URL ---------------------------------------------
def session_location(explorer: Explorer, facets: dict) -> tuple[Location, str | None]:
    """The session's location; on its first run the one the URL names (the widgets set to it),
    with a notice naming the link's paper ids that the index lacks."""
    if "location" in st.session_state:
        return st.session_state.location, None
    params = {key: st.query_params.get_all(key) for key in st.query_params}
    location, unknown = page.opened(params, facets, explorer)
    st.session_state.update(location=location, trail=push((), step_of(location)),
                            **page.widget_values(facets, location, TOP_K_CHOICES))
    return location, public.unknown_notice(unknown) if unknown else None


@reported
def go(location: Location) -> None:
    """Show `location` (a widget's callback): add it to the trail, sync the search boxes."""
    st.session_state.location = location
    st.session_state.trail = push(st.session_state.trail, step_of(location))
    st.session_state.query_box, st.session_state.steer_box = location.query, location.steer
    st.session_state.map_version = st.session_state.get("map_version", 0) + 1


def button(label: str, target: Location, **options) -> None:
    """A button that goes to `target`."""
    st.button(label, on_click=go, args=(target,), **options)


@reported
def on_query() -> None:
    go(replace(st.session_state.location, page="ask", query=st.session_state.query_box.strip()))


@reported
def on_map_click(key: str) -> None:
    paper_id = clicked_paper_id(st.session_state[key].selection.points)
    if paper_id is not None:
        go(replace(st.session_state.location, page="paper", paper_id=paper_id))


@reported
def on_year(facets: dict, value: tuple[int, int] | None) -> None:
    """Show the years of the slider's `value` (a click on the years chart, "All years")."""
    if value is not None:
        st.session_state.years = value
        go(years.located(st.session_state.location, facets, value))


@reported
def on_year_click(key: str, view: years.YearView, facets: dict) -> None:
    on_year(facets, years.picked(st.session_state[key].selection.points, view, facets))


# -- building blocks --------------------------------------------------------------------------------
def years_ui(slot, explorer: Explorer, location: Location, verb: str, *subject) -> None:
    """The years chart of a ranking, in `slot` (st.empty(); left empty when its papers have no
    years); a click on a bar shows that year only, through the sidebar's year slider.

    The slot sits above the cards, and the chart is drawn after them: the browser's first
    Plotly chart (loading its script) held the cards back by about a second on two cores."""
    view = years.year_view(explorer, location, verb, *subject)
    if view is None:
        return
    facets, key = public.public_facets(explorer), f"years-{st.session_state.get('map_version', 0)}"
    with slot.container(key="years-chart"):
        st.plotly_chart(years.chart(view.years, view.year_min, view.year_max), key=key,
                        selection_mode="points", config=years.CONFIG,
                        on_select=reported(lambda: on_year_click(key, view, facets)))
        with st.container(horizontal=True, vertical_alignment="center"):
            st.caption(years.caption(view))
            if view.filtered:
                st.button("All years", key="years-all", icon=":material/close:", type="tertiary",
                          on_click=on_year, args=(facets, years.slider_value(facets, None)))


def mark_buttons_ui(location: Location, paper_id: str, key: str) -> None:
    """Toggles: 'more like this' / 'less like this' (a second click unmarks)."""
    for liked, label, icon in ((True, "More like this", "thumb_up"),
                               (False, "Less like this", "thumb_down")):
        marked = paper_id in (location.like if liked else location.unlike)
        button(label + (" ✓" if marked else ""), location.mark(paper_id, None if marked else liked),
               key=f"{key}-{'like' if liked else 'unlike'}", icon=f":material/{icon}:",
               type="primary" if marked else "secondary")


def hit_ui(location: Location, hit: Hit, key: str, spans=(), note: str = "") -> None:
    """One result card: title, score, facts, best sentence, expandable abstract, actions."""
    with st.container(border=True, key=f"card-{key}"):
        head, score = st.columns([4, 1.6], vertical_alignment="top")  # room for "strong match"
        head.markdown(f"{hit.rank}\\. {page.title_markdown(hit.paper)}")
        score.markdown(f":blue-badge[{page.score_text(hit)}]", help=page.score_help(hit))
        facts = page.facts_markdown(hit.paper, [note])
        snippet = explanations.snippet_markdown(hit.paper, spans)
        if facts:
            st.caption(facts)
        if snippet:
            st.markdown(snippet)
        with st.expander("Abstract"):
            st.markdown(rich_markdown(hit.paper.abstract, spans))
        with st.container(horizontal=True):
            button("Similar papers", replace(location, page="paper", paper_id=hit.paper_id),
                   key=f"{key}-similar", icon=":material/explore:")
            mark_buttons_ui(location, hit.paper_id, key)


def hits_ui(location: Location, hits: Sequence[Hit], lights: Iterator[Lights], prefix: str,
            terms: bool = True) -> None:
    lifted = explanations.lifted(hits)
    for hit, (spans, shared) in zip(hits, lights):
        note = explanations.terms_note(shared, hit.paper_id in lifted) if terms else ""
        hit_ui(location, hit, f"{prefix}-{hit.paper_id}", spans, note)


def downloads_ui(items: Sequence, root: str, name: str, key: str) -> None:
    if not items:
        return
    items = public.public_items(items, root)
    with st.container(horizontal=True):
        for label, text, suffix, mime in (("CSV", to_csv, "csv", "text/csv"),
                                          ("BibTeX", to_bibtex, "bib", "application/x-bibtex")):
            st.download_button(label, text(items), f"{name}.{suffix}", mime, key=f"{key}-{suffix}",
                               icon=":material/download:", on_click="ignore")


# -- pages ------------------------------------------------------------------------------------------
# Each page gets the explorer, the location, the corpus root (public_path) and the rebuild hint.
def ask_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    if not location.query:  # the start page
        st.markdown(page.START)
        with st.container(horizontal=True):
            for number, example in enumerate(page.example_questions(explorer.corpus_map)):
                button(escape_markdown(example), replace(location, page="ask", query=example),
                       key=f"example-{number}")
        return
    for note in (page.query_note(location.query), explorer.query_note(location.query)):
        if note:  # the question's own words are quoted: escaped
            st.info(escape_markdown(note), icon=":material/info:")
    chart = st.empty()  # the years chart, drawn after the cards (years_ui)
    hits = ranked(explorer, location, "search", location.query)
    if not hits:  # the chart still shows the years with matches when a year filter has none
        years_ui(chart, explorer, location, "search", location.query)
        st.warning(page.NO_MATCH)
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(page.ASKED.format(count=len(hits)))
        downloads_ui(hits, root, "paper-explorer-results", "results")
    explained = explanations.explained_count(len(hits), explorer.has_sentence_vectors)
    if explained < len(hits):
        st.caption(explanations.ON_DEMAND_NOTE.format(count=explained, command=hint))
    hits_ui(location, hits, lit(explorer, hits, location.query), "q")
    years_ui(chart, explorer, location, "search", location.query)


def paper_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    paper = explorer.paper(location.paper_id)
    st.markdown(f"### {rich_markdown(paper.title)}")
    if paper.title_is_derived:
        st.caption(page.DERIVED)
    st.caption(page.facts_markdown(paper, [escape_markdown(f"id {paper.paper_id}")]))
    spans = []
    if location.query:
        spans, _ = next(lit(explorer, [paper], location.query))
        st.caption(explanations.highlighted_note(location.query))
    st.markdown(rich_markdown(paper.abstract, spans))
    with st.container(horizontal=True):
        mark_buttons_ui(location, paper.paper_id, "open")
        button("Show on the map", replace(location, page="map"), icon=":material/map:", key="open-map")
        for topic in topics.paper_topics(explorer, paper.paper_id):
            button(topics.name_markdown(topic, 40), replace(location, page="topic",
                                                            topic=topic.topic_id),
                   icon=":material/category:", key=f"open-topic-{topic.topic_id}")
        if public.safe_url(paper.url):
            st.link_button("Open source page", paper.url, icon=":material/open_in_new:")
    relatives_ui(location, twins.paper_relatives(explorer, paper.paper_id, location.top_k), "rel")
    hits = ranked(explorer, location, "similar", paper.paper_id)
    st.markdown("#### Similar papers")
    chart = st.empty()
    downloads_ui(hits, root, f"similar-to-{paper.paper_id}", "similar")
    hits_ui(location, hits, lit(explorer, hits, other_id=paper.paper_id), "n")
    years_ui(chart, explorer, location, "similar", paper.paper_id)


def relatives_ui(location: Location, shown: Sequence[twins.Shown], key: str) -> None:
    """A paper's close relatives: each with its cosine, facts and the sentences tying them."""
    st.markdown(twins.PART)
    st.caption(twins.PART_NOTE.format(threshold=twins.DEFAULT_THRESHOLD))
    if not shown:
        st.caption(twins.NONE.format(threshold=twins.DEFAULT_THRESHOLD))
    for number, pair in enumerate(shown):
        pair_ui(location, pair, f"{key}-{number}", papers=(pair.other,))


def pair_ui(location: Location, pair: twins.Shown, key: str, papers: Sequence) -> None:
    with st.container(border=True, key=f"twin-{key}"):
        st.markdown(twins.score_markdown(pair))
        for number, paper in enumerate(papers):
            text, opener = st.columns([6, 1.2], vertical_alignment="center")
            text.markdown(twins.paper_markdown(paper))
            with opener:
                button("Open", replace(location, page="paper", paper_id=paper.paper_id),
                       key=f"{key}-open-{number}", type="tertiary", icon=":material/article:")
        st.markdown(twins.sentences_markdown(pair))


def twins_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    st.markdown(twins.TITLE)
    try:
        shown, intro = twins.corpus_pairs(explorer, location.top_k), twins.intro_markdown(explorer)
    except ExplorerError:  # an index built before relatives were stored
        st.warning(twins.missing_markdown(hint))
        return
    st.caption(intro)
    if empty := twins.empty_markdown(explorer):
        st.info(empty)
    for number, pair in enumerate(shown):
        pair_ui(location, pair, f"all-{number}", papers=(pair.paper, pair.other))


def marked_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    st.markdown("### Marked papers")
    collections_ui(explorer, location)
    if not location.like and not location.unlike:
        st.info(page.MARK_HINT)
    for label, ids in ((":material/thumb_up: More like these", location.like),
                       (":material/thumb_down: Less like these", location.unlike)):
        if ids:
            st.markdown(f"**{label}**")
        for paper_id in ids:
            title, opener, dropper = st.columns([6, 1.1, 1.3], vertical_alignment="center")
            title.markdown(page.title_markdown(explorer.paper(paper_id)))
            with opener:
                button("Open", replace(location, page="paper", paper_id=paper_id),
                       key=f"m-{paper_id}-open", type="tertiary", icon=":material/article:")
            with dropper:
                button("Remove", location.mark(paper_id, None), key=f"m-{paper_id}-drop",
                       icon=":material/close:", type="tertiary")
    downloads_ui([explorer.paper(pid) for pid in location.like], root, "liked-papers", "marked")
    st.text_input(page.STEER, key="steer_box", max_chars=MAX_QUESTION_CHARS, on_change=reported(
        lambda: go(replace(st.session_state.location, steer=st.session_state.steer_box))))
    if location.steer.strip() and (note := explorer.query_note(location.steer)):
        st.info(escape_markdown(note), icon=":material/info:")
    if location.like or location.steer.strip():  # like the liked, unlike the unliked, steered
        hits = ranked(explorer, location, "recommend", location.like, location.unlike, location.steer)
        st.markdown("#### Recommended from the marked set")
        chart = st.empty()
        downloads_ui(hits, root, "recommendations", "recs")
        steered = bool(location.steer.strip())  # highlight the sentence closest to the words
        hits_ui(location, hits, lit(explorer, hits, location.steer, top_k=1, explained=steered), "r",
                terms=False)
        years_ui(chart, explorer, location, "recommend", location.like, location.unlike,
                 location.steer)


# -- saved collections (on the marked page; the logic is in explorer.features.collections.ui) ---
VISITOR_KEY_JS = Path(saved.__file__).with_name("visitor_key.js")


def collections_mode() -> str:
    """Whose collections the web changes: collections.visitors.OWNER_MODE, PRIVATE or SHARED."""
    return sharing(st.get_option("server.address"), Settings.from_env().visitors)


def collection_shelf() -> Shelf:
    """The collections this session sees (its browser's own and the owner's on a shared server)."""
    return Shelf.of(Settings.from_env().data_dir, collections_mode(),
                    st.session_state.get("visitor_key"))


def visitor_key_ui() -> None:
    """On a shared server, until this session knows it: the browser's key (kept in its local
    storage by visitor_key.js, sent over the session's connection, never shown or linked)."""
    if "visitor_key" in st.session_state or collections_mode() != PRIVATE:
        return
    mount = st.components.v2.component("paper_explorer_visitor_key",
                                       js=VISITOR_KEY_JS.read_text(encoding="utf-8"))
    mount(key="visitor-key-box", on_browser_key_change=remember_key, height=0)


@reported
def remember_key() -> None:
    key = getattr(st.session_state.get("visitor-key-box"), "browser_key", None)
    st.session_state.visitor_key = key if valid_key(key) else ""  # "": the browser keeps none


@reported
def on_collection(action, *args) -> None:
    """Run a saved-collection action (a callback): show what it leaves, or why it failed."""
    try:
        outcome = action(collection_shelf(), *args)
    except ExplorerError as exc:
        st.session_state.collection_note = ("error", saved.error_markdown(str(exc)))
        return
    st.session_state.collection, st.session_state.collection_note = outcome.opened, (
        "success", outcome.message)
    if outcome.location != st.session_state.location:
        go(outcome.location)


def collections_ui(explorer: Explorer, location: Location) -> None:
    """Save the liked papers as a collection; open, save, rename, share or delete one."""
    visitor_key_ui()
    shelf, opened = collection_shelf(), st.session_state.get("collection")
    kind, note = st.session_state.pop("collection_note", (None, ""))
    if kind:
        (st.error if kind == "error" else st.success)(note)
    with st.container(border=True, key="collections"):
        if shelf.owners is not None:
            st.caption(saved.visitor_note(st.session_state.get("visitor_key")))
        if opened:
            open_collection_ui(shelf, opened, location)
        catalog = shelf.catalog()
        for problem in saved.problems_markdown(catalog):
            st.warning(problem)
        names = catalog.names()
        with st.container(horizontal=True, vertical_alignment="bottom"):
            st.selectbox(saved.OPEN_LABEL, names, key="collection_pick",
                         format_func=lambda name: saved.option_label(name, name in catalog.read_only),
                         placeholder=saved.NO_COLLECTIONS, disabled=not names)
            st.button("Open", key="collection-open", icon=":material/folder_open:", disabled=not names,
                      on_click=reported(lambda: on_collection(
                          saved.open_collection, st.session_state.collection_pick, location, explorer)))
        with st.container(horizontal=True, vertical_alignment="bottom"):
            st.text_input(saved.NAME_LABEL, key="collection_name", placeholder=saved.NAME_HINT,
                          max_chars=MAX_NAME_CHARS)
            st.button("Save", key="collection-save", icon=":material/bookmark_add:",
                      disabled=shelf.waiting, on_click=reported(lambda: on_collection(
                          saved.save_new, st.session_state.collection_name, location)))


def open_collection_ui(shelf: Shelf, opened: saved.Opened, location: Location) -> None:
    try:
        changed = saved.is_changed(opened, shelf, location)
    except ExplorerError as exc:  # deleted or broken elsewhere: it is no longer open here
        st.session_state.collection = None
        st.warning(saved.error_markdown(str(exc)))
        return
    st.caption(saved.open_caption(opened, location))
    if opened.missing:
        st.warning(saved.missing_markdown(opened.missing), icon=":material/help:")
    if opened.read_only:
        st.caption(saved.READ_ONLY_NOTE)
    with st.container(horizontal=True):
        if not opened.read_only:
            st.button("Save changes", key="collection-update", disabled=not changed,
                      icon=":material/save:", on_click=on_collection,
                      args=(saved.save_changes, opened, location))
            with st.popover("Rename", icon=":material/edit:"):
                box = saved.rename_key(opened)  # a fresh box for each open collection
                st.text_input("New name", key=box, value=opened.name, max_chars=MAX_NAME_CHARS)
                st.button("Rename", key="collection-rename", on_click=reported(lambda: on_collection(
                    saved.rename_open, opened, st.session_state[box], location)))
        with st.popover("Share", icon=":material/link:"):
            url, cut = saved.collection_link(st.context.url or "", location.like + opened.missing)
            st.code(url, language=None, wrap_lines=True)
            if cut:
                st.caption(cut)
        if not opened.read_only:
            with st.popover("Delete", icon=":material/delete:"):
                st.button(f"Delete {saved.name_markdown(opened.name, 40)}", key="collection-delete",
                          type="primary", on_click=on_collection,
                          args=(saved.delete_open, opened, location))


# -- check my draft (the logic is in explorer.features.drafts.ui) ------------------------------
@reported
def on_check(explorer: Explorer) -> None:
    """Check the draft (the button's callback): keep the answer, or why there is none."""
    state = st.session_state
    given = drafts.Given(state.get("draft_text", ""), state.get("draft_file"), state.get("draft_bib"),
                         state.get("draft_cited"), state.get("draft_collection"))
    state.draft_checked, state.draft_error = drafts.check(explorer, given, collection_shelf(),
                                                          state.location.top_k)


def draft_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    st.markdown("### Check my draft")
    st.caption(drafts.INTRO)
    st.text_area(drafts.TEXT_LABEL, key="draft_text", height=200, placeholder=drafts.TEXT_HINT,
                 max_chars=drafts.MAX_DRAFT_BYTES)  # a character is at least a byte
    st.file_uploader(drafts.FILE_LABEL, type=drafts.DRAFT_SUFFIXES, key="draft_file",
                     max_upload_size=drafts.DRAFT_UPLOAD_MIB)
    source = st.radio(drafts.CITED_LABEL, drafts.CITED_SOURCES, key="draft_cited", horizontal=True)
    if source == drafts.UPLOAD:
        st.file_uploader(drafts.REFERENCES_LABEL, type=drafts.REFERENCE_SUFFIXES, key="draft_bib",
                         max_upload_size=drafts.REFERENCE_UPLOAD_MIB)
    elif source == drafts.SAVED:
        visitor_key_ui()
        catalog = collection_shelf().catalog()
        st.selectbox(saved.OPEN_LABEL, catalog.names(), key="draft_collection",
                     format_func=lambda name: saved.option_label(name, name in catalog.read_only),
                     placeholder=saved.NO_COLLECTIONS, disabled=not catalog.entries)
    st.button("Check my draft", key="draft-check", type="primary", icon=":material/fact_check:",
              on_click=on_check, args=(explorer,))
    if st.session_state.get("draft_error"):
        st.error(st.session_state.draft_error)
    if st.session_state.get("draft_checked"):
        missed_ui(explorer, location, st.session_state.draft_checked, root)


def missed_ui(explorer: Explorer, location: Location, checked: drafts.Checked, root: str) -> None:
    result = checked.result
    if checked.cited_note:
        st.caption(checked.cited_note)
    for note in result.notes:
        st.info(escape_markdown(note), icon=":material/info:")
    if not result.papers:
        st.warning(drafts.NO_RESULTS)
        return
    st.caption(drafts.summary_markdown(result, len(explorer.papers)))
    for passage, papers in result.groups():
        st.markdown(drafts.passage_markdown(passage.number, passage.text))
        for paper in papers:
            hit_ui(location, paper.hit, f"d-{paper.paper_id}", drafts.paper_spans(paper),
                   drafts.card_note(paper, passage))
    marked = drafts.marked_papers(result, location.like)
    st.download_button(drafts.EXPORT_LABEL.format(count=len(marked)),
                       to_bibtex(public.public_items(marked, root)), "papers-to-add.bib",
                       "application/x-bibtex", key="draft-export", disabled=not marked,
                       icon=":material/download:", on_click="ignore")


def map_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    figure = corpus_figure(explorer, location)
    if figure is None:
        st.warning(f"This index has no stored map. Rebuild it: `{hint}`")
        return
    table, zoom = explorer.topic_table, topics.known_topic(explorer.topic_table, location.topic)
    box = f"zoom-{zoom}"  # a fresh box for each zoom: it shows the location's
    st.selectbox(topics.MAP_ZOOM, topics.zoom_choices(table), key=box,
                 index=topics.zoom_choices(table).index(zoom),
                 format_func=lambda topic_id: topics.option_label(table, topic_id),
                 on_change=reported(lambda: go(replace(st.session_state.location, page="map",
                                                       topic=st.session_state[box]))))
    st.caption(caption(bool(location.paper_id), len(explorer.papers)))
    key = f"map-{st.session_state.get('map_version', 0)}"
    st.plotly_chart(figure, key=key, on_select=reported(lambda: on_map_click(key)),
                    selection_mode="points", config={"displaylogo": False, "scrollZoom": True})


def topic_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    """One topic (?topic=ID): its papers, key phrases, neighbours; without one, all of them."""
    table = explorer.topic_table
    if not table.topics():
        st.warning(topics.NO_TOPICS.format(command=hint))
        return
    topic_id = topics.known_topic(table, location.topic)
    if topic_id is None:
        topics_list_ui(location, table, hint)
        return
    shown = topics.topic_page(explorer, topic_id)
    st.markdown(topics.heading_markdown(shown.topic))
    st.caption(escape_markdown(shown.report["growth"]))
    if found := topics.topic_years(explorer, topic_id):
        st.plotly_chart(years.chart(found[0]), key="topic-years", config=years.CONFIG)
        if found[1] is not None:
            st.caption(found[1].sentence())
    st.markdown(topics.phrases_markdown(shown.topic))
    for label, related in shown.related.items():
        with st.container(horizontal=True, vertical_alignment="center"):
            if related:
                st.caption(label.capitalize() + ":", width="content")
            for other in related:
                button(topics.name_markdown(other, 40), replace(location, topic=other.topic_id),
                       key=f"topic-{label}-{other.topic_id}", type="tertiary")
    with st.container(horizontal=True):
        button("Show on the map", replace(location, page="map"), icon=":material/map:", key="topic-map")
        button("All topics", replace(location, topic=None), icon=":material/category:", key="topic-all")
    st.caption(topics.PAPERS_NOTE)
    hits_ui(location, shown.hits, lit(explorer, shown.hits, explained=False), "t", terms=False)


def topics_list_ui(location: Location, table, hint: str) -> None:
    st.markdown("### Topics")
    st.caption(topics.LIST_INTRO if table.has_areas else topics.ONE_LEVEL.format(command=hint))
    for topic in table.topics():
        if topic.parent is not None:
            continue
        button(topics.size_label(topic), replace(location, topic=topic.topic_id),
               key=f"topics-{topic.topic_id}", type="secondary")
        with st.container(horizontal=True, gap="small"):
            for child in map(table.topic, topic.children):
                button(topics.size_label(child), replace(location, topic=child.topic_id),
                       key=f"topics-{child.topic_id}", type="tertiary")


# -- frame: sidebar, trail, main --------------------------------------------------------------------
def sidebar_ui(explorer: Explorer, location: Location, facets: dict) -> Location:
    """Page buttons, filters, the share link and what is loaded; returns `location` with the
    filters picked here."""
    with st.sidebar:
        st.markdown("## :material/library_books: Paper Explorer")
        for name, (label, icon) in page.PAGES.items():
            button(label.format(marked=len(location.like) + len(location.unlike)),
                   replace(location, page=name), key=f"nav-{name}", icon=icon, width="stretch",
                   type="primary" if location.page == name else "secondary")
        location = filters_ui(facets, location)
        with st.popover("Share this view", icon=":material/link:", width="stretch"):
            st.code(link(st.context.url or "", location), language=None, wrap_lines=True)
            st.caption(page.SHARE_NOTE)
        st.caption(page.index_caption(page.loaded_facts(explorer.manifest)))
    return location


def filters_ui(facets: dict, location: Location) -> Location:
    """The filter widgets; returns `location` with the filters they hold."""
    with st.expander("Filters", expanded=location.filters().active()):
        venues = st.multiselect("Venue", facets["venues"], key="venues") if facets["venues"] else []
        sources = (st.multiselect("Source file", facets["sources"], key="sources")
                   if facets["sources"] else [])
        span = page.year_range(facets)
        years = st.slider("Years", *span, key="years") if span else None
        top_k = st.select_slider("Results", TOP_K_CHOICES, key="top_k")
    return page.with_filters(location, facets, venues, sources, years, top_k)


def trail_ui(explorer: Explorer, location: Location, trail: tuple[Step, ...]) -> None:
    if len(trail) < 2:
        return
    with st.container(horizontal=True, gap="small"):
        st.caption("Trail:")
        for number, step in enumerate(trail):
            button(escape_markdown(step_label(explorer, step)), go_to(location, step),
                   key=f"trail-{number}", type="primary" if step == step_of(location) else "secondary",
                   icon=":material/search:" if step[0] == "q" else ":material/article:")


def error_ui(exc: ExplorerError, folder: str) -> None:
    message, commands = public.error_text(exc, folder)
    st.error(message)
    for command in commands:
        st.code(command, language="bash")


def skip_repl_check() -> None:
    """Streamlit asks once per process, at the first element, whether it runs in a Python REPL
    (to warn that an app needs `streamlit run`), with inspect.stack(), which maps every loaded
    module to its file: 0.2-0.3 s of the first page here (faiss, scipy and OpenVINO are
    loaded by then). The app only runs under `streamlit run`, so the question is settled."""
    import streamlit.delta_generator as generator  # private: if renamed, the check just runs

    generator._use_warning_has_been_displayed = True


def main() -> None:
    skip_repl_check()
    st.set_page_config(page_title="Paper Explorer", page_icon="📚", layout="centered")
    if failed := st.session_state.pop("action_error", None):  # from a callback (`reported`)
        st.error(failed, icon=":material/error:")
    folder = DEFAULT_INDEX_DIR
    try:
        settings = Settings.from_env()
        folder = str(settings.index_dir)
        app_ui(folder, settings.query_model)
    except ExplorerError as exc:  # e.g. no index, or a paper that a rebuilt index no longer has
        error_ui(exc, folder)
    except Exception:  # anything else: a plain message here, the traceback in the server log
        LOG.exception("page failed for index %s", folder)
        st.error(page.FAILED)


def app_ui(folder: str, model: str | None = None) -> None:
    explorer = load_explorer(folder, page.build_key(read_manifest(Path(folder))), model)
    facets = public.public_facets(explorer)
    location, notice = session_location(explorer, facets)
    location = sidebar_ui(explorer, location, facets)
    st.session_state.location = location  # with the filters picked in the sidebar
    if notice:
        st.warning(notice)
    st.text_input("Ask a question", key="query_box", on_change=on_query, icon=":material/search:",
                  placeholder=page.PLACEHOLDER, label_visibility="collapsed",
                  max_chars=MAX_QUESTION_CHARS)  # a pasted abstract fits; query_note: the rest
    trail_ui(explorer, location, st.session_state.trail)
    st.query_params.from_dict(encode(location))
    show = {"ask": ask_ui, "paper": paper_ui, "marked": marked_ui, "map": map_ui,
            "draft": draft_ui, "topic": topic_ui, "twins": twins_ui}[location.page]
    show(explorer, location, facets["root"], page.public_hint(folder, explorer.manifest, facets["root"]))


main()
