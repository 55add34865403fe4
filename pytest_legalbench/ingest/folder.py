"""Finding the documents in a folder of the user's own instruments."""

from __future__ import annotations

from pathlib import Path

from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import CorpusError

#: File extensions read as documents (compared case-insensitively).
DOCUMENT_SUFFIXES = (".txt", ".htm", ".html")


def _hidden(relative: Path) -> bool:
    # A leading "_" or "." marks a folder or file the user keeps beside the documents
    # (originals, notes, editor files), so it is left out at any depth.
    return any(part.startswith(("_", ".")) for part in relative.parts)


def relative_name(path: Path, root: Path) -> str:
    """Return ``path`` relative to ``root`` with forward slashes (the input of doc_id_for)."""
    return path.relative_to(root).as_posix()


def scan_folder(root: Path) -> tuple[Path, ...]:
    """List the documents under ``root`` recursively, sorted by relative path.

    Raises CorpusError when ``root`` is not a folder, holds no documents, or two files
    would get the same doc id.
    """
    if not root.is_dir():
        raise CorpusError(f"{root}: not a folder of documents")
    found: list[tuple[str, Path]] = []
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if _hidden(relative) or path.suffix.lower() not in DOCUMENT_SUFFIXES:
            continue
        if path.is_file():
            found.append((relative.as_posix(), path))
    if not found:
        raise CorpusError(
            f"{root}: no documents found (looked for {', '.join(DOCUMENT_SUFFIXES)} files, "
            "skipping names that start with '_' or '.')"
        )
    found.sort()
    owners: dict[str, str] = {}
    for relative_text, _ in found:
        try:
            doc_id = doc_id_for(relative_text)
        except ValueError as exc:
            raise CorpusError(f"{root / relative_text}: {exc}") from None
        if doc_id in owners:
            raise CorpusError(
                f"{root}: {owners[doc_id]!r} and {relative_text!r} both map to doc id "
                f"{doc_id!r}; rename one of them"
            )
        owners[doc_id] = relative_text
    return tuple(path for _, path in found)
