"""The citation formats an export offers (the CLI's `--format`, the app's download buttons)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from explorer.corpus.papers import Paper
from explorer.features.exports.ui_bibtex import to_bibtex
from explorer.features.exports.ui_csl import to_csl_json
from explorer.features.exports.ui_tagged import to_ris
from explorer.query.engine import Hit

ABSTRACT_LABEL = "Abstracts in citations"
ABSTRACT_HELP = ("Write each paper's abstract into the BibTeX, RIS and CSL-JSON files "
                 "(off: shorter files, as most reference lists want them).")


@dataclass(frozen=True)
class Format:
    """A citation format: its `--format` name, button label, file suffix, MIME type and writer
    (items, abstract=...) -> text."""

    name: str
    label: str
    suffix: str
    mime: str
    write: Callable[..., str]


FORMATS = (
    Format("bibtex", "BibTeX", "bib", "application/x-bibtex", to_bibtex),
    Format("ris", "RIS", "ris", "application/x-research-info-systems", to_ris),
    Format("csl-json", "CSL-JSON", "json", "application/vnd.citationstyles.csl+json", to_csl_json),
)
FORMAT_NAMES = tuple(f.name for f in FORMATS)


def format_named(name: str) -> Format:
    """The format called `name` ("bibtex", "ris", "csl-json"); a ValueError for another."""
    for candidate in FORMATS:
        if candidate.name == name:
            return candidate
    raise ValueError(f"unknown citation format {name!r}: use one of {', '.join(FORMAT_NAMES)}")


def export_text(items: Sequence[Hit | Paper], name: str, *, abstract: bool = False) -> str:
    """`items` in the citation format `name`."""
    return format_named(name).write(items, abstract=abstract)
