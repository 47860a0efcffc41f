"""The versions of a hit as the CLI prints them (from its JSON record, Hit.to_dict)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def versions_text(versions: Sequence[dict[str, Any]]) -> str:
    """"also: NeurIPS 2018 Poster (nips2018:11892)" for a hit's `versions` records."""
    return "also: " + "; ".join(
        " ".join(str(v[k]) for k in ("venue", "year", "status") if v.get(k)) +
        f" ({v['paper_id']})" for v in versions)
