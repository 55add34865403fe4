"""BM25 indexes on disk, keyed by the texts they index, so a process reads a corpus's index
instead of tokenising and stemming every provision again.

An entry is ``<root>/lexical/<content digest>.npz`` (the compressed-row arrays of
``bm25.SparseBM25``, read with ``allow_pickle=False``) plus a JSON manifest beside it that
holds the words in row order, written last: an entry without a manifest is unfinished and a
plain miss, and an entry whose files disagree with it is rebuilt with a warning naming it.
The digest covers the texts, the tokenisation (stemmed or not), the BM25 parameters and the
code that tokenises and indexes, so a change to any of them is a different entry, never a
stale read. There is no build lock: two workers on a cold cache may both build an entry, and
the atomic writes leave one whole.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pytest_legalbench.files.atomic_write import write_bytes_atomic, write_text_atomic
from pytest_legalbench.vectors.bm25 import EPSILON, K1, B, SparseBM25, SparseRows
from pytest_legalbench.vectors.embedding import text_digest

#: Bumped when the layout or meaning of an entry changes.
LEXICAL_FORMAT = 1

_DIGEST = re.compile(r"[0-9a-f]{8,64}")
_ARRAYS = ("starts", "texts", "weights", "idf")


class LexicalCacheWarning(UserWarning):
    """A lexical cache entry that could not be read and is rebuilt."""


@functools.cache
def _code_digest() -> str:
    """A digest of the tokenisation and BM25 code, so an edit to either is a new entry even
    when nobody bumps a version (as ``navindex.build.builder_fingerprint`` does for indexes)."""
    digest = hashlib.sha256()
    for name in ("lexical_index.py", "bm25.py"):
        digest.update((Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()[:16]


def lexical_digest(texts: Sequence[str], tokeniser: str) -> str:
    """The entry key of a BM25 index over ``texts`` tokenised as ``tokeniser`` says."""
    salt = (f"bm25 v{LEXICAL_FORMAT} code {_code_digest()} k1={K1} b={B} epsilon={EPSILON} "
            f"{tokeniser}")
    return text_digest(texts, salt=salt)


class LexicalCache:
    """Cached BM25 indexes under ``<root>/lexical/``."""

    def __init__(self, root: Path) -> None:
        self.folder = root / "lexical"

    def paths(self, digest: str) -> tuple[Path, Path]:
        """The array file and the manifest of one entry."""
        if not _DIGEST.fullmatch(digest):
            raise ValueError(f"lexical digest {digest!r} is not a lower-case hex digest")
        base = self.folder / digest
        return base.with_suffix(".npz"), base.with_suffix(".json")

    def get(self, digest: str, size: int) -> SparseBM25 | None:
        """The cached index over ``size`` texts, or None when absent or unreadable."""
        arrays_path, manifest_path = self.paths(digest)
        if not manifest_path.is_file():
            return None
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            with np.load(arrays_path, allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in _ARRAYS}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
            _warn(manifest_path, f"{type(error).__name__}: {error}")
            return None
        rows = SparseRows(starts=arrays["starts"], texts=arrays["texts"],
                          weights=arrays["weights"], idf=arrays["idf"])
        words = manifest.get("words") if isinstance(manifest, dict) else None
        problem = _mismatch(manifest, rows, words, size)
        if problem is not None or not isinstance(words, list):
            _warn(manifest_path, problem or "no words")
            return None
        return SparseBM25.from_rows(rows, [str(word) for word in words], size)

    def put(self, digest: str, index: SparseBM25) -> None:
        """Store ``index`` under ``digest``."""
        arrays_path, manifest_path = self.paths(digest)
        rows = index.rows()
        words = list(index.vocabulary)  # in row order: the vocabulary is filled in that order
        buffer = io.BytesIO()
        np.savez(buffer, starts=rows.starts, texts=rows.texts, weights=rows.weights,
                 idf=rows.idf)
        write_bytes_atomic(arrays_path, buffer.getvalue())
        write_text_atomic(manifest_path, json.dumps(
            {"format": LEXICAL_FORMAT, "size": index.size,
             "postings": int(rows.texts.shape[0]), "words": words}) + "\n")


def _mismatch(manifest: object, rows: SparseRows, words: object, size: int) -> str | None:
    if not isinstance(manifest, dict) or manifest.get("format") != LEXICAL_FORMAT:
        return f"format is not {LEXICAL_FORMAT}"
    if manifest.get("size") != size:
        return f"indexes {manifest.get('size')} texts, {size} asked for"
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words) \
            or len(set(words)) != len(words):
        return "the words are not a list of distinct strings"
    if rows.starts.shape != (len(words) + 1,) or rows.idf.shape != (len(words),):
        return "the words disagree with the arrays"
    postings = manifest.get("postings")
    if rows.texts.shape != (postings,) or rows.weights.shape != (postings,) \
            or int(rows.starts[-1]) != postings:
        return "the postings disagree with the manifest"
    if postings and (int(rows.texts.min()) < 0 or int(rows.texts.max()) >= size):
        return "a posting names a text outside the index"
    return None


def _warn(manifest: Path, problem: str) -> None:
    warnings.warn(LexicalCacheWarning(f"{manifest}: {problem}; rebuilding the BM25 index"),
                  stacklevel=3)
