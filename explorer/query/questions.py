"""What a reader is told about a question the model cannot read whole (`query_note`)."""

from __future__ import annotations

from explorer.model.embedder import MAX_QUESTION_CHARS, Embedder

TAIL_CHARS = 40  # the end of what the model read, quoted in query_note


def query_note(embedder: Embedder, query: str) -> str | None:
    """A note for the user when the question is longer than a question may be (it is cut
    to MAX_QUESTION_CHARS characters) or than the model reads (where the model stopped);
    None when all of it is read. Tokenises at most MAX_QUESTION_CHARS characters."""
    query = query.strip()
    reach, limit = embedder.reach(query), embedder.max_seq_length
    notes = []
    if len(query) > MAX_QUESTION_CHARS:
        notes.append(f"Your question is {len(query):,} characters: only its first "
                     f"{MAX_QUESTION_CHARS:,} are used.")
    if reach.tokens > limit:
        read = _tail(query[:reach.chars])
        notes.append(f"The model reads its first {limit} tokens, up to “…{read}”; the rest "
                     "counts only in word matching (lexical and hybrid modes).")
    return " ".join(notes) or None


def _tail(text: str) -> str:
    """The last words of `text`, at most TAIL_CHARS characters (whole words when it can)."""
    tail = text[-TAIL_CHARS:]
    space = tail.find(" ")
    return tail[space + 1:] if len(text) > TAIL_CHARS and 0 <= space < len(tail) - 1 else tail
