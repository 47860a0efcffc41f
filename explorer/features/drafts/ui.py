"""The "Check my draft" page without Streamlit: read what the reader gave (pasted text or a
text file; a reference list upload, parsed in memory and never written anywhere, or a saved
collection) into a `Checked` answer, and what the page says about it (all escaped: drafts,
entries and corpus text never become markup).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Protocol

from explorer import wording
from explorer.corpus.apart import read_references_apart
from explorer.corpus.papers import Paper
from explorer.corpus.references import KINDS
from explorer.errors import DraftError, ExplorerError
from explorer.features.collections.records import split_known
from explorer.features.collections.store import Collections
from explorer.features.drafts.cited import CitedSet, cited_from_references
from explorer.features.drafts.missed import Missed, MissedPaper, missed
from explorer.features.drafts.passages import MAX_DRAFT_BYTES, Passage, read_draft
from explorer.query.engine import Explorer
from explorer.ui.public import public_message
from explorer.ui.text import escape_markdown, plain, rich_markdown

# A reference list is parsed and matched in the server's process (about 0.45 s of CPU a MiB,
# holding the GIL): at 50 MiB one upload made every other session's answers 2.4x slower (p99
# 7.7x) for 151 s (benchmarks/README.md, "One session abusing, the others asking"). 5 MiB holds
# about 3,300 entries with abstracts (a draft cites a few hundred; the largest of the 396 real
# lists in ../shared/data/peer-fixtures is 1.5 MB); `explorer missed --bib` reads longer ones.
MAX_REFERENCE_BYTES = 5 << 20
MIB = 1 << 20  # Streamlit's upload limits are in MiB (whole numbers, at least 1)
# What each uploader lets the browser send (Streamlit's max_upload_size; the server refuses
# anything past server.maxUploadSize in .streamlit/config.toml, which is the larger of these):
# the limits above rounded up to MiB; past a limit, the page says why it refused.
DRAFT_UPLOAD_MIB = -(-MAX_DRAFT_BYTES // MIB)
REFERENCE_UPLOAD_MIB = -(-MAX_REFERENCE_BYTES // MIB)
DRAFT_SUFFIXES = ("txt", "md", "tex")
REFERENCE_SUFFIXES = tuple(suffix.lstrip(".") for suffix in KINDS)
NONE, UPLOAD, SAVED = "Nothing yet", "A reference list (.bib, .ris, CSL-JSON)", "A saved collection"
CITED_SOURCES = (UPLOAD, SAVED, NONE)
SHOWN_MISSING = 20
INTRO = ("Paste your draft (an abstract, an introduction, a few paragraphs) and give what it "
         "already cites: each paragraph finds the related papers of this corpus that you do "
         "not cite yet. Nothing you give here is stored.")
TEXT_LABEL = "Your draft"
TEXT_HINT = "Paste the text of your draft here; blank lines separate its paragraphs."
FILE_LABEL = "…or a text file of it (.txt, .md, .tex)"
CITED_LABEL = "What it cites"
REFERENCES_LABEL = "Your reference list (read in memory, never stored)"
NO_DRAFT = "Paste a draft (or give a text file of it) first, then check it."
NO_RESULTS = "No missed papers: every related paper of this corpus is cited."
EXPORT_LABEL = "{format} of the {count} marked to add"  # marked: "More like this" on a card


@dataclass(frozen=True)
class Checked:
    """A draft checked: the answer, and what the cited set was made of (Markdown)."""

    result: Missed
    cited_note: str


def draft_text(pasted: str, upload_name: str | None, upload: bytes | None) -> str:
    """The draft to check: the pasted text, else the uploaded file's (DraftError: neither,
    or not text)."""
    if pasted and pasted.strip():
        return read_draft(pasted, "The pasted draft")
    if upload is not None:
        return read_draft(upload, f"The file {plain(upload_name or 'uploaded', 80)}")
    raise DraftError(NO_DRAFT)


def uploaded_cited(explorer: Explorer, name: str, data: bytes) -> CitedSet:
    """The cited set of an uploaded reference list, parsed in a process of its own (a large or
    crafted file never holds the server's lock while other visitors wait: corpus/apart.py)."""
    references = read_references_apart(data, PurePath(name).name, MAX_REFERENCE_BYTES)
    return cited_from_references(explorer, references)


def saved_cited(explorer: Explorer, store: Collections, name: str) -> CitedSet:
    """A saved collection as the cited set: its ids this index has (the others as missing)."""
    collection = store.get(name)
    known, missing = split_known(collection.paper_ids, explorer)
    absent = tuple(Paper(paper_id, paper_id, True, "") for paper_id in missing)
    return CitedSet(tuple(known), absent, (), len(collection.paper_ids))


class Upload(Protocol):
    """An uploaded file as the page holds it (in memory): Streamlit's UploadedFile is one."""

    name: str

    def getvalue(self) -> bytes: ...


@dataclass(frozen=True)
class Given:
    """What the reader gave: pasted text, a draft file, a reference list, which cited set
    (`source`: CITED_SOURCES) and the saved collection's name."""

    text: str = ""
    draft_file: Upload | None = None
    references: Upload | None = None
    source: str | None = None
    collection: str | None = None


def chosen_cited(explorer: Explorer, given: Given, store: Collections) -> CitedSet | None:
    """The cited set `given` names: the uploaded list, the saved collection, or none (also
    when the chosen one was not given)."""
    if given.source == UPLOAD and given.references is not None:
        return uploaded_cited(explorer, given.references.name, given.references.getvalue())
    if given.source == SAVED and given.collection:
        return saved_cited(explorer, store, given.collection)
    return None


def check(explorer: Explorer, given: Given, store: Collections, top_k: int
          ) -> tuple[Checked | None, str]:
    """Run "what did I miss" for the page -> (the answer, "") or (None, why not: Markdown)."""
    upload = given.draft_file
    try:
        draft = draft_text(given.text, upload and upload.name, upload and upload.getvalue())
        cited = chosen_cited(explorer, given, store) or CitedSet(())
        result = missed(explorer, draft, cited.paper_ids, top_k)
    except ExplorerError as exc:
        return None, error_markdown(str(exc))
    return Checked(result, cited_markdown(cited) if cited.entries else ""), ""


def cited_markdown(cited: CitedSet) -> str:
    """What the cited set holds, and the entries this index lacks (named, escaped)."""
    text = escape_markdown(cited.summary())
    if cited.missing:
        shown = "; ".join(plain(entry.title, 80) for entry in cited.missing[:SHOWN_MISSING])
        more = (f" and {len(cited.missing) - SHOWN_MISSING} more"
                if len(cited.missing) > SHOWN_MISSING else "")
        text += f"  \nNot in this index: {escape_markdown(shown)}{more}."
    return text


def error_markdown(message: str) -> str:
    return escape_markdown(public_message(message))


def summary_markdown(result: Missed, papers: int) -> str:
    split = result.split
    count = len(split.passages)
    return (f"Checked {count} passage{'s' * (count != 1)} ({split.checked_words:,} words) "
            f"against {papers:,} papers, {len(result.cited)} cited "
            f"paper{'s' * (len(result.cited) != 1)} kept out: **{len(result.papers)} "
            f"missed paper{'s' * (len(result.papers) != 1)}**, grouped by the passage each "
            "relates to most. Mark the ones to add (*More like this*) and export them below.")


def passage_markdown(number: int, text: str) -> str:
    return f"**Passage {number}** · “{escape_markdown(plain(text, 240))}”"


def card_note(paper: MissedPaper, passage: Passage) -> str:
    """The card's caption note: the draft sentence it ties to (unless it is all of `passage`,
    shown above the cards), and the closest cited paper."""
    parts = []
    if paper.tie is not None and (paper.tie.draft.start, paper.tie.draft.end) != (
            passage.start, passage.end):
        parts.append(f"ties to your “{escape_markdown(plain(paper.tie.draft.text, 160))}”")
    if paper.closest is not None:
        parts.append(f"closest to your cited *{rich_markdown(plain(paper.closest.title, 80))}* "
                     f"({wording.closeness_line(paper.closest.score)})")
    return " · ".join(parts)


def paper_spans(paper: MissedPaper) -> list[tuple[int, int]]:
    """The paper's sentence that ties it to the draft, as a span of its abstract to highlight."""
    if paper.tie is None or paper.tie.paper is None:
        return []
    return [(paper.tie.paper.start, paper.tie.paper.end)]


def marked_papers(result: Missed, marked: Sequence[str]) -> list[Paper]:
    """The papers of `result` marked (the liked ids), in the result's order."""
    wanted = set(marked)
    return [paper.hit.paper for paper in result.papers if paper.paper_id in wanted]
