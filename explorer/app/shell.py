"""The app's frame: the loaded index, the session's location (mirrored in the URL), the sidebar,
the trail, errors, and the pages (PAGES, in the sidebar's order)."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import streamlit as st

from explorer.app import ask, history, marked, paper, style
from explorer.app.kit import button, go, reported
from explorer.artifacts.store import read_manifest
from explorer.errors import ExplorerError
from explorer.features.drafts import page as drafts_page
from explorer.features.facets.page import facet_filters_ui
from explorer.features.new import page as new_page
from explorer.features.relatives import page as relatives_page
from explorer.features.topics import page as topics_page
from explorer.features.upgrade.page import upgrade_status_ui
from explorer.query.engine import MAX_QUESTION_CHARS, Explorer
from explorer.settings import DEFAULT_INDEX_DIR, Settings
from explorer.ui import page, public
from explorer.ui.links import ASK, MAX_AUTHORS, Location, link
from explorer.ui.text import escape_markdown
from explorer.ui.trail import Step, go_to, step_label, step_of, trail_parts

TOP_K_CHOICES = [5, 10, 20, 50, 100]
AUTHOR_SUGGESTIONS = 2_000  # the most prolific authors' names offered (any other may be typed)
LOG = logging.getLogger("paper_explorer.app")
# The pages, in the sidebar's order (the paper page, which has no button, last).
PAGES = (ask.PAGE, marked.PAGE, topics_page.MAP_PAGE, topics_page.TOPIC_PAGE, drafts_page.PAGE,
         relatives_page.PAGE, new_page.PAGE, paper.PAGE)


# -- loading --------------------------------------------------------------------------------------
@st.cache_resource(show_spinner="Loading the model and the index… (the first start on a "
                   "computer also prepares the model, once: up to half a minute)", max_entries=1)
def load_explorer(folder: str, build_key: str, model: str | None = None) -> Explorer:
    """The Explorer of the current build only: a rebuild swaps it (and frees the old files).
    `model` (EXPLORER_MODEL) embeds the questions; it must be the index's own model."""
    return Explorer.open(folder, model=model, warm=True)  # the model loads with the index


@reported
def on_query() -> None:
    go(replace(st.session_state.location, page=ASK, query=st.session_state.query_box.strip()))


# -- frame: sidebar, trail, run ----------------------------------------------------------------------
def sidebar_ui(explorer: Explorer, location: Location, facets: dict) -> Location:
    """Page buttons, filters, the share link and what is loaded; returns `location` with the
    filters picked here."""
    with st.sidebar:
        st.markdown("## :material/library_books: Paper Explorer")
        for name, label, icon in ((p.name, p.label, p.icon) for p in PAGES if p.label):
            button(label.format(marked=len(location.like) + len(location.unlike)),
                   replace(location, page=name, topic=None), key=f"nav-{name}", icon=icon,
                   width="stretch",
                   type="primary" if location.page == name else "secondary")
        location = filters_ui(facets, location, explorer.authors(AUTHOR_SUGGESTIONS))
        with st.popover("Share this view", icon=":material/link:", width="stretch"):
            st.code(link(st.context.url or "", location), language=None, wrap_lines=True)
            st.caption(page.SHARE_NOTE)
        st.caption(page.index_caption(page.loaded_facts(explorer.manifest)))
        upgrade_status_ui(explorer.artifacts.folder, explorer.manifest.model.model_id)
    return location


def filters_ui(facets: dict, location: Location, suggested: list[str]) -> Location:
    """The filter widgets; returns `location` with the filters they hold. The author box
    suggests the `suggested` names and takes any other typed."""
    with st.expander("Filters", expanded=location.filters().active()):
        venues = st.multiselect("Venue", facets["venues"], key="venues") if facets["venues"] else []
        picked = facet_filters_ui(facets, location)  # status, track, ...: features/facets/
        authors = st.multiselect(
            "Author", list(dict.fromkeys([*location.authors, *suggested])), key="authors",
            accept_new_options=True, max_selections=MAX_AUTHORS, help=page.AUTHOR_HELP,
            placeholder="Type a name: S. Levine, Schölkopf, …")
        sources = (st.multiselect("Source file", facets["sources"], key="sources")
                   if facets["sources"] else [])
        span = page.year_range(facets)
        years = st.slider("Years", *span, key="years") if span else None
        top_k = st.select_slider("Results", TOP_K_CHOICES, key="top_k")
    return replace(page.with_filters(location, facets, venues, sources, years, top_k, authors),
                   facets=picked)


def trail_ui(explorer: Explorer, location: Location, trail: tuple[Step, ...]) -> None:
    """The last steps of the trail on one row; the earlier ones folded in a popover."""
    if len(trail) < 2:
        return
    earlier, recent = trail_parts(trail)
    with st.container(horizontal=True, gap="small", key="trail"):
        st.caption("Trail:", width="content")
        if earlier:
            with st.popover(f"{len(earlier)} earlier", icon=":material/history:"):
                for step in earlier:
                    trail_button(explorer, location, trail, step)
        for step in recent:
            trail_button(explorer, location, trail, step)


def trail_button(explorer: Explorer, location: Location, trail: tuple[Step, ...],
                 step: Step) -> None:
    button(escape_markdown(step_label(explorer, step, 28)), go_to(location, step),
           key=f"trail-{trail.index(step)}", width="content",
           type="primary" if step == step_of(location) else "secondary",
           icon=":material/search:" if step[0] == "q" else ":material/article:")


def error_ui(exc: ExplorerError, folder: str) -> None:
    message, commands = public.error_text(exc, folder)
    st.error(message)
    for command in commands:
        st.code(command, language="bash")


def run() -> None:
    """Draw the page of this session's location (streamlit_app.py runs it on every rerun)."""
    st.set_page_config(page_title="Paper Explorer", page_icon="📚", layout="wide")
    style.style_ui()
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
    location, notice = history.session_location(explorer, facets, TOP_K_CHOICES)
    location = sidebar_ui(explorer, location, facets)
    st.session_state.location = location  # with the filters picked in the sidebar
    if notice:
        st.warning(notice)
    st.text_input("Ask a question", key="query_box", on_change=on_query, icon=":material/search:",
                  placeholder=page.PLACEHOLDER, label_visibility="collapsed",
                  max_chars=MAX_QUESTION_CHARS)  # a pasted abstract fits; query_note: the rest
    trail_ui(explorer, location, st.session_state.trail)
    history.write_url(location)  # a new browser history entry when it moved
    show = {shown.name: shown.show for shown in PAGES}[location.page]
    show(explorer, location, facets["root"], page.public_hint(folder, explorer.manifest, facets["root"]))
