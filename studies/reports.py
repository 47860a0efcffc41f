"""A study's results written beside each other: OUT.json (the report) and OUT.md (its table)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_report(out: Path | None, report: dict[str, Any], markdown: str) -> None:
    """Write `report` as OUT.json and `markdown` as OUT.md when `out` is given."""
    if out:
        out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        out.with_suffix(".md").write_text(markdown, encoding="utf-8")
