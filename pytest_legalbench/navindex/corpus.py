"""The indexes of a corpus, built through the content-hash cache (or without it)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pytest_legalbench.files.build_lock import build_lock, lock_file
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import builder_fingerprint
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.parallel_build import build_parallel
from pytest_legalbench.navindex.store import IndexCache, cache_key

Progress = Callable[[str], None]


def build_indexes(documents: Sequence[Document], *, cache_dir: Path | None,
                  progress: Progress | None = None) -> tuple[DocumentIndex, ...]:
    """Return every document's index, reusing cached builds keyed by content hash (a large
    corpus is built on every available core)."""
    if cache_dir is None:
        return build_parallel(documents, progress=progress)
    cache = IndexCache(cache_dir)
    by_id = {d.doc_id: d for d in documents}
    # Keyed by the text as well as the source bytes: the text is what a build reads, and a
    # change to how a format is read (ingest/, outside the builder's fingerprint) changes the
    # text of unchanged bytes; an index built from the old text would cut the new one wrongly.
    keys = {
        d.doc_id: cache_key(
            builder_version=builder_fingerprint(), source_sha256=d.sha256, doc_id=d.doc_id,
            options={"role": d.role, "title": d.title, "parties": "|".join(d.parties),
                     "text_sha256": _text_sha256(d)},
            dependencies={p: _text_sha256(by_id[p]) for p in d.amends if p in by_id},
        )
        for d in documents
    }
    found: dict[str, DocumentIndex] = {}
    _read_cached(cache, keys, documents, found)
    missing = [d for d in documents if d.doc_id not in found]
    if missing:
        lock = lock_file(cache_dir, f"navindex-{cache.folder.name}")
        with build_lock(lock, str(cache.folder), progress) as waited:
            if waited:
                # Another process built while this one waited: take what it stored.
                _read_cached(cache, keys, missing, found)
                before, missing = len(missing), [d for d in documents if d.doc_id not in found]
                if progress is not None:
                    progress(f"{before - len(missing)} indexes built by another process")
            _build_missing(missing, by_id, keys, cache, found, progress)
    elif progress is not None:
        progress(f"all {len(documents)} indexes found in the cache")
    return tuple(found[d.doc_id] for d in documents)


def _read_cached(cache: IndexCache, keys: Mapping[str, str], documents: Sequence[Document],
                 found: dict[str, DocumentIndex]) -> None:
    for document in documents:
        cached = cache.get(keys[document.doc_id])
        if cached is not None:
            found[document.doc_id] = cached


def _build_missing(missing: Sequence[Document], by_id: Mapping[str, Document],
                   keys: Mapping[str, str], cache: IndexCache,
                   found: dict[str, DocumentIndex], progress: Progress | None) -> None:
    if not missing:
        return
    # An amendment is linked against its base, so the base is parsed alongside it.
    needed = {d.doc_id: d for d in missing}
    for document in missing:
        needed.update({p: by_id[p] for p in document.amends if p in by_id})
    for built in build_parallel(list(needed.values()), progress=progress):
        if built.doc_id in keys and built.doc_id not in found:
            cache.put(keys[built.doc_id], built)
            found[built.doc_id] = built


def _text_sha256(document: Document) -> str:
    """The digest of the text a build reads."""
    return hashlib.sha256(document.text.encode("utf-8")).hexdigest()
