"""The index of a selected corpus: documents from a profile or a folder, built through the cache."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .ingest.document import CorpusError, Document
from .ingest.loading import load_folder, load_profile
from .locations import DEFAULT_PROFILE
from .navindex.build import build_corpus, builder_fingerprint
from .navindex.node import DocumentIndex
from .navindex.store import IndexCache, cache_key

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
                   progress: Progress | None = None) -> tuple[Document, ...]:
    """Read the selected documents; problems raise CorpusError naming the file."""
    if selection.docs is not None:
        if not selection.docs.is_dir():
            raise CorpusError(f"{selection.docs}: not a folder of documents")
        return load_folder(selection.docs, progress=progress)
    if selection.profile is None:
        raise CorpusError("select a profile (--profile NAME) or a folder (--docs DIR)")
    return load_profile(selection.profile, corpus_dir, cache_dir=cache_dir, progress=progress)


def build_indexes(documents: Sequence[Document], *, cache_dir: Path | None,
                  progress: Progress | None = None) -> tuple[DocumentIndex, ...]:
    """Return every document's index, reusing cached builds keyed by content hash."""
    if cache_dir is None:
        return build_corpus(documents, progress=progress)
    cache = IndexCache(cache_dir)
    by_id = {d.doc_id: d for d in documents}
    keys = {
        d.doc_id: cache_key(
            builder_version=builder_fingerprint(), source_sha256=d.sha256, doc_id=d.doc_id,
            options={"role": d.role, "title": d.title, "parties": "|".join(d.parties)},
            dependencies={p: by_id[p].sha256 for p in d.amends if p in by_id},
        )
        for d in documents
    }
    found: dict[str, DocumentIndex] = {}
    for document in documents:
        cached = cache.get(keys[document.doc_id])
        if cached is not None:
            found[document.doc_id] = cached
    missing = [d for d in documents if d.doc_id not in found]
    if missing:
        # An amendment is linked against its base, so the base is parsed alongside it.
        needed = {d.doc_id: d for d in missing}
        for document in missing:
            needed.update({p: by_id[p] for p in document.amends if p in by_id})
        for built in build_corpus(list(needed.values()), progress=progress):
            if built.doc_id in keys and built.doc_id not in found:
                cache.put(keys[built.doc_id], built)
                found[built.doc_id] = built
    elif progress is not None:
        progress(f"all {len(documents)} indexes found in the cache")
    return tuple(found[d.doc_id] for d in documents)
