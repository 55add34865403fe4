"""The indexes of a corpus, built through the content-hash cache (or without it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus, builder_fingerprint
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.store import IndexCache, cache_key

Progress = Callable[[str], None]


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
