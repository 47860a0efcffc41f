"""OpenReview notes (openreview-py's `Note.to_json()`, API v1 and v2) -> corpus records.

A note is an object with a `content` object and an envelope (`id`, `forum`, `invitation` (v1)
or `invitations` (v2), `cdate`, ...). API v2 gives each content field as {"value": ...}; v1
gives the value itself; both are read field by field. Read: title, abstract, authors, keywords,
TL;DR, primary_area (as fields `tldr`, `primary_area`), the venue string ("ICLR 2026 Poster",
split by venues.venue_of), the forum's URL (https://openreview.net/forum?id=...), and the
status, from the strongest evidence the note carries:

1. a decision among its replies (`details.directReplies` or `details.replies`, as
   `get_all_notes(..., details="directReplies")` returns them): "Accept (Oral)" -> Oral;
2. `content.venueid` naming a rejected, withdrawn, desk-rejected or pending submission
   ("ICLR.cc/2024/Conference/Rejected_Submission": "Submitted to ICLR 2024" is a reject);
3. the venue string ("ICLR 2024 Poster", "ICLR 2026 Conference Withdrawn Submission");
4. `venueid` naming the venue itself (accepted), or a venue string naming only a venue and a
   year ("COLM 2024": OpenReview names the venue once a paper is accepted): Accepted;
5. the invitation ("ICLR.cc/2018/Conference/-/Blind_Submission": Submitted).

The year is the venue string's, else the venue id's or the invitation's, else the note's
publication or creation date (pdate, cdate). Every other content field, and the envelope but
its access lists (readers, writers, signatures, nonreaders), is kept in `fields`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from explorer.corpus.converted import Converted, converted, member, objects, text, texts, year_of_millis
from explorer.corpus.fields import FieldBag
from explorer.corpus.venues import ACCEPTED, Venue, status_of, venue_of

FORUM = "https://openreview.net/forum?id="
ENVELOPE = ("forum", "invitation", "invitations", "replyto", "cdate", "mdate", "pdate", "odate",
            "tcdate", "tmdate", "number", "signatures")
READ = ("title", "abstract", "authors", "keywords", "venue")  # content fields read here
ACCESS = ("readers", "writers", "signatures", "nonreaders", "details", "content", "id")
MAX_REPLIES = 200  # replies looked at for a decision


def recognises(record: Mapping[str, Any]) -> bool:
    """A note: a `content` object and one of the envelope's fields; or an API v2 note's
    content alone (a title {"value": ...}: `[n.content for n in notes]` saved)."""
    if isinstance(record.get("content"), Mapping):
        return any(k in record for k in ENVELOPE)
    return _is_value(record.get("title"))


def read(note: Mapping[str, Any]) -> Converted:
    """One note as a corpus record; a converted.RecordError when its fields are not a
    note's (a title that is not text, authors that are not a list of names)."""
    if not isinstance(note.get("content"), Mapping):
        note = {"content": note}
    content = {name: _value(value) for name, value in note["content"].items()}
    note_id = text(note, "id") or text(note, "forum")
    raw_venue = " ".join(text(content, "venue").split())
    venue = venue_of(raw_venue)
    group = _group(note, content)
    status = _status(note, content, venue, group)
    notes: Counter = Counter()
    bag = FieldBag(notes)
    bag.add_all(content, READ)
    bag.add_all({k: v for k, v in note.items()
                 if k not in ACCESS and not (k == "forum" and v == note_id)})
    return converted(
        bag, notes, id=note_id, title=text(content, "title"), abstract=text(content, "abstract"),
        authors=texts(content.get("authors"), "authors"),
        keywords=_keywords(content.get("keywords")),
        year=venue.year or group.year or year_of_millis(note.get("pdate"))
        or year_of_millis(note.get("cdate")),
        venue=raw_venue or group.short, status=status,
        url=FORUM + quote(text(note, "forum") or note_id, safe="") if note_id else None,
        external_ids={"openreview": note_id} if note_id else {},
    )


def _value(value: Any) -> Any:
    """A content field's value: v2's {"value": x} -> x; v1's x as it is."""
    if isinstance(value, Mapping) and "value" in value:
        return value["value"]
    return value


def _is_value(value: Any) -> bool:
    return isinstance(value, Mapping) and "value" in value


def _keywords(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return texts(value, "keywords")


def _group(note: Mapping[str, Any], content: Mapping[str, Any]) -> Venue:
    """The venue the note's venue id or invitation names ("ICLR.cc/2018/Conference/-/
    Blind_Submission" -> ICLR 2018, status Submitted)."""
    venueid = content.get("venueid")
    invitations = note.get("invitations")
    candidates = [venueid, note.get("invitation"),
                  *(invitations if isinstance(invitations, list) else [])]
    for candidate in candidates:
        if isinstance(candidate, str) and candidate:
            words = candidate.replace(".cc/", " ").replace("/-/", " ").replace("/", " ")
            found = venue_of(words.replace("_", " "))
            if found.full is not None:
                return found
    return Venue(None)


def _status(note: Mapping[str, Any], content: Mapping[str, Any], venue: Venue,
            group: Venue) -> str | None:
    """The note's status, from the strongest evidence it carries (the module's list)."""
    decision = _decision(note)
    if decision is not None:
        return decision
    venueid = content.get("venueid")
    by_id = None
    if isinstance(venueid, str) and venueid:
        found = status_of(venueid.rsplit("/", 1)[-1].replace("_", " "))
        by_id = found.status if found else ACCEPTED
        if by_id != ACCEPTED:
            return by_id
    if venue.status:
        return venue.status
    if by_id == ACCEPTED or (venue.full is not None and venue.year is not None):
        return ACCEPTED
    return group.status


def _decision(note: Mapping[str, Any]) -> str | None:
    """The status a decision among the note's replies states, if it has one."""
    details = note.get("details")
    if not isinstance(details, Mapping):
        return None
    replies = details.get("directReplies") or details.get("replies")
    for reply in objects(replies, "replies")[:MAX_REPLIES]:
        names = reply.get("invitations") or [reply.get("invitation")]
        if not isinstance(names, list):
            continue
        if any(isinstance(name, str) and name.endswith("Decision") for name in names):
            decision = _value(member(reply, "content", "decision"))
            if isinstance(decision, str) and (found := status_of(decision)):
                return found.status
    return None

