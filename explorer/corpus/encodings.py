"""The bytes of a reference list or corpus file -> text, read in the encoding the file declares.

A file declares its encoding by a byte order mark (UTF-8, UTF-16 or UTF-32, either byte order)
or, for BibTeX, by JabRef's header line (`% Encoding: windows-1252`, among the comment lines
that start the file). A file that declares nothing is read as UTF-8. A file that is not what it
declares, or that declares nothing and is not UTF-8, is refused with a CorpusError that names
its line, the encoding it seems to be in (UTF-16 without a byte order mark by its zero bytes;
otherwise charset_normalizer's guess, read from a sample), and how to convert it. Zero bytes in
anything else mean a binary file, refused as one.

The work is bounded: a declaration is looked for in the first HEAD bytes, the guess reads at
most SAMPLE bytes, and decoding is one linear pass.
"""

from __future__ import annotations

import codecs
import re

from explorer.errors import CorpusError

__all__ = ["HEAD", "SAMPLE", "decode"]
HEAD = 4096
SAMPLE = 65536
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))  # UTF-32 LE first: its mark starts like UTF-16 LE's
_HEADER = re.compile(r"%[ \t]*encoding:[ \t]*([A-Za-z0-9._:-]{1,40})[ \t]*", re.IGNORECASE)
_NOT_CHARSETS = {"idna", "punycode", "unicode_escape", "raw_unicode_escape", "undefined",
                 "utf_7"}
_LIKELY = ("cp1252", "cp1250", "cp1251", "cp1253", "cp1254", "cp1257", "iso8859_2",
           "iso8859_15", "koi8_r", "mac_roman", "gb18030", "big5", "cp932", "euc_jp", "cp949",
           "utf_16_le", "utf_16_be")  # what bibliographies are saved in besides UTF-8
_PLAIN = {"cp1252": ("windows-1252", "Western European"), "gb18030": ("GB18030", "Chinese"),
          "gbk": ("GBK", "Chinese"), "gb2312": ("GB2312", "Chinese"),
          "big5": ("Big5", "Chinese"), "cp932": ("Shift_JIS", "Japanese"),
          "shift_jis": ("Shift_JIS", "Japanese"), "euc_jp": ("EUC-JP", "Japanese"),
          "euc_jis_2004": ("EUC-JP", "Japanese"), "cp949": ("EUC-KR", "Korean"),
          "euc_kr": ("EUC-KR", "Korean"), "cp1251": ("windows-1251", "Cyrillic"),
          "koi8_r": ("KOI8-R", "Cyrillic"), "cp1250": ("windows-1250", "Central European"),
          "latin_1": ("ISO-8859-1", "Western European"),
          "iso8859_2": ("ISO-8859-2", "Central European"), "mac_roman": ("MacRoman", "Mac")}


def decode(raw: bytes, where: str, *, bibtex: bool = False) -> str:
    """`raw` as text (a byte order mark dropped); `where` names the file in messages;
    `bibtex`: a JabRef `% Encoding:` header counts as a declaration."""
    encoding, start, declared = _declared(raw, bibtex)
    if not declared and (zero := raw.find(b"\x00")) >= 0:
        if (wide := _utf16_order(raw[:HEAD])) is not None:
            raise CorpusError(f"{where}:1: not UTF-8: it seems to be {_seems(wide)}. Save the "
                              f"file as UTF-8{_convert(wide)}.")
        _binary(where, raw.count(b"\n", 0, zero) + 1)
    try:
        text = raw[start:].decode(encoding)
    except UnicodeDecodeError as exc:
        raise CorpusError(_refusal(raw, start, exc, where, encoding, declared, bibtex)) from exc
    if "\x00" in text:
        _binary(where, text.count("\n", 0, text.index("\x00")) + 1)
    return text


def _binary(where: str, line: int) -> None:
    raise CorpusError(f"{where}:{line}: a NUL byte: this is a binary file, not text. Export the "
                      "corpus or reference list as text (UTF-8).")


def _declared(raw: bytes, bibtex: bool) -> tuple[str, int, str]:
    """(encoding, where the text starts, how it was declared: 'a byte order mark', 'its
    header' or '' for nothing)."""
    for mark, encoding in _BOMS:
        if raw.startswith(mark):
            return encoding, len(mark), "a byte order mark"
    wide = _utf16_order(raw[:HEAD])
    if bibtex:
        head = raw[:HEAD].decode(wide or "latin-1", "replace")
        if (named := _header(head)) is not None and (wide is None) == (_width(named) == 1):
            return (wide or named), 0, "its header"
    return "utf-8", 0, ""


def _header(head: str) -> str | None:
    """The encoding a JabRef header names among the comment lines that start `head`."""
    for line in head.lstrip("\ufeff").splitlines()[:-1] or [head]:
        stripped = line.strip()
        if stripped and not stripped.startswith("%"):
            return None
        if match := _HEADER.fullmatch(stripped):
            try:
                found = codecs.lookup(match.group(1))
            except LookupError:
                return None
            return None if found.name.replace("-", "_") in _NOT_CHARSETS \
                or not getattr(found, "_is_text_encoding", True) else found.name
    return None


def _width(encoding: str) -> int:
    """2 for UTF-16 and UTF-32 (not readable as ASCII), else 1."""
    return 2 if encoding.replace("_", "-").startswith(("utf-16", "utf-32")) else 1


def _utf16_order(head: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when `head` reads as UTF-16 text without a byte order mark:
    mostly ASCII characters, so a zero in every other byte and almost none in the others, and
    what it reads as is text (printable characters, tabs and line ends)."""
    head = head[: len(head) // 2 * 2]
    if len(head) < 4:
        return None
    even, odd = head[0::2].count(0), head[1::2].count(0)
    pairs = len(head) // 2
    for zeros, others, order in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if zeros >= pairs // 4 and others <= zeros // 16:
            try:
                text = head.decode(order)
            except UnicodeDecodeError:
                continue  # a surrogate cut in half at the end, or not UTF-16
            shown = sum(1 for char in text if char.isprintable() or char in "\t\n\r")
            if shown >= len(text) * 0.95:
                return order
    return None


def _refusal(raw: bytes, start: int, exc: UnicodeDecodeError, where: str, encoding: str,
             declared: str, bibtex: bool) -> str:
    """The message for bytes that are not `encoding`: where, what they seem to be, the fix."""
    bad = start + exc.start
    line = raw[start:bad].decode(encoding, "replace").count("\n") + 1
    name = _plain(encoding)[0]
    problem = (f"declares {name} ({declared}) but is not valid {name} ({exc.reason})" if declared
               else f"not valid UTF-8 ({exc.reason})")
    seems = _guess(raw, bad, encoding)
    if seems is None:
        return (f"{where}:{line}: {problem}. Save the file as UTF-8 text (a binary file is not "
                "a corpus or reference list).")
    declare = (f", or name it in a first line '% Encoding: {_plain(seems)[0]}'"
               if bibtex and _width(seems) == 1 else "")
    return (f"{where}:{line}: {problem}; it seems to be {_seems(seems)}. Save the file as "
            f"UTF-8{_convert(seems)}{declare}.")


def _seems(encoding: str) -> str:
    plain, words = _plain(encoding)
    return f"{plain} ({words})" if words else plain


def _convert(encoding: str | None) -> str:
    return f" (e.g. iconv -f {_plain(encoding)[0]} -t UTF-8)" if encoding else ""


def _guess(raw: bytes, bad: int, tried: str) -> str | None:
    """The encoding `raw` seems to be in, read from SAMPLE bytes around its first bad byte."""
    if (wide := _utf16_order(raw[:HEAD])) is not None and wide != tried:
        return wide
    from charset_normalizer import from_bytes

    begin = max(0, raw.rfind(b"\n", max(0, bad - SAMPLE // 2), bad) + 1)
    sample = raw[begin:begin + SAMPLE]
    best = from_bytes(sample, cp_isolation=list(_LIKELY)).best()
    if best is None:
        return None
    # of the encodings that read the sample alike, the one _LIKELY names first
    found = min(best.could_be_from_charset, key=lambda name: _LIKELY.index(name)
                if name in _LIKELY else len(_LIKELY))
    return None if codecs.lookup(found).name == codecs.lookup(tried).name else found


def _plain(encoding: str) -> tuple[str, str]:
    """('windows-1252', 'Western European') for 'cp1252': its usual name and script."""
    name = codecs.lookup(encoding).name.replace("-", "_")
    if name in _PLAIN:
        return _PLAIN[name]
    if name.startswith(("utf_16", "utf_32")):
        order = " little-endian" if name.endswith("le") else " big-endian" if name.endswith(
            "be") else ""
        return name.replace("_", "-", 1).upper().replace("_", ""), (
            f"{order.strip()}, without a byte order mark" if order else "")
    return name.replace("_", "-").upper(), ""
