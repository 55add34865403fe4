"""Value objects for ingested documents and manifest entries."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Roles a document can play in a transaction set.
ROLES = ("base", "conformed", "amendment", "schedule", "side_letter", "ancillary")


class CorpusError(ValueError):
    """A document or manifest problem; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Source:
    """Where a document was published."""

    kind: str
    """``edgar``, ``cuad`` or ``local``."""
    url: str | None = None
    accession: str | None = None
    cik: str | None = None
    file: str | None = None
    """The original file name (CUAD) or exhibit name (EDGAR)."""


@dataclass(frozen=True)
class Download:
    """A public copy of the document that can be fetched when the mirror lacks it."""

    url: str
    sha256: str
    """Checksum of the downloaded bytes."""
    format: str = "html"
    """``html`` or ``txt``: how the downloaded bytes are turned into text."""


@dataclass(frozen=True)
class ManifestEntry:
    """One document as a manifest describes it."""

    doc_id: str
    path: str
    """Path of the text relative to the profile's root inside the corpus folder."""
    title: str
    role: str
    sha256: str | None = None
    """Checksum of the file's bytes as mirrored."""
    transaction_set: str | None = None
    date: str | None = None
    amends: tuple[str, ...] = ()
    parties: tuple[str, ...] = ()
    source: Source | None = None
    license: str | None = None
    download: Download | None = None


@dataclass(frozen=True)
class Manifest:
    """A profile: a named set of documents under one root of the corpus folder."""

    profile: str
    root: str
    """Folder of the documents, relative to the corpus directory."""
    documents: tuple[ManifestEntry, ...]
    description: str = ""
    format: int = 1


@dataclass(frozen=True)
class Document:
    """An ingested document: its text and what is known about it."""

    doc_id: str
    title: str
    text: str
    role: str = "base"
    path: str = ""
    """Where the text was read from."""
    sha256: str = ""
    """Checksum of the bytes the text was decoded from."""
    transaction_set: str | None = None
    date: str | None = None
    amends: tuple[str, ...] = ()
    parties: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default=(), compare=False)
