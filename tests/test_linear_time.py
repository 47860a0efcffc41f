"""Hostile text costs time in proportion to its length: every reader and text function, fed
hundreds of kilobytes of what its regular expressions read (long runs of one character,
unbalanced quotes, braces, brackets, `$` and `#`, unbroken words, address-like runs, repeated
keywords), answers within a generous bound.

Each bound is a guard against super-linear blow-up, not a speed test: the inputs are big enough
that the code before issue 29 took minutes or hours on them (a `title = aaa..."x" # b` field of
32 KB took 22 s, a title-less record's 1 MB abstract about 2 hours). The bound is enforced with a
timer signal, so a regression fails at the bound instead of hanging the suite.
"""

from __future__ import annotations

import contextlib
import json
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from explorer.cli.terminal import safe_text
from explorer.corpus.latex import to_unicode
from explorer.corpus.papers import Paper, read_corpus
from explorer.corpus.references import read_references
from explorer.corpus.sentences import split_sentences
from explorer.corpus.titles import derive_title
from explorer.corpus.venues import status_of, venue_of
from explorer.errors import CorpusError, DraftError
from explorer.features.drafts.passages import clean_query, read_draft, split_draft
from explorer.features.explanations.explain import shared_terms
from explorer.index.lexical import Tokenizer, lexical_text
from explorer.ui.links import decode
from explorer.ui.public import public_message
from explorer.ui.text import escape_markdown, rich_markdown

SIZE = 200_000  # characters of a generated text
BOUND = 5.0  # seconds for one call on SIZE characters (linear code takes well under one)
# What the patterns read runs of: each piece is repeated to fill a stretch of the text.
PIECES = ["a", "A0", " ", "\t", "\n", "\n \n", ".", "e.g. A ", "x e.g. A ", "[", "]", "(", ")",
          "{", "}", "$", "$a", "#", '"', "'", "`", "*", "\\", "\\cite{", "\\cite[", "~", "%",
          "@", "a@", "url", "www", "www.", "http://", "https://x/", "/a", ":", ": ", ":a[",
          "](", "[a](", "[1,", "<a", "-", "--", "\u2014", "arxiv", "arXiv:", "10.1000/",
          "(AB) ", "Large Models (LMs) ", "AB1C AB1C ", "our X1Y ", " outperforms ",
          "we propose ", "We propose FooNet: ", "approach ", "a method called ", "designed to ",
          "is proposed ", "\\'e", "\\o ", "{\\'a}", "\u202e", "\x1b[", "\u00e9", "\u03b1",
          "internationalization ", '"x" # b', "arxivvv", "(z", " and ", "ICLR 2026 ",
          "Submitted to ", "Desk ", "top 5% ", ", "]
STRETCH = st.tuples(st.sampled_from(PIECES), st.integers(1, 4))
RECIPES = st.lists(STRETCH, min_size=1, max_size=4)
FEW = settings(max_examples=4, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_FOLDER = Path(tempfile.mkdtemp(prefix="linear-time-"))

# The traps found in issue 29, as (recipe) examples every generated test also runs.
CONCAT = [('a', 1), ('"x" # b', 1)]  # bibliography._CONCAT: each letter tried to the quote
UNBROKEN = [("a", 1)]  # clauses' address clean-up: each letter read to the word's end
ABBREVIATIONS = [("x e.g. A ", 1)]  # sentences: the sentence so far searched at each "e.g."
ARXIV = [("arxivvv", 1)]  # identity's arXiv id in a note: each "arxiv" read to the run's end
CITES = [("\\cite{", 1)]  # drafts' \cite{...}: each one read to the end of the line
SPELLED = [("We propose FooNet: ", 1), ("internationalization ", 1), ("(z", 1)]
# issue 33: arXiv's authors text split at " and " by r"\s+and\s+" read a run of blanks from
# each of its blanks (n^2); the blanks are folded first.
BLANKS = [(" ", 1), ("x", 1)]


def text_of(recipe: list[tuple[str, int]], size: int = SIZE) -> str:
    """`size` characters: the stretches of `recipe` in turn, each filling its share."""
    total = sum(weight for _, weight in recipe)
    parts = []
    for piece, weight in recipe:
        room = size * weight // total
        parts.append((piece * (room // len(piece) + 1))[:room])
    return "".join(parts)


@contextlib.contextmanager
def within(seconds: float, what: str) -> Iterator[None]:
    """Fail (TimeoutError) when the block runs longer than `seconds`: a timer signal interrupts
    it, even inside a regular expression (the `re` engine checks for signals as it runs)."""
    def expire(signum, frame):
        raise TimeoutError(f"{what} took more than {seconds} s: super-linear time?")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bounded(what: str, function: Callable[..., object], *args: object) -> object:
    with within(BOUND, what):
        return function(*args)


def _read_file(name: str, text: str, limit: int = 4 * SIZE) -> None:
    path = _FOLDER / name
    path.write_text(text, encoding="utf-8")
    try:
        read_corpus([path], max_file_bytes=limit)
    except CorpusError:
        pass  # a clear error is an answer too; the time is what is checked


def _references(name: str, text: str) -> None:
    try:
        read_references(text.encode("utf-8", "surrogatepass"), name, max_bytes=4 * SIZE)
    except CorpusError:
        pass


def _bibtex(text: str) -> list[str]:
    """A .bib file holding `text` as each kind of field value, and alone."""
    quoted = text.replace('"', "'")
    return [f"@article{{k1,\n  title = {{{text}}},\n  abstract = {{{text}}},\n}}\n",
            f'@article{{k2,\n  title = "{quoted}",\n  note = "{quoted}",\n}}\n',
            f"@article{{k3,\n  title = {text} # b,\n  year = 2020,\n}}\n",
            f"@string{{acl = {{{text}}}}}\n@inproceedings{{k4,\n  booktitle = \"P\" # acl,\n}}\n",
            text]


def _ris(text: str) -> str:
    return f"TY  - JOUR\nTI  - {text}\nAB  - {text}\nN1  - {text}\nER  - \n{text}"


def _wos(text: str) -> str:
    return (f"FN Clarivate Analytics Web of Science\nVR 1.0\nPT J\nTI {text}\nAB {text}\n"
            f"AU {text}\nER\n{text}")


def _encoded(name: str, text: str, encoding: str) -> None:
    """read_references of `text` in another encoding: read as declared, or refused naming it."""
    try:
        read_references(text.encode(encoding, "replace"), name, max_bytes=4 * SIZE)
    except CorpusError:
        pass


def _csl(text: str) -> str:
    return json.dumps([{"id": "a", "type": "article-journal", "title": text, "abstract": text,
                        "note": text, "URL": text, "DOI": text, "container-title": text}])


@settings(FEW)
@given(recipe=RECIPES)
@example(recipe=CONCAT)
@example(recipe=ARXIV)
def test_reference_lists_read_in_linear_time(recipe):
    """The upload path (read_references: .bib, .ris, CSL-JSON, Web of Science; bytes in other
    encodings) and the build's (read_corpus)."""
    text = text_of(recipe)
    for number, bib in enumerate(_bibtex(text)):
        bounded(f"read_references of .bib #{number}", _references, "refs.bib", bib)
        bounded(f"read_corpus of .bib #{number}", _read_file, "refs.bib", bib)
    bounded("read_references of .ris", _references, "refs.ris", _ris(text))
    bounded("read_corpus of .ris", _read_file, "refs.ris", _ris(text))
    bounded("read_references of CSL-JSON", _references, "refs.json", _csl(text))
    bounded("read_corpus of CSL-JSON", _read_file, "refs.json", _csl(text))
    bounded("read_references of Web of Science", _references, "savedrecs.txt", _wos(text))
    bounded("read_corpus of Web of Science", _read_file, "savedrecs.txt", _wos(text))
    for encoding in ("utf-16-le", "cp1252", "gb18030"):  # with no mark: named, or guessed
        bounded(f"read_references in {encoding}", _encoded, "refs.ris", _ris(text), encoding)
        bounded(f"read_references of .bib in {encoding}", _encoded, "refs.bib",
                f"% Encoding: {encoding}\n{_bibtex(text)[0]}", encoding)


@settings(FEW)
@given(recipe=RECIPES)
@example(recipe=UNBROKEN)
@example(recipe=SPELLED)
def test_corpus_files_read_in_linear_time(recipe):
    """JSONL, CSV and seed text files, with and without a title (derive_title)."""
    text = text_of(recipe)
    untitled = json.dumps({"abstract": text}) + "\n"
    titled = json.dumps({"title": text, "abstract": text, "authors": text, "keywords": text,
                         "year": text, "url": text}) + "\n"
    rows = "abstract,authors,keywords\n" + ",".join([json.dumps(text)] * 3) + "\n"
    for name, content in [("untitled.jsonl", untitled), ("titled.jsonl", titled),
                          ("table.csv", rows), ("seeds.txt", f"Seeds\n\n{text}\n")]:
        bounded(f"read_corpus of {name}", _read_file, name, content)


def _services(text: str) -> list[tuple[str, str]]:
    """Each service's record with `text` in every field it reads, in the files they come in
    (issue 33): OpenReview notes (an array), the arXiv snapshot (JSON lines in a .json),
    OpenAlex works (JSON lines), a Semantic Scholar page, the corpus's own line."""
    words = text.split()[:5_000] or [text]
    note = {"id": "n1", "forum": "n1", "invitation": text, "content": {
        **{k: {"value": text} for k in ("title", "abstract", "venue", "venueid", "TLDR")},
        "authors": {"value": [text]}, "keywords": {"value": [text]}},
        "details": {"directReplies": [{"invitation": "x/-/Decision",
                                       "content": {"decision": {"value": text}}}]}}
    arxiv = {"id": text[:200], "title": text, "abstract": text, "authors": text,
             "categories": text, "versions": [{"created": text}], "doi": text,
             "journal-ref": text}
    parsed = {**arxiv, "id": "hep-th/9901001", "authors_parsed": [[text, text, text]]}
    work = {"id": "https://openalex.org/W" + text, "title": text, "doi": text,
            "abstract_inverted_index": json.dumps({w: [i] for i, w in enumerate(words)}),
            "primary_location": {"source": {"display_name": text, "type": text}},
            "authorships": [{"author": {"display_name": text}}], "referenced_works": [text],
            "locations": [{"landing_page_url": text}]}
    paper = {"paperId": text[:100], "title": text, "abstract": text, "venue": text,
             "externalIds": {"DOI": text, "ArXiv": text}, "authors": [{"name": text}],
             "references": [{"paperId": text}], "tldr": {"text": text},
             "publicationTypes": ["Conference"]}
    own = {"title": text, "abstract": text, "venue": text, "status": text, "track": text,
           text[:300]: text, "doi": text, "references": [text] * 3}
    return [("notes.json", json.dumps([note])),
            ("snapshot.json", json.dumps(arxiv) + "\n" + json.dumps(parsed) + "\n"),
            ("works.jsonl", json.dumps(work) + "\n"),
            ("s2.json", json.dumps({"data": [paper]})),
            ("own.jsonl", json.dumps(own) + "\n")]


@settings(FEW)
@given(recipe=RECIPES)
@example(recipe=BLANKS)
@example(recipe=SPELLED)
def test_service_records_read_in_linear_time(recipe):
    """OpenReview, arXiv, OpenAlex, Semantic Scholar and the corpus's own records, hostile
    text in every field: venues split, statuses read, fields kept, abstracts rebuilt."""
    for name, content in _services(text_of(recipe)):
        assert len(content) < 100 * SIZE  # read whole, not refused for its size
        bounded(f"read_corpus of {name}", _read_file, name, content, 100 * SIZE)


def _draft(text: str) -> None:
    try:
        for passage in split_draft(read_draft(text.encode("utf-8", "surrogatepass"))).passages:
            clean_query(passage.text)
    except DraftError:
        pass


@settings(FEW)
@given(recipe=RECIPES)
@example(recipe=CITES)
@example(recipe=ABBREVIATIONS)
def test_a_draft_is_split_in_linear_time(recipe):
    """The "Check my draft" path: read, split into passages, each cleaned for ranking."""
    text = text_of(recipe)
    bounded("a draft", _draft, text)


TEXT_FUNCTIONS: dict[str, Callable[[str], object]] = {
    "derive_title": derive_title,
    "rich_markdown": lambda text: rich_markdown(text, [(0, 40), (100, len(text) // 2)]),
    "escape_markdown": escape_markdown,
    "clean_query": clean_query,
    "split_sentences": split_sentences,
    "to_unicode": to_unicode,
    "lexical tokens": lambda text: Tokenizer()(lexical_text(
        Paper("p", text, False, text, keywords=(text,)))),
    "shared_terms": lambda text: shared_terms(text, text),
    "safe_text": safe_text,
    "public_message": public_message,
    "link decode": lambda text: decode({"q": text, "steer": text, "paper": text, "year": text,
                                        "k": text, "like": [text] * 3, "view": text}),
    "venue_of": venue_of,
    "status_of": status_of,
}


@settings(FEW)
@given(recipe=RECIPES)
@example(recipe=UNBROKEN)
@example(recipe=CITES)
@example(recipe=ABBREVIATIONS)
@example(recipe=SPELLED)
@example(recipe=[("$a$ ", 1)])  # rich_markdown: each formula looked up in a list of them all
@example(recipe=[("A0", 1), ("_", 1)])  # names' coined words: each letter given back in turn
def test_text_functions_take_linear_time(recipe):
    text = text_of(recipe)
    for name, function in TEXT_FUNCTIONS.items():
        bounded(name, function, text)


@pytest.mark.parametrize(("name", "recipe", "size"), [
    ("concatenated .bib field", CONCAT, 20_000),
    ("title-less unbroken abstract", UNBROKEN, 40_000),
    ("abbreviations", ABBREVIATIONS, 40_000),
])
def test_the_traps_of_issue_29_are_gone(name, recipe, size):
    """Inputs the size of the issue's reports, which took 9 to 16 s before: now a second."""
    text = text_of(recipe, size)
    with within(2.0, name):
        if recipe is CONCAT:
            _references("draft-refs.bib", _bibtex(text)[2])
        elif recipe is UNBROKEN:
            derive_title(text)
        else:
            split_sentences(text)
