"""A read-only record of vectors kept beside the cassettes, so that a replay whose texts are
unchanged never loads the embedding model.

One file per model, ``<folder>/<model digest>.npz``: one float32 matrix per entry, named by
the entry's content digest (the same key the vector cache uses), and a JSON header naming
the format, the model digest and each entry's windowed count. The file is a zip with a CRC
per member, so a truncated or altered file fails to read; such a file, or one made for
another model, is ignored with a warning and its vectors are computed as if it were absent.
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pytest_legalbench.files.atomic_write import write_bytes_atomic
from pytest_legalbench.vectors.embedding import EmbeddedTexts

#: The record's folder inside the cassette folder (``cassettes/vectors/``).
VECTOR_RECORD_FOLDER = "vectors"
#: Bumped when the layout or meaning of a record changes.
RECORD_FORMAT = 1
_HEADER = "header"
_PREFIX = "v_"


class VectorRecordWarning(UserWarning):
    """A vector record that could not be used; its vectors are computed instead."""


def record_path(folder: Path, model_digest: str) -> Path:
    """Where the record of one model lives in ``folder``."""
    return folder / f"{model_digest}.npz"


class VectorRecord:
    """The recorded vectors of one model, read on first use (never written at run time)."""

    def __init__(self, folder: Path, model_digest: str) -> None:
        self.path = record_path(folder, model_digest)
        self.model_digest = model_digest
        self._entries: dict[str, EmbeddedTexts] | None = None

    def entries(self) -> dict[str, EmbeddedTexts]:
        """Every entry by content digest; empty when the file is absent or unusable."""
        if self._entries is None:
            self._entries = self._read()
        return self._entries

    def get(self, content_digest: str, count: int) -> EmbeddedTexts | None:
        """The recorded vectors of ``count`` texts, or None when not recorded."""
        found = self.entries().get(content_digest)
        if found is None or found.vectors.shape[0] != count:
            return None
        return found

    def _read(self) -> dict[str, EmbeddedTexts]:
        if not self.path.is_file():
            return {}
        try:
            with np.load(self.path, allow_pickle=False) as data:
                header = json.loads(str(data[_HEADER]))
                problem = _header_problem(header, self.model_digest)
                if problem is not None:
                    _warn(self.path, problem)
                    return {}
                windowed: dict[str, int] = header["windowed"]
                entries = {digest: EmbeddedTexts(np.asarray(data[_PREFIX + digest]), count)
                           for digest, count in windowed.items()}
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as error:
            _warn(self.path, f"{type(error).__name__}: {error}")
            return {}
        for digest, entry in entries.items():
            vectors = entry.vectors
            if vectors.dtype != np.float32 or vectors.ndim != 2 \
                    or not np.isfinite(vectors).all():
                _warn(self.path, f"entry {digest} is not a finite float32 matrix")
                return {}
        return entries


def write_record(folder: Path, model_digest: str, model: str,
                 entries: Mapping[str, EmbeddedTexts]) -> Path:
    """Write the record of ``entries`` for one model (atomically); return its path."""
    header = {"format": RECORD_FORMAT, "model": model, "model_digest": model_digest,
              "windowed": {d: int(entries[d].windowed) for d in sorted(entries)}}
    arrays: dict[str, Any] = {_HEADER: np.array(json.dumps(header, sort_keys=True))}
    for digest in sorted(entries):
        arrays[_PREFIX + digest] = np.ascontiguousarray(entries[digest].vectors,
                                                        dtype=np.float32)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    path = record_path(folder, model_digest)
    write_bytes_atomic(path, buffer.getvalue())
    return path


def _header_problem(header: object, model_digest: str) -> str | None:
    if not isinstance(header, dict) or header.get("format") != RECORD_FORMAT:
        return f"not a format {RECORD_FORMAT} vector record"
    if header.get("model_digest") != model_digest:
        return (f"recorded with model {header.get('model_digest')!r}, not {model_digest!r} "
                f"(a foreign file)")
    windowed = header.get("windowed")
    if not isinstance(windowed, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for v in windowed.values()):
        return "header field 'windowed' is not a map of counts"
    return None


def _warn(path: Path, reason: str) -> None:
    warnings.warn(f"vector record {path} is not used, its vectors will be computed: {reason}",
                  VectorRecordWarning, stacklevel=4)
