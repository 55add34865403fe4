"""Embedding vectors on disk, keyed by model and content, so a corpus is embedded once.

An entry is ``<root>/embeddings/<model digest>/<content digest>.npy`` (float32, read with
``allow_pickle=False``) plus a JSON manifest beside it. The manifest is written last, so an
entry without one is unfinished and a plain miss; an entry whose files disagree is rebuilt
with a warning naming it.
"""

from __future__ import annotations

import io
import json
import re
import warnings
from pathlib import Path

import numpy as np

from pytest_legalbench.files.atomic_write import write_bytes_atomic, write_text_atomic
from pytest_legalbench.vectors.embedding import EmbeddedTexts

#: Bumped when the layout or meaning of an entry changes.
CACHE_FORMAT = 1

_DIGEST = re.compile(r"[0-9a-f]{8,64}")


class VectorCacheWarning(UserWarning):
    """A vector cache entry that could not be read and is recomputed."""


class VectorCache:
    """Cached embeddings under ``<root>/embeddings/``."""

    def __init__(self, root: Path) -> None:
        self.folder = root / "embeddings"

    def paths(self, model_digest: str, content_digest: str) -> tuple[Path, Path]:
        """The vector file and manifest file of one entry."""
        for name, value in (("model", model_digest), ("content", content_digest)):
            if not _DIGEST.fullmatch(value):
                raise ValueError(f"{name} digest {value!r} is not a lower-case hex digest")
        base = self.folder / model_digest / content_digest
        return base.with_suffix(".npy"), base.with_suffix(".json")

    def get(self, model_digest: str, content_digest: str, count: int) -> EmbeddedTexts | None:
        """The cached vectors of ``count`` texts, or None when absent or unreadable."""
        vectors_path, manifest_path = self.paths(model_digest, content_digest)
        if not manifest_path.is_file():
            return None
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            vectors = np.load(vectors_path, allow_pickle=False)
        except (OSError, ValueError) as error:
            _warn(manifest_path, f"{type(error).__name__}: {error}")
            return None
        problem = _mismatch(manifest, vectors, count)
        if problem is not None:
            _warn(manifest_path, problem)
            return None
        return EmbeddedTexts(vectors, int(manifest["windowed"]))

    def entries(self, model_digest: str) -> dict[str, EmbeddedTexts]:
        """Every readable entry of one model, by content digest."""
        found: dict[str, EmbeddedTexts] = {}
        for manifest in sorted((self.folder / model_digest).glob("*.json")):
            try:
                count = int(json.loads(manifest.read_text(encoding="utf-8"))["count"])
            except (OSError, ValueError, KeyError, TypeError):
                continue
            entry = self.get(model_digest, manifest.stem, count)
            if entry is not None:
                found[manifest.stem] = entry
        return found

    def put(self, model_digest: str, content_digest: str, embedded: EmbeddedTexts, *,
            model: str, labels: tuple[str, ...]) -> None:
        """Store ``embedded``; ``labels`` name the texts (node ids) for a reader of the cache."""
        vectors_path, manifest_path = self.paths(model_digest, content_digest)
        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(embedded.vectors, dtype=np.float32),
                allow_pickle=False)
        manifest = {
            "format": CACHE_FORMAT, "model": model, "model_digest": model_digest,
            "content_digest": content_digest, "count": int(embedded.vectors.shape[0]),
            "dimension": int(embedded.vectors.shape[1]), "dtype": "float32",
            "windowed": embedded.windowed, "labels": list(labels),
        }
        try:
            write_bytes_atomic(vectors_path, buffer.getvalue())
            write_text_atomic(manifest_path, json.dumps(manifest, indent=1) + "\n")
        except OSError as error:
            # The cache only saves time: an unwritable cache must not fail retrieval.
            warnings.warn(f"embedding cache entry {manifest_path} not stored: {error}",
                          VectorCacheWarning, stacklevel=2)


def _mismatch(manifest: object, vectors: np.ndarray, count: int) -> str | None:
    """What is wrong with an entry, or None when manifest and vectors agree."""
    if not isinstance(manifest, dict) or manifest.get("format") != CACHE_FORMAT:
        return f"manifest is not format {CACHE_FORMAT}"
    windowed = manifest.get("windowed")
    if isinstance(windowed, bool) or not isinstance(windowed, int) or windowed < 0:
        return f"manifest field 'windowed' is {windowed!r}, not a count"
    if vectors.dtype != np.float32 or vectors.ndim != 2:
        return f"vectors are {vectors.dtype} of {vectors.ndim} dimensions, not a float32 matrix"
    if vectors.shape != (count, manifest.get("dimension")) or manifest.get("count") != count:
        return f"vectors have shape {vectors.shape}; expected {count} rows"
    if not np.isfinite(vectors).all():
        return "vectors hold non-finite values"
    return None


def _warn(path: Path, reason: str) -> None:
    warnings.warn(f"embedding cache entry {path} is unreadable and will be recomputed: "
                  f"{reason}", VectorCacheWarning, stacklevel=3)
