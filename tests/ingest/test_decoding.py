"""Decoding document bytes: encodings, BOMs, line endings, and the errors that name the file."""

from __future__ import annotations

import codecs
import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.ingest.decoding import (
    DecodedText,
    declared_charset,
    decode_document,
    read_document,
)
from pytest_legalbench.ingest.document import CorpusError


def test_utf8_text_is_kept_and_checksummed() -> None:
    data = "Section 1.1 \u201cAffiliate\u201d means \u00a7 2(a).\n".encode()
    decoded = decode_document(data, "a.txt")
    assert decoded == DecodedText(
        text="Section 1.1 \u201cAffiliate\u201d means \u00a7 2(a).\n",
        sha256=hashlib.sha256(data).hexdigest(),
        warnings=(),
    )


def test_bom_is_stripped_but_checksum_covers_raw_bytes() -> None:
    data = codecs.BOM_UTF8 + b"ARTICLE I\n"
    decoded = decode_document(data, "bom.txt")
    assert decoded.text == "ARTICLE I\n"
    assert decoded.sha256 == hashlib.sha256(data).hexdigest()


def test_line_endings_are_normalised_and_nothing_else_changes() -> None:
    data = b"  One\t two  \r\nThree\rFour\x0c\n\n\nFive  "
    assert decode_document(data, "x.txt").text == "  One\t two  \nThree\nFour\x0c\n\n\nFive  "


def test_invalid_utf8_falls_back_to_cp1252_with_a_warning() -> None:
    data = b"Caf\xe9 \x93quoted\x94"
    decoded = decode_document(data, "legacy.txt")
    assert decoded.text == "Caf\u00e9 \u201cquoted\u201d"
    (warning,) = decoded.warnings
    assert "legacy.txt" in warning and "offset 3" in warning and "cp1252" in warning


def test_bytes_undefined_in_cp1252_are_replaced_not_fatal() -> None:
    decoded = decode_document(b"abc \x81 def \xff", "odd.txt")
    assert decoded.text == "abc \ufffd def \u00ff"
    (warning,) = decoded.warnings
    assert "odd.txt" in warning and "offset 4" in warning and "U+FFFD" in warning


def test_utf16_with_bom_is_text_not_binary() -> None:
    data = codecs.BOM_UTF16_LE + "Recitals\r\nWHEREAS".encode("utf-16-le")
    assert decode_document(data, "wide.txt").text == "Recitals\nWHEREAS"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "empty"),
        (b" \r\n\t\n", "empty"),
        (codecs.BOM_UTF8 + b"\n  ", "empty"),
        (b"PK\x03\x04\x00\x00 zip archive", "binary file"),
        (bytes(range(1, 9)) * 20 + b"some text", "binary file"),
    ],
)
def test_unusable_content_is_rejected_naming_the_file(data: bytes, problem: str) -> None:
    with pytest.raises(CorpusError, match=problem) as info:
        decode_document(data, "deals/exhibit.txt")
    assert "deals/exhibit.txt" in str(info.value)


def test_a_few_control_characters_do_not_make_a_file_binary() -> None:
    data = b"Page 1\x0c\nPage 2\x0c\n" + b"text " * 50 + b"\x1b\x1a"
    assert decode_document(data, "old.txt").text.startswith("Page 1\x0c\n")


def test_declared_encoding_is_used_and_latin1_means_cp1252() -> None:
    data = b"\x93Agreement\x94 \xa7 5"
    decoded = decode_document(data, "x.htm", declared_encoding="ISO-8859-1")
    assert decoded.text == "\u201cAgreement\u201d \u00a7 5"
    assert decoded.warnings == ()


@pytest.mark.parametrize("label", ["no-such-charset", "hex"])
def test_unusable_declared_encoding_is_ignored_with_a_warning(label: str) -> None:
    decoded = decode_document("plain \u00e9".encode(), "x.htm", declared_encoding=label)
    assert decoded.text == "plain \u00e9"
    (warning,) = decoded.warnings
    assert "x.htm" in warning and label in warning


def test_utf8_wins_over_a_latin1_declaration() -> None:
    decoded = decode_document("\u2014 dash".encode(), "x.htm", declared_encoding="iso-8859-1")
    assert decoded.text == "\u2014 dash"
    (warning,) = decoded.warnings
    assert "x.htm" in warning and "iso-8859-1" in warning


def test_declared_cp1252_with_undefined_bytes_is_replaced_with_a_warning() -> None:
    decoded = decode_document(b"\x93a\x94 \x81", "x.htm", declared_encoding="windows-1252")
    assert decoded.text == "\u201ca\u201d \ufffd"
    (warning,) = decoded.warnings
    assert "x.htm" in warning and "offset 4" in warning


def test_text_not_in_its_declared_encoding_is_read_as_utf8() -> None:
    decoded = decode_document("\u0416 ok".encode(), "x.htm", declared_encoding="shift_jis")
    assert decoded.text == "\u0416 ok"
    (warning,) = decoded.warnings
    assert "shift_jis" in warning and "offset" in warning


def test_other_declared_encodings_are_honoured() -> None:
    word = "\u0416\u0438\u0437\u043d\u044c"
    assert decode_document(word.encode("koi8-r"), "ru.htm", declared_encoding="koi8-r").text == word


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'<html><head><meta charset="windows-1252"></head>', "windows-1252"),
        (b"<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=iso-8859-1'>", "iso-8859-1"),
        (b'<?xml version="1.0" encoding="UTF-8"?><html>', "UTF-8"),
        (b"<html><body><p>charset is a word here</p>", None),
    ],
)
def test_declared_charset_is_found_near_the_start(head: bytes, expected: str | None) -> None:
    assert declared_charset(head) == expected


_TEXT = st.text(st.characters(exclude_categories=("Cc", "Cs")) | st.sampled_from("\r\n\t ")).filter(
    lambda text: bool(text.strip()) and not text.startswith("\ufeff")
)


@given(_TEXT)
def test_utf8_text_round_trips_up_to_line_endings(text: str) -> None:
    decoded = decode_document(text.encode(), "p.txt")
    assert decoded.text == text.replace("\r\n", "\n").replace("\r", "\n")
    assert decoded.warnings == ()


@given(st.binary())
def test_arbitrary_bytes_decode_or_raise_corpus_error(data: bytes) -> None:
    try:
        decoded = decode_document(data, "fuzz.bin")
    except CorpusError as exc:
        assert "fuzz.bin" in str(exc)
    else:
        assert "\r" not in decoded.text and decoded.text.strip()


def test_read_text_file(tmp_path: Path) -> None:
    path = tmp_path / "contract.txt"
    path.write_bytes(b"1. Term.\r\n2. Fees.\r\n")
    decoded = read_document(path)
    assert decoded.text == "1. Term.\n2. Fees.\n"
    assert decoded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_read_html_file_honours_its_charset(tmp_path: Path) -> None:
    path = tmp_path / "ex10.HTM"
    path.write_bytes(
        b"<html><head><meta http-equiv='Content-Type' content='text/html; charset=windows-1252'>"
        b"<title>EX-10</title></head><body><p>\x93Borrower\x94</p><table><tr><td>1.1</td>"
        b"<td>Terms</td></tr></table></body></html>"
    )
    decoded = read_document(path)
    assert decoded.text == "\u201cBorrower\u201d\n\n1.1 | Terms"
    assert decoded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_read_html_without_declaration_falls_back_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(b"<p>Fee: \x80100</p>")
    decoded = read_document(path, name="deal/page")
    assert decoded.text == "Fee: \u20ac100"
    assert "deal/page" in decoded.warnings[0]


def test_html_named_file_without_markup_is_read_as_text(tmp_path: Path) -> None:
    path = tmp_path / "old.htm"
    path.write_bytes(b"1.  Term.\r\n    The term is one year & a day.\r\n")
    assert read_document(path).text == "1.  Term.\n    The term is one year & a day.\n"


def test_html_with_no_visible_text_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "blank.htm"
    path.write_bytes(b"<html><head><title>Only a title</title></head><body>&nbsp;</body></html>")
    with pytest.raises(CorpusError, match="no text") as info:
        read_document(path)
    assert str(path) in str(info.value)


def test_missing_file_and_directory_are_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    with pytest.raises(CorpusError, match="not found") as info:
        read_document(missing, name="set/nope")
    assert str(missing) in str(info.value) and "set/nope" in str(info.value)
    with pytest.raises(CorpusError, match="directory") as info:
        read_document(tmp_path)
    assert str(tmp_path) in str(info.value)


def test_unreadable_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "locked.txt"
    path.write_bytes(b"secret")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    # Patched rather than chmod-ed: root (as in CI containers) reads files whatever their mode.
    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(CorpusError, match="cannot read: Permission denied") as info:
        read_document(path)
    assert str(path) in str(info.value)


@pytest.mark.corpus
def test_every_mirrored_transaction_text_decodes_cleanly(corpus_root: Path) -> None:
    paths = sorted((corpus_root / "transactions").glob("*/*.txt"))
    assert len(paths) >= 10
    for path in paths:
        decoded = read_document(path)
        assert decoded.warnings == (), path
        assert decoded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
        assert decoded.text == path.read_text(encoding="utf-8"), path
