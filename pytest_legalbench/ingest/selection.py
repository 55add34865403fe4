"""Which documents a run reads: a packaged profile from the mirror, or a folder of the
user's own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_legalbench.defaults import DEFAULT_PROFILE
from pytest_legalbench.ingest.document import CorpusError, Document
from pytest_legalbench.ingest.loading import load_folder, load_profile

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Selection:
    """Which documents to index: a packaged profile or a folder of the user's own files."""

    profile: str | None = DEFAULT_PROFILE
    docs: Path | None = None

    def describe(self) -> str:
        """Name the selection the way a report should."""
        return f"folder {self.docs}" if self.docs is not None else f"profile {self.profile}"


def load_documents(selection: Selection, *, corpus_dir: Path | None, cache_dir: Path,
                   progress: Progress | None = None,
                   skipped: Progress | None = None) -> tuple[Document, ...]:
    """Read the selected documents; problems raise CorpusError naming every bad file (of a
    folder: given ``skipped``, each bad file is reported there and the rest are read)."""
    if selection.docs is not None:
        if not selection.docs.is_dir():
            raise CorpusError(f"{selection.docs}: not a folder of documents")
        return load_folder(selection.docs, progress=progress, skipped=skipped)
    if selection.profile is None:
        raise CorpusError("select a profile (--profile NAME) or a folder (--docs DIR)")
    return load_profile(selection.profile, corpus_dir, cache_dir=cache_dir, progress=progress)
