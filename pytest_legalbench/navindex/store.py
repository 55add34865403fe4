"""The dual navindex files of a document on disk, and the content-hash cache of built indexes."""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.navindex.json_forms import readable_json
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.navindex.schema import DEFAULT_RUNG, FORMAT_VERSION, IndexFormatError, Rung
from pytest_legalbench.navindex.serialise import document_from_files, full_document, index_document

INDEX_SUFFIX = ".index.json"
FULL_SUFFIX = ".full.json"

# A doc id becomes part of a file name, so it may not hold separators or start with a dot.
_SAFE_DOC_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_CACHE_KEY = re.compile(r"[0-9a-f]{64}")

#: What a cache key may be told about the build options: plain JSON scalars.
OptionValue = str | int | float | bool | None


class CacheEntryWarning(UserWarning):
    """A cache entry that could not be read and is rebuilt."""


def index_path(folder: Path, doc_id: str) -> Path:
    """Return the path of ``doc_id``'s index file in ``folder``."""
    return folder / f"{_checked_doc_id(doc_id)}{INDEX_SUFFIX}"


def full_path(folder: Path, doc_id: str) -> Path:
    """Return the path of ``doc_id``'s full file in ``folder``."""
    return folder / f"{_checked_doc_id(doc_id)}{FULL_SUFFIX}"


def save_document(
    index: DocumentIndex,
    folder: Path,
    rung: Rung = DEFAULT_RUNG,
    *,
    full_summary: Callable[[Node], str] | None = None,
) -> tuple[Path, Path]:
    """Write ``index`` as its index file (at ``rung``) and full file; return both paths."""
    index_file, full_file = index_path(folder, index.doc_id), full_path(folder, index.doc_id)
    surface = index_document(index, rung, full_summary=full_summary)
    # The full file goes first, so an index file always has its full file beside it; the
    # index file is what marks the pair complete.
    write_text_atomic(full_file, readable_json(full_document(index)) + "\n")
    write_text_atomic(index_file, readable_json(surface) + "\n")
    return index_file, full_file


def load_document(folder: Path, doc_id: str) -> DocumentIndex:
    """Read ``doc_id``'s index and full files from ``folder`` and rebuild its DocumentIndex."""
    index_file, full_file = index_path(folder, doc_id), full_path(folder, doc_id)
    index_json, full_json = _read_json(index_file), _read_json(full_file)
    try:
        document = document_from_files(index_json, full_json)
    except IndexFormatError as exc:
        raise type(exc)(f"{index_file} with {full_file.name}: {exc}") from exc
    if document.doc_id != doc_id:
        raise IndexFormatError(f"{index_file}: holds doc id {document.doc_id!r}, not {doc_id!r}")
    return document


def cache_key(
    *,
    builder_version: str,
    source_sha256: str,
    doc_id: str,
    options: Mapping[str, OptionValue] | None = None,
    dependencies: Mapping[str, str] | None = None,
) -> str:
    """Return the sha256 naming a build: format, builder, source, options and dependencies.

    ``dependencies`` maps the doc id of each document the build reads (an amendment's base,
    whose nodes its cross-references resolve into) to a digest of that document (the sha256
    of its text, as ``build_indexes`` passes it).
    """
    material = {
        "formatVersion": FORMAT_VERSION,
        "builderVersion": builder_version,
        "sourceSha256": source_sha256,
        "docId": doc_id,
        "options": dict(options or {}),
        "dependencies": dict(dependencies or {}),
    }
    canonical = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class IndexCache:
    """Built document indexes under ``<root>/navindex/v<FORMAT_VERSION>/<key>/``."""

    def __init__(self, root: Path) -> None:
        self.folder = root / "navindex" / f"v{FORMAT_VERSION}"

    def entry_folder(self, key: str) -> Path:
        """Return the folder of the entry named ``key``."""
        if not _CACHE_KEY.fullmatch(key):
            raise ValueError(f"cache key {key!r} is not a lower-case sha256 hex digest")
        return self.folder / key

    def get(self, key: str) -> DocumentIndex | None:
        """Return the cached index under ``key``, or None when absent or unreadable."""
        folder = self.entry_folder(key)
        try:
            marks = sorted(folder.glob(f"*{INDEX_SUFFIX}"))
        except OSError as exc:
            _warn_unreadable(folder, f"cannot list it ({exc})")
            return None
        if not marks:
            # No index file: never written, or a writer has not finished; a plain miss.
            return None
        if len(marks) > 1:
            _warn_unreadable(folder, f"it holds {len(marks)} index files")
            return None
        try:
            return load_document(folder, marks[0].name[: -len(INDEX_SUFFIX)])
        except (OSError, ValueError, RecursionError) as exc:
            _warn_unreadable(folder, f"{type(exc).__name__}: {exc}")
            return None

    def put(self, key: str, index: DocumentIndex) -> None:
        """Store ``index`` under ``key``, replacing whatever the entry held."""
        folder = self.entry_folder(key)
        keep = {index_path(folder, index.doc_id), full_path(folder, index.doc_id)}
        # Files of another doc id can only be debris of a corrupt entry; they would make the
        # entry ambiguous, so they go. Temporary files of a concurrent writer are left alone.
        for stale in (*folder.glob(f"*{INDEX_SUFFIX}"), *folder.glob(f"*{FULL_SUFFIX}")):
            if stale not in keep:
                stale.unlink(missing_ok=True)
        save_document(index, folder)

    def get_or_build(self, key: str, build: Callable[[], DocumentIndex]) -> DocumentIndex:
        """Return the cached index under ``key``, building and storing it on a miss."""
        cached = self.get(key)
        if cached is not None:
            return cached
        built = build()
        try:
            self.put(key, built)
        except OSError as exc:
            # The cache only saves time; an unwritable cache must not fail the build.
            warnings.warn(f"navindex cache entry {key} not stored: {exc}", CacheEntryWarning,
                          stacklevel=2)
        return built


def _warn_unreadable(folder: Path, reason: str) -> None:
    warnings.warn(
        f"navindex cache entry {folder} is unreadable and will be rebuilt: {reason}",
        CacheEntryWarning,
        stacklevel=3,
    )


def _checked_doc_id(doc_id: str) -> str:
    if not _SAFE_DOC_ID.fullmatch(doc_id):
        raise ValueError(f"doc id {doc_id!r} cannot name a navindex file")
    return doc_id


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"navindex file {path} does not exist") from None
    except UnicodeDecodeError as exc:
        raise IndexFormatError(f"{path}: not UTF-8 text ({exc})") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise IndexFormatError(f"{path}: not valid JSON ({exc})") from exc
