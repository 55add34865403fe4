"""Bytes to text for documents: encoding detection, binary and empty checks, line endings."""

from __future__ import annotations

import codecs
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.html_text import html_to_text

#: File suffixes (lower case) whose content is HTML markup.
HTML_SUFFIXES = (".htm", ".html")

#: Share of control characters above which content counts as binary.
_CONTROL_SHARE_LIMIT = 0.05

# Control characters that plain text does carry: tab, line feed, vertical tab, form feed, return,
# and the DOS end-of-file mark some old EDGAR texts end with.
_TEXT_CONTROLS = frozenset(b"\t\n\x0b\x0c\r\x1a")
_CONTROL = re.compile("[" + "".join(re.escape(chr(c)) for c in [*range(32), 0x7F]
                                     if c not in _TEXT_CONTROLS) + "]")

# Byte order marks, longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Only the start of a file is searched for a declaration, as browsers do.
_SNIFF_BYTES = 4096
_META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._:-]+)", re.IGNORECASE)

# A tag, end tag, comment or declaration: what tells HTML from plain text.
_MARKUP = re.compile(r"<[A-Za-z!/?]")

# Labels that browsers decode as windows-1252 (the WHATWG encoding standard); EDGAR pages
# declaring ISO-8859-1 routinely carry cp1252 curly quotes in bytes 0x80-0x9F.
_CP1252_CODECS = frozenset({"iso8859-1", "ascii", "cp1252"})


@dataclass(frozen=True)
class DecodedText:
    """A document's text and what decoding it noticed."""

    text: str
    sha256: str
    """Hex digest of the raw bytes the text was decoded from."""
    warnings: tuple[str, ...]


def decode_document(data: bytes, name: str, *, declared_encoding: str | None = None) -> DecodedText:
    """Decode a document's bytes to text with ``\\n`` line endings, or raise CorpusError."""
    _reject_unusable(data, name)
    text, warnings = _decode(data, name, declared_encoding)
    _reject_binary_text(text, name)
    if not text.strip():
        raise CorpusError(f"{name}: empty document (only whitespace)")
    return DecodedText(
        text=_normalise_newlines(text),
        sha256=hashlib.sha256(data).hexdigest(),
        warnings=tuple(warnings),
    )


def read_document(path: Path, *, name: str | None = None) -> DecodedText:
    """Read a ``.txt`` (or any text) or ``.htm``/``.html`` file as plain text."""
    label = name or str(path)
    where = str(path) if name is None else f"{name} ({path})"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(f"{where}: file not found") from None
    except IsADirectoryError:
        raise CorpusError(f"{where}: is a directory, not a document") from None
    except OSError as exc:
        raise CorpusError(f"{where}: cannot read: {exc.strerror or exc}") from None
    if path.suffix.lower() not in HTML_SUFFIXES:
        return decode_document(data, label)
    decoded = decode_document(data, label, declared_encoding=declared_charset(data))
    if not _MARKUP.search(decoded.text):
        # Some filings named .htm hold plain text; parsing it as HTML would merge its lines.
        return decoded
    text = html_to_text(decoded.text)
    if not text:
        raise CorpusError(f"{label}: HTML document has no text outside its markup")
    return DecodedText(text=text, sha256=decoded.sha256, warnings=decoded.warnings)


def declared_charset(data: bytes) -> str | None:
    """Return the encoding an HTML or XML file declares near its start, if any."""
    head = data[:_SNIFF_BYTES]
    match = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    return match.group(1).decode("ascii") if match else None


def _reject_unusable(data: bytes, name: str) -> None:
    """Raise CorpusError for empty content, or NUL bytes outside UTF-16/32 text."""
    if not data:
        raise CorpusError(f"{name}: empty document (no content)")
    bom = _byte_order_mark(data)
    if b"\x00" in data and (bom is None or bom[0] == "utf-8"):
        raise CorpusError(f"{name}: binary file (contains NUL bytes), not a text document")


def _reject_binary_text(text: str, name: str) -> None:
    """Raise CorpusError when a high share of the decoded characters are control codes."""
    # Counted by a compiled pattern: str.translate with a deletion table walked every
    # character in Python-level lookups, most of reading a profile of hundreds of contracts.
    controls = sum(1 for _ in _CONTROL.finditer(text))
    if controls > _CONTROL_SHARE_LIMIT * len(text):
        raise CorpusError(
            f"{name}: binary file ({controls} of {len(text)} characters are control codes), "
            "not a text document"
        )


def _byte_order_mark(data: bytes) -> tuple[str, int] | None:
    """Return the encoding a leading byte order mark names and the mark's length."""
    for mark, encoding in _BOMS:
        if data.startswith(mark):
            return encoding, len(mark)
    return None


def _decode(data: bytes, name: str, declared: str | None) -> tuple[str, list[str]]:
    """Decode by byte order mark, then declared encoding, then UTF-8, then cp1252."""
    warnings: list[str] = []
    bom = _byte_order_mark(data)
    if bom is not None:
        encoding, skip = bom
        try:
            return data[skip:].decode(encoding), warnings
        except UnicodeDecodeError as exc:
            if encoding == "utf-8":
                return _decode_cp1252(data[skip:], name, skip + exc.start, warnings), warnings
            warnings.append(
                f"{name}: starts with a {encoding} byte order mark but is not valid {encoding} "
                f"(first bad byte at offset {skip + exc.start}); bad bytes replaced with U+FFFD"
            )
            return data[skip:].decode(encoding, errors="replace"), warnings
    codec = _usable_encoding(declared, name, warnings)
    if codec not in (None, "utf-8", "cp1252"):
        try:
            return data.decode(codec), warnings
        except UnicodeDecodeError as exc:
            warnings.append(
                f"{name}: not valid {declared} as declared (bad byte at offset {exc.start}); "
                "decoding as UTF-8 instead"
            )
        except LookupError:
            # Codec names such as "hex" exist but convert bytes to bytes, not to text.
            warnings.append(f"{name}: declares {declared!r}, not a text encoding; ignoring it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        utf8_error = None if codec == "cp1252" else exc.start
        return _decode_cp1252(data, name, utf8_error, warnings), warnings
    # Bytes that are valid UTF-8 and not plain ASCII are almost never cp1252 text, so UTF-8
    # wins over a Latin-1 or cp1252 declaration (common in EDGAR filings).
    if codec == "cp1252" and not text.isascii():
        warnings.append(f"{name}: declares {declared} but is valid UTF-8; read as UTF-8")
    return text, warnings


def _decode_cp1252(data: bytes, name: str, utf8_error: int | None, warnings: list[str]) -> str:
    """Decode as cp1252, replacing the five bytes it leaves undefined; note what happened.

    ``utf8_error`` is the offset of the first byte that is not UTF-8, or None when the
    document declared cp1252 (or Latin-1) itself and no warning is due for the choice.
    """
    why = "" if utf8_error is None else f"not valid UTF-8 (first bad byte at offset {utf8_error})"
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError as exc:
        warnings.append(
            f"{name}: {why + ' nor ' if why else 'not valid '}cp1252 (undefined byte at "
            f"offset {exc.start}); decoded as cp1252 with U+FFFD for undefined bytes"
        )
        return data.decode("cp1252", errors="replace")
    if why:
        warnings.append(f"{name}: {why}; decoded as cp1252")
    return text


def _usable_encoding(declared: str | None, name: str, warnings: list[str]) -> str | None:
    """Map a declared encoding label to a Python codec name, or None if it cannot be used."""
    if declared is None:
        return None
    try:
        codec = codecs.lookup(declared).name
    except LookupError:
        warnings.append(f"{name}: declares unknown encoding {declared!r}; ignoring it")
        return None
    if codec in _CP1252_CODECS:
        return "cp1252"
    if codec.startswith(("utf-16", "utf-32")):
        # A declaration readable as ASCII bytes means the file is not UTF-16/32 at all.
        return "utf-8"
    return codec


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
