"""Question vectors looked up before the embedding model is loaded: in the vector cache, then
in the vector record beside the cassettes, both keyed by model digest and question digest.

A question asked before (or recorded) costs a file read instead of loading torch; a new or
changed question is embedded and stored in the cache for the next run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from pytest_legalbench.vectors.embedding import Embedder, query_digest
from pytest_legalbench.vectors.vector_cache import VectorCache
from pytest_legalbench.vectors.vector_record import VectorRecord


class QueryVectors:
    """The unit vector of each question for one embedder, computed at most once per cache."""

    def __init__(self, embedder: Embedder, cache_dir: Path | None,
                 record_dir: Path | None) -> None:
        self.embedder = embedder
        self.cache = VectorCache(cache_dir) if cache_dir is not None else None
        self.record = (VectorRecord(record_dir, embedder.digest) if record_dir is not None
                       else None)
        self._seen: dict[str, NDArray[np.float32]] = {}

    def vector(self, question: str) -> NDArray[np.float32]:
        """The question's unit vector: stored, else embedded (and stored in the cache)."""
        digest = query_digest(question)
        if digest not in self._seen:
            stored = self._stored(digest)
            self._seen[digest] = (stored if stored is not None
                                  else self._embedded(question, digest))
        return self._seen[digest]

    def _stored(self, digest: str) -> NDArray[np.float32] | None:
        found = (self.cache.get(self.embedder.digest, digest, 1)
                 if self.cache is not None else None)
        if found is None and self.record is not None:
            found = self.record.get(digest, 1)
        return found.vectors[0] if found is not None else None

    def _embedded(self, question: str, digest: str) -> NDArray[np.float32]:
        embedded = self.embedder.embed([question])
        if self.cache is not None:
            self.cache.put(self.embedder.digest, digest, embedded,
                           model=str(self.embedder.folder), labels=("query",))
        vector: NDArray[np.float32] = embedded.vectors[0]
        return vector
