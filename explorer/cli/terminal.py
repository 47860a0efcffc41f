"""Text that is safe to print on a terminal: corpus text never acts on the user's terminal.

Corpus and index text can hold terminal escape sequences (ESC [ ..., OSC 8 hyperlinks), BEL,
backspace, CR, 8-bit C1 controls (U+0080..U+009F; U+009B is a CSI on some terminals), line and
paragraph separators and bidi overrides that reorder what is shown. `safe_text` shows each as
a visible escape (`\\x1b`, `\\u202e`); `safe_json` makes json.dumps output safe too (json.dumps
escapes C0 controls even with ensure_ascii=False, but not DEL, C1, U+2028/9 or bidi controls).
"""

from __future__ import annotations

import json
import re
from typing import Any

_BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}]")
_UNSAFE_KEEP_NEWLINES = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}]")
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f{_BIDI_AND_SEPARATORS}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every control, separator and bidi character shown as a visible escape."""
    pattern = _UNSAFE_KEEP_NEWLINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape, text)


def safe_json(value: Any, **options: Any) -> str:
    """json.dumps(value, ensure_ascii=False, **options) with DEL, C1, U+2028/9 and bidi controls
    written as \\u escapes (still valid JSON: they can only occur inside strings)."""
    text = json.dumps(value, ensure_ascii=False, **options)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
