"""A matrix of unit vectors over labelled texts, built through the on-disk cache, and cosine
scores of a question against it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from .base import SCORE_PRECISION
from .embedding import POOLING_SIGNATURE, EmbeddedTexts, Embedder, text_digest
from .vector_cache import VectorCache

#: One cache entry's worth of texts (one document's): (label, text) pairs.
Group = Sequence[tuple[str, str]]


@dataclass(frozen=True, eq=False)
class DenseIndex:
    """Unit vectors of labelled texts, row ``i`` for ``labels[i]``."""

    embedder: Embedder
    labels: tuple[str, ...]
    vectors: NDArray[np.float32]
    windowed: int
    """How many texts were longer than the model's window (embedded in windows)."""
    groups_cached: int
    """How many groups were read from the cache rather than embedded."""

    @classmethod
    def build(cls, embedder: Embedder, groups: Sequence[Group],
              cache_dir: Path | None) -> DenseIndex:
        """Embed every group's texts, reading and filling the cache when one is given."""
        cache = VectorCache(cache_dir) if cache_dir is not None else None
        found: dict[int, EmbeddedTexts] = {}
        digests = [text_digest([text for _, text in group], salt=POOLING_SIGNATURE) for group in groups]
        if cache is not None:
            for number, (group, digest) in enumerate(zip(groups, digests)):
                cached = cache.get(embedder.digest, digest, len(group)) if group else None
                if cached is not None:
                    found[number] = cached
        missing = [n for n, group in enumerate(groups) if group and n not in found]
        if missing:
            # One embedding call over every missing group: the model batches across them.
            texts = [text for n in missing for _, text in groups[n]]
            vectors, window_counts = embedder.embed_counted(texts)
            first = 0
            for number in missing:
                end = first + len(groups[number])
                windowed = sum(count > 1 for count in window_counts[first:end])
                found[number] = EmbeddedTexts(vectors[first:end], windowed)
                first = end
                if cache is not None:
                    cache.put(embedder.digest, digests[number], found[number],
                              model=str(embedder.folder),
                              labels=tuple(label for label, _ in group))
        labels = tuple(label for group in groups for label, _ in group)
        parts = [found[n].vectors for n in sorted(found)]
        vectors = (np.concatenate(parts).astype(np.float32) if parts
                   else np.zeros((0, 1), dtype=np.float32))
        return cls(embedder, labels, vectors, sum(e.windowed for e in found.values()),
                   len(found) - len(missing))

    def cosine(self, question: str) -> NDArray[np.float64]:
        """Cosine of ``question`` against every row, rounded to the fixed precision."""
        if not self.labels:
            return np.zeros(0, dtype=np.float64)
        query = self.embedder.embed([question]).vectors[0]
        scores: NDArray[np.float64] = self.vectors.astype(np.float64) @ query.astype(np.float64)
        return np.round(scores, SCORE_PRECISION)
