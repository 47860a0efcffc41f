"""Reference lists in the encoding they declare (a byte order mark, JabRef's `% Encoding:`
header), and plain words for those that declare nothing and are not UTF-8: which encoding they
seem to be in and how to convert them. Both readers: the build's (read_corpus) and the upload's
(read_references)."""

from __future__ import annotations

import codecs
import time
from pathlib import Path

import pytest

from explorer.corpus.encodings import decode
from explorer.corpus.papers import read_corpus
from explorer.corpus.references import read_references
from explorer.errors import CorpusError

ENTRY = "@article{muller2020,\n  author = {Jörg Müller and Zoë Fernández},\n" \
        "  title = {Über die Größe der Straßen in Köln},\n  year = {2020},\n}\n"
TITLE = "Über die Größe der Straßen in Köln"


def _both(tmp_path: Path, name: str, data: bytes) -> tuple[str, str]:
    """The title each reader gives for `data` saved as `name`."""
    path = tmp_path / name
    path.write_bytes(data)
    [paper] = read_corpus([path]).papers
    [entry] = read_references(data, name).entries
    return paper.title, entry.title


def _refusals(tmp_path: Path, name: str, data: bytes) -> tuple[str, str]:
    """The message each reader gives for `data` saved as `name`."""
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(CorpusError) as by_path:
        read_corpus([path])
    with pytest.raises(CorpusError) as by_upload:
        read_references(data, name)
    return str(by_path.value), str(by_upload.value)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_file_with_a_byte_order_mark_is_read_in_its_encoding(tmp_path: Path, encoding: str):
    mark = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
            "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}[encoding]
    for name in ("refs.bib", "refs.ris"):
        text = ENTRY if name.endswith(".bib") else f"TY  - JOUR\nTI  - {TITLE}\nER  - \n"
        assert _both(tmp_path, name, mark + text.encode(encoding)) == (TITLE, TITLE)


@pytest.mark.parametrize(("header", "encoding"), [
    ("% Encoding: windows-1252", "cp1252"), ("% This file was created with JabRef 2.10.\n"
                                             "% Encoding: ISO8859_1", "latin-1"),
    ("% Encoding: UTF-16LE", "utf-16-le"), ("% Encoding: UTF-16BE", "utf-16-be"),
    ("%encoding:utf8", "utf-8")])
def test_a_bib_read_in_the_encoding_its_jabref_header_names(tmp_path: Path, header, encoding):
    """JabRef's header, also in UTF-16 without a byte order mark (JabRef writes those)."""
    data = f"{header}\n\n{ENTRY}".encode(encoding)
    assert _both(tmp_path, "refs.bib", data) == (TITLE, TITLE)


def test_utf16_without_a_mark_or_header_is_named_not_called_binary(tmp_path: Path):
    data = f"TY  - JOUR\nTI  - {TITLE}\nER  - \n".encode("utf-16-le")
    for message in _refusals(tmp_path, "refs.ris", data):
        assert "binary" not in message and "UTF-16LE" in message
        assert "iconv -f UTF-16LE -t UTF-8" in message and "refs.ris:1:" in message


def test_undeclared_windows_1252_is_named_with_its_line_and_how_to_convert_it(tmp_path: Path):
    data = ("@article{plain, title = {A Plain ASCII Title}}\n" + ENTRY * 3).encode("cp1252")
    for message in _refusals(tmp_path, "refs.bib", data):
        assert "refs.bib:3: not valid UTF-8" in message and "binary" not in message
        assert "seems to be windows-1252 (Western European)" in message
        assert "iconv -f windows-1252 -t UTF-8" in message
        assert "'% Encoding: windows-1252'" in message  # a .bib can say so instead
        assert "\n" not in message


def test_a_file_that_is_not_what_its_header_declares_says_both(tmp_path: Path):
    data = ("% Encoding: UTF-8\n\n" + ENTRY * 3).encode("cp1252")
    for message in _refusals(tmp_path, "refs.bib", data):
        assert message.endswith("-t UTF-8), or name it in a first line '% Encoding: "
                                "windows-1252'.")
        assert "refs.bib:4: declares UTF-8 (its header) but is not valid UTF-8" in message


def test_chinese_in_gb18030_is_named(tmp_path: Path):
    text = "@article{wang2020,\n  author = {王小明 and 李华},\n  title = {基于深度学习的图像识别" \
           "方法研究},\n  journal = {计算机学报},\n  year = {2020},\n}\n"
    for message in _refusals(tmp_path, "refs.bib", text.encode("gb18030")):
        assert "seems to be GB18030 (Chinese)" in message


def test_a_header_names_an_encoding_only_as_the_first_comment_lines():
    late = ("@article{k, title = {x}}\n% Encoding: windows-1252\n" + ENTRY).encode("cp1252")
    with pytest.raises(CorpusError, match="not valid UTF-8"):
        decode(late, "late.bib", bibtex=True)
    for odd in ("zlib", "rot13", "unicode_escape", "no-such-codec"):  # not a text charset
        with pytest.raises(CorpusError, match="not valid UTF-8"):
            decode(f"% Encoding: {odd}\n{ENTRY}".encode("cp1252"), "odd.bib", bibtex=True)
    with pytest.raises(CorpusError, match="not valid UTF-8"):  # only BibTeX has the header
        decode(f"% Encoding: cp1252\n{ENTRY}".encode("cp1252"), "refs.ris")


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
                                  b"@article{k, title = {T}}\n\x00\x01\x02\x03" * 20,
                                  b"\x00\x01binary"])
def test_real_binaries_are_still_called_binary(tmp_path: Path, data: bytes):
    for message in _refusals(tmp_path, "refs.bib", data):
        assert "binary file" in message and "UTF-16" not in message


def test_guessing_an_encoding_reads_a_bounded_sample_of_a_big_file():
    """50 MB (the upload limit) of windows-1252 with its first bad byte at the very end: the
    refusal names the line and the encoding without reading the whole file into the guess."""
    data = b"@article{k, title = {A Plain Title}}\n" * 1_400_000 + "é".encode("cp1252")
    started = time.perf_counter()
    with pytest.raises(CorpusError, match=r"big\.bib:1400001: .*windows-1252"):
        decode(data, "big.bib", bibtex=True)
    assert time.perf_counter() - started < 10  # about 1 s; charset_normalizer on all: 20 s
